#include "ssa/legalize.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ssa/parser.h"
#include "ssa/printer.h"
#include "ssa/verifier.h"

namespace regalloc {
namespace {

using ::testing::HasSubstr;

// One function with every opcode family legalization cares about.
constexpr char kGeneric[] = R"(function %ops(i32, i32, f64) -> i32, f64 {
block0(v0: i32, v1: i32, v2: f64):
    v3 = add v0, v1
    v4 = shl v3, v1
    v5 = div v4, v1
    v6 = rem v5, v1
    v7 = fmul v2, v2
    v8 = cmp.lt v6, v0
    v9, v10 = call.i32.f64 %callee(v8, v7, v0)
    v11 = mul v9, v1@any
    ret v11, v10
}
)";

std::string Legalized(absl::string_view target_name, const char* text) {
  const Target& t = *TargetByName(target_name).value();
  absl::StatusOr<Function> f = ParseFunction(text, t);
  EXPECT_TRUE(f.ok()) << f.status();
  if (!f.ok()) return "";
  absl::Status s = Legalize(*f, t);
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_TRUE(Verify(*f, t).ok()) << Verify(*f, t);
  std::string once = PrintFunction(*f, t);
  EXPECT_TRUE(Legalize(*f, t).ok());
  EXPECT_EQ(PrintFunction(*f, t), once) << "legalization is not idempotent";
  return once;
}

TEST(LegalizeTest, X86TwoAddressShiftsDivisionCallsAndAbi) {
  EXPECT_EQ(Legalized("x86_64", kGeneric), R"(function %ops(i32, i32, f64) -> i32, f64 {
block0(v0@%edi: i32, v1@%esi: i32, v2@%xmm0: f64):
    v3@reuse0 = add v0, v1@any
    v4@reuse0 = shl v3, v1@%ecx
    v5@%eax = div v4@%eax, v1@any@late clobbers %rdx
    v6@%edx = rem v5@%eax, v1@any@late clobbers %rax
    v7@reuse0 = fmul v2, v2@any
    v8 = cmp.lt v6, v0@any
    v9@%eax, v10@%xmm0 = call.i32.f64 %callee(v8@%edi, v7@%xmm0, v0@%esi) clobbers %rax, %rcx, %rdx, %rsi, %rdi, %r8, %r9, %r10, %r11, %xmm0, %xmm1, %xmm2, %xmm3, %xmm4, %xmm5, %xmm6, %xmm7, %xmm8, %xmm9, %xmm10, %xmm11, %xmm12, %xmm13, %xmm14, %xmm15, %fp0, %fp1, %fp2, %fp3, %fp4, %fp5, %fp6
    v11@reuse0 = mul v9, v1@any
    ret v11@%eax, v10@%xmm0
}
)");
}

TEST(LegalizeTest, X86ByteDivisionUsesAlAndAh) {
  // idiv r/m8 divides ax: the quotient lands in al, the remainder in ah.
  constexpr char kBytes[] = R"(function %bytes(i8, i8) -> i8 {
block0(v0: i8, v1: i8):
    v2 = div v0, v1
    v3 = rem v0, v1
    v4 = shl v2, v3
    v5 = add v4, v3
    ret v5
}
)";
  EXPECT_EQ(Legalized("x86_64", kBytes), R"(function %bytes(i8, i8) -> i8 {
block0(v0@%dil: i8, v1@%sil: i8):
    v2@%al = div v0@%al, v1@any@late clobbers %ah
    v3@%ah = rem v0@%al, v1@any@late clobbers %al
    v4@reuse0 = shl v2, v3@%cl
    v5@reuse0 = add v4, v3@any
    ret v5@%al
}
)");
  // Elsewhere an i8 is a w / r register like an i32.
  EXPECT_THAT(Legalized("aarch64", kBytes), HasSubstr("block0(v0@%w0: i8, v1@%w1: i8):"));
  EXPECT_THAT(Legalized("armv7", kBytes), HasSubstr("ret v5@%r0"));
}

TEST(LegalizeTest, Win64CountsArgumentsPositionally) {
  std::string out = Legalized("x86_64_win", kGeneric);
  EXPECT_THAT(out, HasSubstr("block0(v0@%ecx: i32, v1@%edx: i32, v2@%xmm2: f64):"));
  EXPECT_THAT(out, HasSubstr("v9@%eax, v10@%xmm0 = call.i32.f64 %callee(v8@%ecx, v7@%xmm1, v0@%r8d) clobbers %rax, %rcx, %rdx, %r8, %r9, %r10, %r11, %xmm0, %xmm1, %xmm2, %xmm3, %xmm4, %xmm5"));
}

TEST(LegalizeTest, AArch64IsThreeAddress) {
  EXPECT_EQ(Legalized("aarch64", kGeneric), R"(function %ops(i32, i32, f64) -> i32, f64 {
block0(v0@%w0: i32, v1@%w1: i32, v2@%d0: f64):
    v3 = add v0, v1
    v4 = shl v3, v1
    v5 = div v4, v1
    v6 = rem v5, v1
    v7 = fmul v2, v2
    v8 = cmp.lt v6, v0
    v9@%w0, v10@%d0 = call.i32.f64 %callee(v8@%w0, v7@%d0, v0@%w1) clobbers %x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7, %x8, %x9, %x10, %x11, %x12, %x13, %x14, %x15, %x16, %x17, %q0, %q1, %q2, %q3, %q4, %q5, %q6, %q7, %q16, %q17, %q18, %q19, %q20, %q21, %q22, %q23, %q24, %q25, %q26, %q27, %q28, %q29, %q30, %q31, %v8_hi, %v9_hi, %v10_hi, %v11_hi, %v12_hi, %v13_hi, %v14_hi, %v15_hi
    v11 = mul v9, v1@any
    ret v11@%w0, v10@%d0
}
)");
}

TEST(LegalizeTest, Armv7VfpArgumentsAndStackOverflow) {
  std::string out = Legalized("armv7", R"(function %f(f32, f64, f32, i32, i32, i32, i32, i32) -> f64 {
block0(v0: f32, v1: f64, v2: f32, v3: i32, v4: i32, v5: i32, v6: i32, v7: i32):
    ret v1
}
)");
  EXPECT_THAT(out, HasSubstr("block0(v0@%s0: f32, v1@%d1: f64, v2@%s1: f32, v3@%r0: i32, v4@%r1: i32, "
                             "v5@%r2: i32, v6@%r3: i32, v7@stack: i32):"));
  EXPECT_THAT(out, HasSubstr("ret v1@%d0"));
}

TEST(LegalizeTest, HandWrittenConstraintsStay) {
  std::string out = Legalized("x86_64", R"(function %f(i64, i64) -> i64 {
block0(v0@%rbx: i64, v1: i64):
    v2@%r12 = add v0, v1
    ret v2
}
)");
  EXPECT_THAT(out, HasSubstr("block0(v0@%rbx: i64, v1@%rsi: i64):"));
  EXPECT_THAT(out, HasSubstr("v2@%r12 = add v0, v1@any"));
}

// The two-address def takes its source's register: a source written `any` is
// read from a register, one written `stack` leaves the instruction
// three-address (a Reuse of either would be refused by the verifier).
TEST(LegalizeTest, TwoAddressSourcesWrittenAnyOrStack) {
  std::string out = Legalized("x86_64", R"(function %f(i64, i64) -> i64 {
block0(v0: i64, v1: i64):
    v2 = add v0@any, v1
    v3 = shl v2@any, v1
    v4 = sub v3@stack, v1
    v5 = add v4@any@late, v1
    ret v5
}
)");
  EXPECT_THAT(out, HasSubstr("v2@reuse0 = add v0, v1@any"));
  EXPECT_THAT(out, HasSubstr("v3@reuse0 = shl v2, v1@%rcx"));
  EXPECT_THAT(out, HasSubstr("v4 = sub v3@stack, v1@any"));
  EXPECT_THAT(out, HasSubstr("v5@reuse0 = add v4@late, v1@any"));
}

TEST(LegalizeTest, Errors) {
  const Target& arm = *TargetByName("armv7").value();
  Function f = ParseFunction(R"(function %wide(i64) {
block0(v0: i64):
    ret
})", arm).value();
  absl::Status s = Legalize(f, arm);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("function %wide: v0 has type i64, for which armv7 has no registers "
                                     "(i64 would need register pairs, which are out of scope)"));

  const Target& x86 = *TargetByName("x86_64").value();
  Function g = ParseFunction(R"(function %three() {
block0:
    v0, v1, v2 = call.i64.i64.i64 %h()
    ret
})", x86).value();
  std::string before = PrintFunction(g, x86);
  EXPECT_THAT(Legalize(g, x86).message(),
              HasSubstr("function %three: call %h: target x86_64 (sysv) cannot return result #2 of type i64 in registers"));
  EXPECT_EQ(PrintFunction(g, x86), before);  // untouched on error

  std::string args;
  for (int i = 0; i < kMaxCallArgs + 1; ++i) args += i ? ", v0" : "v0";
  Function h = ParseFunction("function %many(i64) {\nblock0(v0: i64):\n    call %h(" + args + ")\n    ret\n}", x86).value();
  EXPECT_THAT(Legalize(h, x86).message(), HasSubstr("call %h passes 65 arguments; at most 64 are supported"));
}

}  // namespace
}  // namespace regalloc
