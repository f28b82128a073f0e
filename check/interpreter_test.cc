#include "check/interpreter.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "absl/strings/str_cat.h"
#include "check/generator.h"
#include "check/heap_counter.h"
#include "check/stack_allocator.h"
#include "ssa/legalize.h"
#include "ssa/lower_params.h"
#include "ssa/parser.h"
#include "testdata/corpus.h"

namespace regalloc {
namespace {

using ::testing::HasSubstr;

const Target& X86() { return *TargetByName("x86_64").value(); }

Function Parse(const std::string& text) {
  absl::StatusOr<Function> f = ParseFunction(text, X86());
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? *std::move(f) : Function();
}

int64_t RunI64(const std::string& body, std::vector<int64_t> args) {
  Function f = Parse(body);
  std::vector<Bits> in;
  for (int64_t a : args) in.push_back(Bits{static_cast<uint64_t>(a), 0});
  absl::StatusOr<Execution> ex = RunOnValues(f, in, {});
  EXPECT_TRUE(ex.ok()) << ex.status();
  return ex.ok() ? static_cast<int64_t>(ex->results[0].lo) : -999;
}

std::string Binary(const std::string& op) {
  return "function %f(i64, i64) -> i64 {\nblock0(v0: i64, v1: i64):\n    v2 = " + op +
         " v0, v1\n    ret v2\n}\n";
}

TEST(InterpreterTest, IntegerSemanticsAreTotal) {
  EXPECT_EQ(RunI64(Binary("div"), {7, 0}), 0);
  EXPECT_EQ(RunI64(Binary("rem"), {7, 0}), 7);
  EXPECT_EQ(RunI64(Binary("div"), {INT64_MIN, -1}), INT64_MIN);
  EXPECT_EQ(RunI64(Binary("rem"), {INT64_MIN, -1}), 0);
  EXPECT_EQ(RunI64(Binary("div"), {-7, 2}), -3);
  EXPECT_EQ(RunI64(Binary("shl"), {1, 65}), 2);  // count modulo 64
  EXPECT_EQ(RunI64(Binary("sar"), {-8, 1}), -4);
  EXPECT_EQ(RunI64(Binary("shr"), {-8, 60}), 15);
  EXPECT_EQ(RunI64(Binary("cmp.ult"), {-1, 1}), 0);
  EXPECT_EQ(RunI64(Binary("cmp.lt"), {-1, 1}), 1);
}

TEST(InterpreterTest, OpaqueTargetInstructionsAreNotInterpretable) {
  Function f = Parse(R"(function %f(i32) -> i32 {
block0(v0: i32):
    v1 = add v0, v0
    v2@reuse0 = inst.i32 %ADD32rr(v1, v0)
    ret v2
}
)");
  absl::StatusOr<Execution> ex = RunOnValues(f, {Bits{1, 0}}, {});
  ASSERT_FALSE(ex.ok());
  EXPECT_EQ(ex.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(ex.status().message()), HasSubstr("block0, inst 1 is the opaque target instruction inst %ADD32rr"));
}

TEST(InterpreterTest, I32WrapsAndMemoryRoundTrips) {
  Function f = Parse(R"(function %f(i32) -> i32 {
block0(v0: i32):
    v1 = const.i32 2147483647
    v2 = add v1, v0
    store v2, v0, 70000
    v3 = load.i32 v0, 4464
    ret v3
}
)");
  // 1 + 70000 and 1 + 4464 are the same address modulo 64 KiB.
  Execution ex = RunOnValues(f, {Bits{1, 0}}, {}).value();
  EXPECT_EQ(static_cast<int32_t>(ex.results[0].lo), INT32_MIN);
  EXPECT_EQ(ex.events, 3);
}

TEST(InterpreterTest, I8WrapsSignedAndDividesTotally) {
  auto run = [](const std::string& op, int a, int b) {
    std::string result = absl::StartsWith(op, "cmp") ? "i32" : "i8";
    Function f = Parse("function %f(i8, i8) -> " + result + " {\nblock0(v0: i8, v1: i8):\n    v2 = " + op +
                       " v0, v1\n    ret v2\n}\n");
    absl::StatusOr<Execution> ex = RunOnValues(f, {Bits{static_cast<uint8_t>(a), 0}, Bits{static_cast<uint8_t>(b), 0}}, {});
    EXPECT_TRUE(ex.ok()) << ex.status();
    return ex.ok() ? static_cast<int>(static_cast<int8_t>(ex->results[0].lo)) : -999;
  };
  EXPECT_EQ(run("add", 127, 1), -128);
  EXPECT_EQ(run("mul", 16, 16), 0);
  EXPECT_EQ(run("div", -128, -1), -128);
  EXPECT_EQ(run("rem", -128, -1), 0);
  EXPECT_EQ(run("div", -7, 2), -3);
  EXPECT_EQ(run("rem", 5, 0), 5);
  EXPECT_EQ(run("shl", 1, 9), 2);  // count modulo 8
  EXPECT_EQ(run("shr", -128, 7), 1);
  EXPECT_EQ(run("sar", -128, 7), -1);
  EXPECT_EQ(run("cmp.lt", -1, 1), 1);
  EXPECT_EQ(run("cmp.ult", -1, 1), 0);
}

TEST(InterpreterTest, RunawayLoopsStop) {
  Function f = Parse(R"(function %spin() {
block0:
    jump block1
block1:
    jump block1
}
)");
  InterpOptions o;
  o.step_limit = 1000;
  absl::Status s = RunOnValues(f, {}, o).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(s.message()), HasSubstr("function %spin: step limit of 1000 instructions exceeded in block1"));
}

TEST(InterpreterTest, CorpusRunsOnValues) {
  for (const CorpusFile& file : Corpus()) {
    std::vector<Function> funcs = ParseModule(file.text, X86()).value();
    for (const Function& f : funcs) {
      for (uint64_t seed = 1; seed <= 5; ++seed) {
        absl::StatusOr<Execution> ex = RunOnValues(f, ArgumentsForSeed(f, seed), {});
        EXPECT_TRUE(ex.ok()) << file.name << ": " << ex.status();
      }
    }
  }
}

TEST(InterpreterTest, GeneratedFunctionsTerminate) {
  for (const char* name : {"x86_64", "aarch64", "armv7"}) {
    const Target& t = *TargetByName(name).value();
    for (uint64_t seed = 1; seed <= 30; ++seed) {
      Function f = Generate(seed, {}, t).value();
      absl::StatusOr<Execution> ex = RunOnValues(f, ArgumentsForSeed(f, seed), {});
      EXPECT_TRUE(ex.ok()) << name << " seed " << seed << ": " << ex.status();
    }
  }
}

// A correct allocation of %f (see checker_test.cc) and broken variants of it.
constexpr char kOriginal[] = R"(function %f(i64, i64) -> i64 {
block0(v0: i64, v1: i64):
    v2 = add v0, v1
    v3 = call.i64 %g(v1)
    v4 = add v3, v2
    ret v4
}
)";
constexpr char kAllocated[] = R"(function %f(i64, i64) -> i64 {
    ss0 = stack_slot 8
block0(v0@%rdi[%rdi]: i64, v1@%rsi[%rsi]: i64):
    v2@reuse0[%rdi] = add v0[%rdi], v1@any[%rsi]
    v2[ss0] = spill v2[%rdi]
    v1[%rdi] = move v1[%rsi]
    v3@%rax[%rax] = call.i64 %g(v1@%rdi[%rdi]) clobbers %rax, %rcx, %rdx, %rsi, %rdi, %r8, %r9, %r10, %r11
    v2[%rcx] = reload v2[ss0]
    v4@reuse0[%rax] = add v3[%rax], v2@any[%rcx]
    ret v4@%rax[%rax]
}
)";

TEST(InterpreterTest, CorrectAllocationAgrees) {
  Function original = Parse(kOriginal);
  Function allocated = Parse(kAllocated);
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    absl::Status s = CompareExecutions(original, allocated, X86(), seed);
    EXPECT_TRUE(s.ok()) << s;
  }
}

TEST(InterpreterTest, ValueKeptInACallerSavedRegisterIsCaught) {
  Function original = Parse(kOriginal);
  Function allocated = Parse(absl::StrReplaceAll(kAllocated, {{"v2[%rcx] = reload v2[ss0]", "v2[%rcx] = move v2[%rdi]"}}));
  absl::Status s = CompareExecutions(original, allocated, X86(), 3);
  EXPECT_THAT(std::string(s.message()), HasSubstr("function %f (seed 3): first diverging instruction block0, inst 5 "
                                     "`v4@reuse0[%rax] = add v3[%rax], v2@any[%rcx]`: v4 is"));
}

TEST(InterpreterTest, CalleeSavedRegisterNotRestoredIsCaught) {
  Function original = Parse(kOriginal);
  Function allocated = Parse(absl::StrReplaceAll(kAllocated, {{"v2[%rcx] = reload v2[ss0]", "v2[%rbx] = reload v2[ss0]\n    v2[%rcx] = move v2[%rbx]"}}));
  EXPECT_THAT(std::string(CompareExecutions(original, allocated, X86(), 1).message()),
              HasSubstr("callee-saved %rbx does not hold its entry value at ret"));
  RegSet saves;
  saves.Insert(*X86().FindReg("rbx"));
  allocated.set_saved_regs(saves);
  EXPECT_TRUE(CompareExecutions(original, allocated, X86(), 1).ok());
}

TEST(InterpreterTest, EarlyClobberIsCaught) {
  Function original = Parse(R"(function %e(i64, i64) -> i64 {
block0(v0: i64, v1: i64):
    v2 = sub v0, v1
    ret v2
}
)");
  Function allocated = Parse(R"(function %e(i64, i64) -> i64 {
block0(v0@%rdi[%rdi]: i64, v1@%rsi[%rsi]: i64):
    v2@early[%rsi] = sub v0[%rdi], v1@late[%rsi]
    v2[%rax] = move v2[%rsi]
    ret v2@%rax[%rax]
}
)");
  EXPECT_THAT(std::string(CompareExecutions(original, allocated, X86(), 2).message()), HasSubstr("first diverging instruction"));
}

TEST(InterpreterTest, MachineRunNeedsLocations) {
  Function f = Parse(kOriginal);
  absl::Status s = RunOnMachine(f, X86(), ArgumentsForSeed(f, 1), {}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(s.message()), HasSubstr("v0 has no usable location (none)"));
}


// A loop of `trips` iterations that stores as it goes, allocated on the stack.
struct Allocated {
  Function original;
  Function allocated;
};
Allocated LoopOnStack(int64_t trips) {
  Function original = Parse(absl::StrCat(R"(function %loop(i64) -> i64 {
block0(v0: i64):
    v1 = const.i64 0
    v2 = const.i64 )", trips, R"(
    jump block1(v1, v0)
block1(v3: i64, v4: i64):
    v5 = add v4, v3
    store v5, v3, 8
    v6 = const.i64 1
    v7 = add v3, v6
    v8 = cmp.lt v7, v2
    br v8, block1(v7, v5), block2
block2:
    ret v5
}
)"));
  Function allocated = original;
  EXPECT_TRUE(Legalize(allocated, X86()).ok());
  EXPECT_TRUE(AllocateOnStack(allocated, X86()).ok());
  EXPECT_TRUE(LowerBlockParams(allocated, X86()).ok());
  return {std::move(original), std::move(allocated)};
}

// The comparison streams: the heap it takes does not grow with the steps run.
TEST(InterpreterTest, LongRunsCompareInMemoryIndependentOfSteps) {
  size_t peak[2];
  int64_t steps[2];
  const int64_t trips[2] = {1000, 100000};
  for (int k = 0; k < 2; ++k) {
    Allocated a = LoopOnStack(trips[k]);
    size_t before = HeapCounter::Live();
    HeapCounter::ResetPeak();
    absl::Status s = CompareExecutions(a.original, a.allocated, X86(), 1);
    ASSERT_TRUE(s.ok()) << s;
    peak[k] = HeapCounter::Peak() - before;
    steps[k] = RunOnMachine(a.allocated, X86(), ArgumentsForSeed(a.allocated, 1), {}).value().steps;
  }
  EXPECT_GT(steps[1], 90 * steps[0]);
  EXPECT_LE(peak[1], peak[0] + 1024) << peak[0] << " bytes at " << steps[0] << " steps, " << peak[1] << " at "
                                    << steps[1];
  EXPECT_LT(peak[1], 1u << 20);
}

// The frame costs the bytes a run can touch, not the sizes slots declare: 1,500
// slots of 1 MiB, and one numbered 16777215.
TEST(InterpreterTest, DeclaredSlotSizesCostNothing) {
  std::string slots;
  for (int s = 0; s < 1500; ++s) absl::StrAppend(&slots, "    ss", s, " = stack_slot 1048576\n");
  absl::StrAppend(&slots, "    ss16777215 = stack_slot 16\n");
  Function original = Parse(R"(function %frame(i64) -> i64 {
block0(v0: i64):
    v1 = add v0, v0
    ret v1
}
)");
  Function allocated = Parse(absl::StrCat(R"(function %frame(i64) -> i64 {
)", slots, R"(block0(v0@%rdi[%rdi]: i64):
    v0[ss1499] = spill v0[%rdi]
    v0[ss16777215] = move v0[ss1499]
    v0[%rcx] = reload v0[ss16777215]
    v1@reuse0[%rcx] = add v0[%rcx], v0@any[ss1499]
    v1[%rax] = move v1[%rcx]
    ret v1@%rax[%rax]
}
)"));
  size_t before = HeapCounter::Live();
  HeapCounter::ResetPeak();
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    absl::Status s = CompareExecutions(original, allocated, X86(), seed);
    EXPECT_TRUE(s.ok()) << s;
  }
  EXPECT_LT(HeapCounter::Peak() - before, 512u << 10);
}

// The step limit stops runaways: the allocation may take more steps than the
// original (its moves, spills and reloads), but not forever.
TEST(InterpreterTest, TheAllocationMayTakeMoreStepsThanTheLimitButNotForever) {
  Allocated a = LoopOnStack(100);
  InterpOptions o;
  o.step_limit = RunOnValues(a.original, ArgumentsForSeed(a.original, 1), {}).value().steps + 1;
  ASSERT_GT(RunOnMachine(a.allocated, X86(), ArgumentsForSeed(a.allocated, 1), {}).value().steps, 2 * o.step_limit);
  absl::Status s = CompareExecutions(a.original, a.allocated, X86(), 1, o);
  EXPECT_TRUE(s.ok()) << s;
  Function original = Parse("function %f(i64) -> i64 {\nblock0(v0: i64):\n    v1 = add v0, v0\n    ret v1\n}\n");
  Function spinning = Parse(R"(function %f(i64) -> i64 {
block0(v0@%rdi[%rdi]: i64):
    v1@reuse0[%rdi] = add v0[%rdi], v0@any[%rdi]
    jump block1
block1:
    v1[%rax] = move v1[%rdi]
    jump block1
}
)");
  s = CompareExecutions(original, spinning, X86(), 1, o);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
}

// Both runs in lockstep still tell which one stopped first.
TEST(InterpreterTest, ARunThatEndsEarlyIsCaught) {
  Allocated a = LoopOnStack(50);
  Allocated b = LoopOnStack(49);
  EXPECT_THAT(std::string(CompareExecutions(a.original, b.allocated, X86(), 1).message()),
              HasSubstr("first diverging instruction"));
  Function straight = Parse(R"(function %loop(i64) -> i64 {
block0(v0: i64):
    v1 = const.i64 0
    v2 = const.i64 50
    jump block1(v1, v0)
block1(v3: i64, v4: i64):
    ret v4
}
)");
  EXPECT_THAT(std::string(CompareExecutions(a.original, straight, X86(), 1).message()), HasSubstr("no usable location"));
  ASSERT_TRUE(Legalize(straight, X86()).ok());
  ASSERT_TRUE(AllocateOnStack(straight, X86()).ok());
  ASSERT_TRUE(LowerBlockParams(straight, X86()).ok());
  EXPECT_THAT(std::string(CompareExecutions(a.original, straight, X86(), 1).message()),
              HasSubstr("the original executes 202 instructions with results, the allocation 2"));
}

}  // namespace
}  // namespace regalloc
