#include "ssa/cfg.h"

#include <string>

#include "gtest/gtest.h"
#include "ssa/parser.h"
#include "ssa/printer.h"
#include "ssa/verifier.h"

namespace regalloc {
namespace {

const Target& X86() { return *TargetByName("x86_64").value(); }

Function Parse(const char* text) {
  absl::StatusOr<Function> f = ParseFunction(text, X86());
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? *std::move(f) : Function();
}

Block B(int i) { return Block(i); }

TEST(CfgTest, DiamondDominators) {
  Function f = Parse(R"(function %f(i32) {
block0(v0: i32):
    br v0, block1, block2
block1:
    jump block3
block2:
    jump block3
block3:
    ret
})");
  ControlFlowGraph cfg(f);
  DominatorTree dom(f, cfg);
  EXPECT_EQ(cfg.rpo().front(), B(0));
  EXPECT_EQ(cfg.rpo().back(), B(3));
  EXPECT_EQ(dom.idom(B(1)), B(0));
  EXPECT_EQ(dom.idom(B(2)), B(0));
  EXPECT_EQ(dom.idom(B(3)), B(0));
  EXPECT_FALSE(dom.idom(B(0)).IsValid());
  EXPECT_TRUE(dom.Dominates(B(0), B(3)));
  EXPECT_TRUE(dom.Dominates(B(3), B(3)));
  EXPECT_FALSE(dom.Dominates(B(1), B(3)));
  EXPECT_FALSE(dom.Dominates(B(3), B(0)));
  EXPECT_EQ(cfg.preds(B(3)).size(), 2u);
  EXPECT_TRUE(cfg.CriticalEdges().empty());
  EXPECT_EQ(dom.preorder().size(), 4u);
}

constexpr char kNested[] = R"(function %f(i32) {
block0(v0: i32):
    jump block1
block1:
    br v0, block2, block5
block2:
    jump block3
block3:
    br v0, block3, block4
block4:
    jump block1
block5:
    ret
})";

TEST(CfgTest, NestedLoopDepths) {
  Function f = Parse(kNested);
  ControlFlowGraph cfg(f);
  DominatorTree dom(f, cfg);
  LoopNest loops(f, cfg, dom);
  EXPECT_EQ(loops.num_loops(), 2);
  EXPECT_EQ(loops.depth(B(0)), 0);
  EXPECT_EQ(loops.depth(B(1)), 1);
  EXPECT_EQ(loops.depth(B(2)), 1);
  EXPECT_EQ(loops.depth(B(3)), 2);
  EXPECT_EQ(loops.depth(B(4)), 1);
  EXPECT_EQ(loops.depth(B(5)), 0);
  EXPECT_TRUE(loops.IsHeader(B(1)));
  EXPECT_TRUE(loops.IsHeader(B(3)));
  int inner = loops.innermost(B(3));
  EXPECT_EQ(loops.header(inner), B(3));
  EXPECT_EQ(loops.header(loops.parent(inner)), B(1));
  EXPECT_EQ(loops.parent(loops.parent(inner)), -1);
  // block3 -> block3 is critical: block3 has two successors, and two predecessors.
  std::vector<Edge> critical = cfg.CriticalEdges();
  ASSERT_EQ(critical.size(), 1u);
  EXPECT_EQ(critical[0].from, B(3));
  EXPECT_EQ(critical[0].to, B(3));
}

TEST(CfgTest, IrreducibleCycleFormsNoLoop) {
  Function f = Parse(R"(function %f(i32) {
block0(v0: i32):
    br v0, block1, block2
block1:
    br v0, block2, block3
block2:
    br v0, block1, block3
block3:
    ret
})");
  ControlFlowGraph cfg(f);
  DominatorTree dom(f, cfg);
  LoopNest loops(f, cfg, dom);
  EXPECT_EQ(loops.num_loops(), 0);
  EXPECT_EQ(loops.depth(B(1)), 0);
  EXPECT_EQ(dom.idom(B(1)), B(0));
  EXPECT_EQ(dom.idom(B(2)), B(0));
}

TEST(CfgTest, SplitCriticalEdgesMovesArguments) {
  Function f = Parse(R"(function %f(i32) -> i32 {
block0(v0: i32):
    v1 = const.i32 1
    br v0, block1(v1), block2(v0, v1)
block1(v2: i32):
    jump block2(v2, v2)
block2(v3: i32, v4: i32):
    ret v3
})");
  EXPECT_EQ(SplitCriticalEdges(f), 1);
  EXPECT_TRUE(Verify(f, X86()).ok()) << Verify(f, X86());
  EXPECT_EQ(PrintFunction(f, X86()), R"(function %f(i32) -> i32 {
block0(v0: i32):
    v1 = const.i32 1
    br v0, block1(v1), block3
block3:
    jump block2(v0, v1)
block1(v2: i32):
    jump block2(v2, v2)
block2(v3: i32, v4: i32):
    ret v3
}
)");
  ControlFlowGraph after(f);
  EXPECT_TRUE(after.CriticalEdges().empty());
  EXPECT_EQ(SplitCriticalEdges(f), 0);
}

TEST(CfgTest, SplitBothEdgesOfABranchToOneBlock) {
  Function f = Parse(R"(function %f(i32) {
block0(v0: i32):
    jump block1(v0)
block1(v1: i32):
    br v1, block2(v1), block2(v0)
block2(v2: i32):
    ret
})");
  EXPECT_EQ(SplitCriticalEdges(f), 2);
  ASSERT_TRUE(Verify(f, X86()).ok()) << Verify(f, X86());
  EXPECT_EQ(PrintFunction(f, X86()), R"(function %f(i32) {
block0(v0: i32):
    jump block1(v0)
block1(v1: i32):
    br v1, block3, block4
block3:
    jump block2(v1)
block4:
    jump block2(v0)
block2(v2: i32):
    ret
}
)");
}

}  // namespace
}  // namespace regalloc
