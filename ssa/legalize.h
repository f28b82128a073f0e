// Legalization: attaches the operand constraints a target's instructions impose on
// generic IR, so one input function can be allocated for every target.
//
//   RA_RETURN_IF_ERROR(Legalize(func, target));
//
// On every target (the calling convention, from target.abi()):
//  - the function's parameters arrive Fixed in argument registers (Stack when the
//    registers run out), `ret` operands are Fixed to result registers;
//  - call arguments are Fixed to argument registers (Stack beyond them), results
//    Fixed to result registers, and the call clobbers the caller-saved set.
// On x86-64 in addition:
//  - two-address ALU forms: add sub and or xor mul and fadd fsub fmul fdiv get
//    `Reuse(0)` on the def and `Any` (a memory operand) on the second source;
//  - shifts take the count Fixed in %cl's register (%ecx / %rcx view);
//  - div takes the dividend Fixed in %rax and leaves the quotient there, clobbering
//    %rdx; rem leaves the remainder in %rdx and clobbers %rax; the divisor is
//    `Any` and read Late, so it can be neither of them;
//  - cmp reads its second operand as `Any`.
// AArch64 and ARMv7 are three-address: no reuse constraints.
//
// Operands that already carry a non-default constraint or position are left as
// written (hand-written tests may pin registers), with one exception: a
// two-address source written `any` becomes `reg`, since the def takes its
// register (one written `stack` keeps its instruction three-address). Errors (InvalidArgument, naming
// the function and value): a type the target has no registers for (ARMv7 i64), a
// call with more than kMaxCallArgs arguments, more results than result registers,
// an instruction that reads (or writes) more values in registers at once than
// the target has (CheckRegisterDemand, ssa/verifier.h, run on the result).
// On error the function is left unchanged.
#ifndef REGALLOC_SSA_LEGALIZE_H_
#define REGALLOC_SSA_LEGALIZE_H_

#include "absl/status/status.h"
#include "ssa/ir.h"
#include "targets/target.h"

namespace regalloc {

inline constexpr int kMaxCallArgs = 64;

absl::Status Legalize(Function& func, const Target& target);

}  // namespace regalloc

#endif  // REGALLOC_SSA_LEGALIZE_H_
