#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "liveness/live_ranges.h"
#include "liveness/live_sets.h"
#include "liveness/liveness_queries.h"
#include "liveness/print.h"
#include "ssa/cfg.h"
#include "ssa/parser.h"

namespace regalloc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const Target& X86() { return *TargetByName("x86_64").value(); }

struct Analyzed {
  Function f;
  ControlFlowGraph cfg;
  DominatorTree dom;
  InstNumbering num;
  LiveSets sets;
  LiveRanges ranges;
  explicit Analyzed(Function func)
      : f(std::move(func)), cfg(f), dom(f, cfg), num(f), sets(f), ranges(f, sets, num) {}
};

Analyzed Analyze(const char* text, const Target& t = X86()) {
  absl::StatusOr<Function> f = ParseFunction(text, t);
  EXPECT_TRUE(f.ok()) << f.status();
  return Analyzed(f.ok() ? *std::move(f) : Function());
}

std::vector<uint32_t> Ids(absl::Span<const Value> vs) {
  std::vector<uint32_t> out;
  for (Value v : vs) out.push_back(v.index());
  return out;
}

Block B(int i) { return Block(i); }
Value V(int i) { return Value(i); }

// v1 is live through the loop without being used in it; v3 is loop-carried; v6
// is a dead def.
constexpr char kLoop[] = R"(function %loop(i64, i64) -> i64 {
block0(v0: i64, v1: i64):
    v2 = const.i64 0
    jump block1(v2)
block1(v3: i64):
    v4 = add v3, v0
    v5 = cmp.lt v4, v0
    v6 = const.i64 9
    br v5, block1(v4), block2
block2:
    ret v1
}
)";

TEST(LiveSetsTest, LoopCarriedLiveThroughAndDead) {
  Analyzed a = Analyze(kLoop);
  EXPECT_THAT(Ids(a.sets.LiveIn(B(1))), ElementsAre(0, 1));  // v3 is a parameter: defined, not live-in
  EXPECT_THAT(Ids(a.sets.LiveOut(B(1))), ElementsAre(0, 1));  // v4 passes as an argument: used at the branch
  EXPECT_THAT(Ids(a.sets.LiveIn(B(2))), ElementsAre(1));
  EXPECT_THAT(Ids(a.sets.LiveOut(B(0))), ElementsAre(0, 1));
  EXPECT_TRUE(a.sets.LiveIn(B(0)).empty());
  EXPECT_EQ(a.sets.GlobalIndex(V(6)), -1);  // local
  EXPECT_GE(a.sets.GlobalIndex(V(1)), 0);   // global
  EXPECT_EQ(a.sets.DefBlock(V(3)), B(1));
}

TEST(LiveRangesTest, IntervalsAndOverlap) {
  Analyzed a = Analyze(kLoop);
  // Points: block0 insts 0,1 -> 0..3; block1 insts 2..5 -> 4..11; block2 inst 6 -> 12,13.
  EXPECT_EQ(a.ranges.def_interval(V(2)).begin.bits(), 1u);  // Late of inst 0
  EXPECT_EQ(a.ranges.def_interval(V(2)).end.bits(), 2u);    // used by the jump at Early of inst 1
  EXPECT_EQ(a.ranges.def_interval(V(3)).begin.bits(), 4u);  // block start
  EXPECT_EQ(a.ranges.def_interval(V(3)).end.bits(), 4u);    // last use: Early of inst 2
  EXPECT_EQ(a.ranges.def_interval(V(6)).begin.bits(), 9u);  // dead def: its Late point only
  EXPECT_EQ(a.ranges.def_interval(V(6)).end.bits(), 9u);
  // v1: defined at entry, live-in to block1 and block2, coalesced into one interval.
  ASSERT_EQ(a.ranges.live_ins(V(1)).size(), 1u);
  EXPECT_EQ(a.ranges.live_ins(V(1))[0].begin.bits(), 4u);
  EXPECT_EQ(a.ranges.live_ins(V(1))[0].end.bits(), 12u);  // block1's end (11) meets block2's start (12)
  EXPECT_TRUE(a.ranges.Overlaps(V(1), V(4)));
  EXPECT_TRUE(a.ranges.Overlaps(V(0), V(3)));
  EXPECT_FALSE(a.ranges.Overlaps(V(3), V(4)));  // v3 dies at Early where v4 is defined Late
  EXPECT_FALSE(a.ranges.Overlaps(V(2), V(4)));
  EXPECT_TRUE(a.ranges.Covers(V(1), ProgramPoint::FromBits(10)));
  EXPECT_FALSE(a.ranges.Covers(V(0), ProgramPoint::FromBits(12)));
  // LiveBegin / LiveEnd of block1, in reverse instruction order.
  std::vector<uint32_t> begins, ends;
  for (const LiveEvent& e : a.ranges.LiveBegin(B(1))) begins.push_back(e.value.index());
  for (const LiveEvent& e : a.ranges.LiveEnd(B(1))) ends.push_back(e.value.index());
  EXPECT_THAT(begins, ElementsAre(6, 5, 4, 3));  // v3 is the parameter
  EXPECT_THAT(ends, ElementsAre(5, 4, 3));       // v0, v1 are live out; v6 is dead
  EXPECT_FALSE(a.ranges.LiveBegin(B(1)).back().inst.IsValid());
  std::string printed = PrintLiveness(a.f, a.sets, a.ranges);
  EXPECT_THAT(printed, HasSubstr("  block1: in v0, v1; out v0, v1\n"));
  EXPECT_THAT(printed, HasSubstr("  v1: def [0, 3], live-in [4, 12]\n"));
}

TEST(LiveSetsTest, CriticalEdgesAndArguments) {
  Analyzed a = Analyze(R"(function %c(i32, i32) -> i32 {
block0(v0: i32, v1: i32):
    br v0, block2(v0), block1
block1:
    v2 = add v1, v1
    jump block2(v2)
block2(v3: i32):
    v4 = add v3, v1
    ret v4
}
)");
  EXPECT_THAT(Ids(a.sets.LiveIn(B(1))), ElementsAre(1));
  EXPECT_THAT(Ids(a.sets.LiveOut(B(0))), ElementsAre(1));  // v0 is an argument: used at the branch
  EXPECT_THAT(Ids(a.sets.LiveIn(B(2))), ElementsAre(1));
}

// Equal sets are stored once, and here they alias one another in a cycle:
// block1's live-in is its live-out (v2 is local), which is block2's live-in
// (the union's size is block2's), which is block2's live-out (block2 is empty),
// which is block1's live-in.
TEST(LiveSetsTest, EqualSetsStoredOnceThroughACycleOfAliases) {
  absl::StatusOr<Function> f = ParseFunction(R"(function %cyc(i64, i64) -> i64 {
block0(v0: i64, v1: i64):
    jump block1
block1:
    v2 = cmp.lt v0, v1
    br v2, block2, block3
block2:
    jump block1
block3:
    ret v1
}
)",
                                             X86());
  ASSERT_TRUE(f.ok()) << f.status();
  for (size_t dense_words : {LiveSets::kDenseMaxWords, size_t{0}}) {
    LiveSets sets;
    sets.set_dense_max_words(dense_words);
    sets.Compute(*f);
    EXPECT_TRUE(sets.LiveIn(B(0)).empty());
    for (int b : {1, 2}) {
      EXPECT_THAT(Ids(sets.LiveIn(B(b))), ElementsAre(0, 1)) << b;
      EXPECT_THAT(Ids(sets.LiveOut(B(b))), ElementsAre(0, 1)) << b;
    }
    EXPECT_THAT(Ids(sets.LiveOut(B(0))), ElementsAre(0, 1));
    EXPECT_THAT(Ids(sets.LiveIn(B(3))), ElementsAre(1));
    EXPECT_TRUE(sets.LiveOut(B(3)).empty());
    // block0's live-in, the cycle's one set, block3's live-in and live-out.
    EXPECT_EQ(sets.stored_sets(), 4) << dense_words;
  }
}

// A copy holds its own sets: it still reads the loop's sets after the
// original has computed another function, and equal sets stay shared.
TEST(LiveSetsTest, ACopyOutlivesTheOriginalsNextCompute) {
  Analyzed a = Analyze(kLoop);
  absl::StatusOr<Function> other = ParseFunction(R"(function %one(i64) -> i64 {
block0(v0: i64):
    ret v0
}
)",
                                                 X86());
  ASSERT_TRUE(other.ok()) << other.status();
  for (size_t dense_words : {LiveSets::kDenseMaxWords, size_t{0}}) {
    LiveSets original;
    original.set_dense_max_words(dense_words);
    original.Compute(a.f);
    LiveSets copy = original;
    LiveSets assigned;
    assigned = original;
    original.Compute(*other);
    for (const LiveSets* sets : {&copy, &assigned}) {
      EXPECT_THAT(Ids(sets->LiveIn(B(1))), ElementsAre(0, 1)) << dense_words;
      EXPECT_THAT(Ids(sets->LiveOut(B(1))), ElementsAre(0, 1)) << dense_words;
      EXPECT_THAT(Ids(sets->LiveOut(B(0))), ElementsAre(0, 1)) << dense_words;
      EXPECT_THAT(Ids(sets->LiveIn(B(2))), ElementsAre(1)) << dense_words;
      EXPECT_EQ(sets->stored_sets(), a.sets.stored_sets()) << dense_words;
      EXPECT_EQ(sets->LiveIn(B(1)).data(), sets->LiveOut(B(0)).data()) << "equal sets stored once";
      EXPECT_EQ(sets->GlobalIndex(V(1)), a.sets.GlobalIndex(V(1)));
    }
  }
}

// Blocks no path reaches (block2 and block3): the sorted lists and the bit
// vectors agree on their sets too, and block2's successors' live-in sets
// make its live-out set.
TEST(LiveSetsTest, UnreachableBlocksAgreeBothWays) {
  const Function f = Analyze(R"(function %u(i32, i32) -> i32 {
block0(v0: i32, v1: i32):
    v2 = add v0, v1
    jump block1
block1:
    ret v2
block2:
    v3 = sub v1, v0
    br v3, block1, block3
block3:
    ret v3
}
)").f;
  LiveSets bits, lists, mixed;
  bits.set_dense_max_words(LiveSets::kDenseMaxWords);
  lists.set_dense_max_words(0);
  mixed.set_dense_max_words(0);
  mixed.set_long_value_span(1);  // every global value as bits beside the lists
  bits.Compute(f);
  lists.Compute(f);
  mixed.Compute(f);
  EXPECT_GT(mixed.num_long_values(), 0);
  for (int b = 0; b < 4; ++b) {
    EXPECT_EQ(Ids(lists.LiveIn(B(b))), Ids(bits.LiveIn(B(b)))) << "block" << b;
    EXPECT_EQ(Ids(lists.LiveOut(B(b))), Ids(bits.LiveOut(B(b)))) << "block" << b;
    EXPECT_EQ(Ids(mixed.LiveIn(B(b))), Ids(bits.LiveIn(B(b)))) << "block" << b;
    EXPECT_EQ(Ids(mixed.LiveOut(B(b))), Ids(bits.LiveOut(B(b)))) << "block" << b;
  }
  EXPECT_THAT(Ids(lists.LiveOut(B(2))), ElementsAre(2));
  EXPECT_THAT(Ids(lists.LiveIn(B(1))), ElementsAre(2));
}

TEST(LiveSetsTest, IrreducibleControlFlow) {
  Analyzed a = Analyze(R"(function %irr(i32, i32) -> i32 {
block0(v0: i32, v1: i32):
    br v0, block1, block2
block1:
    v2 = add v1, v0
    br v2, block2, block3
block2:
    v3 = sub v1, v0
    br v3, block1, block3
block3:
    ret v1
}
)");
  for (int b : {1, 2}) EXPECT_THAT(Ids(a.sets.LiveIn(B(b))), ElementsAre(0, 1)) << b;
  EXPECT_THAT(Ids(a.sets.LiveIn(B(3))), ElementsAre(1));
  LoopNest loops(a.f, a.cfg, a.dom);
  LivenessQueries q(a.f, a.cfg, a.dom, loops);
  EXPECT_TRUE(q.IsLiveIn(V(0), B(2)));
  EXPECT_TRUE(q.IsLiveOut(V(0), B(1)));
  EXPECT_FALSE(q.IsLiveIn(V(0), B(3)));
  EXPECT_FALSE(q.IsLiveIn(V(2), B(2)));  // block1 does not dominate block2
  EXPECT_FALSE(q.IsLiveIn(V(0), B(0)));
}

TEST(LivenessQueriesTest, LoopBackEdgeDoesNotReviveTheDefinition) {
  Analyzed a = Analyze(kLoop);
  LoopNest loops(a.f, a.cfg, a.dom);
  LivenessQueries q(a.f, a.cfg, a.dom, loops);
  EXPECT_TRUE(q.IsLiveIn(V(1), B(1)));
  EXPECT_TRUE(q.IsLiveOut(V(1), B(1)));
  EXPECT_FALSE(q.IsLiveIn(V(3), B(1)));   // defined there
  EXPECT_FALSE(q.IsLiveOut(V(4), B(1)));  // only passed as an argument
  EXPECT_FALSE(q.IsLiveOut(V(3), B(1)));
  EXPECT_FALSE(q.IsLiveIn(V(0), B(2)));
}

TEST(RegisterPressureTest, CountsBankSlotsOnArmv7) {
  const Target& arm = *TargetByName("armv7").value();
  absl::StatusOr<Function> f = ParseFunction(R"(function %p(f64, f32, f64) -> f64 {
block0(v0: f64, v1: f32, v2: f64):
    v3 = fadd v0, v2
    v4 = fadd v1, v1
    ret v3
}
)", arm);
  ASSERT_TRUE(f.ok());
  InstNumbering num(*f);
  LiveSets sets(*f);
  RegisterPressure p = RegisterPressure::Compute(*f, arm, sets, num).value();
  int vfp = arm.Class(*arm.ClassFor(Type::kF64)).bank;
  // At inst 0 Early: v0, v2 (2 slots each) and v1 (1 slot) = 5.
  EXPECT_EQ(p.AtPoint(num.Early(f->block(f->entry()).insts[0]), vfp), 5);
  // At inst 1 Late: v3 (2) and v4 (1); v1 died at Early.
  EXPECT_EQ(p.AtPoint(num.Late(f->block(f->entry()).insts[1]), vfp), 3);
  EXPECT_EQ(p.MaxInBlock(f->entry(), vfp), 5);
  EXPECT_EQ(p.Max(vfp), 5);

  absl::StatusOr<Function> g = ParseFunction("function %w(i64) {\nblock0(v0: i64):\n    ret\n}\n", arm);
  EXPECT_THAT(std::string(RegisterPressure::Compute(*g, arm, LiveSets(*g), InstNumbering(*g)).status().message()),
              HasSubstr("function %w: v0 has type i64, for which armv7 has no registers"));
}

TEST(UsePositionsTest, ConstraintsAndLoopDepth) {
  absl::StatusOr<Function> f = ParseFunction(R"(function %u(i64, i64) -> i64 {
block0(v0@%rdi: i64, v1: i64):
    jump block1
block1:
    v2@%rax = div v0@%rax, v1@any@late clobbers %rdx
    br v2, block1, block2
block2:
    ret v2@%rax
}
)", X86());
  ASSERT_TRUE(f.ok()) << f.status();
  ControlFlowGraph cfg(*f);
  DominatorTree dom(*f, cfg);
  LoopNest loops(*f, cfg, dom);
  InstNumbering num(*f);
  UsePositions uses(*f, num, loops);
  absl::Span<const UsePosition> v0 = uses.Of(V(0));
  ASSERT_EQ(v0.size(), 2u);
  EXPECT_TRUE(v0[0].is_def);
  EXPECT_EQ(v0[0].constraint, ConstraintKind::kFixed);
  EXPECT_EQ(v0[1].loop_depth, 1);
  EXPECT_EQ(v0[1].point.bits(), 2u);
  absl::Span<const UsePosition> v1 = uses.Of(V(1));
  ASSERT_EQ(v1.size(), 2u);
  EXPECT_EQ(v1[1].constraint, ConstraintKind::kAny);
  EXPECT_EQ(v1[1].point.bits(), 3u);  // read Late
  EXPECT_EQ(uses.Of(V(2)).size(), 3u);
}

}  // namespace
}  // namespace regalloc
