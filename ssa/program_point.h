// Program points: two per instruction, Early (where uses are read and early defs
// written) and Late (where defs are written and late uses read), as dense 32-bit
// integers ordered by block layout:  point = 2 * (layout index of inst) + (Late ? 1 : 0).
//
//   InstNumbering num(func);
//   ProgramPoint p = num.Late(inst);
//   if (p < num.BlockEnd(b)) ...
//
// A block covers [BlockStart(b), BlockEnd(b)]: the Early point of its first
// instruction to the Late point of its terminator. Block parameters are defined at
// BlockStart, branch arguments are used at the terminator's Early point.
#ifndef REGALLOC_SSA_PROGRAM_POINT_H_
#define REGALLOC_SSA_PROGRAM_POINT_H_

#include <cstdint>
#include <vector>

#include "ssa/ir.h"

namespace regalloc {

class ProgramPoint {
 public:
  constexpr ProgramPoint() : bits_(0) {}
  static constexpr ProgramPoint Early(uint32_t inst_number) { return ProgramPoint(inst_number * 2); }
  static constexpr ProgramPoint Late(uint32_t inst_number) { return ProgramPoint(inst_number * 2 + 1); }
  static constexpr ProgramPoint FromBits(uint32_t bits) { return ProgramPoint(bits); }

  uint32_t bits() const { return bits_; }
  uint32_t inst_number() const { return bits_ >> 1; }
  bool IsEarly() const { return (bits_ & 1) == 0; }
  bool IsLate() const { return (bits_ & 1) != 0; }
  ProgramPoint Next() const { return ProgramPoint(bits_ + 1); }

  friend bool operator==(ProgramPoint a, ProgramPoint b) { return a.bits_ == b.bits_; }
  friend bool operator!=(ProgramPoint a, ProgramPoint b) { return a.bits_ != b.bits_; }
  friend bool operator<(ProgramPoint a, ProgramPoint b) { return a.bits_ < b.bits_; }
  friend bool operator<=(ProgramPoint a, ProgramPoint b) { return a.bits_ <= b.bits_; }
  friend bool operator>(ProgramPoint a, ProgramPoint b) { return a.bits_ > b.bits_; }
  friend bool operator>=(ProgramPoint a, ProgramPoint b) { return a.bits_ >= b.bits_; }

 private:
  constexpr explicit ProgramPoint(uint32_t bits) : bits_(bits) {}
  uint32_t bits_;
};

// Numbers the instructions of the layout. Recompute after editing the function.
class InstNumbering {
 public:
  InstNumbering() = default;
  explicit InstNumbering(const Function& func) { Compute(func); }
  // Renumbers, reusing this object's storage.
  void Compute(const Function& func);

  // Preconditions: `inst` is placed in a block of the layout.
  ProgramPoint Early(Inst inst) const { return ProgramPoint::Early(number_[inst.index()]); }
  ProgramPoint Late(Inst inst) const { return ProgramPoint::Late(number_[inst.index()]); }
  // Preconditions: `b` is in the layout and not empty.
  ProgramPoint BlockStart(Block b) const { return ProgramPoint::Early(first_[b.index()]); }
  ProgramPoint BlockEnd(Block b) const { return ProgramPoint::Late(last_[b.index()]); }
  // The instruction at a point, and the block containing it.
  Inst InstAt(ProgramPoint p) const { return order_[p.inst_number()]; }
  Block BlockAt(ProgramPoint p) const { return block_of_[p.inst_number()]; }
  int num_insts() const { return static_cast<int>(order_.size()); }

 private:
  std::vector<uint32_t> number_;   // by Inst
  std::vector<uint32_t> first_;    // by Block
  std::vector<uint32_t> last_;     // by Block
  std::vector<Inst> order_;        // by number
  std::vector<Block> block_of_;    // by number
};

}  // namespace regalloc

#endif  // REGALLOC_SSA_PROGRAM_POINT_H_
