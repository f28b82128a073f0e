// Sorting lists that are sorted but for items a few places off, as walks in
// position order produce when an instruction's references come in operand
// order:
//
//   SortNearlySorted(absl::MakeSpan(refs), [](auto& a, auto& b) { return a.pos < b.pos; });
//
// Insertion sort, stable, linear when every item is within a few places of
// where it belongs; past a budget of 8 shifts per item it finishes with
// std::stable_sort, so an unsorted input costs O(n log n), never O(n^2).
#ifndef REGALLOC_BASE_NEARLY_SORTED_H_
#define REGALLOC_BASE_NEARLY_SORTED_H_

#include <algorithm>
#include <cstddef>

#include "absl/types/span.h"

namespace regalloc {

template <typename T, typename Less>
void SortNearlySorted(absl::Span<T> xs, Less less) {
  size_t budget = 8 * xs.size() + 64;
  for (size_t i = 1; i < xs.size(); ++i) {
    if (!less(xs[i], xs[i - 1])) continue;
    T x = xs[i];
    size_t j = i;
    while (j > 0 && less(x, xs[j - 1])) {
      xs[j] = xs[j - 1];
      --j;
      if (--budget == 0) {
        xs[j] = x;
        std::stable_sort(xs.begin(), xs.end(), less);
        return;
      }
    }
    xs[j] = x;
  }
}

}  // namespace regalloc

#endif  // REGALLOC_BASE_NEARLY_SORTED_H_
