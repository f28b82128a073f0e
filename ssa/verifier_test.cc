#include "ssa/verifier.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ssa/builder.h"
#include "ssa/parser.h"

namespace regalloc {
namespace {

using ::testing::HasSubstr;

const Target& X86() { return *TargetByName("x86_64").value(); }

absl::Status VerifyText(const std::string& text) {
  absl::StatusOr<Function> f = ParseFunction(text, X86());
  if (!f.ok()) return absl::InternalError(absl::StrCat("did not parse: ", f.status().message()));
  return Verify(*f, X86());
}

TEST(VerifierTest, AcceptsLoopsWithValuesLiveThrough) {
  EXPECT_TRUE(VerifyText(R"(function %f(i64, i64) -> i64 {
block0(v0: i64, v1: i64):
    v2 = const.i64 0
    jump block1(v2)
block1(v3: i64):
    v4 = add v3, v1
    v5 = cmp.lt v4, v0
    br v5, block1(v4), block2
block2:
    ret v0
})").ok());
}

// The analyses the verifier leaves (FunctionVerifier::Run with a CfgAnalyses)
// are those CfgAnalyses::Compute makes: the edges in order, the dominator
// tree and the loop nest of every block, for a function after a larger one
// whose analyses the same object held (its rows must not keep stale entries).
TEST(VerifierTest, LeavesTheAnalysesItCheckedWith) {
  const char* kLoops = R"(function %f(i64, i64) -> i64 {
block0(v0: i64, v1: i64):
    v2 = const.i64 0
    jump block1(v2, v2)
block1(v3: i64, v4: i64):
    v5 = cmp.lt v3, v0
    br v5, block2, block5
block2:
    jump block3(v2, v4)
block3(v6: i64, v7: i64):
    v8 = add v7, v6
    v9 = add v6, v1
    v10 = cmp.lt v9, v1
    br v10, block3(v9, v8), block4
block4:
    v11 = add v3, v1
    v12 = cmp.lt v11, v0
    br v12, block1(v11, v8), block6
block6:
    jump block5
block5:
    ret v4
})";
  const char* kDiamond = R"(function %g(i64) -> i64 {
block0(v0: i64):
    v1 = cmp.lt v0, v0
    br v1, block1, block2
block1:
    jump block3(v0)
block2:
    jump block3(v0)
block3(v2: i64):
    ret v2
})";
  FunctionVerifier verifier;
  CfgAnalyses left;
  for (const char* text : {kLoops, kDiamond, kLoops}) {
    absl::StatusOr<Function> f = ParseFunction(text, X86());
    ASSERT_TRUE(f.ok()) << f.status();
    ASSERT_TRUE(verifier.Run(*f, X86(), left).ok());
    CfgAnalyses fresh;
    fresh.Compute(*f);
    for (Block b : f->layout()) {
      SCOPED_TRACE(f->BlockName(b));
      ASSERT_EQ(left.cfg.succs(b).size(), fresh.cfg.succs(b).size());
      for (size_t k = 0; k < fresh.cfg.succs(b).size(); ++k) EXPECT_EQ(left.cfg.succs(b)[k].to, fresh.cfg.succs(b)[k].to);
      ASSERT_EQ(left.cfg.preds(b).size(), fresh.cfg.preds(b).size());
      for (size_t k = 0; k < fresh.cfg.preds(b).size(); ++k) {
        EXPECT_EQ(left.cfg.preds(b)[k].from, fresh.cfg.preds(b)[k].from);
      }
      EXPECT_EQ(left.dom.idom(b), fresh.dom.idom(b));
      EXPECT_EQ(left.loops.depth(b), fresh.loops.depth(b));
      EXPECT_EQ(left.loops.IsHeader(b), fresh.loops.IsHeader(b));
      EXPECT_EQ(left.loops.innermost(b), fresh.loops.innermost(b));
    }
  }
  // The loop nest is the one the test means: two loops, one inside the other.
  absl::StatusOr<Function> f = ParseFunction(kLoops, X86());
  ASSERT_TRUE(verifier.Run(*f, X86(), left).ok());
  EXPECT_EQ(left.loops.depth(Block(3)), 2);
  EXPECT_EQ(left.loops.depth(Block(4)), 1);
  EXPECT_EQ(left.loops.depth(Block(5)), 0);
}

struct Violation {
  const char* name;
  const char* text;
  const char* message;
};

const Violation kViolations[] = {
    {"use not dominated", R"(function %f(i32) -> i32 {
block0(v0: i32):
    br v0, block1, block2
block1:
    v1 = const.i32 1
    jump block3
block2:
    jump block3
block3:
    ret v1
})",
     "function %f, block3, inst 0 `ret v1`: use of v1 is not dominated by its definition in block1"},
    {"use before def in block", R"(function %f(i32) -> i32 {
block0(v0: i32):
    v1 = add v0, v2
    v2 = const.i32 1
    ret v1
})",
     "block0, inst 0 `v1 = add v0, v2`: use of v2 is not dominated by its definition in block0"},
    {"self use", R"(function %f(i32) -> i32 {
block0(v0: i32):
    v1 = add v0, v1
    ret v1
})",
     "inst 0 `v1 = add v0, v1`: use of v1 is not dominated"},
    {"no terminator", R"(function %f(i32) {
block0(v0: i32):
    v1 = copy v0
})",
     "block0, inst 0 `v1 = copy v0`: the block does not end in a terminator (ret, jump, br)"},
    {"terminator in the middle", R"(function %f() {
block0:
    ret
    v1 = const.i32 1
    ret
})",
     "block0, inst 0 `ret`: terminator in the middle of the block"},
    {"argument count", R"(function %f(i32) {
block0(v0: i32):
    jump block1(v0, v0)
block1(v1: i32):
    ret
})",
     "block0, inst 0 `jump block1(v0, v0)`: passes 2 arguments to block1, which has 1 parameters"},
    {"argument type", R"(function %f(i32) {
block0(v0: i32):
    jump block1(v0)
block1(v1: i64):
    ret
})",
     "argument v0 has type i32, parameter v1 of block1 has type i64"},
    {"ret count", R"(function %f(i32) -> i32 {
block0(v0: i32):
    ret
})",
     "`ret`: returns 0 value(s), the signature says 1"},
    {"ret type", R"(function %f(i32) -> i64 {
block0(v0: i32):
    ret v0
})",
     "`ret v0`: v0 has type i32, expected i64"},
    {"entry params", R"(function %f(i32, i32) {
block0(v0: i32):
    ret
})",
     "function %f, block0: the entry block has 1 parameters, the signature 2"},
    {"entry param type", R"(function %f(i64) {
block0(v0: i32):
    ret
})",
     "block0: parameter v0 has type i32, the signature says i64"},
    {"unreachable", R"(function %f() {
block0:
    ret
block1:
    ret
})",
     "function %f, block1: is unreachable from the entry block"},
    {"branch to entry", R"(function %f() {
block0:
    jump block0
})",
     "`jump block0`: branch to the entry block"},
    {"mixed integer types", R"(function %f(i32, i64) {
block0(v0: i32, v1: i64):
    v2 = add v0, v1
    ret
})",
     "`v2 = add v0, v1`: v1 has type i64, expected i32"},
    {"fadd on integers", R"(function %f(i32) {
block0(v0: i32):
    v1 = fadd v0, v0
    ret
})",
     "`v1 = fadd v0, v0`: v1 has type i32, expected f32 or f64"},
    {"unsigned float compare", R"(function %f(f64) {
block0(v0: f64):
    v1 = cmp.ult v0, v0
    ret
})",
     "unsigned condition 'ult' on floats"},
    {"float address", R"(function %f(f64) {
block0(v0: f64):
    v1 = load.i32 v0, 0
    ret
})",
     "`v1 = load.i32 v0, 0`: v0 has type f64, expected an integer type"},
    {"float branch condition", R"(function %f(f64) {
block0(v0: f64):
    br v0, block1, block1
block1:
    ret
})",
     "v0 has type f64, expected an integer type"},
    {"fixed register of the wrong class", R"(function %f(i64) {
block0(v0@%xmm0: i64):
    ret
})",
     "block0: parameter v0: v0 of type i64 is fixed to %xmm0, which is not an allocatable register of class gpr64"},
    {"fixed to a reserved register", R"(function %f(i64) {
block0(v0@%rsp: i64):
    ret
})",
     "v0 of type i64 is fixed to %rsp, which is not an allocatable register of class gpr64"},
    {"fixed to the wrong view", R"(function %f(i32) {
block0(v0@%rax: i32):
    ret
})",
     "v0 of type i32 is fixed to %rax, which is not an allocatable register of class gpr32"},
    {"reuse index out of range", R"(function %f(i64) {
block0(v0: i64):
    v1@reuse2 = add v0, v0
    ret
})",
     "`v1@reuse2 = add v0, v0`: v1@reuse2 names use #2, but the instruction has 2 uses"},
    {"reuse of a use read anywhere", R"(function %f(i64) {
block0(v0: i64):
    v1@reuse0 = add v0@any, v0
    ret
})",
     "v1@reuse0 must share a register with v0, which is read @any (write it @reg)"},
    {"reuse across classes", R"(function %f(i64) {
block0(v0: i64):
    v1@reuse0 = call.f64 %g(v0)
    ret
})",
     "v1@reuse0 ties a f64 def to v0 of type i64: different register classes"},
    {"two values fixed to one register", R"(function %f(i64, i64) {
block0(v0: i64, v1: i64):
    call %g(v0@%rdi, v1@%rdi)
    ret
})",
     "v0 and v1 are both fixed to %rdi / %rdi as uses of one instruction"},
    {"two defs in aliasing registers at different positions", R"(function %f(i64) {
block0(v0: i64):
    v1@%rax@early, v2@%eax = call.i64.i32 %g(v0)
    ret
})",
     "v1 and v2 are both fixed to %rax / %eax as defs of one instruction"},
    {"two uses in aliasing registers at different positions", R"(function %f(i64, i32) {
block0(v0: i64, v1: i32):
    call %g(v0@%rcx, v1@%ecx@late)
    ret
})",
     "v0 and v1 are both fixed to %rcx / %ecx as uses of one instruction"},
    {"early def over a late use", R"(function %f(i64, i64) -> i64 {
block0(v0: i64, v1: i64):
    v2@%rdx@early = add v0, v1@%rdx@late
    ret v2
})",
     "v2@early is written to %rdx before v1 is read late from %rdx"},
    {"late use of a clobbered register", R"(function %f(i64) {
block0(v0: i64):
    call %g(v0@%rdi@late) clobbers %rdi
    ret
})",
     "v0 is read late in %rdi, which the instruction clobbers"},
    {"late use of a class the instruction clobbers whole", R"(function %f(f64) {
block0(v0: f64):
    call %g(v0@late) clobbers %xmm0, %xmm1, %xmm2, %xmm3, %xmm4, %xmm5, %xmm6, %xmm7, %xmm8, %xmm9, %xmm10, %xmm11, %xmm12, %xmm13, %xmm14, %xmm15
    ret
})",
     "v0 is read late in a register of class xmm, but the instruction clobbers every one"},
    {"early def of a class the instruction clobbers whole", R"(function %f(f64) -> f64 {
block0(v0: f64):
    v1@early = fadd v0, v0 clobbers %xmm0, %xmm1, %xmm2, %xmm3, %xmm4, %xmm5, %xmm6, %xmm7, %xmm8, %xmm9, %xmm10, %xmm11, %xmm12, %xmm13, %xmm14, %xmm15
    ret v1
})",
     "v1@early is written in a register of class xmm, but the instruction clobbers every one"},
    {"more late uses than registers left", R"(function %f(i64, i64) {
block0(v0: i64, v1: i64):
    call %g(v0@late, v1@late, v0@late) clobbers %rax, %rcx, %rdx, %rsi, %rdi, %rbp, %r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15
    ret
})",
     "2 operands read late or written early (the first v0) need as many registers of class gpr64 the instruction "
     "does not clobber; it leaves 1"},
    {"early reuse", R"(function %f(i64, i64) -> i64 {
block0(v0: i64, v1: i64):
    v2@reuse0@early = add v0, v1
    ret v2
})",
     "v2@reuse0 cannot be early: a reused register is written after its use is read"},
    {"reuse of a stack use", R"(function %f(i64, i64) -> i64 {
block0(v0: i64, v1: i64):
    v2@reuse0 = add v0@stack, v1
    ret v2
})",
     "v2@reuse0 must share a register with v0, which is read @stack"},
    {"reuse of a use that does not exist", R"(function %f(i64, i64) -> i64 {
block0(v0: i64, v1: i64):
    v2@reuse7 = add v0, v1
    ret v2
})",
     "v2@reuse7 names use #7, but the instruction has 2 uses"},
    {"signature result type", R"(function %f(i64) -> i32 {
block0(v0: i64):
    ret v0
})",
     "`ret v0`: v0 has type i64, expected i32"},
    {"mixed operand types", R"(function %f(i32, i64) -> i32 {
block0(v0: i32, v1: i64):
    v2 = add v0, v1
    ret v2
})",
     "`v2 = add v0, v1`: v1 has type i64, expected i32"},
    {"empty block", R"(function %f() {
block0:
    jump block1
block1:
})",
     "block1: is empty (a block ends in a terminator)"},
    {"branch to the entry", R"(function %f() {
block0:
    jump block0
})",
     "branch to the entry block"},
    {"use not dominated by its def", R"(function %f(i64) -> i64 {
block0(v0: i64):
    br v0, block1, block2
block1:
    v1 = add v0, v0
    jump block2
block2:
    ret v1
})",
     "use of v1 is not dominated by its definition in block1"},
    {"a value defined twice, once by a move", R"(function %f(i64) -> i64 {
block0(v0: i64):
    v1 = add v0, v0
    v1 = move v0
    ret v1
})",
     "v1 is already defined in block0"},
    {"entry parameters against the signature", R"(function %f(i64, i64) {
block0(v0: i64):
    ret
})",
     "the entry block has 1 parameters, the signature 2"},
    {"move-like type mismatch", R"(function %f(i64, i32) {
block0(v0: i64, v1: i32):
    v1 = move v0
    ret
})",
     "`v1 = move v0`: v1 has type i32, expected i64"},
};

TEST(VerifierTest, EachViolationIsNamed) {
  for (const Violation& v : kViolations) {
    absl::Status s = VerifyText(v.text);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << v.name << ": " << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr(v.message)) << v.name;
  }
}

TEST(VerifierTest, TheFramePointerIsReservedUnderFramePointer) {
  const Target& fp = *TargetByName("x86_64", TargetOptions{.frame_pointer = true}).value();
  Function f = ParseFunction("function %f() -> i64 {\nblock0:\n    v0@%rbp = const.i64 1\n    ret v0\n}\n", fp).value();
  EXPECT_THAT(Verify(f, fp).message(), HasSubstr("v0 of type i64 is fixed to %rbp, which is not an allocatable register"));
  EXPECT_TRUE(Verify(ParseFunction("function %f() -> i64 {\nblock0:\n    v0@%rbp = const.i64 1\n    ret v0\n}\n", X86())
                         .value(),
                     X86())
                  .ok());
}

TEST(VerifierTest, SatisfiableFixedPairsPass) {
  // An early def and an early use in one register (read, then written); a late
  // def over a late use; one value read in two registers.
  EXPECT_TRUE(VerifyText(R"(function %f(i64, i64) -> i64 {
block0(v0: i64, v1: i64):
    v2@%rax@early = add v0@%rax, v1@any
    v3@%rdx = add v2, v1@%rdx@late
    call %g(v3@%rdi, v3@%rsi)
    ret v3
})").ok());
}

TEST(VerifierTest, OneValueMayBeReadTwiceFromDifferentRegisters) {
  EXPECT_TRUE(VerifyText(R"(function %f(i64) {
block0(v0: i64):
    call %g(v0@%rdi, v0@%rsi)
    ret
})").ok());
}

TEST(VerifierTest, BuilderDoubleDefinitionIsCaught) {
  Function f("dup", {}, {});
  FunctionBuilder b(f);
  b.CreateEntryBlock();
  Value v = b.Const(Type::kI32, 1);
  InstData d;
  d.opcode = Opcode::kConst;
  d.type = Type::kI32;
  b.Append(d, {Operand::Def(v)});
  b.Ret({});
  absl::Status s = Verify(f, X86());
  EXPECT_THAT(s.message(), HasSubstr("block0, inst 1 `v0 = const.i32 0`: v0 is already defined in block0"));
}

TEST(VerifierTest, EmptyFunctionIsAnError) {
  Function f("empty", {}, {});
  EXPECT_THAT(Verify(f, X86()).message(), HasSubstr("function %empty: has no blocks"));
}

TEST(VerifierTest, AllocatedFunctionsMayRedefineThroughMoves) {
  // After parameter lowering v3 is defined by a move on each incoming edge.
  EXPECT_TRUE(VerifyText(R"(function %f(i64) -> i64 {
block0(v0[%rdi]: i64):
    br v0[%rdi], block1, block2
block1:
    v3[%rax] = move v0[%rdi]
    jump block3
block2:
    v3[%rax] = move v0[%rdi]
    jump block3
block3:
    ret v3[%rax]
})").ok());
}

}  // namespace
}  // namespace regalloc
