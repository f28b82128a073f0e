// Makes every operand constraint local to its instruction, so that the spiller can
// count what an instruction needs and the colorer can always meet it (the first
// step of the `spill` phase; Cretonne's "constraint" preparation before spilling).
//
//   absl::StatusOr<PrepareStats> s = PrepareConstraints(func, target, sets);
//
// Before an instruction `i` that has Fixed uses, or a Reuse def whose source is
// still needed (live after `i`, or read by another operand of `i`), it inserts one
// `parallel_copy` P whose defs are fresh values that only `i` reads:
//
//   v9 = div v6@%rax, v7@late@any clobbers %rdx
// becomes
//   v20@%rax = parallel_copy v6
//   v9 = div v20@%rax, v7@late@any clobbers %rdx
//
// A Fixed use then names a value that lives from P to `i` and nowhere else, so a
// value is never pinned to a register beyond one instruction: the colorer gives
// each long value one register and moves others out of the way only inside P (a
// parallel copy, so a cycle of fixed registers costs a swap, not a spill). Two
// uses of one value fixed to different registers become two copies. A Reuse
// source still needed afterwards gets a copy that dies at `i`, so the def may
// take its register (x86 two-address forms), unless `i` is a commutative
// integer op whose other source dies there: then the two sources trade places
// (each operand keeping its constraint) and nothing is copied.
//
// P's defs carry the Fixed constraint of the use they feed. Recognize a P by
// `IsConstraintCopy(func, inst)`: a `parallel_copy` in SSA form (defs naming new
// values) directly before the instruction it serves.
//
// Preconditions: `func` verifies, is in SSA form (not allocated), and `sets` is
// its liveness. Afterwards `sets` is stale only for the new values, which are
// local to their blocks; the phase recomputes it anyway.
#ifndef REGALLOC_SPILL_PREPARE_H_
#define REGALLOC_SPILL_PREPARE_H_

#include <vector>

#include "absl/status/statusor.h"
#include "liveness/live_sets.h"
#include "liveness/live_walker.h"
#include "ssa/ir.h"
#include "targets/target.h"

namespace regalloc {

struct PrepareStats {
  int copies = 0;       // instructions that got a P
  int fixed_uses = 0;   // values copied for a Fixed use
  int reuse_uses = 0;   // Reuse sources copied because they are still needed
  int commuted = 0;     // commutative ops whose sources traded places instead
};

absl::StatusOr<PrepareStats> PrepareConstraints(Function& func, const Target& target, const LiveSets& sets);

// Buffers PrepareConstraints keeps between calls (the Spiller holds one).
struct PrepareBuffers {
  LiveWalker live;
  std::vector<Operand> ops, defs, uses;
  std::vector<int> use_at;
  std::vector<Inst> insts, out;
};
absl::StatusOr<PrepareStats> PrepareConstraints(Function& func, const Target& target, const LiveSets& sets,
                                                PrepareBuffers& buffers);

// True for a P made by PrepareConstraints: a parallel_copy whose defs name values
// other than its uses. Inline: every phase after PrepareConstraints asks it of
// every instruction, and most are not parallel copies.
inline bool IsConstraintCopy(const Function& func, Inst inst) {
  if (func.inst(inst).opcode != Opcode::kParallelCopy) return false;
  absl::Span<const Operand> ops = func.operands(inst);
  size_t n = ops.size() / 2;
  for (size_t k = 0; k < n; ++k) {
    if (ops[k].value() == ops[n + k].value()) return false;
  }
  return n > 0;
}

}  // namespace regalloc

#endif  // REGALLOC_SPILL_PREPARE_H_
