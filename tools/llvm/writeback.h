// Writes an allocation of an imported function (tools/llvm/import.h) back into
// its LLVM 19 MachineFunction, so that LLVM finishes the compile with our
// registers, moves, spills and reloads.
//
//   absl::StatusOr<ImportedFunction> imported = ImportMachineFunction(mf);
//   Function allocated = imported->func;  ... legalize, allocate, check ...
//   absl::StatusOr<WriteBackStats> s = WriteBack(allocated, *imported, target, mf, pass);
//
// What it does:
// - Every virtual-register operand the import took gets the physical register
//   of its location, in the view of the operand's register class with the
//   operand's sub-register index applied (a sub-register def also defines the
//   whole register, as LLVM's rewriter does). An `undef` read gets any register
//   of its class (the def's, when tied to one).
// - Our moves become TargetInstrInfo::copyPhysReg, spills and reloads
//   storeRegToStackSlot / loadRegFromStackSlot on frame indices made for our
//   stack slots; a parallel copy is sequentialized first; a stack-to-stack move
//   goes through a register saved around it. Instructions keep the order of the
//   allocated function; the copies the import folded away are deleted.
// - A block the allocation added on an edge becomes a machine block
//   (MachineBasicBlock::SplitCriticalEdge, which fixes the branches); block
//   frequencies follow. On an edge out of a jump table's indirect branch, which
//   LLVM does not split, the new block takes the successor's place in the table
//   (when no other block can jump through that table; an error otherwise, as for
//   a computed goto).
// - Afterwards the function has no virtual-register operand, its blocks list
//   their physical live-ins, kill flags are gone (recomputed, with dead flags,
//   where x87 values are: LLVM's stackifier pops at last uses), slot indexes cover every
//   instruction and the live intervals of the function's registers are dropped
//   (nothing after register allocation reads them). Callee-saved registers the
//   allocation uses are defined by operands, so prologue/epilogue insertion
//   saves them.
//
// Everything is planned before anything changes: an error (naming the function
// and instruction) leaves the machine function as it was, for LLVM's own
// allocator to take.
#ifndef REGALLOC_TOOLS_LLVM_WRITEBACK_H_
#define REGALLOC_TOOLS_LLVM_WRITEBACK_H_

#include "absl/status/statusor.h"
#include "ssa/ir.h"
#include "targets/target.h"
#include "tools/llvm/import.h"

namespace llvm {
class MachineFunction;
class Pass;
}  // namespace llvm

namespace regalloc {

struct WriteBackStats {
  int operands = 0;        // machine operands given a physical register
  int copies = 0;          // copyPhysReg
  int stores = 0;          // storeRegToStackSlot (spills; stack moves count two)
  int loads = 0;           // loadRegFromStackSlot
  int stack_moves = 0;     // stack-to-stack moves, through a saved register
  int split_edges = 0;     // machine blocks added on edges
  int jump_table_edges = 0;  // of which on an edge out of a jump table (the table redirected)
  int frame_indices = 0;   // spill slots made
  int deleted = 0;         // copies the import folded away
};

// `allocated` is `imported.func` after allocation (same instruction ids for the
// imported instructions); `pass` is the register-allocation pass running on
// `mf` (splitting an edge updates the analyses it has).
absl::StatusOr<WriteBackStats> WriteBack(const Function& allocated, const ImportedFunction& imported,
                                         const Target& target, llvm::MachineFunction& mf, llvm::Pass& pass);

}  // namespace regalloc

#endif  // REGALLOC_TOOLS_LLVM_WRITEBACK_H_
