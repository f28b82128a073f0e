#include "ssa/lower_params.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ssa/parser.h"
#include "ssa/printer.h"
#include "ssa/verifier.h"

namespace regalloc {
namespace {

using ::testing::HasSubstr;

struct Lowered {
  std::string text;
  LowerParamsStats stats;
};

Lowered Lower(absl::string_view target_name, const char* text) {
  const Target& t = *TargetByName(target_name).value();
  absl::StatusOr<Function> f = ParseFunction(text, t);
  EXPECT_TRUE(f.ok()) << f.status();
  if (!f.ok()) return {};
  EXPECT_TRUE(Verify(*f, t).ok()) << Verify(*f, t);
  absl::StatusOr<LowerParamsStats> stats = LowerBlockParams(*f, t);
  EXPECT_TRUE(stats.ok()) << stats.status();
  EXPECT_TRUE(Verify(*f, t).ok()) << Verify(*f, t);
  return {PrintFunction(*f, t), stats.value_or(LowerParamsStats())};
}

// Edge block0->block1 swaps rax and rsi (one xchg on x86); edge block0->block2 is
// critical and is split; edge block1->block2 moves before the jump.
constexpr char kX86[] = R"(function %f(i64, i64) -> i64 {
block0(v0[%rdi]: i64, v1[%rsi]: i64):
    v2[%rax] = const.i64 0
    br v0[%rdi], block1(v2[%rax], v1[%rsi]), block2(v1[%rsi])
block1(v3[%rsi]: i64, v4[%rax]: i64):
    jump block2(v3[%rsi])
block2(v5[%rax]: i64):
    ret v5[%rax]
}
)";

TEST(LowerParamsTest, X86SwapsSplitsAndMoves) {
  Lowered out = Lower("x86_64", kX86);
  EXPECT_EQ(out.text, R"(function %f(i64, i64) -> i64 {
block0(v0[%rdi]: i64, v1[%rsi]: i64):
    v2[%rax] = const.i64 0
    br v0[%rdi], block1, block3
block3:
    v5[%rax] = move v1[%rsi]
    jump block2
block1:
    v3[%rsi], v4[%rax] = parallel_copy v2[%rax], v1[%rsi]
    v5[%rax] = move v3[%rsi]
    jump block2
block2:
    ret v5[%rax]
}
)");
  EXPECT_EQ(out.stats.edges_with_moves, 3);
  EXPECT_EQ(out.stats.moves, 3);
  EXPECT_EQ(out.stats.swaps, 1);
  EXPECT_EQ(out.stats.edges_split, 1);
  EXPECT_EQ(out.stats.stack_temps, 0);
}

TEST(LowerParamsTest, AArch64BreaksTheCycleThroughTheStack) {
  Lowered out = Lower("aarch64", R"(function %f(i64, i64) -> i64 {
block0(v0[%x0]: i64, v1[%x1]: i64):
    jump block1(v1[%x1], v0[%x0])
block1(v2[%x0]: i64, v3[%x1]: i64):
    ret v2[%x0]
}
)");
  EXPECT_EQ(out.text, R"(function %f(i64, i64) -> i64 {
    ss0 = stack_slot 8
block0(v0[%x0]: i64, v1[%x1]: i64):
    v0[ss0] = spill v0[%x0]
    v2[%x0] = move v1[%x1]
    v3[%x1] = reload v0[ss0]
    jump block1
block1:
    ret v2[%x0]
}
)");
  EXPECT_EQ(out.stats.stack_temps, 1);
  EXPECT_EQ(out.stats.swaps, 0);
}

TEST(LowerParamsTest, EdgesThatAgreeEmitNothing) {
  Lowered out = Lower("x86_64", R"(function %f(i64) -> i64 {
block0(v0[%rdi]: i64):
    br v0[%rdi], block1(v0[%rdi]), block2
block2:
    jump block1(v0[%rdi])
block1(v1[%rdi]: i64):
    ret v1[%rdi]
}
)");
  EXPECT_EQ(out.stats.moves, 0);
  EXPECT_EQ(out.stats.renames, 2);  // v1 takes over v0's register on both edges
  EXPECT_EQ(out.stats.edges_split, 0);
  EXPECT_EQ(out.text, R"(function %f(i64) -> i64 {
block0(v0[%rdi]: i64):
    v1[%rdi] = move v0[%rdi]
    br v0[%rdi], block1, block2
block2:
    v1[%rdi] = move v0[%rdi]
    jump block1
block1:
    ret v1[%rdi]
}
)");
}

TEST(LowerParamsTest, NeedsLocations) {
  const Target& t = *TargetByName("x86_64").value();
  Function f = ParseFunction(R"(function %f(i64) {
block0(v0: i64):
    jump block1(v0)
block1(v1: i64):
    ret
})", t).value();
  absl::Status s = LowerBlockParams(f, t).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("function %f, block0: parameter v0 has no location; run an allocator before lower_params"));
}

}  // namespace
}  // namespace regalloc
