// A walk over two sorted lists without building their intersection:
//
//   ForEachCommon(live_in, live_out, [&](Value v) { ... });   // in both
//
// Both lists sorted ascending, without duplicates.
#ifndef REGALLOC_BASE_SORTED_LISTS_H_
#define REGALLOC_BASE_SORTED_LISTS_H_

#include <cstddef>

#include "absl/types/span.h"

namespace regalloc {

// Calls f(x) for each x in both `a` and `b`, in increasing order.
template <typename T, typename F>
void ForEachCommon(absl::Span<const T> a, absl::Span<const T> b, F&& f) {
  for (size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    if (a[i] < b[j]) {
      ++i;
    } else if (b[j] < a[i]) {
      ++j;
    } else {
      f(a[i]);
      ++i;
      ++j;
    }
  }
}

}  // namespace regalloc

#endif  // REGALLOC_BASE_SORTED_LISTS_H_
