// The linear-scan allocator on hand-written functions: each allocation goes
// through the checker and the interpreter, and the test asserts what the
// allocator should have done (which register, how many moves, where it split).
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "liveness/live_sets.h"
#include "lsra/allocate.h"
#include "lsra/build.h"
#include "lsra/resolve.h"
#include "ssa/legalize.h"
#include "ssa/parser.h"
#include "ssa/printer.h"
#include "ssa/ssa_testing.h"
#include "check/checker.h"
#include "check/generator.h"
#include "check/interpreter.h"

namespace regalloc {
namespace {

using ::testing::HasSubstr;

const Target& T(const char* name) { return *TargetByName(name).value(); }

struct LsraRun {
  LsraBuildStats build;
  LsraAllocStats alloc;
  LsraResolveStats resolve;
  AllocationCost cost;  // MeasureAllocation of the result
  std::string printed;
};

// Legalizes, allocates, resolves, checks and interprets (3 seeds).
LsraRun Allocate(const std::string& text, const Target& target, const LsraOptions& options = LsraOptions(),
                 LsraResolveOptions resolve = LsraResolveOptions()) {
  LsraRun run;
  Function f = ParseLegal(text, target);
  Function original = f;
  LiveSets sets(f);
  LsraBuild build;
  LsraAllocation alloc;
  absl::StatusOr<LsraBuildStats> b = build.Run(target, f, sets);
  EXPECT_TRUE(b.ok()) << b.status();
  absl::StatusOr<LsraAllocStats> a = alloc.Run(target, f, build, options);
  EXPECT_TRUE(a.ok()) << a.status();
  resolve.dump = true;
  absl::StatusOr<LsraResolveStats> r = ResolveLsra(target, f, build, alloc, resolve);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!b.ok() || !a.ok() || !r.ok()) return run;
  run.build = *b;
  run.alloc = *a;
  run.resolve = *r;
  run.printed = PrintFunction(f, target);
  run.cost = MeasureAllocation(f);
  absl::Status checked = CheckAllocation(f, target);
  EXPECT_TRUE(checked.ok()) << checked << "\n" << run.printed;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    absl::Status same = CompareExecutions(original, f, target, seed);
    EXPECT_TRUE(same.ok()) << same << "\n" << run.printed;
  }
  return run;
}

// How often `part` occurs in `text`.
int Occurrences(absl::string_view text, absl::string_view part) {
  int n = 0;
  for (size_t at = text.find(part); at != absl::string_view::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

TEST(LsraTest, ALoopFitsInRegistersWithoutSplits) {
  for (const char* target : {"x86_64", "aarch64", "armv7"}) {
    LsraRun run = Allocate(kSumLoopText, T(target));
    EXPECT_EQ(run.alloc.splits, 0) << target << "\n" << run.printed;
    EXPECT_EQ(run.alloc.spilled, 0) << target;
  }
}

TEST(LsraTest, ArgumentsAndResultsAreBornAndDieInTheirFixedRegisters) {
  // v1 is defined for the call and dies there: it takes %rdi at once; the result
  // stays in %rax for the ret. No move anywhere.
  LsraRun run = Allocate(R"(function %pass(i64) -> i64 {
block0(v0: i64):
    v1 = load.i64 v0, 0
    v2 = call.i64 %f(v1)
    ret v2
}
)", T("x86_64"));
  EXPECT_EQ(run.resolve.gap_moves, 0) << run.printed;
  EXPECT_THAT(run.printed, HasSubstr("v1[%rdi] = load.i64 v0[%rdi], 0"));
  EXPECT_THAT(run.printed, HasSubstr("ret v2@%rax[%rax]"));
}

TEST(LsraTest, AValueLiveAcrossACallTakesACalleeSavedRegister) {
  LsraRun run = Allocate(R"(function %across(i64) -> i64 {
block0(v0: i64):
    v1 = load.i64 v0, 0
    v2 = call.i64 %f()
    v3 = add v1, v2
    ret v3
}
)", T("x86_64"));
  EXPECT_EQ(run.alloc.splits, 0) << run.printed;
  EXPECT_THAT(run.printed, HasSubstr("v1[%rbx] = load.i64"));
  EXPECT_THAT(run.printed, HasSubstr("saves %rbx\n"));
}

// A function allocated with only caller-saved registers (the stress mode:
// whatever lives across a call is on the stack there), with constants made
// again and without.
struct RematRuns {
  LsraRun made_again, reloaded;
};
RematRuns CallerSavedOnly(const std::string& text) {
  LsraOptions caller_saved;
  caller_saved.registers = LsraOptions::Registers::kCallerSavedOnly;
  LsraResolveOptions off;
  off.remat = false;
  RematRuns r{Allocate(text, T("x86_64"), caller_saved), Allocate(text, T("x86_64"), caller_saved, off)};
  EXPECT_EQ(r.reloaded.resolve.remats, 0);
  EXPECT_LT(r.made_again.cost.weighted, r.reloaded.cost.weighted);
  return r;
}

// A loop reading the constant v1 (4096) by a load before or after a call.
std::string LoopReadingAConstant(bool load_first) {
  const std::string body = load_first
                               ? "    v3 = load.i64 v1, 8\n    v4 = call.i64 %f(v3)\n    v5 = add v4, v2\n"
                               : "    v3 = call.i64 %f(v2)\n    v4 = load.i64 v1, 8\n    v5 = add v3, v4\n";
  return "function %loop_const(i64) -> i64 {\nblock0(v0: i64):\n    v1 = const.i64 4096\n    jump block1(v0)\n"
         "block1(v2: i64):\n" + body + "    v6 = cmp.lt v5, v0\n    br v6, block1(v5), block2\nblock2:\n    ret v5\n}\n";
}

TEST(LsraTest, AConstantReloadedInsideABlockIsMadeAgain) {
  // v1 lives across the calls on the stack. For the load's address after the
  // first the constant is made again into a new value in a register, not
  // reloaded; for the third call's argument, read from the slot into %rdi,
  // likewise; and the slot, read by nothing then, is not stored. Without
  // remat: two reloads and the store.
  RematRuns r = CallerSavedOnly(R"(function %across_const(i64) -> i64 {
block0(v0: i64):
    v1 = const.i64 1234
    v2 = call.i64 %f(v0)
    v3 = load.i64 v1, 8
    v4 = call.i64 %g(v3)
    v5 = call.i64 %h(v1)
    v6 = add v2, v4
    v7 = add v6, v5
    ret v7
}
)");
  const std::string& printed = r.made_again.printed;
  EXPECT_EQ(r.made_again.resolve.remats, 2) << printed;
  EXPECT_EQ(Occurrences(printed, "reload v1["), 0) << printed;
  // Nothing reads its slot any more: the store after its definition goes.
  EXPECT_EQ(r.made_again.resolve.dead_stores, 1);
  EXPECT_EQ(Occurrences(printed, "spill v1["), 0) << printed;
  EXPECT_EQ(Occurrences(printed, "= const.i64 1234\n"), 3) << printed;
  EXPECT_THAT(printed, ::testing::ContainsRegex("v[0-9]+\\[%rdi\\] = const.i64 1234\n[^\n]*call.i64 %h\\(v[0-9]+@%rdi"));
  EXPECT_EQ(Occurrences(r.reloaded.printed, "reload v1["), 2) << r.reloaded.printed;
  EXPECT_EQ(Occurrences(r.reloaded.printed, "spill v1["), 1);
  EXPECT_EQ(Occurrences(r.reloaded.printed, "= const.i64 1234\n"), 1);
}

TEST(LsraTest, AConstantReloadedInALoopWhoseHeaderExpectsItInItsSlotIsMadeAgain) {
  // v1 lives across the loop's call in its slot, where the loop header
  // expects it. The load after the call needs it in a register until the back
  // edge, which takes it back to the slot (moving nothing: the slot holds
  // it): so the register piece is the loop body's alone, and the constant is
  // made again there, not reloaded each time round.
  RematRuns r = CallerSavedOnly(LoopReadingAConstant(/*load_first=*/false));
  EXPECT_GE(r.made_again.resolve.remats, 1) << r.made_again.printed;
  EXPECT_EQ(Occurrences(r.made_again.printed, "reload v1["), 0) << r.made_again.printed;
  EXPECT_GE(Occurrences(r.reloaded.printed, "reload v1["), 1) << r.reloaded.printed;
}

TEST(LsraTest, AConstantOutsideItsBlockIsATwinMadeAgainOnTheBackEdge) {
  // The loop header expects v1 in a register (as block0 leaves it), and the
  // loop's call takes every register, so the back edge restores it. Outside
  // block0 the constant in a register is its twin: block0's edge names it so
  // in place (free), the back edge makes the twin again (a reload into a join
  // before), and the slot is never stored.
  RematRuns r = CallerSavedOnly(LoopReadingAConstant(/*load_first=*/true));
  const std::string& printed = r.made_again.printed;
  EXPECT_EQ(r.made_again.resolve.remats, 1) << printed;
  EXPECT_EQ(Occurrences(printed, "reload v1["), 0) << printed;
  EXPECT_EQ(Occurrences(printed, "spill v1["), 0) << printed;
  EXPECT_THAT(printed, ::testing::ContainsRegex("(v[0-9]+)\\[(%[a-z0-9]+)\\] = move v1\\[\\2\\]\n    jump block1"));
  EXPECT_THAT(printed, ::testing::ContainsRegex("v[0-9]+\\[%[a-z0-9]+\\] = const.i64 4096\n    jump block1"));
  EXPECT_EQ(Occurrences(r.reloaded.printed, "reload v1["), 1) << r.reloaded.printed;
}

TEST(LsraTest, AConstantNoEdgeReloadsHasNoTwin) {
  // v1 stays in its register into the loop and is never reloaded on an edge:
  // no twin, so no rename on block0's edge (an instruction moving nothing).
  LsraRun run = Allocate(R"(function %no_twin(i64) -> i64 {
block0(v0: i64):
    v1 = const.i64 7
    jump block1(v0)
block1(v2: i64):
    v3 = add v2, v1
    v4 = cmp.lt v3, v0
    br v4, block1(v3), block2
block2:
    ret v3
}
)", T("x86_64"));
  EXPECT_EQ(run.resolve.remats, 0) << run.printed;
  EXPECT_EQ(Occurrences(run.printed, "move v1["), 0) << run.printed;
}

TEST(LsraTest, HighPressureSplitsAndSpillsBetweenUses) {
  // Twenty values live at once on x86-64's fifteen registers.
  std::string text = "function %twenty(i64) -> i64 {\nblock0(v0: i64):\n";
  for (int k = 1; k <= 20; ++k) text += absl::StrCat("    v", k, " = load.i64 v0, ", 8 * k, "\n");
  std::string acc = "v20";
  for (int k = 19; k >= 1; --k) {
    text += absl::StrCat("    v", 40 - k, " = add ", acc, ", v", k, "\n");
    acc = absl::StrCat("v", 40 - k);
  }
  text += absl::StrCat("    ret ", acc, "\n}\n");
  LsraRun run = Allocate(text, T("x86_64"));
  EXPECT_GT(run.alloc.spilled, 0) << run.printed;
  // Each spilled value is stored once, right after its definition.
  int stores = 0;
  for (size_t at = run.printed.find("= spill"); at != std::string::npos; at = run.printed.find("= spill", at + 1)) {
    ++stores;
  }
  EXPECT_LE(stores, 6) << run.printed;
}

TEST(LsraTest, ArmSAndDRegistersShareStorage) {
  // Four f32 and six f64 values live across a call: exactly the sixteen s-sized
  // slots of the callee-saved d8-d15, if the f32 values pair up inside d registers.
  std::string text = "function %mix(i32) -> f64 {\nblock0(v0: i32):\n";
  for (int k = 1; k <= 10; ++k) text += absl::StrCat("    v", k, " = const.", k <= 4 ? "f32" : "f64", " ", k, ".5\n");
  text += "    v11 = call.i32 %f()\n";
  text += "    v12 = fadd v1, v2\n    v13 = fadd v12, v3\n    v14 = fadd v13, v4\n    store v14, v0, 0\n";
  text += "    v15 = fadd v5, v6\n    v16 = fadd v15, v7\n    v17 = fadd v16, v8\n    v18 = fadd v17, v9\n";
  text += "    v19 = fadd v18, v10\n    ret v19\n}\n";
  LsraRun run = Allocate(text, T("armv7"));
  EXPECT_EQ(run.alloc.spilled, 0) << run.printed;
}

TEST(LsraTest, X86AlAndAhHoldTwoBytesAtOnce) {
  // The last two bytes take %ah and %ch beside the values in %al and %cl: busy is
  // marked over alias sets (units), not whole registers. Treating %al and %ah as
  // one would cost %bl and %r12b, and a save of %rbx and %r12.
  LsraRun run = Allocate(kTenBytesText, T("x86_64"));
  EXPECT_EQ(run.alloc.spilled, 0) << run.printed;
  EXPECT_EQ(run.cost.saves, 0) << run.printed;
  EXPECT_THAT(run.printed, HasSubstr("v1[%al] = load.i8 v0[%rdi], 1"));
  EXPECT_THAT(run.printed, HasSubstr("v9[%ah] = load.i8 v0[%rdi], 9"));
  EXPECT_THAT(run.printed, HasSubstr("v10[%ch] = load.i8 v0[%rdi], 10"));
}

TEST(LsraTest, X86ByteRemainderInAhWhileTheDividendIsInAl) {
  LsraRun run = Allocate(kByteRemainderText, T("x86_64"));
  EXPECT_THAT(run.printed, HasSubstr("v3@%ah[%ah] = rem v0@%al[%al]"));
  EXPECT_THAT(run.printed, ::testing::Not(HasSubstr("v4[%rax]")));
  EXPECT_EQ(run.alloc.spilled, 0) << run.printed;
}

TEST(LsraTest, RegisterPreferencePutsACopyInItsDyingSourcesRegister) {
  // v2 is born in %rdx (rem's result); the copy v3 is its last use. With
  // Subzero's preference v3 takes %rdx (the copy does nothing); without it, v3
  // takes the best fit, %rax (free until the ret reads v4 there), and the copy
  // is a move.
  constexpr char kText[] = R"(function %pref(i64, i64) -> i64 {
block0(v0: i64, v1: i64):
    v2 = rem v0, v1
    v3 = copy v2
    v4 = load.i64 v3, 0
    ret v4
}
)";
  LsraRun with = Allocate(kText, T("x86_64"));
  EXPECT_THAT(with.printed, HasSubstr("v3[%rdx] = copy v2[%rdx]"));
  EXPECT_GE(with.alloc.preferred, 1);
  LsraOptions off;
  off.preference = false;
  LsraRun without = Allocate(kText, T("x86_64"), off);
  EXPECT_THAT(without.printed, HasSubstr("v3[%rax] = copy v2[%rdx]"));
  EXPECT_EQ(without.alloc.preferred, 0);
  EXPECT_LT(with.cost.moves, without.cost.moves);
}

// On every target: `v1 = copy v0` takes v0's register (the line reads
// `v1[%r] = copy v0[%r]`) and the allocation has one move less than without
// overlap. (x86-64's legalization may add copies of its own, which overlap
// may share too.)
void ExpectOverlapSharesV1WithV0(const char* text) {
  for (const char* target : {"x86_64", "aarch64", "armv7"}) {
    LsraOptions off;
    off.overlap = false;
    LsraRun with = Allocate(text, T(target)), without = Allocate(text, T(target), off);
    EXPECT_GE(with.alloc.overlapped, 1) << target << "\n" << with.printed;
    EXPECT_EQ(without.alloc.overlapped, 0) << target;
    size_t at = with.printed.find("v1[");
    ASSERT_NE(at, std::string::npos) << with.printed;
    std::string reg = with.printed.substr(at + 3, with.printed.find(']', at) - at - 3);
    EXPECT_THAT(with.printed, HasSubstr(absl::StrCat("v1[", reg, "] = copy v0[", reg, "]"))) << target;
    EXPECT_EQ(with.cost.moves + 1, without.cost.moves) << with.printed << without.printed;
  }
}

TEST(LsraTest, OverlapLetsACopyShareItsLiveSourcesRegister) {
  // v1 copies v0, which lives on: with overlap both sit in one register and the
  // copy moves nothing (the add then writes that register in place, where both
  // die). Without, the copy is a move to a second register.
  constexpr char kText[] = R"(function %twice(i32) -> i32 {
block0(v0: i32):
    v1 = copy v0
    v2 = add v0, v1
    ret v2
}
)";
  ExpectOverlapSharesV1WithV0(kText);
  LsraRun x86 = Allocate(kText, T("x86_64"));
  EXPECT_THAT(x86.printed, HasSubstr("v1[%edi] = copy v0[%edi]"));
}

TEST(LsraTest, OverlapEndsWhereTheSharedRegisterIsWrittenWhileBothLive) {
  // v0 dies as the two-address source of v2, which overwrites its register while
  // v1 still lives: they cannot share.
  LsraRun run = Allocate(R"(function %apart(i64, i64) -> i64 {
block0(v0: i64, v5: i64):
    v1 = copy v0
    v2 = add v0, v5
    v3 = add v2, v1
    ret v3
}
)", T("x86_64"));
  EXPECT_EQ(run.alloc.overlapped, 0) << run.printed;
}

TEST(LsraTest, OverlapSpansBlocks) {
  // v1 copies v0 and both live into two branches. Each branch writes one of
  // them in place where the other dies (x86-64's two-address add and sub), so
  // they share one register across the blocks and the copy moves nothing.
  constexpr char kText[] = R"(function %branches(i32, i32) -> i32 {
block0(v8: i32, v9: i32):
    v0 = mul v9, v9
    v1 = copy v0
    br v8, block1, block2
block1:
    v2 = add v0, v1
    ret v2
block2:
    v3 = sub v1, v0
    ret v3
}
)";
  ExpectOverlapSharesV1WithV0(kText);
}

TEST(LsraTest, AnEdgeIntoASharedRegisterMovesOnlyTheCopy) {
  // Generated function 80 (150 instructions, x86-64): v29 copies v28 and they
  // share %r12d into block9, where the edge from block15 finds both on the
  // stack. One reload of the copy fills the register for both (its slot holds v28's
  // value too); two moves into one register would be no parallel copy at all.
  GeneratorOptions g;
  g.num_insts = 150;
  g.legalize = false;
  const Target& t = T("x86_64");
  LsraRun run = Allocate(PrintFunction(Generate(80, g, t).value(), t), t);
  EXPECT_GE(run.alloc.overlapped, 1);
  EXPECT_THAT(run.resolve.printed, ::testing::ContainsRegex("block15 -> block9: v29 ss[0-9]+ -> %r12d"))
      << run.resolve.printed;
  EXPECT_THAT(run.resolve.printed, ::testing::Not(::testing::ContainsRegex("block15 -> block9: [^\n]*v28 ")));
}

TEST(LsraTest, ASecondRoundGivesStackPiecesRegistersLeftFree) {
  // Generated function 20 (50 instructions): the scan leaves a piece on the
  // stack over which a register is free in the finished table; the second
  // round gives it that register, and a further round finds nothing more.
  GeneratorOptions g;
  g.num_insts = 50;
  g.legalize = false;
  std::string text = PrintFunction(Generate(20, g, T("x86_64")).value(), T("x86_64"));
  LsraOptions on;
  on.second_chance = true;
  LsraRun with = Allocate(text, T("x86_64"), on), without = Allocate(text, T("x86_64"));
  EXPECT_GE(with.alloc.recovered, 1) << with.printed;
  EXPECT_EQ(with.alloc.rounds, 2);
  EXPECT_EQ(with.alloc.spilled + with.alloc.recovered, without.alloc.spilled);
  EXPECT_EQ(without.alloc.recovered, 0);
  EXPECT_EQ(without.alloc.rounds, 0);
}

TEST(LsraTest, ABlockStartsWithItsSeedPredecessorsRegisters) {
  // Generated function 20 (80 instructions, AArch64): block10 comes after
  // block13 in the order, but its seed is block8 (and block9's is block7).
  // Without seeding, v23 enters both in the register the block before each
  // left it in, so the edges from their seeds move it. Seeded, each starts
  // with v23 where its seed ends. (v23 is a constant: resolution without
  // remat, so that the edges move it under its own name, not its twin's.)
  GeneratorOptions g;
  g.num_insts = 80;
  g.legalize = false;
  const Target& t = T("aarch64");
  std::string text = PrintFunction(Generate(20, g, t).value(), t);
  LsraOptions off;
  off.seed_blocks = false;
  LsraResolveOptions named;
  named.remat = false;
  LsraRun with = Allocate(text, t, LsraOptions(), named), without = Allocate(text, t, off, named);
  EXPECT_GE(with.alloc.seeded, 2) << with.printed;
  EXPECT_EQ(without.alloc.seeded, 0);
  EXPECT_EQ(with.cost.moves + 2, without.cost.moves) << with.resolve.printed << without.resolve.printed;
  EXPECT_LT(with.cost.weighted, without.cost.weighted);
  for (const char* edge : {"block8 -> block10: [^\n]*v23 ", "block7 -> block9: [^\n]*v23 "}) {
    EXPECT_THAT(without.resolve.printed, ::testing::ContainsRegex(edge));
    EXPECT_THAT(with.resolve.printed, ::testing::Not(::testing::ContainsRegex(edge)));
  }
}

TEST(LsraTest, ABranchConditionUnderPressureIsReadFromARegister) {
  // Generated function 30106 (150 instructions, 20% i8, ARMv7): the condition of
  // a br is spilled between its cmp and the br. A branch's arguments may stay on
  // the stack (the edge's parallel copy reads them); its condition is reloaded.
  GeneratorOptions g;
  g.num_insts = 150;
  g.byte_percent = 20;
  g.legalize = false;
  const Target& t = T("armv7");
  LsraRun run = Allocate(PrintFunction(Generate(30106, g, t).value(), t), t);
  EXPECT_THAT(run.printed, HasSubstr("br v29[%"));
}

TEST(LsraTest, AnEvictedValueLeavesItsRegisterBeforeALoopItDoesNotUse) {
  // v2 lives across a loop that needs every register (30 loads summed) and is
  // used only after it. Evicted in the middle of the loop, it would be in a
  // register at the loop's start and on the stack at its end: a reload on the
  // back edge every iteration. Wimmer's split position puts it on the stack from
  // the loop's start: one reload, on the exit.
  std::string text = R"(function %outside(i64, i64) -> i64 {
block0(v0: i64, v1: i64):
    v2 = add v0, v1
    v4 = const.i64 0
    v5 = const.i64 3
    v6 = const.i64 1
    jump block1(v4)
block1(v3: i64):
)";
  for (int k = 0; k < 30; ++k) absl::StrAppend(&text, "    v", 10 + k, " = load.i64 v3, ", 8 * k, "\n");
  int sum = 10;
  for (int k = 1; k < 30; ++k) {
    absl::StrAppend(&text, "    v", 50 + k, " = add v", sum, ", v", 10 + k, "\n");
    sum = 50 + k;
  }
  absl::StrAppend(&text, R"(    v90 = add v3, v6
    v91 = cmp.ne v90, v5
    br v91, block1(v90), block2
block2:
    v92 = add v2, v)", sum, R"(
    ret v92
}
)");
  LsraOptions mid_loop;
  mid_loop.spill_before_loops = false;
  LsraRun before = Allocate(text, T("aarch64")), inside = Allocate(text, T("aarch64"), mid_loop);
  EXPECT_EQ(Occurrences(before.printed, "reload v2["), 1) << before.printed;  // on the exit
  EXPECT_EQ(Occurrences(inside.printed, "reload v2["), 2) << inside.printed;  // and on the back edge
  EXPECT_LT(before.cost.weighted, inside.cost.weighted);
}

// The start of a function `name`(v0: i64, v1: i64) -> i64 whose entry loads
// v10, v11, ... (`n` of them) from v0.
std::string LoadsFromV0(absl::string_view name, int n) {
  std::string text = absl::StrCat("function %", name, "(i64, i64) -> i64 {\nblock0(v0: i64, v1: i64):\n");
  for (int k = 0; k < n; ++k) absl::StrAppend(&text, "    v", 10 + k, " = load.i64 v0, ", 8 * k, "\n");
  return text;
}

// v2 lives across a loop with a call and is used after it (and where
// `in_loop` says, in the loop before the call). Twelve values defined before
// it, read as addresses after the call at every iteration, take the registers
// calls preserve, so v2 gets one the call clobbers: free for a while, up to
// the call.
std::string AcrossALoopWithACall(absl::string_view in_loop) {
  std::string text = LoadsFromV0("across", 12);
  absl::StrAppend(&text, R"(    v4 = const.i64 0
    v5 = const.i64 3
    v6 = const.i64 1
    v2 = add v0, v1
    jump block1(v4, v4)
block1(v3: i64, v7: i64):
    v90 = add v3, v6
)", in_loop, R"(    v30 = call.i64 %f(v90)
)");
  int sum = 30;
  for (int k = 0; k < 12; ++k) {
    absl::StrAppend(&text, "    v", 60 + k, " = load.i64 v", 10 + k, ", 0\n");
    absl::StrAppend(&text, "    v", 40 + k, " = add v", sum, ", v", 60 + k, "\n");
    sum = 40 + k;
  }
  absl::StrAppend(&text, "    v93 = add v7, v", sum, R"(
    v91 = cmp.ne v90, v5
    br v91, block1(v90, v93), block2
block2:
    v92 = add v2, v93
    ret v92
}
)");
  return text;
}

TEST(LsraTest, AValueFreeOnlyUntilACallInALoopItDoesNotUseStaysOnTheStackThere) {
  // Holding its register up to the call, v2 would leave it in the loop and be
  // put back in it on the back edge at every iteration. With Wimmer's split
  // position it leaves the register before the loop (the same rule as for an
  // evicted value): one reload, on the exit.
  const std::string text = AcrossALoopWithACall("");
  for (const char* target : {"x86_64", "aarch64"}) {
    LsraOptions mid_loop;
    mid_loop.spill_before_loops = false;
    LsraRun before = Allocate(text, T(target)), inside = Allocate(text, T(target), mid_loop);
    EXPECT_EQ(Occurrences(before.printed, "reload v2["), 1) << target << "\n" << before.printed;  // on the exit
    EXPECT_EQ(Occurrences(inside.printed, "reload v2["), 2) << target << "\n" << inside.printed;  // and the back edge
    EXPECT_LT(before.cost.weighted, inside.cost.weighted) << target;
  }
}

TEST(LsraTest, AValueReadFromItsSlotInALoopLeavesItsRegisterBeforeTheLoop) {
  // The same, but the loop reads v2 before the call, as x86's add reads its
  // second operand: from memory as well. That use does not keep v2 in a
  // register into the loop; the add reads its slot.
  const std::string text = AcrossALoopWithACall("    v94 = add v90, v2\n");
  LsraOptions mid_loop;
  mid_loop.spill_before_loops = false;
  LsraRun before = Allocate(text, T("x86_64")), inside = Allocate(text, T("x86_64"), mid_loop);
  EXPECT_EQ(Occurrences(before.printed, "reload v2["), 1) << before.printed;
  EXPECT_THAT(before.printed, ::testing::ContainsRegex("= add v[0-9]+\\[%[a-z0-9]+\\], v2@any\\[ss[0-9]+\\]"));
  EXPECT_EQ(Occurrences(inside.printed, "reload v2["), 2) << inside.printed;
  EXPECT_LT(before.cost.weighted, inside.cost.weighted);
}

TEST(LsraTest, APieceNeededAgainEvictsAValueNeededLaterRatherThanSplit) {
  // v1 and v10-v15, needed only after the loop (v1 on its back edge), hold
  // the registers calls preserve. v5, loaded in the loop and read after its
  // call, finds the registers the call clobbers free only until the call.
  // Taking one and splitting at the call, v5 is moved to a preserved register
  // there, whose holder is then reloaded on the back edge at every iteration.
  // Since that holder is needed later than v5, v5 evicts it at once: no move,
  // no reload in the loop.
  std::string text = LoadsFromV0("evict", 6);
  absl::StrAppend(&text, R"(    v4 = const.i64 0
    v6 = const.i64 1
    v7 = const.i64 3
    jump block1(v4)
block1(v3: i64):
    v5 = load.i64 v1, 0
    v30 = call.i64 %f(v3)
    v31 = load.i64 v5, 8
    v32 = add v3, v6
    v33 = cmp.ne v32, v7
    br v33, block1(v32), block2
block2:
)");
  std::string sum = "v31";
  for (int k = 0; k < 6; ++k) {
    absl::StrAppend(&text, "    v", 40 + k, " = load.i64 v", 10 + k, ", 0\n    v", 50 + k, " = add ", sum, ", v", 40 + k,
                    "\n");
    sum = absl::StrCat("v", 50 + k);
  }
  absl::StrAppend(&text, "    ret ", sum, "\n}\n");
  LsraOptions split_first;
  split_first.evict_over_split = false;
  LsraRun evicting = Allocate(text, T("x86_64")), splitting = Allocate(text, T("x86_64"), split_first);
  EXPECT_EQ(Occurrences(evicting.printed, "= move v5["), 0) << evicting.printed;
  EXPECT_EQ(Occurrences(splitting.printed, "= move v5["), 1) << splitting.printed;
  EXPECT_EQ(Occurrences(splitting.printed, "v1[%rbx] = reload"), 1) << splitting.printed;  // the back edge
  EXPECT_LT(evicting.cost.weighted, splitting.cost.weighted);
}

TEST(LsraTest, ScoringKeepsValuesThatSpanNoCallOutOfCalleeSavedRegisters) {
  // The constants v2 and v7 die before the first call; nothing hints a
  // register for them. The caller-saved registers are free only until that call
  // clobbers them, so "free the longest" gives both callee-saved registers (free
  // to the end), which the frame must then save. RyuJIT's caller/callee rule keeps it in a
  // caller-saved one; v4, which lives across the second call, still takes a
  // callee-saved register.
  const std::string text = R"(function %two_calls(i32, i32) -> i32 {
block0(v0: i32, v1: i32):
    v2 = const.i32 7
    v7 = const.i32 9
    v8 = mul v0, v2
    v3 = sub v8, v7
    v4 = call.i32 %f(v3)
    v5 = call.i32 %g(v4)
    v6 = add v5, v4
    ret v6
}
)";
  for (const char* target : {"x86_64", "aarch64", "armv7"}) {
    LsraRun scored = Allocate(text, T(target));
    LsraOptions off;
    off.scoring = false;
    LsraRun unscored = Allocate(text, T(target), off);
    EXPECT_EQ(scored.cost.saves, 1) << target << "\n" << scored.printed;
    EXPECT_GT(unscored.cost.saves, scored.cost.saves) << target << "\n" << unscored.printed;
    EXPECT_EQ(scored.cost.weighted, unscored.cost.weighted) << target;
  }
}

TEST(LsraTest, BlockLocalSplittingCutsIntervalsAtBlockStarts) {
  // v1 lives from the entry through the loop, v6 from the loop into block2: one
  // piece each by default; with Subzero's block-local splitting each is cut at
  // the block start it spans (edges then reconcile the pieces).
  LsraRun whole = Allocate(kSumLoopText, T("aarch64"));
  EXPECT_EQ(whole.alloc.splits, 0);
  LsraOptions local;
  local.local_split = true;
  LsraRun split = Allocate(kSumLoopText, T("aarch64"), local);
  EXPECT_EQ(split.alloc.splits, 2) << split.printed;
}

TEST(LsraTest, StressModesStillAllocateCorrectly) {
  // Only callee-saved registers (six on x86-64 for integers): the loop spills
  // more but stays right; the checker and the interpreter run inside Allocate.
  std::string text = "function %stress(i64) -> i64 {\nblock0(v0: i64):\n";
  for (int k = 1; k <= 8; ++k) text += absl::StrCat("    v", k, " = load.i64 v0, ", 8 * k, "\n");
  std::string acc = "v8";
  for (int k = 7; k >= 1; --k) {
    text += absl::StrCat("    v", 16 - k, " = add ", acc, ", v", k, "\n");
    acc = absl::StrCat("v", 16 - k);
  }
  text += absl::StrCat("    ret ", acc, "\n}\n");
  LsraOptions callee;
  callee.registers = LsraOptions::Registers::kCalleeSavedOnly;
  LsraRun few = Allocate(text, T("x86_64"), callee);
  EXPECT_GT(few.alloc.spilled, 0) << few.printed;
  EXPECT_THAT(few.printed, ::testing::Not(HasSubstr("[%rcx]")));
  LsraRun all = Allocate(text, T("x86_64"));
  EXPECT_EQ(all.alloc.spilled, 0) << all.printed;
}

TEST(LsraTest, DumpsShowPiecesTheAllocationTableAndEdgeMoves) {
  Function f = ParseLegal(kSumLoopText, T("x86_64"));
  LiveSets sets(f);
  LsraBuild build;
  LsraAllocation alloc;
  ASSERT_TRUE(build.Run(T("x86_64"), f, sets).ok());
  ASSERT_TRUE(alloc.Run(T("x86_64"), f, build).ok());
  std::string table = alloc.Print(f, T("x86_64"));
  // v1 keeps the register it arrives in through the loop; the table lists it.
  EXPECT_THAT(table, HasSubstr("  v1: [3, 35) %esi\n"));
  EXPECT_THAT(table, HasSubstr("  %esi: v1[3, 35)\n"));
  Function same = f;
  LsraAllocation same_alloc = alloc;
  absl::StatusOr<LsraResolveStats> r = ResolveLsra(T("x86_64"), f, build, alloc, LsraResolveOptions{/*dump=*/true});
  ASSERT_TRUE(r.ok()) << r.status();
  // Only the entry edge moves something: v0 into v4's register.
  EXPECT_EQ(r->printed, "lsra resolution of %sum_loop (moves per edge)\n  block0 -> block1: v0->v4 %edi -> %ecx\n");
  // Without the dump, the same moves and no text.
  absl::StatusOr<LsraResolveStats> quiet = ResolveLsra(T("x86_64"), same, build, same_alloc);
  ASSERT_TRUE(quiet.ok()) << quiet.status();
  EXPECT_EQ(quiet->printed, "");
  EXPECT_EQ(quiet->edge_moves, r->edge_moves);
  EXPECT_EQ(PrintFunction(same, T("x86_64")), PrintFunction(f, T("x86_64")));
}

TEST(LsraTest, StopsCleanlyOnAnAllocatedFunction) {
  absl::StatusOr<Function> f = ParseFunction(R"(function %done(i64) -> i64 {
block0(v0@%rdi[%rdi]: i64):
    v1[%rax] = move v0[%rdi]
    ret v1@%rax[%rax]
}
)", T("x86_64"));
  ASSERT_TRUE(f.ok()) << f.status();
  LiveSets sets;
  LsraBuild build;
  absl::StatusOr<LsraBuildStats> s = build.Run(T("x86_64"), *f, sets);
  EXPECT_EQ(s.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.status().message(), "function %done: lsra_build needs SSA form");
}

}  // namespace
}  // namespace regalloc
