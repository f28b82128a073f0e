#include "lsra/allocator.h"

#include "base/status_macros.h"
#include "base/warm_buffers.h"

namespace regalloc {

absl::StatusOr<LsraBuildStats> LsraAllocator::Build(Function& func, const Target& target) {
  if (func.IsAllocated()) return absl::FailedPreconditionError("the linear-scan allocator needs SSA form");
  // One control-flow graph for the verifier, the live sets, the build and
  // resolution.
  RA_RETURN_IF_ERROR(verifier_.Run(func, target, analyses_));
  sets_.Compute(func, analyses_.cfg);
  // Nothing reads the sets after the build's walk (LsraBuild::LiveInto), nor
  // the dominator tree and loop nest after the build (resolution reads the
  // graph): after a large function they go then (base/warm_buffers.h).
  absl::StatusOr<LsraBuildStats> s = build_.Run(target, func, sets_, options_.build, analyses_, &sets_);
  if (func.num_insts() > kWarmBufferInsts) analyses_.ReleaseAllButGraph();
  return s;
}

absl::StatusOr<LsraAllocStats> LsraAllocator::Allocate(Function& func, const Target& target) {
  return alloc_.Run(target, func, build_, options_.allocate);
}

absl::StatusOr<LsraResolveStats> LsraAllocator::Resolve(Function& func, const Target& target,
                                                        const LsraResolveOptions& options) {
  absl::StatusOr<LsraResolveStats> s = resolver_.Run(target, func, build_, alloc_, options, &build_);
  ReleaseAfterLargeFunction(func.num_insts(), analyses_);
  return s;
}

absl::StatusOr<LsraAllocatorStats> LsraAllocator::Run(Function& func, const Target& target) {
  LsraAllocatorStats s;
  RA_ASSIGN_OR_RETURN(s.build, Build(func, target));
  RA_ASSIGN_OR_RETURN(s.allocate, Allocate(func, target));
  RA_ASSIGN_OR_RETURN(s.resolve, Resolve(func, target, options_.resolve));
  return s;
}

}  // namespace regalloc
