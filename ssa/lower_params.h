// Lowers block parameters of an allocated function to moves on the incoming edges
// (the last step of the `ssa` pipeline, and of resolution in the others).
//
//   absl::StatusOr<LowerParamsStats> stats = LowerBlockParams(func, target);
//
// Preconditions: every block parameter and branch argument has a location
// (FailedPrecondition naming the first that lacks one). For each edge, the
// arguments' locations are copied to the parameters' locations as one parallel
// copy, sequentialized by SequentializeParallelCopy (ssa/parallel_copy.h): before
// the branch when the source has one successor, at the top of the target when it
// has one predecessor, and in a new block on a split critical edge otherwise
// (only edges that need moves are split). Afterwards no block has parameters and
// no branch passes arguments. The emitted instructions are `move`, `spill`
// (register to stack), `reload` (stack to register) and, for register swaps on
// targets that have them, two-element `parallel_copy`s; each def names the
// parameter, each use the argument. Cycles without a swap go through a new stack
// slot. An argument already in its parameter's location needs only a rename (see
// the value semantics in ssa/ir.h); renames never split an edge: on a critical
// edge they go before the branch, where they are harmless to the other successor.
// The entry block keeps its parameters: they are the function's arguments.
#ifndef REGALLOC_SSA_LOWER_PARAMS_H_
#define REGALLOC_SSA_LOWER_PARAMS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "ssa/cfg.h"
#include "ssa/ir.h"
#include "ssa/parallel_copy.h"
#include "targets/target.h"

namespace regalloc {

struct LowerParamsStats {
  int edges_with_moves = 0;
  int moves = 0;    // moving instructions emitted (a swap counts once)
  int renames = 0;  // in-place renames (`v3[%rax] = move v1[%rax]`): free
  int swaps = 0;
  int edges_split = 0;
  int stack_temps = 0;
};

absl::StatusOr<LowerParamsStats> LowerBlockParams(Function& func, const Target& target);

// The same as a reusable object (the allocator objects hold one): its buffers
// stay between functions.
class BlockParamLowerer {
 public:
  absl::StatusOr<LowerParamsStats> Run(Function& func, const Target& target);
  // The same with `func`'s control-flow graph as the caller has it (computed
  // for `func` as it is now), read until an edge must be split.
  absl::StatusOr<LowerParamsStats> Run(Function& func, const Target& target, const ControlFlowGraph& cfg);

 private:
  absl::StatusOr<LowerParamsStats> Lower(Function& func, const Target& target, const ControlFlowGraph* cfg);

  ControlFlowGraph cfg_;
  std::vector<Block> layout_;
  std::vector<CopyMove> moves_;
  std::vector<Inst> emitted_;
};

// The last step of lowering, for allocators that place the moves themselves:
// removes every block parameter but the entry block's, and every branch argument.
void DropBlockParams(Function& func);

}  // namespace regalloc

#endif  // REGALLOC_SSA_LOWER_PARAMS_H_
