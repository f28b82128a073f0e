#include "coalesce/coalesce.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "liveness/live_ranges.h"
#include "liveness/live_sets.h"
#include "liveness/liveness_testing.h"
#include "ssa/cfg.h"
#include "ssa/parser.h"
#include "ssa/printer.h"
#include "ssa/verifier.h"
#include "check/generator.h"
#include "check/interpreter.h"

namespace regalloc {
namespace {

using ::testing::HasSubstr;

const Target& X86() { return *TargetByName("x86_64").value(); }

// Every argument shares its parameter's virtual register, and no two members of
// a virtual register are live at one program point.
void ExpectConventional(const Function& f, const VirtRegs& vregs, const std::string& where) {
  ControlFlowGraph cfg(f);
  for (Block b : f.layout()) {
    for (const Edge& e : cfg.succs(b)) {
      absl::Span<const Operand> args = f.BranchArgs(e.branch, e.target);
      const std::vector<Operand>& params = f.block(e.to).params;
      for (size_t i = 0; i < args.size(); ++i) {
        VirtReg r = vregs.Get(params[i].value());
        ASSERT_TRUE(r.IsValid()) << where << ": param v" << params[i].value().index() << " alone";
        ASSERT_EQ(vregs.Get(args[i].value()), r) << where << ": arg v" << args[i].value().index();
      }
    }
  }
  DenseLiveness dense(f);
  InstNumbering num(f);
  std::vector<DenseSet> at = LiveAtEveryPoint(f, dense, num);
  for (int r = 0; r < vregs.num_vregs(); ++r) {
    for (size_t p = 0; p < at.size(); ++p) {
      int live = 0;
      for (Value v : vregs.Members(VirtReg(r))) live += at[p].Test(v.index());
      ASSERT_LE(live, 1) << where << ": virtual register " << r << " has " << live << " values live at point " << p;
    }
  }
}

TEST(CoalesceTest, CretonneInterferenceExample) {
  // v1 is passed to block1's parameter and is also live into block1.
  Function f = ParseFunction(R"(function %interference(i32, i32) -> i32 {
block0(v0: i32, v1: i32):
    br v0, block1(v1), block2
block1(v2: i32):
    v3 = add v2, v1
    ret v3
block2:
    ret v1
}
)", X86()).value();
  VirtRegs vregs;
  CoalesceStats s = Coalesce(f, vregs).value();
  EXPECT_EQ(s.arg_copies, 1);
  EXPECT_EQ(s.param_copies, 0);
  EXPECT_EQ(s.vregs, 1);
  ASSERT_TRUE(Verify(f, X86()).ok()) << Verify(f, X86());
  EXPECT_THAT(PrintFunction(f, X86()), HasSubstr("    v4 = copy v1\n    br v0, block1(v4), block2\n"));
  ExpectConventional(f, vregs, "interference");
  EXPECT_EQ(vregs.Get(Value(4)), vregs.Get(Value(2)));
  EXPECT_FALSE(vregs.Get(Value(1)).IsValid());
}

TEST(CoalesceTest, LoopCarriedValuesNeedNoCopies) {
  Function f = ParseFunction(R"(function %sum(i32, i32) -> i32 {
block0(v0: i32, v1: i32):
    v2 = const.i32 0
    jump block1(v2, v0)
block1(v3: i32, v4: i32):
    v5 = add v3, v4
    v6 = sub v4, v1
    br v6, block1(v5, v6), block2
block2:
    ret v5
}
)", X86()).value();
  VirtRegs vregs;
  CoalesceStats s = Coalesce(f, vregs).value();
  EXPECT_EQ(s.arg_copies + s.param_copies, 0);
  EXPECT_EQ(s.vregs, 2);  // {v2, v3, v5} and {v0, v4, v6}
  EXPECT_EQ(vregs.Get(Value(2)), vregs.Get(Value(5)));
  ExpectConventional(f, vregs, "sum");
}

TEST(CoalesceTest, SwappedParametersGetCopies) {
  // v3 and v4 trade places every iteration; v5 counts to 5.
  Function f = ParseFunction(R"(function %swap(i32, i32) -> i32 {
block0(v0: i32, v1: i32):
    v2 = const.i32 0
    v7 = const.i32 1
    v8 = const.i32 5
    jump block1(v0, v1, v2)
block1(v3: i32, v4: i32, v5: i32):
    v6 = add v5, v7
    v9 = cmp.lt v6, v8
    br v9, block1(v4, v3, v6), block2
block2:
    v10 = sub v3, v4
    ret v10
}
)", X86()).value();
  Function original = f;
  VirtRegs vregs;
  CoalesceStats s = Coalesce(f, vregs).value();
  EXPECT_GE(s.arg_copies, 1);
  ASSERT_TRUE(Verify(f, X86()).ok()) << Verify(f, X86());
  ExpectConventional(f, vregs, "swap");
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    std::vector<Bits> args = ArgumentsForSeed(original, seed);
    EXPECT_EQ(RunOnValues(original, args, {}).value().results, RunOnValues(f, args, {}).value().results);
  }
}

TEST(CoalesceTest, NeedsSsa) {
  Function f = ParseFunction("function %a() -> i32 {\nblock0:\n    v0[%eax] = const.i32 1\n    ret v0@%eax[%eax]\n}\n", X86()).value();
  VirtRegs vregs;
  EXPECT_EQ(Coalesce(f, vregs).status().code(), absl::StatusCode::kFailedPrecondition);
}

class CoalesceProperty : public ::testing::TestWithParam<const char*> {};

TEST_P(CoalesceProperty, GeneratedFunctionsBecomeConventionalAndKeepTheirMeaning) {
  const Target& t = *TargetByName(GetParam()).value();
  int copies = 0, vregs_total = 0;
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    GeneratorOptions g;
    g.num_insts = 150;
    Function original = Generate(seed, g, t).value();
    Function f = original;
    VirtRegs vregs;
    std::string where = std::string(GetParam()) + " seed " + std::to_string(seed);
    absl::StatusOr<CoalesceStats> s = Coalesce(f, vregs);
    ASSERT_TRUE(s.ok()) << where << ": " << s.status();
    copies += s->arg_copies + s->param_copies;
    vregs_total += s->vregs;
    ASSERT_TRUE(Verify(f, t).ok()) << where << ": " << Verify(f, t);
    ExpectConventional(f, vregs, where);
    for (uint64_t run = 1; run <= 2; ++run) {
      std::vector<Bits> args = ArgumentsForSeed(original, run);
      Execution a = RunOnValues(original, args, {}).value();
      Execution b = RunOnValues(f, args, {}).value();
      ASSERT_EQ(a.results, b.results) << where;
      ASSERT_EQ(a.memory, b.memory) << where;
    }
  }
  std::cout << GetParam() << ": " << vregs_total << " virtual registers, " << copies << " copies over 100 functions\n";
}

INSTANTIATE_TEST_SUITE_P(Targets, CoalesceProperty, ::testing::Values("x86_64", "aarch64", "armv7"));

}  // namespace
}  // namespace regalloc
