// Hand-written input as a careless or hostile user writes it, through every
// pipeline: valid shapes the generator does not make must allocate (and pass
// the checker and the interpreter); invalid input is rejected before any phase
// runs, with a message naming the place; phases in an impossible order are
// refused by name.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/phases.h"
#include "tools/pipeline.h"

namespace regalloc {
namespace {

using ::testing::HasSubstr;

struct Outcome {
  absl::StatusOr<PipelineSummary> summary;
  std::string out;
  std::string err;
};

Outcome RunOn(const std::string& text, const std::string& target, const std::string& pipeline,
          std::vector<std::string> phases = {}) {
  static int files = 0;
  std::string path = absl::StrCat(::testing::TempDir(), "/robust", files++, ".ra");
  std::ofstream(path) << text;
  PipelineOptions o;
  o.in = path;
  o.target = target;
  o.pipeline = pipeline;
  o.phases = std::move(phases);
  o.progress = false;
  std::ostringstream out, err;
  Outcome r{RunPipeline(o, out, err), "", ""};
  r.out = out.str();
  r.err = err.str();
  return r;
}

// Every pipeline that allocates.
std::vector<std::string> Allocators() {
  std::vector<std::string> names;
  for (const std::string& p : PhaseRegistry::Default().PipelineNames()) {
    if (p != "front") names.push_back(p);
  }
  return names;
}

// A hand-written clobber of callee-saved registers: the frame must save them, or
// the checker (and the interpreter) fail the allocation.
TEST(RobustnessTest, HandClobbersOfCalleeSavedRegistersAreSaved) {
  const std::string x86 = R"(function %cs(i64, i64) -> i64 {
block0(v0: i64, v1: i64):
    v2 = add v0, v1 clobbers %rbx, %r12
    v3 = call.i64 %g(v2, v0)
    v4 = add v3, v1 clobbers %r13
    ret v4
}
)";
  struct Case {
    const char* target;
    std::string text;
  };
  const Case cases[] = {
      {"x86_64", x86},
      {"x86_64_win", absl::StrReplaceAll(x86, {{"%r13", "%rsi"}})},  // rsi is callee-saved on Win64
      {"aarch64", absl::StrReplaceAll(x86, {{"%rbx, %r12", "%x19, %d8"}, {"%r13", "%x20"}})},
      {"armv7", absl::StrReplaceAll(x86, {{"%rbx, %r12", "%r4, %d8"}, {"%r13", "%r5"}, {"i64", "i32"}})},
  };
  for (const Case& c : cases) {
    for (const std::string& p : Allocators()) {
      Outcome r = RunOn(c.text, c.target, p);
      ASSERT_TRUE(r.summary.ok()) << r.summary.status();
      EXPECT_EQ(r.summary->failed, 0) << p << " on " << c.target << ":\n" << r.err;
    }
  }
}

struct Invalid {
  const char* name;
  const char* text;
  const char* message;
};

// Each is rejected by the verifier before the first phase, in every pipeline.
const Invalid kInvalid[] = {
    {"no blocks", "function %f(i32) -> i32 {\n}\n", "function %f: has no blocks"},
    {"result type against the signature", "function %f(i32) -> i64 {\nblock0(v0: i32):\n    ret v0\n}\n",
     "function %f, block0, inst 0 `ret v0`: v0 has type i32, expected i64"},
    {"operand types", "function %f(i32, i64) -> i32 {\nblock0(v0: i32, v1: i64):\n    v2 = add v0, v1\n    ret v2\n}\n",
     "`v2 = add v0, v1`: v1 has type i64, expected i32"},
    {"redefinition by a move",
     "function %f(i64) -> i64 {\nblock0(v0: i64):\n    v1 = add v0, v0\n    v1 = move v0\n    ret v1\n}\n",
     "inst 1 `v1 = move v0`: v1 is already defined in block0"},
    {"reuse of a use that does not exist",
     "function %f(i64, i64) -> i64 {\nblock0(v0: i64, v1: i64):\n    v2@reuse7 = add v0, v1\n    ret v2\n}\n",
     "v2@reuse7 names use #7, but the instruction has 2 uses"},
    {"early def over a late use in one register",
     "function %f(i64, i64) -> i64 {\nblock0(v0: i64, v1: i64):\n    v2@%rdx@early = add v0, v1@%rdx@late\n"
     "    ret v2\n}\n",
     "v2@early is written to %rdx before v1 is read late from %rdx"},
    {"late use of a clobbered register",
     "function %f(i64) {\nblock0(v0: i64):\n    call %g(v0@%rdi@late) clobbers %rdi\n    ret\n}\n",
     "v0 is read late in %rdi, which the instruction clobbers"},
    {"reserved register", "function %f(i64) {\nblock0(v0@%rsp: i64):\n    ret\n}\n",
     "v0 of type i64 is fixed to %rsp, which is not an allocatable register"},
    {"wrong class", "function %f(i64) {\nblock0(v0@%xmm3: i64):\n    ret\n}\n",
     "v0 of type i64 is fixed to %xmm3, which is not an allocatable register of class gpr64"},
    {"empty block", "function %f() {\nblock0:\n    jump block1\nblock1:\n}\n", "block1: is empty"},
    {"branch to the entry", "function %f() {\nblock0:\n    jump block0\n}\n", "branch to the entry block"},
};

TEST(RobustnessTest, InvalidInputIsRejectedBeforeAnyPhase) {
  for (const Invalid& bad : kInvalid) {
    for (const std::string& p : Allocators()) {
      Outcome r = RunOn(bad.text, "x86_64", p);
      ASSERT_TRUE(r.summary.ok()) << r.summary.status();
      EXPECT_EQ(r.summary->failed, 1) << bad.name << " in " << p;
      EXPECT_THAT(r.err, HasSubstr("invalid input: ")) << bad.name << " in " << p;
      EXPECT_THAT(r.err, HasSubstr(bad.message)) << bad.name << " in " << p;
      EXPECT_THAT(r.out, HasSubstr("invalid input")) << bad.name << " in " << p;
    }
  }
}

TEST(RobustnessTest, PhasesOutOfOrderAreRefusedByName) {
  const std::string f = "function %f(i64) -> i64 {\nblock0(v0: i64):\n    v1 = add v0, v0\n    ret v1\n}\n";
  Outcome r = RunOn(f, "x86_64", "", {"liveness", "coalesce", "spill", "reload", "color", "lower_params"});
  EXPECT_THAT(r.err, HasSubstr("phase 'coalesce' needs 'legal'"));
  r = RunOn(f, "x86_64", "", {"liveness", "lsra_build"});
  EXPECT_THAT(r.err, HasSubstr("phase 'lsra_build' needs 'legal'"));
  r = RunOn(f, "x86_64", "", {"legalize", "liveness", "coalesce", "spill", "spill"});
  EXPECT_THAT(r.err, HasSubstr("phase 'spill' cannot run on a function that already has 'spilled'"));
  r = RunOn(f, "x86_64", "", {"legalize", "stack_alloc", "stack_alloc"});
  EXPECT_THAT(r.err, HasSubstr("phase 'stack_alloc' cannot run on a function that already has 'locations'"));
}

}  // namespace
}  // namespace regalloc
