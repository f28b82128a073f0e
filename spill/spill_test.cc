#include "spill/spill.h"

#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "color/ssa_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "liveness/live_sets.h"
#include "spill/demand.h"
#include "spill/prepare.h"
#include "spill/reload.h"
#include "ssa/legalize.h"
#include "ssa/parser.h"
#include "ssa/printer.h"
#include "ssa/ssa_testing.h"

namespace regalloc {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const Target& X86() { return *TargetByName("x86_64").value(); }

// Spill + reload, then the independent pressure check; returns the spilled values.
std::vector<int> SpillAndCheck(Function& f, const Target& target, SpillHeuristic h = SpillHeuristic::kFarthestDef) {
  VirtRegs vregs;
  EXPECT_TRUE(Coalesce(f, vregs).ok());
  ValueLocations locs;
  SpillOptions options;
  options.heuristic = h;
  absl::StatusOr<SpillStats> s = Spill(target, f, vregs, locs, options);
  EXPECT_TRUE(s.ok()) << s.status();
  std::vector<int> spilled;
  for (int v = 0; v < locs.size(); ++v) {
    if (locs.IsSpilled(Value(v))) spilled.push_back(v);
  }
  EXPECT_TRUE(InsertReloads(target, f, locs).ok());
  absl::Status p = CheckRegisterPressure(f, target, locs);
  EXPECT_TRUE(p.ok()) << p;
  return spilled;
}

TEST(PrepareTest, FixedUsesAndStillNeededReuseSourcesGetConstraintCopies) {
  Function f = ParseLegal(R"(function %f(i64, i64) -> i64 {
block0(v0: i64, v1: i64):
    v2 = div v0, v1
    v3 = sub v0, v2
    v4 = add v3, v3
    ret v4
}
)", X86());
  absl::StatusOr<PrepareStats> s = PrepareConstraints(f, X86(), LiveSets(f));
  ASSERT_TRUE(s.ok()) << s.status();
  // div's dividend is fixed: a copy. sub's source v0 dies there: none. add reads
  // v3 twice, so its Reuse source gets a copy. ret's value is fixed: a copy.
  EXPECT_EQ(PrintFunction(f, X86()), R"(function %f(i64, i64) -> i64 {
block0(v0@%rdi: i64, v1@%rsi: i64):
    v7@%rax = parallel_copy v0
    v2@%rax = div v7@%rax, v1@any@late clobbers %rdx
    v3@reuse0 = sub v0, v2@any
    v6 = parallel_copy v3
    v4@reuse0 = add v6, v3@any
    v5@%rax = parallel_copy v4
    ret v5@%rax
}
)");
  EXPECT_EQ(s->copies, 3);
  EXPECT_EQ(s->fixed_uses, 2);
  EXPECT_EQ(s->reuse_uses, 1);
}

TEST(PrepareTest, ACommutativeOpOverwritesItsDyingSourceInsteadOfACopy) {
  Function f = ParseLegal(R"(function %f(i64, i64) -> i64 {
block0(v0: i64, v1: i64):
    v2 = add v0, v1
    v3 = mul v2, v0
    ret v3
}
)", X86());
  absl::StatusOr<PrepareStats> s = PrepareConstraints(f, X86(), LiveSets(f));
  ASSERT_TRUE(s.ok()) << s.status();
  // v0 is read again by mul; v1 dies at the add, which now overwrites it.
  EXPECT_THAT(PrintFunction(f, X86()), HasSubstr("    v2@reuse0 = add v1, v0@any\n"));
  EXPECT_EQ(s->commuted, 1);
  EXPECT_EQ(s->reuse_uses, 0);
}

// Twenty loads live at once: at `v20 = load` the 19 older loads, the address
// dying and the new def need 20 of x86-64's 15 registers. Five spills is the
// lower bound, and farthest-def reaches it, spilling the oldest loads.
constexpr char kTwentyLoads[] = R"(function %twenty(i64) -> i64 {
block0(v0: i64):
    v1 = load.i64 v0, 0
    v2 = load.i64 v0, 8
    v3 = load.i64 v0, 16
    v4 = load.i64 v0, 24
    v5 = load.i64 v0, 32
    v6 = load.i64 v0, 40
    v7 = load.i64 v0, 48
    v8 = load.i64 v0, 56
    v9 = load.i64 v0, 64
    v10 = load.i64 v0, 72
    v11 = load.i64 v0, 80
    v12 = load.i64 v0, 88
    v13 = load.i64 v0, 96
    v14 = load.i64 v0, 104
    v15 = load.i64 v0, 112
    v16 = load.i64 v0, 120
    v17 = load.i64 v0, 128
    v18 = load.i64 v0, 136
    v19 = load.i64 v0, 144
    v20 = load.i64 v0, 152
    v21 = add v20, v19
    v22 = add v21, v18
    v23 = add v22, v17
    v24 = add v23, v16
    v25 = add v24, v15
    v26 = add v25, v14
    v27 = add v26, v13
    v28 = add v27, v12
    v29 = add v28, v11
    v30 = add v29, v10
    v31 = add v30, v9
    v32 = add v31, v8
    v33 = add v32, v7
    v34 = add v33, v6
    v35 = add v34, v5
    v36 = add v35, v4
    v37 = add v36, v3
    v38 = add v37, v2
    v39 = add v38, v1
    ret v39
}
)";

// The walk's fast path: where SurelyFits says an instruction with that many
// operands fits, Check finds nothing over capacity for any needs those
// operands could make (each class at most all of them, together at most all of
// them); and it is not vacuous: it says yes below capacity and no at it.
TEST(DemandTest, SurelyFitsImpliesCheckFindsNothing) {
  for (const char* name : {"x86_64", "aarch64", "armv7"}) {
    SCOPED_TRACE(name);
    const Target& t = *TargetByName(name).value();
    DemandModel model(t);
    const int n = t.num_classes();
    std::mt19937 rng(7);
    int yes = 0, no = 0;
    for (int trial = 0; trial < 20000; ++trial) {
      std::vector<int> through(n), needs(n, 0);
      for (int c = 0; c < n; ++c) {
        through[c] = static_cast<int>(rng() % (model.Capacity(c, RegSet()) + 1)) / (1 + trial % 4);
      }
      const int operands = static_cast<int>(rng() % 6);
      for (int k = 0; k < operands; ++k) ++needs[rng() % n];  // each operand needs at most one register
      if (!model.SurelyFits(through, operands)) {
        ++no;
        continue;
      }
      ++yes;
      EXPECT_FALSE(model.Check(through, needs, RegSet()).has_value()) << "trial " << trial;
      // Each class's need may also be all the operands.
      for (int c = 0; c < n; ++c) {
        std::vector<int> all(n, 0);
        all[c] = operands;
        EXPECT_FALSE(model.Check(through, all, RegSet()).has_value()) << "trial " << trial << " class " << c;
      }
    }
    EXPECT_GT(yes, 1000);
    EXPECT_GT(no, 1000);
    for (int c = 0; c < n; ++c) {  // one class full, the others empty
      std::vector<int> full(n, 0);
      full[c] = model.Capacity(c, RegSet());
      EXPECT_TRUE(model.SurelyFits(full, 0)) << "class " << c;
      EXPECT_FALSE(model.SurelyFits(full, 1)) << "class " << c;
    }
  }
}

TEST(SpillTest, FarthestDefSpillsTheOldestValuesAndNoMore) {
  Function f = ParseLegal(kTwentyLoads, X86());
  EXPECT_EQ(SpillAndCheck(f, X86()), (std::vector<int>{1, 2, 3, 4, 5}));
}

TEST(SpillTest, FarthestNextUseAlsoSpillsTheOldest) {
  // Used in reverse order of definition, the oldest loads are also the ones
  // used last: both heuristics agree here.
  Function f = ParseLegal(kTwentyLoads, X86());
  EXPECT_EQ(SpillAndCheck(f, X86(), SpillHeuristic::kFarthestNextUse), (std::vector<int>{1, 2, 3, 4, 5}));
}

TEST(SpillTest, BeladyAndFarthestDefDisagreeWhenOldValuesAreUsedSoon) {
  // v1..v5 are the oldest but used right after the peak; v6..v10 are used last.
  // The first add is where the walk (backward) first finds too many values: it
  // reads v1, so farthest-def spills the next oldest, v2..v6, which the adds
  // right after need back; Belady spills the five used last.
  std::string text = "function %g(i64) -> i64 {\nblock0(v0: i64):\n";
  for (int k = 1; k <= 20; ++k) text += absl::StrCat("    v", k, " = load.i64 v0, ", 8 * k, "\n");
  int next = 21;
  std::string acc = "v20";
  for (int k : {1, 2, 3, 4, 5, 19, 18, 17, 16, 15, 14, 13, 12, 11, 6, 7, 8, 9, 10}) {
    text += absl::StrCat("    v", next, " = add ", acc, ", v", k, "\n");
    acc = absl::StrCat("v", next++);
  }
  text += absl::StrCat("    ret ", acc, "\n}\n");
  Function a = ParseLegal(text, X86());
  EXPECT_EQ(SpillAndCheck(a, X86()), (std::vector<int>{2, 3, 4, 5, 6}));
  Function b = ParseLegal(text, X86());
  EXPECT_EQ(SpillAndCheck(b, X86(), SpillHeuristic::kFarthestNextUse), (std::vector<int>{6, 7, 8, 9, 10}));
}

TEST(SpillTest, ValuesLiveAcrossACallFitTheCalleeSavedRegisters) {
  // Eight values live across a call; System V keeps six integer registers
  // (rbx, rbp, r12-r15): two are spilled, the two defined first.
  std::string text = "function %h(i64) -> i64 {\nblock0(v0: i64):\n";
  for (int k = 1; k <= 8; ++k) text += absl::StrCat("    v", k, " = load.i64 v0, ", 8 * k, "\n");
  text += "    v9 = call.i64 %f()\n    v10 = add v9, v1\n";
  for (int k = 2; k <= 8; ++k) text += absl::StrCat("    v", 9 + k, " = add v", 8 + k, ", v", k, "\n");
  text += "    ret v16\n}\n";
  Function f = ParseLegal(text, X86());
  EXPECT_EQ(SpillAndCheck(f, X86()), (std::vector<int>{1, 2}));
}

TEST(SpillTest, OverConstrainedInstructionIsAnError) {
  // A Late use must survive the clobbers, and every register is clobbered.
  absl::StatusOr<Function> f = ParseFunction(R"(function %over(i64, i64) -> i64 {
block0(v0@%rdi: i64, v1@%rsi: i64):
    v2@%rax = div v0@%rax, v1@late clobbers %rax, %rcx, %rdx, %rbx, %rbp, %rsi, %rdi, %r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15
    ret v2@%rax
}
)", X86());
  ASSERT_TRUE(f.ok()) << f.status();
  VirtRegs vregs;
  ValueLocations locs;
  absl::StatusOr<SpillStats> s = Spill(X86(), *f, vregs, locs);
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.status().message(), HasSubstr("function %over, block0 `v2@%rax = div"));
  EXPECT_THAT(s.status().message(), HasSubstr("over-constrained"));
  EXPECT_THAT(s.status().message(), HasSubstr("class gpr64"));
}

TEST(SpillTest, AnAllocatedFunctionIsAnError) {
  Function f = ParseLegal(kTwentyLoads, X86());
  ASSERT_TRUE(AllocateSsaAndCheck(f, X86()).ok());
  VirtRegs vregs;
  ValueLocations locs;
  absl::StatusOr<SpillStats> s = Spill(X86(), f, vregs, locs);
  EXPECT_EQ(s.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.status().message(), "function %twenty: spilling needs SSA form");
}

TEST(ReloadTest, SpilledValuesAreStoredAfterTheirDefAndReloadedBeforeRegisterUses) {
  // As kTwentyLoads, but the last add reads v1 as its two-address source (Reg),
  // where the others read spilled values as memory operands (Any).
  std::string text = kTwentyLoads;
  text.replace(text.find("v39 = add v38, v1"), 17, "v39 = add v1, v38");
  Function f = ParseLegal(text, X86());
  EXPECT_EQ(SpillAndCheck(f, X86()), (std::vector<int>{1, 2, 3, 4, 5}));
  std::string printed = PrintFunction(f, X86());
  // The def keeps its value id and is stored right after it.
  EXPECT_THAT(printed, HasSubstr("    v1 = load.i64 v0, 0\n    v1 = spill v1\n"));
  // Memory operands read the slot; the Reg use reads a reload.
  EXPECT_THAT(printed, HasSubstr("    v38@reuse0 = add v37, v2@any\n"));
  EXPECT_THAT(printed, HasSubstr("    v41 = reload v1\n    v39@reuse0 = add v41, v38@any\n"));
}

// Spilled constants are made again at their register reads (ReloadOptions::
// remat) instead of reloaded, and one whose every read is made again keeps no
// store. 40 constants live at once on AArch64 (31 registers): those spilled
// come back as constants, and the whole allocation checks and interprets.
// Reloaded instead (remat=false), each is stored and loaded.
TEST(ReloadTest, SpilledConstantsAreMadeAgainAndKeepNoStore) {
  const Target& arm = *TargetByName("aarch64").value();
  std::string text = "function %consts(i64) -> i64 {\nblock0(v0: i64):\n";
  for (int k = 1; k <= 40; ++k) absl::StrAppend(&text, "    v", k, " = const.i64 ", 1000 + k, "\n");
  absl::StrAppend(&text, "    v41 = add v0, v1\n");
  for (int k = 2; k <= 40; ++k) absl::StrAppend(&text, "    v", 40 + k, " = add v", 39 + k, ", v", k, "\n");
  absl::StrAppend(&text, "    ret v80\n}\n");
  const Function original = ParseLegal(text, arm);

  Function f = original;
  absl::StatusOr<SsaRun> run = AllocateSsaAndCheck(f, arm);
  ASSERT_TRUE(run.ok()) << run.status();
  const std::string printed = PrintFunction(f, arm);
  EXPECT_GE(run->spill.values_spilled, 5) << printed;
  EXPECT_EQ(run->reload.reloads, 0) << printed;
  EXPECT_GE(run->reload.remats, run->spill.values_spilled) << printed;
  EXPECT_EQ(run->reload.spills, 0) << printed;
  EXPECT_EQ(run->reload.dead_stores, run->spill.values_spilled) << printed;
  EXPECT_EQ(run->reload.weighted_cost, 0) << printed;
  EXPECT_THAT(printed, Not(HasSubstr(" = reload "))) << printed;
  EXPECT_THAT(printed, Not(HasSubstr(" = spill "))) << printed;

  Function g = original;
  VirtRegs vregs;
  ASSERT_TRUE(Coalesce(g, vregs).ok());
  ValueLocations locs;
  ASSERT_TRUE(Spill(arm, g, vregs, locs).ok());
  ReloadOptions reload;
  reload.remat = false;
  absl::StatusOr<ReloadStats> reloaded = InsertReloads(arm, g, locs, reload);
  ASSERT_TRUE(reloaded.ok()) << reloaded.status();
  EXPECT_EQ(reloaded->remats, 0);
  EXPECT_EQ(reloaded->spills, run->spill.values_spilled);
  EXPECT_GE(reloaded->reloads, run->spill.values_spilled);
  EXPECT_GT(reloaded->weighted_cost, 0);
}

}  // namespace
}  // namespace regalloc
