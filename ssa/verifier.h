// The IR verifier. Returns OK or the first violation, as InvalidArgument naming the
// function, the block, the instruction (printed) and the operand at fault:
//   "function %f, block2, inst 1 `v5 = add v3, v4`: v4 has type f64, expected i64"
//
// Checks:
//  1. Structure: at least one block; every block ends in exactly one terminator;
//     the entry block has no predecessors and one parameter per signature
//     parameter; every block is reachable from the entry.
//  2. Operands: defs come before uses; counts and types per opcode (DESIGN.md's
//     semantics); branch argument counts and types match the target block's
//     parameters; `ret` operands match the signature's results.
//  3. SSA: every value is defined exactly once (an instruction result or a block
//     parameter) and every use is dominated by its definition. Allocated
//     functions (every operand has a location) are past SSA — parameters may have
//     been lowered to parallel copies — so for them these checks are left to the
//     allocation checker.
//  4. Constraints: a Fixed register is in the class of its value's type; Reuse(k)
//     is on a def and names an existing use of the same class; no two different
//     values are fixed to aliasing registers at the same position and kind; move-like
//     instructions move values to themselves; locations name existing registers
//     and stack slots.
#ifndef REGALLOC_SSA_VERIFIER_H_
#define REGALLOC_SSA_VERIFIER_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "ssa/cfg.h"
#include "ssa/ir.h"
#include "targets/target.h"

namespace regalloc {

absl::Status Verify(const Function& func, const Target& target);

// An allocator's precondition beyond Verify, on legalized input (Legalize checks
// it last; every allocator object checks it first): at each instruction, the
// distinct values its uses read in registers (Reg, or Fixed to an allocatable
// register; not a branch's edge arguments) fit each pressure bank's capacity,
// counted in the bank's slots (ARMv7: an f64 takes 2), and so do its register
// defs. A lower bound: aliases, alignment, clobbers and Late reads may need more,
// which each allocator reports itself. InvalidArgument naming the function,
// block and instruction, "over-constrained: ...". Before legalization a call's
// arguments are all Reg, so this does not belong to Verify.
absl::Status CheckRegisterDemand(const Function& func, const Target& target);

// The same as a reusable object (allocators that verify their input hold one):
// its buffers stay between functions.
class FunctionVerifier {
 public:
  absl::Status Run(const Function& func, const Target& target);
  // The same, leaving in `analyses` the control-flow graph, dominator tree and
  // loop nest of `func` when it is valid (the checks compute the first two
  // anyway): an allocator object verifies its input this way and hands the
  // analyses to its phases instead of computing them again. On an error they
  // are not meaningful.
  absl::Status Run(const Function& func, const Target& target, CfgAnalyses& analyses);

 private:
  ControlFlowGraph cfg_;
  DominatorTree dom_;
  std::vector<Block> def_block_;
  std::vector<int> def_index_;
};

}  // namespace regalloc

#endif  // REGALLOC_SSA_VERIFIER_H_
