// The reload pass of the `ssa` allocator (Cretonne's reload.rs): after Spill has
// chosen the spilled values, rewrite the function so that every operand that
// needs a register names a value that will be in one, and every spilled value is
// stored to its slot right after its definition.
//
//   absl::StatusOr<ReloadStats> s = InsertReloads(target, func, locs);
//
//  - A def of a spilled value by an instruction is written to a register and
//    stored at once: `v5 = add v1, v2` becomes `v5 = add v1, v2; v5 = spill v5`
//    (a move-like pair naming one value re-locates it: ssa/ir.h). The value keeps
//    its id, so the interpreter still matches the original's trace.
//  - A Reg use of a spilled value reads a new value reloaded just before the
//    instruction (before its constraint copy, if it has one): `v9 = reload v5`;
//    or, where v5 is a constant (`v5 = const.i64 7`) and ReloadOptions::remat
//    is on, the constant made again: `v9 = const.i64 7` (rematerialized: no
//    load, and a constant whose every read is made again needs no store).
//    Several Reg uses of one value by one instruction share the reload, and a
//    later use in the same block reads an earlier reload while every instruction
//    in between has a register of the class to spare (its slack under the
//    demand model of spill/demand.h, charged as the reloaded value's range grows),
//    as Cretonne's reload pass reuses a reloaded register.
//  - Any (reg-optional) and Stack uses of a spilled value, constraint copies and
//    branch arguments read the slot directly; spilled block parameters and
//    branch arguments get the Any constraint (their moves are the allocator's
//    own, lowered after allocation).
//  - A Stack use of a value that is not spilled (an outgoing stack argument)
//    reads a new value stored just before: `v10 = spill v3`, with its own slot.
//  - A spilled entry parameter that arrives in a register is stored at the top of
//    the entry block: from its Fixed register, or, for one the caller passes in a
//    register of our choice (Reg), from a new value the colorer gives one.
//
// Preconditions: Spill ran on `func` and `locs` is its result. New values get
// their locations in `locs` (slots for the stack-argument copies; reloaded values
// have none: the colorer gives them registers).
#ifndef REGALLOC_SPILL_RELOAD_H_
#define REGALLOC_SPILL_RELOAD_H_

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "liveness/live_sets.h"
#include "ssa/cfg.h"
#include "ssa/ir.h"
#include "ssa/value_locations.h"
#include "targets/target.h"

namespace regalloc {

struct ReloadOptions {
  // Make spilled constants again at their register uses instead of reloading
  // them (as chaitin and packing do); their stores go where nothing else
  // reads their slots.
  bool remat = true;
};

struct ReloadStats {
  int reloads = 0;          // reload instructions inserted
  int remats = 0;           // constants made again at a register use instead of reloaded
  int dead_stores = 0;      // stores of constants whose slot nothing reads, left out (not in spills)
  int reuses = 0;           // uses that read an earlier reload in the same block instead
  int spills = 0;           // spill (store) instructions inserted
  int64_t weighted_cost = 0;  // each weighted by 10^loop depth
};

absl::StatusOr<ReloadStats> InsertReloads(const Target& target, Function& func, ValueLocations& locs);
// The same with the live sets computed before Spill (see spill/spill.h).
// `sets` stay exact for Color: the values Reload adds are local to one block,
// and where it made constants again it shrinks them (LiveSets::Shrink: a
// constant made again at its register reads lives in its slot only up to the
// reads that still take the slot, or, with no store left, is dead at its
// definition).
absl::StatusOr<ReloadStats> InsertReloads(const Target& target, Function& func, LiveSets& sets,
                                          ValueLocations& locs);
absl::StatusOr<ReloadStats> InsertReloads(const Target& target, Function& func, ValueLocations& locs,
                                          const ReloadOptions& options);

// The same as a reusable object (SsaAllocator holds one): its buffers stay
// between functions, so a warm reloader allocates nothing but the function's
// growth.
class Reloader {
 public:
  explicit Reloader(const ReloadOptions& options = ReloadOptions());
  ~Reloader();

  ReloadOptions& options() { return options_; }
  const ReloadOptions& options() const { return options_; }

  absl::StatusOr<ReloadStats> Run(const Target& target, Function& func, LiveSets& sets, ValueLocations& locs);
  // The same with `func`'s control-flow analyses as the caller has them
  // (computed for `func` as it is now: an allocator's phases share one).
  absl::StatusOr<ReloadStats> Run(const Target& target, Function& func, LiveSets& sets, ValueLocations& locs,
                                  const CfgAnalyses& analyses);

  struct Buffers;  // defined with the phase

 private:
  absl::StatusOr<ReloadStats> Rewrite(const Target& target, Function& func, LiveSets& sets, ValueLocations& locs,
                                      const CfgAnalyses* analyses);

  // Gives the buffers back after a large function.
  absl::StatusOr<ReloadStats> Finish(const Function& func, absl::StatusOr<ReloadStats> s);

  ReloadOptions options_;
  std::unique_ptr<Buffers> b_;
};

}  // namespace regalloc

#endif  // REGALLOC_SPILL_RELOAD_H_
