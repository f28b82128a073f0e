// Spilling for the `ssa` allocator (Cretonne's decoupled design): choose the values
// that live in stack slots so that, at every instruction, the values in registers
// fit the registers available — counted per class and pressure bank, with the
// registers an instruction pins (fixed operands, call clobbers) taken out
// (spill/demand.h). Coloring then never spills.
//
//   VirtRegs vregs;                       // from Coalesce (coalesce/)
//   ValueLocations locs;
//   absl::StatusOr<SpillStats> s = Spill(target, func, vregs, locs, SpillOptions());
//   // then InsertReloads (spill/reload.h), then Color (color/)
//
// Steps:
//  1. PrepareConstraints (spill/prepare.h): copies that make each Fixed use and
//     each still-needed Reuse source local to its instruction.
//  2. Values defined on the stack (a Stack-constrained entry parameter: an
//     incoming stack argument) are spilled from the start.
//  3. Each block is walked backward from its live-out set. Where an instruction
//     does not fit, the live value whose definition is farthest away (Cretonne's
//     heuristic; SpillHeuristic::kFarthestDef) — or, as an alternative, whose
//     next use is farthest (Belady's MIN as Braun & Hack 2009 use it for SSA;
//     kFarthestNextUse) — is spilled, among the values of the class or bank over
//     capacity that the instruction neither defines nor reads and that are not
//     constraint copies. The whole virtual register of the victim is spilled, to
//     one stack slot, so block parameters and their arguments stay in one place.
//     Block entries are checked the same way (live-in values and parameters).
//
// Spilling a value only lowers the demand at every other instruction (its Reg
// uses become reloads that die at the use; its def still needs a register up to
// the store right after), so one backward pass in any block order suffices.
//
// Result: `locs` holds a stack slot for every spilled value (all members of a
// spilled virtual register share one) and nothing for the others. An instruction
// that does not fit even with every candidate spilled is over-constrained:
// InvalidArgument naming the function, block and instruction.
#ifndef REGALLOC_SPILL_SPILL_H_
#define REGALLOC_SPILL_SPILL_H_

#include <memory>

#include "absl/status/statusor.h"
#include "coalesce/coalesce.h"
#include "liveness/live_sets.h"
#include "spill/prepare.h"
#include "ssa/ir.h"
#include "ssa/value_locations.h"
#include "targets/target.h"

namespace regalloc {

enum class SpillHeuristic {
  kFarthestDef,      // Cretonne: the live value defined farthest back
  kFarthestNextUse,  // Belady / Braun & Hack: the live value used farthest ahead
};

struct SpillOptions {
  SpillHeuristic heuristic = SpillHeuristic::kFarthestDef;
};

struct SpillStats {
  PrepareStats prepare;
  int values_spilled = 0;  // values given a stack slot (members of spilled vregs included)
  int spill_decisions = 0; // victims chosen
  int slots = 0;           // stack slots created
};

absl::StatusOr<SpillStats> Spill(const Target& target, Function& func, const VirtRegs& vregs, ValueLocations& locs,
                                 const SpillOptions& options = SpillOptions());

// The same with the live sets of `func` as it is now (after Coalesce). Spill
// adds only values local to one block, and InsertReloads keeps the sets exact
// (spill/reload.h), so they serve both and Color: compute them once and pass
// them along.
absl::StatusOr<SpillStats> Spill(const Target& target, Function& func, const VirtRegs& vregs, const LiveSets& sets,
                                 ValueLocations& locs, const SpillOptions& options = SpillOptions());

// The same as a reusable object (SsaAllocator holds one): its buffers stay
// between functions, so a warm spiller allocates nothing but the function's
// growth.
class Spiller {
 public:
  Spiller();
  ~Spiller();
  absl::StatusOr<SpillStats> Run(const Target& target, Function& func, const VirtRegs& vregs, const LiveSets& sets,
                                 ValueLocations& locs, const SpillOptions& options = SpillOptions());

  struct Buffers;  // defined with the phase

 private:
  std::unique_ptr<Buffers> b_;
};

}  // namespace regalloc

#endif  // REGALLOC_SPILL_SPILL_H_
