#include "color/color.h"

#include <string>

#include "color/ssa_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ssa/legalize.h"
#include "ssa/parser.h"
#include "ssa/printer.h"
#include "ssa/ssa_testing.h"

namespace regalloc {
namespace {

using ::testing::HasSubstr;

const Target& T(const char* name) { return *TargetByName(name).value(); }

SsaRun Allocate(Function& f, const Target& target) {
  absl::StatusOr<SsaRun> run = AllocateSsaAndCheck(f, target);
  EXPECT_TRUE(run.ok()) << run.status();
  return run.ok() ? *std::move(run) : SsaRun();
}

TEST(ColorTest, LoopCarriedValuesNeedNoMoves) {
  // The parameters of block1 and their arguments share virtual registers; their
  // members take one register, so lowering the parameters moves nothing.
  for (const char* target : {"x86_64", "aarch64", "armv7"}) {
    Function f = ParseLegal(kSumLoopText, T(target));
    SsaRun run = Allocate(f, T(target));
    EXPECT_EQ(run.lower.moves, 0) << target << "\n" << PrintFunction(f, T(target));
    EXPECT_EQ(run.spill.values_spilled, 0) << target;
  }
}

TEST(ColorTest, TheDividendIsBornInRaxAndTheQuotientReturnedFromIt) {
  // A def that a constraint copy later moves to a fixed register prefers that
  // register, so the copies before `div` and `ret` are renames in place.
  Function f = ParseLegal(R"(function %quotient(i64, i64) -> i64 {
block0(v0: i64, v1: i64):
    v2 = load.i64 v0, 0
    v3 = div v2, v1
    ret v3
}
)", T("x86_64"));
  SsaRun run = Allocate(f, T("x86_64"));
  EXPECT_EQ(run.color.moves, 0) << PrintFunction(f, T("x86_64"));
  EXPECT_EQ(run.color.renames, 2);
  EXPECT_THAT(PrintFunction(f, T("x86_64")), HasSubstr("v2[%rax] = load.i64 v0[%rdi], 0"));
}

TEST(ColorTest, X86BytesTakeAhBesideAlBeforeACalleeSavedRegister) {
  // %ah and %ch alias %rax and %rcx but not %al and %cl.
  Function f = ParseLegal(kTenBytesText, T("x86_64"));
  SsaRun run = Allocate(f, T("x86_64"));
  std::string printed = PrintFunction(f, T("x86_64"));
  EXPECT_EQ(run.spill.values_spilled, 0) << printed;
  EXPECT_THAT(printed, HasSubstr("v1[%al] = load.i8"));
  EXPECT_THAT(printed, HasSubstr("v9[%ah] = load.i8"));
  EXPECT_THAT(printed, HasSubstr("v10[%ch] = load.i8"));
  EXPECT_THAT(printed, ::testing::Not(HasSubstr("saves")));
}

TEST(ColorTest, X86ByteRemainderLandsInAhWhileAlIsClobbered) {
  Function f = ParseLegal(kByteRemainderText, T("x86_64"));
  SsaRun run = Allocate(f, T("x86_64"));
  std::string printed = PrintFunction(f, T("x86_64"));
  EXPECT_THAT(printed, HasSubstr("v3@%ah[%ah] = rem"));
  EXPECT_THAT(printed, ::testing::Not(HasSubstr("v4[%rax]")));
  EXPECT_EQ(run.spill.values_spilled, 0) << printed;
}

TEST(ColorTest, AValueLiveAcrossACallGetsACalleeSavedRegisterFromTheStart) {
  Function f = ParseLegal(R"(function %across(i64) -> i64 {
block0(v0: i64):
    v1 = load.i64 v0, 0
    v2 = call.i64 %f()
    v3 = add v1, v2
    ret v3
}
)", T("x86_64"));
  SsaRun run = Allocate(f, T("x86_64"));
  std::string printed = PrintFunction(f, T("x86_64"));
  EXPECT_EQ(run.color.relocations, 0) << printed;
  EXPECT_THAT(printed, HasSubstr("v1[%rbx] = load.i64"));
  EXPECT_THAT(printed, HasSubstr("saves %rbx\n"));
}

TEST(ColorTest, ACallPinningTheParameterRegistersMovesThemAside) {
  // v0 arrives in %rdi, which the call clobbers while v0 is still needed.
  Function f = ParseLegal(R"(function %aside(i64) -> i64 {
block0(v0: i64):
    v1 = call.i64 %f(v0)
    v2 = add v1, v0
    ret v2
}
)", T("x86_64"));
  SsaRun run = Allocate(f, T("x86_64"));
  EXPECT_EQ(run.color.relocations, 1) << PrintFunction(f, T("x86_64"));
}

// Sixteen f32 values live across a first call fill s16-s31 (the callee-saved
// d8-d15); the odd ones then die, leaving one s register of every d and q. A
// v128 and the remaining f32 values live across a second call need an aligned
// callee-saved q: the colorer repacks the bank (q first, then the s values).
constexpr char kFragmented[] = R"(function %frag(i32) -> i32 {
block0(v0: i32):
    v1 = const.f32 1.5
    v2 = const.f32 2.5
    v3 = const.f32 3.5
    v4 = const.f32 4.5
    v5 = const.f32 5.5
    v6 = const.f32 6.5
    v7 = const.f32 7.5
    v8 = const.f32 8.5
    v9 = const.f32 9.5
    v10 = const.f32 10.5
    v11 = const.f32 11.5
    v12 = const.f32 12.5
    v13 = const.f32 13.5
    v14 = const.f32 14.5
    v15 = const.f32 15.5
    v16 = const.f32 16.5
    v17 = call.i32 %f()
    v18 = fadd v1, v3
    v19 = fadd v18, v5
    v20 = fadd v19, v7
    v21 = fadd v20, v9
    v22 = fadd v21, v11
    v23 = fadd v22, v13
    v24 = fadd v23, v15
    v25 = load.v128 v0, 0
    v26 = call.i32 %g()
    v27 = fadd v24, v2
    v28 = fadd v27, v4
    v29 = fadd v28, v6
    v30 = fadd v29, v8
    v31 = fadd v30, v10
    v32 = fadd v31, v12
    v33 = fadd v32, v14
    v34 = fadd v33, v16
    store v25, v0, 16
    store v34, v0, 32
    ret v17
}
)";

TEST(ColorTest, ArmVfpFragmentationIsRepackedAcrossACall) {
  Function f = ParseLegal(kFragmented, T("armv7"));
  SsaRun run = Allocate(f, T("armv7"));
  EXPECT_EQ(run.spill.values_spilled, 0);
  EXPECT_GE(run.color.relocations, 8) << PrintFunction(f, T("armv7"));
  // The v128 crosses the second call in a callee-saved q register.
  std::string printed = PrintFunction(f, T("armv7"));
  EXPECT_THAT(printed, ::testing::ContainsRegex("v25\\[%q[4-7]\\] = move v25\\[%q"));
}

TEST(ColorTest, ColoringWithoutSpillingNamesTheInstruction) {
  std::string text = "function %crowd(i32) -> i32 {\nblock0(v0: i32):\n";
  for (int k = 1; k <= 16; ++k) text += absl::StrCat("    v", k, " = load.i32 v0, ", 4 * k, "\n");
  std::string acc = "v1";
  for (int k = 2; k <= 16; ++k) {
    text += absl::StrCat("    v", 15 + k, " = add ", acc, ", v", k, "\n");
    acc = absl::StrCat("v", 15 + k);
  }
  text += absl::StrCat("    ret ", acc, "\n}\n");
  Function f = ParseLegal(text, T("x86_64"));
  VirtRegs vregs;
  ValueLocations locs;
  absl::StatusOr<ColorStats> s = Color(T("x86_64"), f, vregs, locs);
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(s.status().message(), HasSubstr("function %crowd, block0 `v15 = load.i32 v0, 60`: no register for v15"));
  EXPECT_THAT(s.status().message(), HasSubstr("the spiller should have made room"));
}

// Legalize rejects such a function (the verifier); color, reused on its own,
// still says so.
TEST(ColorTest, UnreachableBlocksAreAnError) {
  Function f = ParseFunction(R"(function %dead(i32) -> i32 {
block0(v0: i32):
    ret v0
block1:
    v1 = const.i32 1
    ret v1
}
)", T("x86_64")).value();
  EXPECT_THAT(Legalize(f, T("x86_64")).message(), HasSubstr("function %dead, block1: is unreachable from the entry block"));
  VirtRegs vregs;
  ValueLocations locs;
  absl::StatusOr<ColorStats> s = Color(T("x86_64"), f, vregs, locs);
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.status().message(), "function %dead, block1 is unreachable; remove it before coloring");
}

}  // namespace
}  // namespace regalloc
