// Redundant moves after allocation (HotSpot C2's post_allocate_copy_removal,
// within a block): a reload, copy or move into a register that already holds
// the same bits — a reload, copy or move of the same value filled it, or the
// value was defined there, and nothing wrote the register or an alias of it
// since — reads them where they are. It becomes a copy of the register's
// holder into the register itself, which moves nothing (MeasureAllocation
// counts it free, and the LLVM write-back emits nothing for it).
//
//   MoveElider elider;   // keep it: its buffers serve the next function
//   int made_free = elider.Run(func, target);
//
// "The same bits" follows each value back through the instructions that only
// move bits (copy, move, spill, reload, parallel_copy) to the value they carry;
// a value defined more than once (a block parameter after lowering) carries
// bits equal to nothing else.
// The walk knows nothing at a block's start but its parameters' registers.
// Precondition: every operand and parameter has its location (after any
// allocator). The function stays valid: the holder's definition precedes the
// rewritten instruction in its block.
#ifndef REGALLOC_SSA_ELIDE_MOVES_H_
#define REGALLOC_SSA_ELIDE_MOVES_H_

#include <cstdint>
#include <vector>

#include "ssa/ir.h"
#include "targets/target.h"

namespace regalloc {

class MoveElider {
 public:
  // Returns the number of instructions made free.
  int Run(Function& func, const Target& target);

 private:
  // The value whose bits `v` carries.
  uint32_t Root(const Function& func, Value v);

  std::vector<Inst> def_;           // by value: its defining instruction
  std::vector<uint16_t> def_at_;    // by value: its operand index there
  std::vector<uint8_t> defs_;       // by value: how many definitions (2: two or more)
  uint32_t next_token_ = 0;         // bits known equal to nothing else (past the value ids)
  std::vector<uint32_t> root_;      // by value, memoized
  std::vector<uint32_t> chain_;
  std::vector<uint32_t> stamp_;     // by register: the block walk that wrote it
  std::vector<uint32_t> holds_;     // by register: the root of its bits
  std::vector<Value> holder_;       // by register: the value defined into it
  std::vector<std::pair<PReg, Value>> writes_;
};

// One-shot form.
int ElideRedundantMoves(Function& func, const Target& target);

}  // namespace regalloc

#endif  // REGALLOC_SSA_ELIDE_MOVES_H_
