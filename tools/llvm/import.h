// Import of an LLVM 19 MachineFunction, as it stands in the register-allocation
// slot (after PHI elimination, the two-address pass and LLVM's register
// coalescer), into our IR, for every pipeline to allocate.
//
//   absl::StatusOr<ImportedFunction> f = ImportMachineFunction(mf);
//   if (!f.ok()) ... // f.status() names the function, block, instruction and what
//
// What the import does (the design, issue 18):
// - SSA reconstruction. A virtual register with several definitions becomes
//   several values; where definitions meet, a block parameter (pruned by liveness,
//   then trivial parameters removed: those that only ever receive one value or
//   themselves). A full COPY between virtual registers defines nothing: the
//   destination names the source's value from then on, so the copies PHI
//   elimination and the two-address pass inserted fold away.
// - Opaque target instructions. Each machine instruction becomes `inst.T...
//   %OPCODE(uses)` with its register defs and uses; a block's terminators become
//   one `branch %JCC_1.JMP_1(uses), blockT(args), blockF(args)` (0-2 targets); a
//   return `ret` with its results fixed to the return registers.
// - Types and sub-register views. A value has one type: the widest view it is
//   read or written through, in its register bank (integer: i32 or i64;
//   floating point and vector: f32, f64 or v128). Sub-register reads and writes at
//   bit offset 0 (`%3:gr32 = COPY %2.sub_32bit`, `undef %6.ssub:fpr128 = COPY %5`,
//   SUBREG_TO_REG) are the same value through a narrower view: they fold like full
//   copies and cost no move; the machine operand's sub-register index picks the
//   view of the value's register when the allocation is written back. A partial
//   write that keeps the rest of the register (no `undef`) is an instruction that
//   reads the old value and defines the new one in the same register (Reuse).
//   A class that excludes some registers our class allocates (x86 GR64_TC for a
//   tail call through a register, GR32_ABCD, GR32_NOREX; AArch64 tcGPR64) pins
//   its value, at every operand, to one register it holds (caller-saved ones
//   after the argument registers first, in turn across values; a def tied to a
//   pinned use takes that use's register); a copy into such a class stays an
//   instruction. A read at a bit offset (`%v.sub_8bit_hi`) is taken only from
//   a value so pinned. A class that holds none of ours is reported.
// - Constraints. Physical-register operands (COPYs to and from argument and result
//   registers, implicit uses and defs) become Fixed operands of the value they
//   carry, in the view of the value's class; tied operands Reuse; early-clobber
//   defs Early; register masks and dead physical defs clobbers. Registers neither
//   allocator touches (flags, stack and frame pointers, LLVM's reserved ones) are
//   left out. Operands stay Reg: none is turned into a memory operand.
// - Anything it cannot express is an error naming it; the caller hands the
//   function to LLVM's own allocator.
#ifndef REGALLOC_TOOLS_LLVM_IMPORT_H_
#define REGALLOC_TOOLS_LLVM_IMPORT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ssa/ir.h"

namespace llvm {
class MachineBasicBlock;
class MachineFunction;
class MachineInstr;
}  // namespace llvm

namespace regalloc {

// Where an operand of the imported function came from, for writing an
// allocation back (tools/llvm/writeback.h). `mi` and `index` name the machine
// operand of a virtual register; a branch's operands name only the register
// (`vreg`), since splitting an edge may rebuild the terminators; an operand
// fixed to a physical register names nothing (the machine operand already is).
struct OperandOrigin {
  const llvm::MachineInstr* mi = nullptr;
  unsigned index = 0;
  unsigned vreg = 0;  // the virtual register (llvm::Register) it reads or writes
};

struct ImportOrigins {
  std::vector<llvm::MachineBasicBlock*> blocks;        // our block -> its machine block
  std::vector<const llvm::MachineInstr*> insts;        // our instruction -> its machine instruction
                                                       // (null: a branch, a return, an undefined value)
  std::vector<std::vector<OperandOrigin>> operands;    // our instruction -> per operand (branch arguments not)
  std::vector<const llvm::MachineInstr*> folded;       // copies that folded away: deleted on write-back
  std::vector<unsigned> llvm_reg;                      // our PReg index -> its LLVM register (0: none)
};

struct ImportedFunction {
  Function func;
  std::string target;          // a TargetByName name: "x86_64", "x86_64_win", "aarch64"
  bool frame_pointer = false;  // LLVM reserves the frame pointer in this function
  int machine_insts = 0;       // instructions of the machine function
  ImportOrigins origins;
};

absl::StatusOr<ImportedFunction> ImportMachineFunction(const llvm::MachineFunction& mf);

}  // namespace regalloc

#endif  // REGALLOC_TOOLS_LLVM_IMPORT_H_
