#include "color/ssa_allocator.h"

#include "base/status_macros.h"

namespace regalloc {

absl::StatusOr<SsaAllocationStats> SsaAllocator::Run(Function& func, const Target& target) {
  SsaAllocationStats s;
  locs_.Clear();
  RA_ASSIGN_OR_RETURN(s.coalesce, Coalesce(func, vregs_, sets_));
  SpillOptions spill;
  spill.heuristic = options_.spill;
  RA_ASSIGN_OR_RETURN(s.spill, Spill(target, func, vregs_, sets_, locs_, spill));
  RA_ASSIGN_OR_RETURN(s.reload, InsertReloads(target, func, sets_, locs_));
  RA_ASSIGN_OR_RETURN(s.color, Color(target, func, vregs_, sets_, locs_));
  if (options_.lower_params) {
    RA_ASSIGN_OR_RETURN(s.lower, LowerBlockParams(func, target));
  }
  return s;
}

}  // namespace regalloc
