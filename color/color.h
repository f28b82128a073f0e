// Dominator-order coloring for the `ssa` allocator (Cretonne's coloring.rs after
// Hack's SSA register allocation): gives every value that Spill left in registers
// a register, meets every operand constraint, and writes each operand's location.
// It never spills: Spill (spill/spill.h) has made every instruction fit the
// demand model (spill/demand.h), and this pass realizes that model.
//
//   ValueLocations locs;   // from Spill + InsertReloads
//   absl::StatusOr<ColorStats> s = Color(target, func, vregs, locs);
//   // then LowerBlockParams (ssa/lower_params.h)
//
// Algorithm. Blocks are visited in dominator-tree preorder, instructions top-down,
// with the register file's contents as state (per register unit, so aliases —
// x86 al/ah, ARMv7 s/d/q — are exact). A value crossing a block boundary has a
// home register, fixed when its defining block is done (where it is then); since
// a value is live only in blocks its definition dominates, every block where it is
// live-in starts with it in its home. Inside a block values may move:
//  - at an instruction with pinned registers (fixed operands, clobbers: see the
//    demand model), the values that would overlap them — those live across the
//    instruction, and its other operands where they collide — move to free
//    registers in the same parallel copy that places the fixed operands (the
//    constraint copy of spill/prepare.h), sequentialized with swaps or through a
//    stack temporary (ssa/parallel_copy.h);
//  - before a branch, values live out of the block that moved go back to their
//    homes, and values defined here that sit on one of those homes move aside
//    (one more parallel copy).
// Defs take a free register, preferring, in order: the register their virtual
// register already has (so block-parameter lowering emits nothing where the
// members agree), the fixed register of a later constraint copy that reads them
// (the x86 `div` dividend is born in %rax), a register no call or fixed operand
// over their life pins (values live across calls go to callee-saved registers),
// then the allocation order. A Reuse def takes its source's register (the source
// dies there: PrepareConstraints made sure).
//
// Preconditions: the function is in SSA form, went through Spill and InsertReloads
// with these `vregs` and `locs`, and every block is reachable. If a constraint
// cannot be met it is a spiller bug: Internal, naming the instruction. Afterwards
// every operand has a location, constraint copies are gone (sequentialized),
// `locs` holds each value's home (or its def's location), and the frame's saves
// list the callee-saved registers used.
#ifndef REGALLOC_COLOR_COLOR_H_
#define REGALLOC_COLOR_COLOR_H_

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "coalesce/coalesce.h"
#include "liveness/live_sets.h"
#include "ssa/cfg.h"
#include "ssa/ir.h"
#include "ssa/value_locations.h"
#include "targets/target.h"

namespace regalloc {

struct ColorStats {
  int moves = 0;          // moving instructions added (constraint copies, relocations, returns home)
  int renames = 0;        // constraint copies whose value was already in place: free
  int swaps = 0;
  int relocations = 0;    // values moved aside for a pinned register
  int restores = 0;       // values moved back to their homes before a branch
  int stack_temps = 0;    // parallel-copy cycles broken through the stack
  int64_t weighted_cost = 0;  // moves weighted by 10^loop depth
};

absl::StatusOr<ColorStats> Color(const Target& target, Function& func, const VirtRegs& vregs, ValueLocations& locs);
// The same with the live sets computed before Spill (see spill/spill.h).
absl::StatusOr<ColorStats> Color(const Target& target, Function& func, const VirtRegs& vregs, const LiveSets& sets,
                                 ValueLocations& locs);

// The same as a reusable object (SsaAllocator holds one): its buffers stay
// between functions, so a warm colorer allocates nothing but the function's
// growth.
class Colorer {
 public:
  Colorer();
  ~Colorer();
  absl::StatusOr<ColorStats> Run(const Target& target, Function& func, const VirtRegs& vregs, const LiveSets& sets,
                                 ValueLocations& locs);
  // The same with `func`'s control-flow analyses as the caller has them
  // (computed for `func` as it is now: an allocator's phases share one).
  absl::StatusOr<ColorStats> Run(const Target& target, Function& func, const VirtRegs& vregs, const LiveSets& sets,
                                 ValueLocations& locs, const CfgAnalyses& analyses);

  struct Buffers;  // defined with the phase

 private:
  std::unique_ptr<Buffers> b_;
};

}  // namespace regalloc

#endif  // REGALLOC_COLOR_COLOR_H_
