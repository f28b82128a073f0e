#include "lsra/build.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "liveness/live_walker.h"
#include "ssa/legalize.h"
#include "ssa/parser.h"
#include "ssa/printer.h"
#include "ssa/ssa_testing.h"
#include "check/generator.h"

namespace regalloc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const Target& T(const char* name) { return *TargetByName(name).value(); }

std::vector<std::pair<uint32_t, uint32_t>> Pieces(const LsraBuild& b, int v) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (const LsraRange& r : b.Ranges(Value(v))) out.push_back({r.from, r.to});
  return out;
}

TEST(LsraBuildTest, TheLoopReadsLikeRyuJitsDump) {
  Function f = ParseLegal(kSumLoopText, T("x86_64"));
  LiveSets sets(f);
  LsraBuild build;
  absl::StatusOr<LsraBuildStats> s = build.Run(T("x86_64"), f, sets);
  ASSERT_TRUE(s.ok()) << s.status();
  // Four positions per instruction from 4; block1 from the gap before its first
  // instruction (11) to the gap after its branch (35). v1 lives through the loop;
  // v6 from its def in the loop to the ret in block2, where it is fixed to %eax.
  EXPECT_EQ(build.Print(f, T("x86_64")), R"(lsra build of %sum_loop (positions: 4 per instruction; [from, to))
  order: block0 block1 block2
  block0: [3, 11)
  block1: [11, 35) seed block0
  block2: [35, 39) seed block1
  critical edge block1->block1
  v0 (gpr32, weight 2, hint %edi): [3, 9) refs def@3:fixed%edi use@8:any
  v1 (gpr32, weight 11, hint %esi): [3, 35) refs def@3:fixed%esi use@28:any
  v2 (gpr32, weight 2): [6, 9) refs def@6:reg use@8:any
  v3 (gpr32, weight 20): [11, 17) refs def@11:any use@16:reg
  v4 (gpr32, weight 30): [11, 25) refs def@11:any use@12:reg use@24:reg
  v5 (gpr32, weight 20): [14, 17) refs def@14:reg use@16:any
  v6 (gpr32, weight 21, hint %eax): [18, 37) refs def@18:reuse use@32:any use@36:fixed%eax
  v7 (gpr32, weight 20): [22, 25) refs def@22:reg use@24:any
  v8 (gpr32, weight 30): [26, 33) refs def@26:reuse use@28:reg use@32:any
  v9 (gpr32, weight 20): [30, 33) refs def@30:reg use@32:reg
  %eax: use@36
  %esi: def@3
  %edi: def@3
)");
  EXPECT_EQ(s->intervals, 10);
  EXPECT_EQ(s->critical_edges, 1);
  EXPECT_EQ(s->reuse_copies, 0);
  // %eax is blocked from the gap before the ret through its Early point, and so is
  // its alias %rax.
  EXPECT_THAT(build.Blocked(*T("x86_64").FindReg("rax")), ElementsAre(::testing::Field(&LsraRange::from, 35)));
}

TEST(LsraBuildTest, AValueDeadInALoopPlacedBeforeItsUseHasAHole) {
  // The loop (block1) is heavier, so it is placed right after block0, then
  // block3 (made ready last), then block2, the only block that reads v2: v2's
  // interval is [def, end of block0) and block2, with a hole over the loop.
  Function f = ParseLegal(R"(function %hole(i64, i64) -> i64 {
block0(v0: i64, v1: i64):
    v2 = load.i64 v0, 0
    br v1, block1(v1), block2
block1(v3: i64):
    v4 = sub v3, v0
    br v4, block4, block3(v4)
block4:
    jump block1(v4)
block2:
    v5 = add v2, v1
    jump block3(v5)
block3(v6: i64):
    ret v6
}
)", T("x86_64"));
  LiveSets sets(f);
  LsraBuild build;
  ASSERT_TRUE(build.Run(T("x86_64"), f, sets).ok());
  EXPECT_THAT(build.order(), ElementsAre(Block(0), Block(1), Block(4), Block(3), Block(2)));
  EXPECT_THAT(Pieces(build, 2), ElementsAre(std::make_pair(6u, build.BlockTo(Block(0))),
                                            std::make_pair(build.BlockFrom(Block(2)), build.Pos(f.block(Block(2)).insts[0], kLsraEarly) + 1)));
  EXPECT_FALSE(build.Covers(Value(2), build.BlockFrom(Block(1))));
}

TEST(LsraBuildTest, TheBlockOrderPlacesTheLoopBeforeTheColderExit) {
  // In layout the exit (block1) comes first; the loop (block2, depth 1) is
  // heavier, so it goes right after block0, its predecessor.
  Function f = ParseLegal(R"(function %order(i32) -> i32 {
block0(v0: i32):
    br v0, block2(v0), block1
block1:
    ret v0
block2(v1: i32):
    v2 = sub v1, v0
    br v2, block2(v2), block3
block3:
    ret v2
}
)", T("aarch64"));
  LiveSets sets(f);
  LsraBuild build;
  ASSERT_TRUE(build.Run(T("aarch64"), f, sets).ok());
  EXPECT_THAT(build.order(), ElementsAre(Block(0), Block(2), Block(3), Block(1)));
  EXPECT_EQ(build.seed(Block(2)), Block(0));
  EXPECT_EQ(build.seed(Block(3)), Block(2));
  EXPECT_EQ(build.seed(Block(1)), Block(0));
}

TEST(LsraBuildTest, CallsKillTheCallerSavedRegistersBetweenEarlyAndLate) {
  Function f = ParseLegal(R"(function %call(i64) -> i64 {
block0(v0: i64):
    v1 = load.i64 v0, 0
    v2 = call.i64 %f(v1)
    v3 = add v2, v0
    ret v3
}
)", T("x86_64"));
  LiveSets sets(f);
  LsraBuild build;
  ASSERT_TRUE(build.Run(T("x86_64"), f, sets).ok());
  const Target& t = T("x86_64");
  uint32_t call = 4 * 2;  // the second instruction
  // %rdi: the argument's fixed use blocks the gap before the call and its Early
  // point; the kill its clobber slot. %rax: the kill, then the result's def and
  // the gap after it. %rbx (callee-saved) is free.
  EXPECT_THAT(Pieces(build, 0), ElementsAre(std::make_pair(3u, 13u)));
  auto blocked = [&](const char* r) {
    std::vector<std::pair<uint32_t, uint32_t>> out;
    for (const LsraRange& x : build.Blocked(*t.FindReg(r))) out.push_back({x.from, x.to});
    return out;
  };
  EXPECT_THAT(blocked("rdi"), ElementsAre(std::make_pair(3u, 4u), std::make_pair(call - 1, call + 2)));
  EXPECT_THAT(blocked("rax"), ElementsAre(std::make_pair(call + 1, call + 4), std::make_pair(15u, 17u)));
  EXPECT_TRUE(blocked("rbx").empty());
  EXPECT_TRUE(build.Covers(Value(0), call + kLsraClobber));  // v0 lives across the call
}

TEST(LsraBuildTest, AStillNeededReuseSourceIsCopiedFirst) {
  Function f = ParseLegal(R"(function %two_address(i64, i64) -> i64 {
block0(v0: i64, v1: i64):
    v2 = sub v0, v1
    v3 = add v2, v0
    ret v3
}
)", T("x86_64"));
  LiveSets sets(f);
  LsraBuild build;
  absl::StatusOr<LsraBuildStats> s = build.Run(T("x86_64"), f, sets);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->reuse_copies, 1);
  EXPECT_THAT(PrintFunction(f, T("x86_64")), HasSubstr("    v4 = copy v0\n    v2@reuse0 = sub v4, v1@any\n"));
}

TEST(LsraBuildTest, AStillNeededConstantReuseSourceIsMadeAgainNotCopied) {
  // v1 is still read by the mul after the sub overwrites its tied source: a
  // constant, it is made again for the sub (no register holds it there),
  // and its interval ends at the mul, not at the sub; without remat it is
  // copied, as any other value.
  const std::string text = R"(function %two_address_const(i64) -> i64 {
block0(v0: i64):
    v1 = const.i64 77
    v2 = sub v1, v0
    v3 = mul v2, v1
    ret v3
}
)";
  for (bool remat : {true, false}) {
    Function f = ParseLegal(text, T("x86_64"));
    LiveSets sets(f);
    LsraBuild build;
    LsraBuildOptions o;
    o.remat = remat;
    absl::StatusOr<LsraBuildStats> s = build.Run(T("x86_64"), f, sets, o);
    ASSERT_TRUE(s.ok()) << s.status();
    const std::string printed = PrintFunction(f, T("x86_64"));
    if (remat) {
      EXPECT_EQ(s->remats, 1);
      EXPECT_EQ(s->reuse_copies, 0);
      EXPECT_THAT(printed, HasSubstr("    v4 = const.i64 77\n    v2@reuse0 = sub v4, v0@any\n")) << printed;
    } else {
      EXPECT_EQ(s->remats, 0);
      EXPECT_EQ(s->reuse_copies, 1);
      EXPECT_THAT(printed, HasSubstr("    v4 = copy v1\n    v2@reuse0 = sub v4, v0@any\n")) << printed;
    }
  }
}

TEST(LsraBuildTest, AConstantNoLongerReadInALoopLeavesTheLoopsLiveSets) {
  // The loop's only read of v1 is the sub's tied source, and the back edge
  // keeps v1 live after it: made again there, v1 lives in the loop no more,
  // and the build's intervals follow the shrunk sets (whoever owns them: the
  // caller's when given back, else a copy), which the property test below
  // checks position by position.
  const std::string text = R"(function %loop_const(i64) -> i64 {
block0(v0: i64):
    v1 = const.i64 9
    jump block1(v0)
block1(v2: i64):
    v3 = sub v1, v2
    v4 = cmp.lt v3, v0
    br v4, block1(v3), block2
block2:
    ret v3
}
)";
  Function f = ParseLegal(text, T("x86_64"));
  LiveSets sets(f);
  LsraBuild build;
  absl::StatusOr<LsraBuildStats> s = build.Run(T("x86_64"), f, sets);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->remats, 1);
  LiveSets fresh(f);
  const Block loop(1);
  EXPECT_FALSE(fresh.IsLiveIn(Value(1), loop));
  EXPECT_FALSE(build.LiveInto(Value(1), loop));
}

TEST(LsraBuildTest, ACommutativeOpOverwritesItsDyingSourceInstead) {
  // add's tied source v0 is read again by mul, but v1 dies at the add: the two
  // trade places, so the add overwrites v1 and nothing is copied. sub cannot.
  Function f = ParseLegal(R"(function %commute(i64, i64) -> i64 {
block0(v0: i64, v1: i64):
    v2 = add v0, v1
    v3 = mul v2, v0
    v4 = sub v0, v3
    ret v4
}
)", T("x86_64"));
  LiveSets sets(f);
  LsraBuild build;
  absl::StatusOr<LsraBuildStats> s = build.Run(T("x86_64"), f, sets);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->commuted, 1);
  EXPECT_EQ(s->reuse_copies, 0);
  EXPECT_THAT(PrintFunction(f, T("x86_64")), HasSubstr("    v2@reuse0 = add v1, v0@any\n"));
}

TEST(LsraBuildTest, UnreachableBlocksAndMissingRegisterClassesAreErrors) {
  absl::StatusOr<Function> f = ParseFunction(R"(function %dead(i32) -> i32 {
block0(v0: i32):
    ret v0
block1:
    v1 = const.i32 1
    ret v1
}
)", T("armv7"));
  ASSERT_TRUE(f.ok());
  LiveSets sets(*f);
  LsraBuild build;
  absl::StatusOr<LsraBuildStats> s = build.Run(T("armv7"), *f, sets);
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.status().message(), "function %dead, block1: is unreachable from the entry block");
}

// Every interval against liveness computed another way (a backward walk per
// block): covered at an instruction's Early point iff read there or live across
// it, at its Late point iff read late, defined, or live after it, at the gap
// after it iff live after it; and every reference inside its interval.
class LsraBuildPropertyTest : public ::testing::TestWithParam<const char*> {};

TEST_P(LsraBuildPropertyTest, IntervalsMatchLivenessAtEveryPosition) {
  const Target& t = T(GetParam());
  GeneratorOptions gen;
  gen.num_insts = 150;
  LsraBuild build;  // reused across functions
  LiveWalker live;
  for (int seed = 1; seed <= 200; ++seed) {
    Function f = Generate(seed, gen, t).value();
    LiveSets sets(f);
    // Every fourth function in RyuJIT's reversed stress order (blocks no
    // longer follow their predecessors).
    LsraBuildOptions options;
    options.reverse_order = seed % 4 == 0;
    ASSERT_TRUE(build.Run(t, f, sets, options).ok());
    LiveSets after(f);
    live.Reset(f.num_values());
    std::string where = absl::StrCat(GetParam(), " seed ", seed, options.reverse_order ? " (reversed)" : "", ": ");
    for (Block b : f.layout()) {
      live.StartBlock(after.LiveOut(b));
      const std::vector<Inst>& insts = f.block(b).insts;
      for (size_t k = insts.size(); k-- > 0;) {
        Inst i = insts[k];
        std::vector<uint8_t> early(f.num_values(), 0), late(f.num_values(), 0), gap(f.num_values(), 0);
        for (Value v : live.values()) gap[v.index()] = late[v.index()] = 1;
        for (const Operand& op : f.operands(i)) {
          if (op.IsDef()) {
            late[op.value().index()] = 1;
            if (op.position() == Position::kEarly) early[op.value().index()] = 1;
          } else {
            (op.position() == Position::kEarly ? early : late)[op.value().index()] = 1;
            if (op.position() == Position::kLate) early[op.value().index()] = 1;
          }
        }
        live.StepBack(f, i);
        for (Value v : live.values()) {
          bool defined = false;
          for (const Operand& op : f.operands(i)) defined |= op.IsDef() && op.value() == v;
          if (!defined) early[v.index()] = 1;
        }
        for (int v = 0; v < f.num_values(); ++v) {
          if (!build.HasInterval(Value(v))) continue;
          ASSERT_EQ(build.Covers(Value(v), build.Pos(i, kLsraEarly)), early[v] == 1)
              << where << "v" << v << " at Early of `" << PrintInst(f, i, t) << "`";
          ASSERT_EQ(build.Covers(Value(v), build.Pos(i, kLsraLate)), late[v] == 1)
              << where << "v" << v << " at Late of `" << PrintInst(f, i, t) << "`";
          // The gap after a block's last instruction is the next block's start.
          if (k + 1 == insts.size()) continue;
          ASSERT_EQ(build.Covers(Value(v), build.Pos(i, kLsraGap)), gap[v] == 1)
              << where << "v" << v << " after `" << PrintInst(f, i, t) << "`";
        }
      }
    }
    // At a block's start: its live-in values and parameters.
    for (Block b : f.layout()) {
      std::vector<uint8_t> in(f.num_values(), 0);
      for (Value v : after.LiveIn(b)) in[v.index()] = 1;
      for (const Operand& p : f.block(b).params) in[p.value().index()] = 1;
      for (int v = 0; v < f.num_values(); ++v) {
        if (!build.HasInterval(Value(v))) continue;
        ASSERT_EQ(build.Covers(Value(v), build.BlockFrom(b)), in[v] == 1) << where << "v" << v << " at block"
                                                                           << b.index() << "'s start";
      }
      // LiveInto, from the ranges, is the live-in set (what resolution and
      // allocation ask once the sets are gone).
      for (int v = 0; v < f.num_values(); ++v) {
        ASSERT_EQ(build.LiveInto(Value(v), b), after.IsLiveIn(Value(v), b))
            << where << "v" << v << " live into block" << b.index();
      }
    }
    for (int v = 0; v < f.num_values(); ++v) {
      if (!build.HasInterval(Value(v))) continue;
      uint32_t prev = 0;
      for (const RefPosition& r : build.Refs(Value(v))) {
        ASSERT_TRUE(build.Covers(Value(v), r.pos)) << where << "v" << v << " ref at " << r.pos;
        ASSERT_GE(r.pos, prev) << where << "v" << v << " refs out of order";
        prev = r.pos;
      }
    }
    for (int r = 0; r < t.num_regs(); ++r) {
      uint32_t end = 0;
      for (const LsraRange& x : build.Blocked(PReg(r))) {
        ASSERT_GT(x.from, end == 0 ? 0 : end - 1) << where << "blocked ranges of %" << t.RegName(PReg(r));
        end = x.to;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, LsraBuildPropertyTest, ::testing::Values("x86_64", "aarch64", "armv7"));

}  // namespace
}  // namespace regalloc
