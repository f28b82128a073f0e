#include "lsra/allocator.h"

#include "base/status_macros.h"
#include "base/warm_buffers.h"

namespace regalloc {

absl::StatusOr<LsraBuildStats> LsraAllocator::Build(Function& func, const Target& target) {
  if (func.IsAllocated()) return absl::FailedPreconditionError("the linear-scan allocator needs SSA form");
  sets_.Compute(func);
  absl::StatusOr<LsraBuildStats> s = build_.Run(target, func, sets_, options_.build);
  // Nothing reads the sets after the build (LsraBuild::LiveInto): after a
  // large function they go before allocation (base/warm_buffers.h).
  if (func.num_insts() > kWarmBufferInsts) sets_.Release();
  return s;
}

absl::StatusOr<LsraAllocStats> LsraAllocator::Allocate(Function& func, const Target& target) {
  return alloc_.Run(target, func, build_, options_.allocate);
}

absl::StatusOr<LsraResolveStats> LsraAllocator::Resolve(Function& func, const Target& target,
                                                        const LsraResolveOptions& options) {
  return resolver_.Run(target, func, build_, alloc_, options, &build_);
}

absl::StatusOr<LsraAllocatorStats> LsraAllocator::Run(Function& func, const Target& target) {
  LsraAllocatorStats s;
  RA_ASSIGN_OR_RETURN(s.build, Build(func, target));
  RA_ASSIGN_OR_RETURN(s.allocate, Allocate(func, target));
  RA_ASSIGN_OR_RETURN(s.resolve, Resolve(func, target));
  return s;
}

}  // namespace regalloc
