#include "lsra/allocator.h"

#include "base/status_macros.h"

namespace regalloc {

absl::StatusOr<LsraAllocatorStats> LsraAllocator::Run(Function& func, const Target& target) {
  LsraAllocatorStats s;
  if (func.IsAllocated()) return absl::FailedPreconditionError("the linear-scan allocator needs SSA form");
  sets_.Compute(func);
  RA_ASSIGN_OR_RETURN(s.build, build_.Run(target, func, sets_, options_.build));
  RA_ASSIGN_OR_RETURN(s.allocate, alloc_.Run(target, func, build_, options_.allocate));
  RA_ASSIGN_OR_RETURN(s.resolve, ResolveLsra(target, func, build_, alloc_));
  return s;
}

}  // namespace regalloc
