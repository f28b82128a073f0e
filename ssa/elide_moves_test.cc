#include "ssa/elide_moves.h"

#include <string>

#include "gtest/gtest.h"
#include "ssa/parser.h"
#include "ssa/printer.h"
#include "ssa/verifier.h"

namespace regalloc {
namespace {

struct Elided {
  std::string text;
  int count = 0;
};

Elided Elide(const char* text) {
  const Target& t = *TargetByName("x86_64").value();
  absl::StatusOr<Function> f = ParseFunction(text, t);
  EXPECT_TRUE(f.ok()) << f.status();
  if (!f.ok()) return {};
  Elided out;
  out.count = ElideRedundantMoves(*f, t);
  EXPECT_TRUE(Verify(*f, t).ok()) << Verify(*f, t);
  out.text = PrintFunction(*f, t);
  return out;
}

// A reload into the register the stored value is still in, and a copy into a
// register a reload of the same slot filled, read their bits where they are.
// After a write of the register (the const), the reload stays.
TEST(ElideMovesTest, ReloadsAndCopiesOfBitsAlreadyInTheirRegister) {
  Elided out = Elide(R"(function %f(i64) -> i64 {
    ss0 = stack_slot 8
block0(v0@%rdi[%rdi]: i64):
    v1[ss0] = spill v0[%rdi]
    v2[%rdi] = reload v1[ss0]
    v3[%rax] = reload v1[ss0]
    v4[%rax] = copy v2[%rdi]
    v5[%rdi] = const.i64 7
    v6[%rdi] = reload v1[ss0]
    v7[%rax] = add v4[%rax], v6[%rdi]
    ret v7@%rax[%rax]
}
)");
  EXPECT_EQ(out.count, 2);
  EXPECT_EQ(out.text, R"(function %f(i64) -> i64 {
    ss0 = stack_slot 8
block0(v0@%rdi[%rdi]: i64):
    v1[ss0] = spill v0[%rdi]
    v2[%rdi] = copy v0[%rdi]
    v3[%rax] = reload v1[ss0]
    v4[%rax] = copy v3[%rax]
    v5[%rdi] = const.i64 7
    v6[%rdi] = reload v1[ss0]
    v7[%rax] = add v4[%rax], v6[%rdi]
    ret v7@%rax[%rax]
}
)");
}

// A call clobbers %rax and a write of %eax is a write of %rax: what those
// registers held is forgotten.
TEST(ElideMovesTest, ClobbersAndAliasesForget) {
  Elided out = Elide(R"(function %f(i64) -> i64 {
    ss0 = stack_slot 8
block0(v0@%rdi[%rdi]: i64):
    v1[ss0] = spill v0[%rdi]
    v2[%rax] = reload v1[ss0]
    call %g() clobbers %rax, %rcx, %rdx, %rsi, %rdi, %r8, %r9, %r10, %r11
    v3[%rax] = reload v1[ss0]
    v4[%eax] = const.i32 1
    v5[%rax] = reload v1[ss0]
    ret v5@%rax[%rax]
}
)");
  EXPECT_EQ(out.count, 0) << out.text;
}

// After parameter lowering a value may be defined twice (here v2, by two
// parallel copies, the second a swap): its bits differ from one definition to
// the next, so the copy after the swap must not take the one before it for
// the same (nor follow the swap's cycle of definitions forever).
TEST(ElideMovesTest, AValueDefinedTwiceIsNotOneValue) {
  Elided out = Elide(R"(function %g(i64, i64) -> i64 {
block0(v0@%rdi[%rdi]: i64, v1@%rsi[%rsi]: i64):
    v2[%rax], v3[%rcx] = parallel_copy v0[%rdi], v1[%rsi]
    jump block1
block1:
    v4[%rdx] = copy v2[%rax]
    v2[%rax], v3[%rcx] = parallel_copy v3[%rcx], v2[%rax]
    v5[%rdx] = copy v2[%rax]
    v6[%rax] = sub v5[%rdx], v3[%rcx]
    ret v6@%rax[%rax]
}
)");
  EXPECT_EQ(out.count, 0) << out.text;
  EXPECT_NE(out.text.find("v5[%rdx] = copy v2[%rax]"), std::string::npos) << out.text;
}

}  // namespace
}  // namespace regalloc
