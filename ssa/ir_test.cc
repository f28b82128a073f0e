// The function arrays: instructions made from another instruction's operands
// (a span into the operand pool the new instruction grows) get them intact
// across the pool's moves, and a longer operand list replaces a shorter one.
#include "ssa/ir.h"

#include <vector>

#include "gtest/gtest.h"

namespace regalloc {
namespace {

TEST(FunctionTest, OperandsOfAnInstructionCopyIntoANewOneAcrossGrowth) {
  Function f("grow", {}, {});
  std::vector<Operand> first;
  for (int k = 0; k < 5; ++k) first.push_back(Operand::Use(f.NewValue(Type::kI64)));
  first.push_back(Operand::Def(f.NewValue(Type::kI64)));
  InstData d;
  d.opcode = Opcode::kCopy;
  Inst prev = f.NewInst(d, first);
  // Each new instruction reads the last one's operands where they lie, in
  // the pool: several of these grow the pool and move it.
  for (int n = 0; n < 2000; ++n) {
    prev = f.NewInst(d, f.operands(prev));
    ASSERT_EQ(f.operands(prev).size(), first.size()) << n;
    for (size_t k = 0; k < first.size(); ++k) {
      ASSERT_EQ(f.operands(prev)[k].value(), first[k].value()) << n << " operand " << k;
      ASSERT_EQ(f.operands(prev)[k].IsDef(), first[k].IsDef()) << n << " operand " << k;
    }
  }
  // A longer list from the pool itself: the instruction's own operands twice.
  std::vector<Operand> twice(f.operands(prev).begin(), f.operands(prev).end());
  twice.insert(twice.end(), first.begin(), first.end());
  f.SetOperands(prev, twice);
  ASSERT_EQ(f.operands(prev).size(), 2 * first.size());
  for (size_t k = 0; k < twice.size(); ++k) EXPECT_EQ(f.operands(prev)[k].value(), twice[k].value()) << k;
  EXPECT_EQ(f.num_insts(), 2001);
}

}  // namespace
}  // namespace regalloc
