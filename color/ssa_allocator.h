// The whole `ssa` allocator (Cretonne's pipeline) as one reusable object: live
// sets, CSSA coalescing, spilling, reloads, dominator-order coloring and
// block-parameter lowering, with every buffer kept between functions. This is
// the entry point for a compiler that takes the allocator whole (the pipeline's
// `ssa_allocate` phase, the benchmarks, the LLVM plugin); the phase functions
// (Coalesce, Spill, InsertReloads, Color, LowerBlockParams) stay for those who
// take one phase.
//
//   SsaAllocator allocator;                       // once per thread
//   for (Function& f : module) {
//     absl::StatusOr<SsaAllocationStats> s = allocator.Run(f, target);
//   }
//
// Preconditions: `func` is legalized for `target` (ssa/legalize.h) and in SSA
// form. Run verifies it first (ssa/verifier.h, as LsraAllocator and
// PackingAllocator do), so input that is not well-formed is an InvalidArgument
// naming the block, instruction and operand at fault, never a crash or an
// allocation of something else; an allocated function is a FailedPrecondition.
// Afterwards every operand has a location and block parameters are lowered to
// moves (with `lower_params`), ready for the checker. Other errors are the
// phases' own, naming the function.
#ifndef REGALLOC_COLOR_SSA_ALLOCATOR_H_
#define REGALLOC_COLOR_SSA_ALLOCATOR_H_

#include "absl/status/statusor.h"
#include "coalesce/coalesce.h"
#include "color/color.h"
#include "liveness/live_sets.h"
#include "spill/reload.h"
#include "spill/spill.h"
#include "ssa/cfg.h"
#include "ssa/ir.h"
#include "ssa/lower_params.h"
#include "ssa/value_locations.h"
#include "ssa/verifier.h"
#include "targets/target.h"

namespace regalloc {

struct SsaAllocatorOptions {
  // The spiller's choice of victim (spill/spill.h).
  SpillHeuristic spill = SpillHeuristic::kFarthestDef;
  // Spilled constants made again at their register uses, not reloaded
  // (spill/reload.h).
  bool remat = true;
  // Lower block parameters to moves on edges (ssa/lower_params.h); off leaves
  // them, with each value's location in the operands.
  bool lower_params = true;
};

struct SsaAllocationStats {
  CoalesceStats coalesce;
  SpillStats spill;
  ReloadStats reload;
  ColorStats color;
  LowerParamsStats lower;
};

class SsaAllocator {
 public:
  explicit SsaAllocator(const SsaAllocatorOptions& options = SsaAllocatorOptions()) : options_(options) {}

  const SsaAllocatorOptions& options() const { return options_; }
  void set_options(const SsaAllocatorOptions& options) { options_ = options; }

  absl::StatusOr<SsaAllocationStats> Run(Function& func, const Target& target);

  // What the last Run left: each value's virtual register and location.
  const VirtRegs& vregs() const { return vregs_; }
  const ValueLocations& locations() const { return locs_; }

 private:
  SsaAllocatorOptions options_;
  FunctionVerifier verifier_;
  LiveSets sets_;
  VirtRegs vregs_;
  ValueLocations locs_;
  // The function's control flow, computed as coalescing leaves it (the later
  // phases add no blocks until parameters are lowered) and shared by the
  // phases after it.
  CfgAnalyses analyses_;
  // The phases, each with its buffers.
  Coalescer coalescer_;
  Spiller spiller_;
  Reloader reloader_;
  Colorer colorer_;
  BlockParamLowerer lowerer_;
};

}  // namespace regalloc

#endif  // REGALLOC_COLOR_SSA_ALLOCATOR_H_
