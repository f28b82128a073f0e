// Test support for the `ssa` allocator: the whole allocator on one function, with
// every check the issue asks for between and after its phases.
//
//   absl::StatusOr<SsaRun> run = AllocateSsaAndCheck(func, target);
//
// AllocateSsaAndCheck runs Coalesce, Spill, InsertReloads, the register-pressure
// check below, Color and LowerBlockParams on `func` (legalized, in SSA form), then
// the allocation checker and the interpreter (3 seeds) against the input. Errors
// name the phase.
//
// CheckRegisterPressure is the invariant "after spill and reload, the values in
// registers never exceed the registers available", written independently of the
// demand model (spill/demand.h) from live sets and a backward walk: at the Early
// point of each instruction (values live before it that are not spilled), at its
// Late point (values live after it that are not spilled, plus what it writes to a
// register), and across it (values live before and after it that are not
// spilled) against the registers its clobbers and fixed operands leave, per
// class and weighted per pressure bank.
#ifndef REGALLOC_COLOR_SSA_TESTING_H_
#define REGALLOC_COLOR_SSA_TESTING_H_

#include "absl/status/statusor.h"
#include "coalesce/coalesce.h"
#include "color/color.h"
#include "spill/reload.h"
#include "spill/spill.h"
#include "ssa/ir.h"
#include "ssa/lower_params.h"
#include "ssa/value_locations.h"
#include "targets/target.h"

namespace regalloc {

struct SsaRun {
  VirtRegs vregs;          // Coalesce's result
  ValueLocations spilled;  // Spill's result: a slot per spilled value
  CoalesceStats coalesce;
  SpillStats spill;
  ReloadStats reload;
  ColorStats color;
  LowerParamsStats lower;
};

struct SsaCheckOptions {
  SpillOptions spill;
  bool interpret = true;  // also compare with the input in the interpreter
};

absl::StatusOr<SsaRun> AllocateSsaAndCheck(Function& func, const Target& target,
                                           const SsaCheckOptions& options = SsaCheckOptions());

absl::Status CheckRegisterPressure(const Function& func, const Target& target, const ValueLocations& locs);

}  // namespace regalloc

#endif  // REGALLOC_COLOR_SSA_TESTING_H_
