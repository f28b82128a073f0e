// Sequentializes a parallel copy: a set of moves that semantically all read their
// sources, then all write their destinations (block-parameter lowering and
// resolution edges in every allocator).
//
//   std::vector<CopyMove> moves = {{rax, rbx, v1, v1, Type::kI64}, {rbx, rax, v2, v2, Type::kI64}};
//   ParallelCopyOptions opts;                  // x86: cycles become one xchg
//   opts.use_swap = target.has_swap();
//   absl::StatusOr<std::vector<CopyStep>> steps = SequentializeParallelCopy(moves, target, opts);
//
// Algorithm: repeatedly emit a move whose destination no pending move still reads
// ("ready"), preferring stores (register to stack), then register-to-register moves,
// then reloads, then stack-to-stack moves. When nothing is ready every pending
// destination is still read, i.e. there are cycles: take one pending move; if its
// destination is exactly another move's source and both are registers and the
// target has a swap, swap them; otherwise save each source that overlaps the
// blocked destination into a temporary — the scratch register of its type if the
// caller gave one and it is free, else a fresh stack slot from `new_stack_slot` —
// and redirect its readers. Partially overlapping locations (ARMv7 s2 against d1)
// are handled by the same rule, since "overlaps" is alias-aware.
//
// Preconditions: destinations pairwise don't overlap (InvalidArgument otherwise);
// a scratch register overlaps no source or destination of the copy.
#ifndef REGALLOC_SSA_PARALLEL_COPY_H_
#define REGALLOC_SSA_PARALLEL_COPY_H_

#include <functional>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ssa/ir.h"
#include "targets/target.h"

namespace regalloc {

struct CopyMove {
  Location src;
  Location dst;
  Value value;      // the value `src` holds
  Value dst_value;  // the value `dst` holds afterwards (block-parameter lowering:
                    // the parameter); invalid means the same as `value`
  Type type = Type::kI64;
};

struct CopyStep {
  enum class Kind : uint8_t { kMove, kSwap };
  Kind kind = Kind::kMove;
  Location src;
  Location dst;
  // kMove: dst <- src. `use_src` is read from src, `def_dst` is in dst afterwards.
  // kSwap: exchange src and dst. Also `use_dst` is read from dst, and `def_src` is
  // in src afterwards.
  Value use_src;
  Value def_dst;
  Value use_dst;
  Value def_src;
  Type type = Type::kI64;
  Type type2 = Type::kI64;  // kSwap: the type of the value that moves dst -> src
};

struct ParallelCopyOptions {
  // Break register cycles with one swap per step (x86 xchg).
  bool use_swap = false;
  // A free register per type to hold a value while a cycle is broken.
  std::function<std::optional<PReg>(Type)> scratch;
  // Makes a stack slot for a value of `type` when no scratch register is free.
  std::function<StackSlot(Type)> new_stack_slot;
};

absl::StatusOr<std::vector<CopyStep>> SequentializeParallelCopy(absl::Span<const CopyMove> moves,
                                                                const Target& target,
                                                                const ParallelCopyOptions& options);

// What EmitParallelCopy appended.
struct EmittedCopy {
  int moves = 0;        // instructions that move something (a swap counts once)
  int renames = 0;      // in-place renames: free
  int swaps = 0;
  int stack_temps = 0;  // cycles broken through a new stack slot
  RegSet regs;          // every register the steps touch, with aliases
};

// Sequentializes `moves` (swaps where the target has them, else a new stack slot
// per cycle) and appends the instructions to `out`: what allocators do with a
// parallel copy they place.
absl::StatusOr<EmittedCopy> EmitParallelCopy(Function& func, const Target& target, absl::Span<const CopyMove> moves,
                                             std::vector<Inst>& out);

// Creates (but does not place) the instruction for one step: `move`, `spill`
// (register to stack) or `reload` (stack to register) for a kMove, a two-element
// `parallel_copy` for a kSwap. Every operand carries its location.
Inst EmitCopyStep(Function& func, const CopyStep& step);

}  // namespace regalloc

#endif  // REGALLOC_SSA_PARALLEL_COPY_H_
