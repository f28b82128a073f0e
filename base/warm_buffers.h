// The policy of the allocator objects (SsaAllocator, LsraAllocator, ...) for
// their buffers. Each phase object keeps its buffers between functions, so a
// warm allocator allocates nothing on its hot path but the function's own
// growth. After a function of more than kWarmBufferInsts instructions a phase
// object gives its buffers back instead: a compiler's functions are mostly
// small, and one huge function should not leave its peak in every phase object
// while the next phase runs (the allocator's peak stays the largest phase's).
//
//   absl::StatusOr<Stats> Phase::Run(Function& f, ...) {
//     absl::StatusOr<Stats> s = Walk(f, ..., *buffers_).Run();
//     ReleaseAfterLargeFunction(f.num_insts(), buffers_);  // a std::unique_ptr<Buffers>
//     return s;
//   }
#ifndef REGALLOC_BASE_WARM_BUFFERS_H_
#define REGALLOC_BASE_WARM_BUFFERS_H_

#include <cstddef>
#include <memory>

namespace regalloc {

inline constexpr int kWarmBufferInsts = 1 << 16;

// Replaces `buffers` by fresh ones, freeing their storage, when the function
// just allocated had more than kWarmBufferInsts instructions.
template <typename Buffers>
void ReleaseAfterLargeFunction(int func_insts, std::unique_ptr<Buffers>& buffers) {
  if (func_insts > kWarmBufferInsts) buffers = std::make_unique<Buffers>();
}
// The same for buffers held by value (they must be move-assignable).
template <typename Buffers>
void ReleaseAfterLargeFunction(int func_insts, Buffers& buffers) {
  if (func_insts > kWarmBufferInsts) buffers = Buffers();
}

// Empties each buffer, keeping its storage: a phase's walk over a kept
// Buffers starts every list empty, as in a new object.
template <typename... Lists>
void ClearAll(Lists&... lists) {
  (lists.clear(), ...);
}

// Room for `n` items in each list: lists that grow together to a size known
// beforehand (at most), reserved once instead of doubling as they fill.
template <typename... Lists>
void ReserveAll(size_t n, Lists&... lists) {
  (lists.reserve(n), ...);
}

}  // namespace regalloc

#endif  // REGALLOC_BASE_WARM_BUFFERS_H_
