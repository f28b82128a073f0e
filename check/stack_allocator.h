// The reference allocator: every value lives in its own stack slot ("home"), and
// registers hold values only within one instruction. It is the correctness
// baseline of the differential tests and the cost baseline every real allocator's
// spill and reload counts are compared to.
//
//   absl::StatusOr<StackAllocStats> s = AllocateOnStack(func, target);
//   // then LowerBlockParams(func, target) turns block parameters into moves
//
// Per instruction, in operand order:
//  - a use constrained `Any` or `Stack` reads its home slot; a `Fixed(r)` use is
//    reloaded into r; a `Reg` use is reloaded into the first register of its class
//    (allocation order) that no other operand of the instruction takes — and, if
//    read Late, that the instruction does not clobber;
//  - a `Fixed(r)` def is written to r, a `Reuse(k)` def to use k's register, a
//    `Reg` def to a free register; each is spilled to its home right after;
//  - block parameters arrive in registers (the entry's per the ABI) and are
//    spilled at the top of their block; branch arguments are reloaded before the
//    branch, so lowering the parameters only moves registers.
// Callee-saved registers it touches go into the frame's `saves`.
#ifndef REGALLOC_CHECK_STACK_ALLOCATOR_H_
#define REGALLOC_CHECK_STACK_ALLOCATOR_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "ssa/ir.h"
#include "targets/target.h"

namespace regalloc {

struct StackAllocStats {
  int spills = 0;   // spill instructions inserted
  int reloads = 0;  // reload instructions inserted
  int64_t weighted_cost = 0;  // inserted instructions, each weighted 10^loop depth
};

// Precondition: `func` verifies and has no locations yet. FailedPrecondition
// naming the instruction when an instruction needs more registers of a class than
// the target has.
absl::StatusOr<StackAllocStats> AllocateOnStack(Function& func, const Target& target);

}  // namespace regalloc

#endif  // REGALLOC_CHECK_STACK_ALLOCATOR_H_
