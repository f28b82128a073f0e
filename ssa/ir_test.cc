// The function arrays: instructions made from another instruction's operands
// or targets (a span into the pool the new instruction grows) get them intact
// across the pool's moves, and a longer list replaces a shorter one. An
// operand's packed byte keeps kind, position and constraint apart.
#include "ssa/ir.h"

#include <vector>

#include "gtest/gtest.h"

namespace regalloc {
namespace {

// GrowInsts makes room in advance: the instructions it was told of, with their
// operands, go in without moving the arrays (a phase grows the function before
// taking its own buffers), and a request that fits changes nothing.
TEST(FunctionTest, GrowInstsMakesRoomOnceForWhatFollows) {
  Function f("room", {}, {});
  Value v = f.NewValue(Type::kI64);
  InstData d;
  d.opcode = Opcode::kCopy;
  const Operand ops[2] = {Operand::Def(f.NewValue(Type::kI64)), Operand::Use(v)};
  f.GrowInsts(100, 200);
  Inst first = f.NewInst(d, ops);
  const Operand* pool = f.operands(first).data();
  const InstData* insts = &f.inst(first);
  for (int n = 1; n < 100; ++n) f.NewInst(d, ops);
  EXPECT_EQ(f.operands(first).data(), pool);
  EXPECT_EQ(&f.inst(first), insts);
  f.GrowInsts(0, 0);
  EXPECT_EQ(f.operands(first).data(), pool);
  // One more than the room: the arrays grow, keeping what they held.
  f.NewInst(d, ops);
  EXPECT_EQ(f.num_insts(), 101);
  EXPECT_EQ(f.operands(first)[1].value(), v);
}

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

TEST(FunctionTest, TargetsOfABranchCopyIntoANewOneAcrossGrowth) {
  Function f("targets", {}, {});
  std::vector<BranchTarget> first;
  for (uint16_t k = 0; k < 3; ++k) first.push_back(BranchTarget{f.NewBlock(), k, 1});
  std::vector<Operand> ops;
  for (int k = 0; k < 3; ++k) ops.push_back(Operand::Use(f.NewValue(Type::kI64)));
  InstData d;
  d.opcode = Opcode::kBranch;
  Inst prev = f.NewInst(d, ops, first);
  for (int n = 0; n < 2000; ++n) {
    prev = f.NewInst(d, f.operands(prev), f.targets(prev));
    ASSERT_EQ(f.targets(prev).size(), first.size()) << n;
    ASSERT_EQ(f.inst(prev).num_targets(), 3) << n;
    for (size_t k = 0; k < first.size(); ++k) {
      ASSERT_EQ(f.targets(prev)[k].block, first[k].block) << n << " target " << k;
      ASSERT_EQ(f.targets(prev)[k].first_arg, first[k].first_arg) << n << " target " << k;
    }
  }
  EXPECT_EQ(f.NumNonArgOperands(prev), 0u);
  EXPECT_EQ(f.BranchArgs(prev, 2)[0].value(), ops[2].value());
  // Fewer targets in place, then more than it had (from the pool itself).
  f.SetTargets(prev, f.targets(prev).subspan(1, 1));
  ASSERT_EQ(f.targets(prev).size(), 1u);
  EXPECT_EQ(f.targets(prev)[0].block, first[1].block);
  EXPECT_EQ(f.NumNonArgOperands(prev), 1u);
  std::vector<BranchTarget> more = {first[0], first[1], first[2], first[0]};
  f.SetTargets(prev, more);
  ASSERT_EQ(f.targets(prev).size(), 4u);
  EXPECT_EQ(f.targets(prev)[3].block, first[0].block);
  // Other instructions have none.
  InstData c;
  c.opcode = Opcode::kCopy;
  Inst copy = f.NewInst(c, ops);
  EXPECT_TRUE(f.targets(copy).empty());
  EXPECT_EQ(f.NumNonArgOperands(copy), ops.size());
}

TEST(OperandTest, KindPositionAndConstraintShareAByteWithoutMixing) {
  const Value v(7);
  for (int def = 0; def < 2; ++def) {
    for (Position p : {Position::kEarly, Position::kLate}) {
      for (ConstraintKind c : {ConstraintKind::kReg, ConstraintKind::kAny, ConstraintKind::kStack,
                               ConstraintKind::kFixed, ConstraintKind::kReuse}) {
        Operand o = (def ? Operand::Def(v) : Operand::Use(v)).WithPosition(p).WithConstraint(c).WithPosition(p);
        EXPECT_EQ(o.IsDef(), def == 1);
        EXPECT_EQ(o.IsUse(), def == 0);
        EXPECT_EQ(o.position(), p);
        EXPECT_EQ(o.constraint(), c);
        EXPECT_EQ(o.value(), v);
        // Setting one field again leaves the others.
        Operand q = o.WithPosition(p == Position::kEarly ? Position::kLate : Position::kEarly);
        EXPECT_EQ(q.constraint(), c);
        EXPECT_EQ(q.IsDef(), def == 1);
        EXPECT_FALSE(q == o);
      }
    }
  }
  Operand f = Operand::FixedUse(v, PReg(300)).WithPosition(Position::kLate);
  EXPECT_EQ(f.constraint(), ConstraintKind::kFixed);
  EXPECT_EQ(f.fixed_reg(), PReg(300));
  EXPECT_EQ(f.position(), Position::kLate);
  Operand r = Operand::ReuseDef(v, 2);
  EXPECT_TRUE(r.IsDef());
  EXPECT_EQ(r.constraint(), ConstraintKind::kReuse);
  EXPECT_EQ(r.reuse_index(), 2);
  EXPECT_TRUE(r.HasDefaultPosition());
}

}  // namespace
}  // namespace regalloc
