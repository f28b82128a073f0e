// The allocation checker: symbolic verification that an allocated function
// computes what its SSA form computes, whatever the allocator did.
//
//   absl::Status s = CheckAllocation(func, target);
//   AllocationChecker checker;             // or reuse one object's buffers
//   for (Function& f : module) RA_RETURN_IF_ERROR(checker.Run(f, target));
//
// Lattice. At every program point each register unit and each stack slot holds a
// set of values: the values equal to its content (ssa/ir.h, "value semantics of
// locations"). A register holds v when every one of its units does, so aliasing
// is exact (a write to %al takes v out of %rax). Block entry states are the
// intersection over incoming edges; blocks not reached yet contribute nothing
// (top). States only shrink, so the forward dataflow reaches a fixpoint; then one
// more pass checks every instruction against the fixpoint states.
//
// Transfer of one instruction: Early uses are read; Early defs are written;
// clobbers empty their units; Late uses are read; Late defs are written. A def
// writes {its value}; a move-like def, or a copy's, writes its source's set plus
// its value. A branch to a block with parameters copies, in parallel, each
// argument's set (plus the parameter) into the parameter's location. At entry,
// parameters hold themselves and every callee-saved unit holds a marker of its
// entry value. On an edge, a parameter whose argument does not already hold it
// is a new instance: it first leaves every other location, so that the previous
// iteration's copy never passes for it. (After parameter lowering a value is
// defined by a move on each incoming edge, and a sequentialized parallel copy
// may read a rotated parameter's old instance after writing its new one, so
// instruction defs do not do this.)
//
// Scale. Only what can still be read matters, so a block's entry state keeps
// only the values live into it (a backward liveness over the allocated function
// itself, which after lowering is no longer SSA) and the callee-saved markers:
// pairs (value, location), sorted. Within a block the state is dense (a set per
// location and, inverted, the locations of each value), reset by what the block
// touched. Time and memory are linear in instructions plus the live-in pairs,
// times the dataflow's rounds (loop depth + 1); nothing is sized by the number
// of stack slots per block, and a chain of blocks costs what its instructions
// cost.
//
// Rules, each a distinct error (InvalidArgument) naming the function, block,
// instruction, operand, location, what it held and what was expected:
//  - every operand has a location; a register of the value's class (so no
//    reserved register) or a stack slot large enough for its type;
//  - the location satisfies the constraint: Reg (a register), Stack (a slot),
//    Fixed (that register), Reuse (the register of use k) — except on spill,
//    reload, move and parallel_copy, whose locations are the allocator's choice;
//  - the defs of one instruction do not overlap;
//  - every use finds its value in its location (which catches values clobbered by
//    calls, overwritten by aliases or by early defs, lost at a merge, ...);
//  - at `ret`, callee-saved registers not in the frame's `saves` hold their entry
//    values.
#ifndef REGALLOC_CHECK_CHECKER_H_
#define REGALLOC_CHECK_CHECKER_H_

#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "ssa/ir.h"
#include "targets/target.h"

namespace regalloc {

// What one run did, for benchmarks and for tests that bound the checker's work:
// `state_ops` counts every (value, location) entry loaded, written, extracted or
// met, the unit of the checker's cost.
struct CheckStats {
  int64_t state_ops = 0;
  int64_t entry_pairs = 0;  // (value, location) pairs in all block entry states
  int64_t entry_bytes = 0;  // the bytes they take, packed
  int64_t live_in = 0;      // values in all live-in sets, 4 bytes each
  int block_visits = 0;     // blocks walked by the dataflow (before the check pass)
  int blocks = 0;           // reachable blocks
};

namespace checker_internal {
struct Buffers;
}  // namespace checker_internal

// A checker that keeps its buffers between functions. Not thread-safe; one per
// thread.
class AllocationChecker {
 public:
  AllocationChecker();
  ~AllocationChecker();
  AllocationChecker(const AllocationChecker&) = delete;
  AllocationChecker& operator=(const AllocationChecker&) = delete;

  // Checks `func`, an allocation result for `target`. OK, or the first violation.
  absl::Status Run(const Function& func, const Target& target);
  // Of the last Run.
  const CheckStats& stats() const { return stats_; }

 private:
  std::unique_ptr<checker_internal::Buffers> buffers_;
  CheckStats stats_;
};

// One-shot form of AllocationChecker::Run.
absl::Status CheckAllocation(const Function& func, const Target& target);

// What an allocation added, measured on the allocated function itself so that
// every allocator is compared the same way: `spill` (register to stack), `reload`
// (stack to register) and moving instructions (`move`, swaps; renames in place
// cost nothing), each also weighted by 10^loop depth. The function's own `copy`
// instructions count the same way by their locations: a copy into its source's
// location is free (what register preference and overlap aim at), one between
// registers is a move, one to or from the stack a spill or a reload.
// `saves` counts the callee-saved registers the frame saves (a store in the
// prologue and a load before each return); they are not in `weighted`.
struct AllocationCost {
  int spills = 0;
  int reloads = 0;
  int moves = 0;
  int64_t weighted = 0;
  int saves = 0;
};
AllocationCost MeasureAllocation(const Function& func);

// How MeasureAllocation counts one instruction: not at all (not moving, or not
// a move-like or copy), or as a spill, a reload or a move.
enum class MoveKind : uint8_t { kNone, kSpill, kReload, kMove };
MoveKind ClassifyMove(const Function& func, Inst i);

// That the allocation kept what the original does, in order: per block of the
// original (same id in the allocation), the same instructions that are not
// move-like, by opcode, immediate, condition, defined values and operand
// count, stores and calls included (uses may be renamed by copies). The
// allocation may add move-likes, and `copy` or `const` instructions defining
// values the original does not have (copies; rematerialized constants); a
// block it adds (a split edge) holds only those and a jump. CheckAllocation proves where values are; this proves that every
// side effect and every computed value is still there (deleting a store, or a
// dead copy with its spill and reload, passes the first and fails this).
absl::Status CheckKeepsOriginal(const Function& original, const Function& allocated, const Target& target);

// For each instruction id of `allocated`, the instruction of `original` it is
// (matched as CheckKeepsOriginal matches them), or an invalid Inst for one the
// allocation added (or one that matches nothing: run CheckKeepsOriginal to know).
std::vector<Inst> MatchOriginal(const Function& original, const Function& allocated);

}  // namespace regalloc

#endif  // REGALLOC_CHECK_CHECKER_H_
