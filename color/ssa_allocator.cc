#include "color/ssa_allocator.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "base/warm_buffers.h"

namespace regalloc {

absl::StatusOr<SsaAllocationStats> SsaAllocator::Run(Function& func, const Target& target) {
  SsaAllocationStats s;
  locs_.Clear();
  if (func.IsAllocated()) {
    return absl::FailedPreconditionError(absl::StrCat("function %", func.name(), ": the ssa allocator needs SSA form"));
  }
  RA_RETURN_IF_ERROR(verifier_.Run(func, target, analyses_));  // and its analyses, for the phases
  RA_RETURN_IF_ERROR(CheckRegisterDemand(func, target));
  // The phases add copies, spills, reloads and moves: about a quarter more
  // instructions on the generated functions. Room for them now grows the
  // function's arrays once, by a quarter, instead of doubling them (at a million
  // instructions the doubled arrays were the largest part of the peak).
  size_t insts = static_cast<size_t>(func.num_insts());
  func.ReserveInsts(insts / 4, insts / 2);
  RA_ASSIGN_OR_RETURN(s.coalesce, coalescer_.Run(func, vregs_, sets_, analyses_));
  SpillOptions spill;
  spill.heuristic = options_.spill;
  RA_ASSIGN_OR_RETURN(s.spill, spiller_.Run(target, func, vregs_, sets_, locs_, spill));
  reloader_.options().remat = options_.remat;
  RA_ASSIGN_OR_RETURN(s.reload, reloader_.Run(target, func, sets_, locs_, analyses_));  // (sets_ kept exact)
  RA_ASSIGN_OR_RETURN(s.color, colorer_.Run(target, func, vregs_, sets_, locs_, analyses_));
  // The colorer read the live sets last: after a large function they go now,
  // before lowering grows the function (base/warm_buffers.h); the analyses
  // after lowering, which reads the graph until it splits an edge.
  ReleaseAfterLargeFunction(func.num_insts(), sets_);
  if (options_.lower_params) {
    RA_ASSIGN_OR_RETURN(s.lower, lowerer_.Run(func, target, analyses_.cfg));
  }
  ReleaseAfterLargeFunction(func.num_insts(), analyses_);
  return s;
}

}  // namespace regalloc
