// The rewrite half of the packing allocator (the ACK's ra_xform.c): the function
// rewritten so that every operand has its location.
//
//   absl::StatusOr<PackingTransformStats> s = TransformPacking(func, target, problem, decisions, true);
//
// Per allocation holding register r over its timespan: r is initialized on the
// loop's entry edge, before the jump (a reload from the item's slot, or the
// constant made again into a new value that the uses in the loop read), and
// every occurrence inside the timespan reads or writes r. A value is stored to
// its slot after its definition only when some use reads it from there (a use
// outside its registers' timespans, an initialization, a `Stack` operand).
// Everything else goes through the scratch registers (problem.Scratch) or
// memory operands: a `Reg` use outside registers is reloaded into a scratch
// register (a constant is made again there), an `Any` use reads the slot in
// place, a def outside registers is written to a scratch register and stored.
// Fixed operands are met by a move, reload or constant into the fixed register
// (and out of it after the instruction); a `Reuse` def writes the register its
// use was brought into: its own allocation's register when nothing else of the
// instruction is there, else a scratch register, moved to the allocation's
// register after. Block parameters take their register, or their slot (the
// edge's parallel copy writes it), and branch arguments are read where they
// are; then block parameters are lowered to edge moves (ssa/lower_params.h).
//
// Preconditions: `problem` was built from `func` as it is, `decisions` from
// `problem`. Errors: Internal naming the instruction when no scratch register is
// left, which the scratch count rules out.
#ifndef REGALLOC_PACKING_TRANSFORM_H_
#define REGALLOC_PACKING_TRANSFORM_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "packing/allocations.h"
#include "packing/pack.h"
#include "ssa/ir.h"
#include "ssa/lower_params.h"
#include "targets/target.h"

namespace regalloc {

struct PackingTransformStats {
  int inits = 0;      // registers initialized on loop entry edges (reloads or constants)
  int spills = 0;     // stores after definitions
  int reloads = 0;    // loads into scratch or fixed registers
  int remats = 0;     // constants made again at a use
  int moves = 0;      // register to register, for fixed and reuse operands
  int64_t weighted = 0;  // all of the above but constants, each weighted 10^loop depth
  LowerParamsStats lower;
};

absl::StatusOr<PackingTransformStats> TransformPacking(Function& func, const Target& target,
                                                       const PackingProblem& problem,
                                                       const PackingDecisions& decisions, bool lower_params = true);

namespace packing_internal {

// An allocation holding its item in a register: where, over which timespan, and
// the value its uses read there (a constant initialized on the loop's entry edge
// is a new value).
struct Held {
  uint32_t timespan;
  PReg reg;
  Value name;
  bool init;
  // The timespan's preorder range (PackingProblem::PreorderRange), kept here so
  // the lookups at every operand read nothing else.
  uint32_t first = 0;
  uint32_t end = 0;
  bool whole = false;  // the whole function's timespan

  bool Covers(uint32_t at) const { return whole || (at >= first && at < end); }
};

struct LastHeld {
  uint32_t at = ~0u - 1;  // no preorder number
  int32_t held = -1;
};

struct Fetched {
  Location loc;
  Value orig;
  Value name;
};

}  // namespace packing_internal

// The same with buffers kept between calls (PackingAllocator holds them).
struct PackingTransformBuffers {
  std::vector<uint32_t> held_start;
  std::vector<packing_internal::Held> held;
  std::vector<packing_internal::LastHeld> last_held;
  std::vector<Inst> const_def;
  std::vector<uint8_t> needs_home;
  std::vector<StackSlot> home;
  std::vector<std::vector<std::pair<Value, packing_internal::Held>>> inits;  // rows past the block count are empty
  std::vector<packing_internal::Fetched> fetched;
  std::vector<Operand> ops;
  std::vector<Inst> before, after, moves_after, insts, out, moves;
  std::vector<uint32_t> next;
  BlockParamLowerer lowerer;
};

absl::StatusOr<PackingTransformStats> TransformPacking(Function& func, const Target& target,
                                                       const PackingProblem& problem,
                                                       const PackingDecisions& decisions, bool lower_params,
                                                       PackingTransformBuffers& buffers);

}  // namespace regalloc

#endif  // REGALLOC_PACKING_TRANSFORM_H_
