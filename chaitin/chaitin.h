// The Chaitin–Briggs allocator after HotSpot C2 (opto/chaitin.cpp, ifg.cpp,
// coalesce.cpp): interference-graph coloring with aggressive and conservative
// coalescing, iterated until nothing spills. One reusable object, as for the
// other families:
//
//   ChaitinAllocator allocator;              // once per thread; buffers reused
//   allocator.options().conservative = false;
//   absl::StatusOr<ChaitinStats> s = allocator.Run(func, target);
//
// The flow (C2's Compile_Register_Allocate, on our IR):
//  1. Constraints (our counterpart of C2's machine-node register masks): a
//     Fixed use reads a new value copied just before its instruction, which is
//     precolored to that register; a Fixed def is precolored and copied out at
//     once (later uses read the copy); a Reuse (two-address) def shares a live
//     range with a copy of its source (C2's two-address coalescing, forced); a
//     Stack use reads a new value stored just before (an outgoing stack
//     argument); an entry parameter fixed to a register is copied out at the
//     top of the entry block. Precolored live ranges thus span one instruction.
//  2. Live ranges (de_ssa, gather_lrg_masks): a union-find over SSA values; each
//     live range has a register mask (its class's registers, one register if
//     precolored, without the registers an instruction it lives across
//     clobbers), a cost (each def at 10^loop depth, each use at twice that) and
//     an area (10^loop depth per instruction it is live across).
//  3. The interference graph (build_ifg_physical): one backward walk per block
//     from its live-out set with Early and Late points (early defs interfere
//     with late uses, defs with what lives past them, block parameters with each
//     other, with the block's live-in values and with what the predecessor's
//     branch reads where the edge's moves go before it). A copy's def does not
//     interfere with its source (Chaitin's copy rule), so the two may coalesce.
//  4. Aggressive coalescing (PhaseAggressiveCoalesce, first round): block
//     parameters with their arguments where they do not interfere and their
//     masks intersect; where that fails the parameter keeps its own live range
//     and lower_params moves the value on the edge (parallel copies, cycles
//     included). A constant argument that failed is made again instead (C2's
//     insert_copies): a new `const` just before the predecessor's branch is
//     passed in its place, added to the graph (C2 builds its graph anew here;
//     the first graph is the largest, so it is updated: the original keeps
//     its edges) and coalescing tried again, so the edge moves nothing.
//  5. Conservative coalescing (PhaseConservativeCoalesce): copies, when Briggs's
//     test holds (fewer than k neighbours of significant degree), so a
//     colorable graph stays colorable.
//  6. Simplify / select (Briggs): live ranges of low effective degree (neighbours
//     weighted by how many of this range's registers one of theirs can cover:
//     x86 ax covers al and ah, ARMv7 q covers two d and four s) are removed
//     first; when none is left, the lowest C2 score() goes optimistically
//     (pessimistic: Chaitin's, spilled at once). Select gives each a register
//     of its mask free of its colored neighbours' units: a colored copy
//     partner's where it can (ChaitinOptions::bias), else the first in the
//     allocation order.
//  7. Spill everywhere (Chaitin's original; with ChaitinOptions::split, C2's
//     splitting at high-pressure boundaries, across blocks and joins with new
//     block parameters, see there):
//     a spilled live range lives in one stack slot; each def is stored right
//     after (`v9 = spill v5`), each register use reloads (`v10 = reload v9`);
//     Any and Stack uses, copies and branch arguments read the slot. A spilled
//     constant is rematerialized instead of reloaded: each register use reads
//     a new `const` made just before it (the slot serves the other uses). The new
//     pieces span one instruction and score infinite (area 0), so the next
//     round cannot spill them again; rounds repeat until nothing spills.
//  8. Locations on every operand and parameter, the frame's saved registers.
//     Within each block, a reload or copy into a register that already holds
//     the same bits (nothing wrote it since a reload or copy of the same value
//     filled it) becomes a copy of that register into itself, which moves
//     nothing (C2's post_allocate_copy_removal; ChaitinStats::elided). Then
//     block parameters are lowered to moves (ssa/lower_params.h).
//
// Preconditions: `func` is legalized for `target` and in SSA form. Coalesce
// (and so Run) verifies it first (ssa/verifier.h): input that is not
// well-formed is an InvalidArgument naming the block, instruction and operand
// at fault, never a crash or an allocation of something else.
// Errors: FailedPrecondition on an allocated function; Internal (naming the
// function and round) when the rounds do not converge, which would be a bug.
#ifndef REGALLOC_CHAITIN_CHAITIN_H_
#define REGALLOC_CHAITIN_CHAITIN_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "chaitin/ifg.h"
#include "liveness/live_sets.h"
#include "ssa/ir.h"
#include "ssa/lower_params.h"
#include "ssa/verifier.h"
#include "targets/target.h"

namespace regalloc {

struct ChaitinOptions {
  // Aggressive coalescing of block parameters with their arguments (C2's
  // PhaseAggressiveCoalesce).
  bool aggressive = true;
  // Conservative (Briggs) coalescing of copies (C2's PhaseConservativeCoalesce).
  bool conservative = true;
  // Briggs's optimistic simplify: a high-degree live range is pushed and may
  // still find a register in select. Off: Chaitin's pessimistic simplify spills
  // it at once.
  bool optimistic = true;
  // Biased coloring (C2's copy bias): select gives a live range the register
  // of a colored copy partner where it is free, the one whose copies (a copy
  // between the two, an edge's argument and parameter left apart, a constraint
  // copy to or from a fixed register) weigh most by block frequency, so that
  // the copy moves nothing. Off: the first free register of the allocation
  // order.
  bool bias = true;
  // C2's splitting at the boundaries of high-pressure regions (instructions
  // where more of a bank's values live at once than it has registers, and
  // calls where more of them live across than the registers it spares): a
  // spilled live range keeps its register through its defining block where the
  // block's pressure fits its bank; within a block, one reload serves the uses
  // up to the next high-pressure instruction of its bank (a piece lives across
  // none); across blocks see `joins`. Uses at high-pressure instructions
  // with no piece reload on their own. Constants are made again at
  // their uses instead. A piece spilled again, and what spills in later rounds (a handful
  // that the first round's spill code pushed out), are spilled everywhere, so
  // that rounds end: 3 on a function of 1M instructions, where splitting in
  // later rounds too took 6 for the same weighted cost (within 0.2%). Off:
  // Chaitin's spill everywhere from the start.
  bool split = true;
  // C2's reg_split across block boundaries, with SSA repair (with split): a
  // split piece lives on past its block where nothing after its last read
  // there is a barrier of its bank (a high-pressure instruction; a call is one
  // where more of the bank's values live across it than the registers it
  // spares), into successors that read it before their first barrier or pass it on
  // through a block with none; a value kept through its defining block leaves
  // it in its register. Where pieces from several edges meet, a new block
  // parameter takes them (C2's phi for a split live range;
  // ChaitinStats::split_params), where the edges without one, which pass the
  // slot value and reload on the edge, run less often than the join and the
  // reads it serves: a loop's entry edge, never its back edge. A loop clear
  // of barriers thus reloads once, on its entry edge. Off: a piece stays in
  // its block, and one reload before a low-pressure loop with no call serves
  // the loop (ChaitinStats::loop_reloads).
  bool joins = true;
  // Lower block parameters to edge moves after allocation.
  bool lower_params = true;
  // Fill ChaitinStats::printed with each round's live ranges and decisions.
  bool dump = false;
  // For tests and tools: called with each graph as built, before coalescing on
  // it: the function as it is then, the graph, and each value's node
  // (ChaitinOptions::kStackValue for values living in a stack slot). Values of
  // one node (a two-address def and its source's copy) share it from the start.
  static constexpr uint32_t kStackValue = ~0u;
  std::function<void(const Function&, const InterferenceGraph&, const std::vector<uint32_t>&)> observe_graph;
  // The interference graph is a bit matrix up to this size, sparse bit rows
  // above (chaitin/ifg.h); allocations are the same either way.
  int64_t graph_matrix_max_bytes = InterferenceGraph::kMatrixMaxBytes;
  // Sparse rows turn dense past this many words (InterferenceGraph::Reset);
  // allocations are the same either way.
  int64_t graph_dense_row_words = InterferenceGraph::kDenseRowsAuto;
  // Rounds of build/color/spill before giving up (each round's spill pieces
  // cannot spill again, so two or three suffice in practice).
  int max_rounds = 12;
};

struct ChaitinStats {
  int rounds = 0;               // build/color rounds until nothing spilled
  int live_ranges = 0;          // in the last round's graph
  int edges = 0;                // interference edges in the last round's graph
  int constraint_copies = 0;    // copies made for fixed, reuse and stack operands
  int aggressive = 0;           // parameter/argument merges
  int conservative = 0;         // copy merges
  int spilled = 0;              // live ranges spilled, all rounds
  int spills = 0;               // stores inserted
  int reloads = 0;              // reloads inserted
  int remats = 0;               // constants made again at a use instead of reloaded
  int loop_reloads = 0;         // reloads (or constants) made once before a low-pressure loop for its uses
  int split_params = 0;         // block parameters made where split pieces meet (joins)
  int split_carried = 0;        // split pieces carried into a successor block (joins; a parameter counts once per edge)
  int split_dropped = 0;        // such parameters spilled again in a later round, and gone
  int dead_stores = 0;          // stores of slot values nothing reads in the end, taken out (of those counted in spills)
  int remat_args = 0;           // constant branch arguments made again before the branch
  int elided = 0;               // reloads and copies into a register already holding their bits (now free)
  int64_t graph_bytes = 0;      // the largest graph's adjacency storage
  LowerParamsStats lower;
  std::string printed;          // with ChaitinOptions::dump
};

namespace chaitin_internal {
class Chaitin;
struct Buffers;
}  // namespace chaitin_internal

class ChaitinAllocator {
 public:
  explicit ChaitinAllocator(const ChaitinOptions& options = ChaitinOptions());
  ~ChaitinAllocator();

  ChaitinOptions& options() { return options_; }
  const ChaitinOptions& options() const { return options_; }

  absl::StatusOr<ChaitinStats> Run(Function& func, const Target& target);

  // The same in two steps, for a driver that shows what coalescing did (the
  // pipeline's chaitin_coalesce and chaitin_color): Coalesce does steps 1-4 of
  // the first round (constraints, the graph, aggressive coalescing), Color the
  // rest, on the same function; options may change in between (those of steps
  // 5-7). Run is the two together.
  absl::StatusOr<ChaitinStats> Coalesce(Function& func, const Target& target);
  absl::StatusOr<ChaitinStats> Color(Function& func, const Target& target);

 private:
  ChaitinOptions options_;
  FunctionVerifier verifier_;
  LiveSets sets_;
  InterferenceGraph ifg_;
  ChaitinStats stats_;
  std::unique_ptr<chaitin_internal::Buffers> buffers_;  // kept between functions
  BlockParamLowerer lowerer_;
  std::unique_ptr<chaitin_internal::Chaitin> active_;  // between Coalesce and Color
  const Function* function_ = nullptr;
};

}  // namespace regalloc

#endif  // REGALLOC_CHAITIN_CHAITIN_H_
