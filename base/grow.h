// Growing a vector by half when it is full, where std::vector doubles: for the
// arrays that reach millions of items at a million instructions (a function's
// instructions and operands, the linear scan's pieces). A vector grown by half
// keeps a quarter of its room spare on average, not a half, and moving it takes
// 2.5 times its old size at that moment, not 3.
//
//   GrowByHalf(children_, 1);
//   children_.push_back(piece);   // never doubles
#ifndef REGALLOC_BASE_GROW_H_
#define REGALLOC_BASE_GROW_H_

#include <algorithm>
#include <cstddef>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"

namespace regalloc {

// The growing itself, out of the callers' loops.
template <typename T>
ABSL_ATTRIBUTE_NOINLINE void GrowByHalfNow(std::vector<T>& v, size_t extra) {
  v.reserve(std::max(v.size() + extra, v.capacity() + v.capacity() / 2));
}

// Room for `extra` more items in `v`: when it lacks it, at least half again as
// much as it has.
template <typename T>
inline void GrowByHalf(std::vector<T>& v, size_t extra) {
  if (ABSL_PREDICT_FALSE(v.size() + extra > v.capacity())) GrowByHalfNow(v, extra);
}

}  // namespace regalloc

#endif  // REGALLOC_BASE_GROW_H_
