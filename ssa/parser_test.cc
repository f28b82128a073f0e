#include "ssa/parser.h"

#include <string>

#include "absl/strings/str_replace.h"
#include "base/bit_cast.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ssa/printer.h"
#include "ssa/verifier.h"
#include "targets/target.h"

namespace regalloc {
namespace {

using ::testing::HasSubstr;

const Target& X86() { return *TargetByName("x86_64").value(); }

// Canonical text covering every opcode, constraint, position, location and clobber form.
constexpr char kCanonical[] = R"(function %sum_loop(i64, i64) -> i64 {
block0(v0: i64, v1: i64):
    v2 = const.i64 0
    jump block1(v2, v0)
block1(v3: i64, v4: i64):
    v5 = load.i64 v4, 0
    v6 = add v3, v5
    v7 = add v4, v1
    v8 = cmp.ne v7, v1
    br v8, block1(v6, v7), block2
block2:
    ret v6
}

function %constraints(i64, i64, f64) -> i64, f64 {
block0(v0@%rdi: i64, v1@%rsi: i64, v2@%xmm0: f64):
    v3@%rax = div v0@%rax, v1@any@late clobbers %rdx
    v4@reuse0 = sub v3, v1@any
    v5@%rcx@early = shl v4, v1@%rcx
    v6 = const.f64 1.5
    v7@reuse0 = fadd v2, v6
    v8@%rax, v9@%xmm0 = call.i64.f64 %callee(v5@%rdi, v7@%xmm0, v0@stack) clobbers %rax, %rcx, %rdx, %rsi, %rdi, %r8, %r9, %r10, %r11
    store v9, v8, -16
    v10 = copy v8
    v11 = const.i32 -7
    v12 = const.f32 0.25
    v13 = cmp.ult v11, v11
    v14 = const.v128 42
    v15 = mul v10, v0@late
    ret v15@%rax, v9@%xmm0
}

function %allocated() -> i32 {
    ss0 = stack_slot 4
    ss1 = stack_slot 16
    saves %rbx, %r12
block0:
    v0[%eax] = const.i32 1
    v0[ss0] = spill v0[%eax]
    v1[%ecx] = const.i32 2
    v1[%edx], v0[%ecx] = parallel_copy v1[%ecx], v0[%edx]
    v0[%eax] = reload v0[ss0]
    v0[%ebx] = move v0[%eax]
    jump block1
block1:
    ret v0@%eax[%eax]
}

function %imported(i32) -> i32 {
block0(v0@%edi: i32):
    v1 = inst.i32 %MOV32r0()
    branch %JMP_1(), block1(v0, v1)
block1(v2: i32, v3: i32):
    v4@reuse0, v5@%eax@early = inst.i32.i32 %ADD32rr(v3, v2@late) clobbers %rdx
    branch %JCC_1(v4), block1(v2, v4), block2
block2:
    branch %TEST_ret(v5), block3
block3:
    branch %TRAP()
}
)";

TEST(ParserTest, CanonicalTextRoundTripsExactly) {
  absl::StatusOr<std::vector<Function>> funcs = ParseModule(kCanonical, X86());
  ASSERT_TRUE(funcs.ok()) << funcs.status();
  ASSERT_EQ(funcs->size(), 4u);
  EXPECT_EQ(PrintModule(*funcs, X86()), kCanonical);
  for (const Function& f : *funcs) EXPECT_TRUE(Verify(f, X86()).ok()) << Verify(f, X86());
}

TEST(ParserTest, ReadsWhatItInfers) {
  absl::StatusOr<std::vector<Function>> funcs = ParseModule(kCanonical, X86());
  ASSERT_TRUE(funcs.ok()) << funcs.status();
  const Function& f = funcs->front();
  EXPECT_EQ(f.name(), "sum_loop");
  EXPECT_EQ(f.value_type(Value(6)), Type::kI64);  // inferred through the loop
  EXPECT_EQ(f.value_type(Value(8)), Type::kI32);  // cmp
  EXPECT_EQ(f.num_blocks(), 3);
}

TEST(ParserTest, NonCanonicalTextParses) {
  // Comments, odd spacing, explicit @reg, hex immediates, forward block references.
  constexpr char kText[] = R"(
; a comment
function %f(i32)->i32{  ; trailing comment
block0(v0 : i32):
  v1@reg = const.i32 0x10
  jump block1(v1)
block1(v2: i32):
  ret v2
})";
  absl::StatusOr<Function> f = ParseFunction(kText, X86());
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(PrintFunction(*f, X86()), R"(function %f(i32) -> i32 {
block0(v0: i32):
    v1 = const.i32 16
    jump block1(v1)
block1(v2: i32):
    ret v2
}
)");
}

TEST(ParserTest, ByteImmediatesReadSignedOrUnsignedAndPrintSigned) {
  absl::StatusOr<Function> f = ParseFunction(R"(function %f(i8) -> i8 {
block0(v0: i8):
    v1 = const.i8 255
    v2 = const.i8 -128
    v3 = const.i8 0x7f
    v4 = add v1, v2
    v5 = sub v4, v3
    ret v5
})", X86());
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->value_type(Value(4)), Type::kI8);  // inferred from its operands
  EXPECT_THAT(PrintFunction(*f, X86()), HasSubstr("v1 = const.i8 -1\n    v2 = const.i8 -128\n    v3 = const.i8 127\n"));
}

TEST(ParserTest, EveryTargetsRegisterNamesParseAndPrint) {
  for (absl::string_view name : TargetNames()) {
    const Target& t = *TargetByName(name).value();
    for (int r = 0; r < t.num_regs(); ++r) {
      std::string reg(t.RegName(PReg(r)));
      std::string text = "function %f() {\nblock0:\n    ret clobbers %" + reg + "\n}\n";
      absl::StatusOr<Function> f = ParseFunction(text, t);
      ASSERT_TRUE(f.ok()) << name << " " << reg << ": " << f.status();
      EXPECT_EQ(PrintFunction(*f, t), text);
    }
  }
}

struct BadInput {
  const char* name;
  const char* text;
  const char* message;
};

// Each malformed input and the message it must produce (position and words).
const BadInput kBad[] = {
    {"empty function keyword", "fn %f() {}", "1:1: expected 'function', found 'fn'"},
    {"missing name", "function f() {}", "1:10: expected a function name (%name), found 'f'"},
    {"bad param type", "function %f(i65) {}", "1:13: unknown type 'i65' (types: i32, i64, f32, f64, v128)"},
    {"unclosed function", "function %f() {\nblock0:\n    ret\n", "4:1: expected '}' to close the function, found end of input"},
    {"instruction before block", "function %f() {\n    ret\n}", "2:5: expected a block header (blockN:) or '}', found 'ret'"},
    {"unknown opcode", "function %f() {\nblock0:\n    v0 = frobnicate v1\n}", "3:10: unknown opcode 'frobnicate'"},
    {"undefined value", "function %f() -> i32 {\nblock0:\n    ret v9\n}", "3:9: value v9 is used but never defined"},
    {"double definition", "function %f() {\nblock0:\n    v0 = const.i32 1\n    v0 = const.i32 2\n    ret\n}",
     "4:5: value v0 is defined twice (first at 3:5)"},
    {"wrong arity", "function %f() {\nblock0:\n    v0 = const.i32 1\n    v1 = add v0\n    ret\n}", "4:10: 'add' takes 2 operands, found 1"},
    {"too many defs", "function %f() {\nblock0:\n    v0, v1 = const.i32 1\n    ret\n}", "3:5: 'const' defines 1 value, found 2"},
    {"bad constraint", "function %f() {\nblock0:\n    v0@sometimes = const.i32 1\n    ret\n}",
     "3:8: expected a constraint (any, stack, reg, %register, reuseN, early, late), found 'sometimes'"},
    {"two constraints", "function %f() {\nblock0:\n    v0@any@stack = const.i32 1\n    ret\n}", "3:12: operand has two constraints"},
    {"reuse on a use", "function %f(i32) {\nblock0(v0: i32):\n    v1 = add v0@reuse0, v0\n    ret\n}",
     "3:17: a reuse constraint is only valid on a def"},
    {"unknown register", "function %f(i32) {\nblock0(v0@%zax: i32):\n    ret\n}", "2:11: unknown register '%zax' on target x86_64"},
    {"unknown clobber register", "function %f() {\nblock0:\n    ret clobbers %q0\n}", "3:18: unknown register '%q0' on target x86_64"},
    {"undeclared stack slot", "function %f(i32) {\nblock0(v0[ss3]: i32):\n    ret\n}",
     "2:11: stack slot ss3 is not declared (declare it: ss3 = stack_slot SIZE)"},
    {"bad slot size", "function %f() {\n    ss0 = stack_slot 0\nblock0:\n    ret\n}",
     "2:22: expected a stack slot size in bytes (1 to 1048576), found '0'"},
    {"duplicate slot", "function %f() {\n    ss0 = stack_slot 8\n    ss0 = stack_slot 8\nblock0:\n    ret\n}", "3:5: stack slot ss0 is declared twice"},
    {"unknown block", "function %f() {\nblock0:\n    jump block7\n}", "3:10: block7 is referenced but never defined"},
    {"block defined twice", "function %f() {\nblock0:\n    jump block1\nblock1:\n    ret\nblock1:\n    ret\n}",
     "6:1: block1 is defined twice (first at 4:1)"},
    {"missing const suffix", "function %f() {\nblock0:\n    v0 = const 1\n    ret\n}", "3:10: 'const' needs a suffix: const.TYPE"},
    {"bad const immediate", "function %f() {\nblock0:\n    v0 = const.i32 one\n    ret\n}", "3:20: 'one' is not a valid i32 immediate"},
    {"unexpected suffix", "function %f(i32) {\nblock0(v0: i32):\n    v1 = add.i32 v0, v0\n    ret\n}",
     "3:10: 'add' takes no suffix, found 'add.i32'"},
    {"unknown condition", "function %f(i32) {\nblock0(v0: i32):\n    v1 = cmp.maybe v0, v0\n    ret\n}",
     "3:10: unknown condition 'maybe' (eq, ne, lt, le, gt, ge, ult, ule, ugt, uge)"},
    {"call result types", "function %f() {\nblock0:\n    v0 = call %g()\n    ret\n}", "3:10: 'call' names 0 result type(s) for 1 result(s)"},
    {"missing callee", "function %f() {\nblock0:\n    call g()\n    ret\n}", "3:10: expected a callee (%name), found 'g'"},
    {"missing offset", "function %f(i64) {\nblock0(v0: i64):\n    v1 = load.i64 v0\n    ret\n}", "4:5: expected ',', found 'ret'"},
    {"operands spill onto next line", "function %f(i32) {\nblock0(v0: i32):\n    v1 = add v0,\n    v0\n    ret\n}",
     "4:5: expected an operand before the end of the line, found 'v0'"},
    {"junk after instruction", "function %f(i32) {\nblock0(v0: i32):\n    v1 = copy v0 v0\n    ret\n}",
     "3:18: expected the end of the line after the instruction, found 'v0'"},
    {"bad character", "function %f() {\nblock0:\n    ret $\n}", "3:9: unexpected character '$'"},
    {"bad value name", "function %f() {\nblock0:\n    v01 = const.i32 1\n    ret\n}", "3:5: 'v01' is not a value name (vN, no leading zeros) nor an opcode"},
    {"unclosed location", "function %f() -> i32 {\nblock0:\n    v0[%eax = const.i32 1\n    ret v0\n}", "3:13: expected ']', found '='"},
    {"block param without type", "function %f(i32) {\nblock0(v0):\n    ret\n}", "2:10: expected ':', found ')'"},
    {"type inference cycle", "function %f() {\nblock0:\n    v0 = add v1, v1\n    v1 = add v0, v0\n    ret\n}",
     "3:5: cannot infer the type of v0: its operands' types depend on it"},
    {"i32 immediate out of range", "function %f() {\nblock0:\n    v0 = const.i32 5000000000\n    ret\n}",
     "3:20: '5000000000' is not a valid i32 immediate"},
    {"i8 immediate out of range", "function %f() {\nblock0:\n    v0 = const.i8 256\n    ret\n}",
     "3:19: '256' is not a valid i8 immediate"},
    {"parallel copy arity", "function %f(i32) {\nblock0(v0: i32):\n    v0 = parallel_copy v0, v0\n    ret\n}",
     "3:10: 'parallel_copy' takes 1 operand, found 2"},
};

TEST(ParserTest, MalformedInputsGetPreciseErrors) {
  for (const BadInput& bad : kBad) {
    absl::StatusOr<std::vector<Function>> f = ParseModule(bad.text, X86());
    ASSERT_FALSE(f.ok()) << bad.name;
    EXPECT_EQ(f.status().code(), absl::StatusCode::kInvalidArgument) << bad.name;
    EXPECT_THAT(std::string(f.status().message()), HasSubstr(bad.message)) << bad.name;
  }
  EXPECT_GE(sizeof(kBad) / sizeof(kBad[0]), 30u);
}

// Operand and target counts are 16-bit: a longer list is an error, not a
// silently shortened instruction.
TEST(ParserTest, TooManyOperandsOrTargetsAreErrors) {
  std::string ret = "function %wide(i64) {\nblock0(v0: i64):\n    ret v0";
  for (int k = 0; k < 65535; ++k) ret += ", v0";
  absl::StatusOr<std::vector<Function>> f = ParseModule(ret + "\n}\n", X86());
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(std::string(f.status().message()), HasSubstr("more than 65535 operands"));
  std::string branch = "function %wide() {\nblock0:\n    branch %JMP()";
  for (int k = 0; k < 65536; ++k) branch += ", block1";
  f = ParseModule(branch + "\nblock1:\n    ret\n}\n", X86());
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(std::string(f.status().message()), HasSubstr("more than 65535 targets"));
}

// Sparse numbers cost what the function contains: ids are dense, the written
// numbers are kept as names for printing and for errors.
constexpr char kSparse[] = R"(function %sparse(i64) -> i64 {
    ss7 = stack_slot 8
    ss16777215 = stack_slot 1048576
block16777215(v16777215: i64):
    v16000000 = add v16777215, v16777215
    v16000000[ss16777215] = spill v16000000
    jump block0(v16000000)
block0(v3: i64):
    ret v3
}
)";

TEST(ParserTest, SparseNumbersGetDenseIdsAndPrintAsWritten) {
  absl::StatusOr<Function> f = ParseFunction(kSparse, X86());
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->num_values(), 3);
  EXPECT_EQ(f->num_blocks(), 2);
  EXPECT_EQ(f->num_stack_slots(), 2);
  EXPECT_EQ(f->ValueName(f->block(f->entry()).params[0].value()), "v16777215");
  EXPECT_EQ(f->BlockName(f->entry()), "block16777215");
  EXPECT_EQ(f->stack_slot(StackSlot(1)).size, 1048576);
  EXPECT_EQ(PrintFunction(*f, X86()), kSparse);
  EXPECT_TRUE(Verify(*f, X86()).ok()) << Verify(*f, X86());
}

TEST(ParserTest, ErrorsNameTheWrittenNumbers) {
  absl::StatusOr<Function> f =
      ParseFunction("function %f() -> i32 {\nblock9000000:\n    v16000000 = const.i32 1\n    ret v16000001\n}", X86());
  EXPECT_THAT(f.status().message(), HasSubstr("value v16000001 is used but never defined"));
  f = ParseFunction("function %f() {\nblock9000000:\n    jump block16777215\n}", X86());
  EXPECT_THAT(f.status().message(), HasSubstr("block16777215 is referenced but never defined"));
  f = ParseFunction("function %f() {\nblock0:\n    v2147483648 = const.i32 1\n    ret\n}", X86());
  EXPECT_THAT(f.status().message(), HasSubstr("'v2147483648' is not a value name"));
}

TEST(ParserTest, NewValuesBlocksAndSlotsGetUnusedNames) {
  absl::StatusOr<Function> f = ParseFunction(kSparse, X86());
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->ValueName(f->NewValue(Type::kI64)), "v16777216");
  EXPECT_EQ(f->BlockName(f->NewBlock()), "block16777216");
  EXPECT_EQ(f->SlotName(f->NewStackSlot(8)), "ss16777216");
  // At the largest name, new names fill the gaps from 0 up, so that the text
  // still parses back.
  absl::StatusOr<Function> top = ParseFunction(
      "function %f() -> i32 {\nblock0:\n    v0 = const.i32 1\n    v2 = copy v0\n    v2147483647 = copy v2\n"
      "    ret v2147483647\n}",
      X86());
  ASSERT_TRUE(top.ok()) << top.status();
  EXPECT_EQ(top->ValueName(top->NewValue(Type::kI32)), "v1");
  EXPECT_EQ(top->ValueName(top->NewValue(Type::kI32)), "v3");
  EXPECT_EQ(top->ValueName(top->NewValue(Type::kI32)), "v4");
}

// \n, \r\n and \r end lines alike, comments included.
TEST(ParserTest, LineEndingsAreAlike) {
  const std::string unix_text = "; a comment\nfunction %f(i64) -> i64 {\nblock0(v0: i64):\n    v1 = add v0, v0\n    ret v1\n}\n";
  for (const char* eol : {"\r\n", "\r"}) {
    std::string text = absl::StrReplaceAll(unix_text, {{"\n", eol}});
    absl::StatusOr<std::vector<Function>> funcs = ParseModule(text, X86());
    ASSERT_TRUE(funcs.ok()) << funcs.status();
    ASSERT_EQ(funcs->size(), 1u);
    EXPECT_EQ(PrintFunction(funcs->front(), X86()), PrintFunction(ParseFunction(unix_text, X86()).value(), X86()));
    // Positions count lines the same way.
    absl::StatusOr<Function> bad = ParseFunction(absl::StrReplaceAll("function %f() {\nblock0:\n    ret $\n}", {{"\n", eol}}), X86());
    EXPECT_THAT(bad.status().message(), HasSubstr("3:9: unexpected character '$'"));
  }
}

TEST(ParserTest, HexFloatsWithSignedExponents) {
  absl::StatusOr<Function> f = ParseFunction(
      "function %f() -> f64 {\nblock0:\n    v0 = const.f64 0x1p-1074\n    v1 = const.f64 -0x1.8p+3\n"
      "    v2 = fadd v0, v1\n    ret v2\n}\n",
      X86());
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(BitCast<double>(f->inst(f->block(f->entry()).insts[0]).imm), 0x1p-1074);
  EXPECT_EQ(BitCast<double>(f->inst(f->block(f->entry()).insts[1]).imm), -12.0);
}

TEST(ParserTest, OddBytesAreNamedWhole) {
  absl::StatusOr<Function> f = ParseFunction("function %f\xc3\xa9() {\nblock0:\n    ret\n}", X86());
  EXPECT_THAT(f.status().message(), HasSubstr("1:12: unexpected character '\xc3\xa9' (U+00E9)"));
  constexpr char kNul[] = "function %f() {\nblock0:\n    ret \0\n}";
  f = ParseFunction(std::string(kNul, sizeof(kNul) - 1), X86());
  EXPECT_THAT(f.status().message(), HasSubstr("3:9: unexpected character byte 0x00"));
  f = ParseFunction("function %f() {\nblock0:\n    ret \xff\n}", X86());
  EXPECT_THAT(f.status().message(), HasSubstr("3:9: unexpected character byte 0xff"));
}

TEST(ParserTest, ParseFunctionWantsExactlyOne) {
  absl::StatusOr<Function> f = ParseFunction("", X86());
  EXPECT_THAT(f.status().message(), HasSubstr("expected exactly one function, found 0"));
}

}  // namespace
}  // namespace regalloc
