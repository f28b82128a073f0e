#include "tools/pipeline.h"

#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testdata/llvm/llvm_corpus.h"
#include "tools/dump.h"
#include "tools/phases.h"

namespace regalloc {
namespace {

using ::testing::HasSubstr;

struct RunResult {
  absl::StatusOr<PipelineSummary> summary;
  std::string out;
  std::string err;
};

RunResult Pipeline(PipelineOptions o) {
  o.progress = false;
  std::ostringstream out, err;
  RunResult r{RunPipeline(o, out, err), "", ""};
  r.out = out.str();
  r.err = err.str();
  return r;
}

std::string Write(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(PipelineTest, DefaultJobOnTheCorpusForEveryTarget) {
  for (const char* t : {"x86_64", "x86_64_win", "aarch64", "armv7"}) {
    PipelineOptions o;
    o.target = t;
    o.stats = true;
    RunResult r = Pipeline(o);
    ASSERT_TRUE(r.summary.ok()) << r.summary.status();
    EXPECT_EQ(r.summary->failed, 0) << t << "\n" << r.err;
    EXPECT_EQ(r.summary->functions, 14);
    EXPECT_THAT(r.out, HasSubstr("phases: legalize, liveness, coalesce, spill, reload, color, lower_params, check, "
                                 "interpret"));
    EXPECT_THAT(r.out, HasSubstr("%sum_loop"));
    EXPECT_THAT(r.out, HasSubstr("total (14)"));
    EXPECT_THAT(r.out, HasSubstr("spill.values_spilled"));
    EXPECT_THAT(r.out, HasSubstr("check.weighted_cost"));
  }
}

// Real machine functions LLVM compiled from the project's C programs: every
// pipeline allocates each on its target and the checker proves it (the
// interpreter cannot run opaque target instructions and says so).
TEST(PipelineTest, EveryPipelineAllocatesTheLlvmCorpus) {
  ASSERT_EQ(LlvmCorpus().size(), 2u);
  for (const LlvmCorpusFile& file : LlvmCorpus()) {
    int functions = 0;
    for (size_t at = file.text.find("\nfunction %"); at != std::string::npos; at = file.text.find("\nfunction %", at + 1)) {
      ++functions;
    }
    EXPECT_GE(functions, 25) << file.target;
    std::string path = Write("llvm_" + file.target + ".ra", file.text);
    for (const std::string& p : PhaseRegistry::Default().PipelineNames()) {
      PipelineOptions o;
      o.target = file.target;
      o.in = path;
      o.pipeline = p;
      o.stats = true;
      RunResult r = Pipeline(o);
      ASSERT_TRUE(r.summary.ok()) << file.target << " " << p << ": " << r.summary.status();
      EXPECT_EQ(r.summary->failed, 0) << file.target << " " << p << "\n" << r.err;
      EXPECT_EQ(r.summary->functions, functions) << file.target << " " << p;
      if (absl::StrContains(r.out, "interpret")) EXPECT_THAT(r.out, HasSubstr("interpret.not_interpretable"));
    }
  }
}

TEST(PipelineTest, DumpAfterAPhaseAndStartFromIt) {
  PipelineOptions o;
  o.target = "armv7";
  o.dump_after = "legalize";
  o.dump_dir = ::testing::TempDir();
  RunResult first = Pipeline(o);
  ASSERT_TRUE(first.summary.ok()) << first.summary.status();
  std::string dump = ::testing::TempDir() + "/after_legalize.dump";
  LoadedDump loaded = ReadDumpFile(dump).value();
  EXPECT_EQ(loaded.target->name(), "armv7");
  ASSERT_EQ(loaded.functions.size(), 14u);
  EXPECT_EQ(loaded.functions[0].phases_run, std::vector<std::string>{"legalize"});

  PipelineOptions again;
  again.in = dump;
  again.phases = {"verify", "print"};
  RunResult second = Pipeline(again);
  ASSERT_TRUE(second.summary.ok()) << second.summary.status();
  EXPECT_EQ(second.summary->failed, 0);
  EXPECT_THAT(second.out, HasSubstr("target armv7 (aapcs-vfp)"));
  EXPECT_THAT(second.out, HasSubstr("block0(v0@%r0: i32, v1@%r1: i32):"));  // legalized before the dump

  again.target = "x86_64";
  EXPECT_THAT(Pipeline(again).summary.status().message(), HasSubstr("was dumped for target armv7, not x86_64"));
}

TEST(PipelineTest, FrontPipelineSplitsCriticalEdges) {
  PipelineOptions o;
  o.pipeline = "front";
  o.stats = true;
  RunResult r = Pipeline(o);
  ASSERT_TRUE(r.summary.ok()) << r.summary.status();
  EXPECT_EQ(r.summary->failed, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("function        split_critical_edges.edges_split\n"));
  EXPECT_THAT(r.out, HasSubstr("total (14)                                    16\n"));
}

TEST(PipelineTest, LowersParametersOfAnAllocatedTextFile) {
  std::string in = Write("alloc.ra", R"(function %f(i64, i64) -> i64 {
block0(v0[%rdi]: i64, v1[%rsi]: i64):
    jump block1(v1[%rsi], v0[%rdi])
block1(v2[%rdi]: i64, v3[%rsi]: i64):
    ret v2[%rdi]
}
)");
  PipelineOptions o;
  o.in = in;
  o.phases = {"lower_params", "verify"};
  o.out = ::testing::TempDir() + "/lowered.ra";
  o.stats = true;
  RunResult r = Pipeline(o);
  ASSERT_TRUE(r.summary.ok()) << r.summary.status();
  EXPECT_EQ(r.summary->failed, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("function  lower_params.moves lower_params.renames lower_params.swaps"));
  std::stringstream written;
  written << std::ifstream(o.out).rdbuf();
  EXPECT_THAT(written.str(), HasSubstr("v2[%rdi], v3[%rsi] = parallel_copy v1[%rsi], v0[%rdi]"));
}

TEST(PipelineTest, AllocationsAreCheckedByDefault) {
  PipelineOptions o;
  o.phases = {"legalize", "stack_alloc"};
  RunResult r = Pipeline(o);
  ASSERT_TRUE(r.summary.ok()) << r.summary.status();
  EXPECT_EQ(r.summary->failed, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("phases: legalize, stack_alloc, check\n"));
  o.check = false;
  EXPECT_THAT(Pipeline(o).out, HasSubstr("phases: legalize, stack_alloc\n"));
}

TEST(PipelineTest, LivenessPhaseReportsAndPrints) {
  PipelineOptions o;
  o.in = Write("live.ra", "function %f(i64, i64) -> i64 {\nblock0(v0: i64, v1: i64):\n    v2 = add v0, v1\n    ret v2\n}\n");
  o.phases = {"legalize", "liveness", "print"};
  o.stats = true;
  RunResult r = Pipeline(o);
  ASSERT_TRUE(r.summary.ok()) << r.summary.status();
  EXPECT_EQ(r.summary->failed, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("liveness.max_pressure_gpr"));
  EXPECT_THAT(r.out, HasSubstr("  v2: def [1, 2]\n"));
  o.phases = {"legalize", "stack_alloc", "liveness"};
  RunResult after = Pipeline(o);
  EXPECT_THAT(after.err, HasSubstr("liveness needs SSA form; this function is allocated"));
}

TEST(PipelineTest, LsraDumpsShowWithPrint) {
  // Phases build their dumps only when something shows them: --print here.
  PipelineOptions o;
  o.in = Write("lsra.ra", "function %f(i64, i64) -> i64 {\nblock0(v0: i64, v1: i64):\n    v2 = add v0, v1\n    ret v2\n}\n");
  o.pipeline = "lsra";
  o.print = true;
  RunResult r = Pipeline(o);
  ASSERT_TRUE(r.summary.ok()) << r.summary.status();
  EXPECT_EQ(r.summary->failed, 0) << r.err;
  for (const char* header : {"lsra build of %f", "lsra allocation of %f", "lsra resolution of %f"}) {
    EXPECT_THAT(r.out, HasSubstr(header)) << r.out;
  }
  o.print = false;
  EXPECT_THAT(Pipeline(o).out, ::testing::Not(HasSubstr("lsra build of %f")));
}

TEST(PipelineTest, CoalesceThenTheReferenceAllocatorStillChecks) {
  PipelineOptions o;
  o.phases = {"legalize", "coalesce", "verify", "stack_alloc", "lower_params", "check", "interpret"};
  o.stats = true;
  o.dump_after = "coalesce";
  o.dump_dir = ::testing::TempDir();
  RunResult r = Pipeline(o);
  ASSERT_TRUE(r.summary.ok()) << r.summary.status();
  EXPECT_EQ(r.summary->failed, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("coalesce.vregs"));
  LoadedDump d = ReadDumpFile(::testing::TempDir() + "/after_coalesce.dump").value();
  size_t vregs = 0;
  for (const DumpedFunction& f : d.functions) vregs += f.virtual_registers.size();
  EXPECT_GT(vregs, 5u);
}

TEST(PipelineTest, TheSsaAllocatorStopsAfterSpillAndResumesFromTheDump) {
  // The dump carries what spill computed (its stack slots per value, the virtual
  // registers): reload and color continue from it on every target.
  for (const char* t : {"x86_64", "aarch64", "armv7"}) {
    PipelineOptions o;
    o.target = t;
    o.phases = {"legalize", "liveness", "coalesce", "spill"};
    o.generate = 5;
    o.size = 300;
    o.dump_after = "spill";
    o.dump_dir = ::testing::TempDir();
    RunResult first = Pipeline(o);
    ASSERT_TRUE(first.summary.ok()) << first.summary.status();
    ASSERT_EQ(first.summary->failed, 0) << first.err;
    PipelineOptions o2;
    o2.in = ::testing::TempDir() + "/after_spill.dump";
    o2.phases = {"reload", "color", "lower_params"};
    o2.stats = true;
    RunResult second = Pipeline(o2);
    ASSERT_TRUE(second.summary.ok()) << second.summary.status();
    EXPECT_EQ(second.summary->failed, 0) << t << "\n" << second.err;
    EXPECT_THAT(second.out, HasSubstr("phases: reload, color, lower_params, check"));
    // Without the dump's record of spill, reload has nothing to start from.
    PipelineOptions o3 = o2;
    o3.in = Write("plain.ra", "function %f(i32) -> i32 {\nblock0(v0: i32):\n    ret v0\n}\n");
    RunResult third = Pipeline(o3);
    EXPECT_THAT(third.err, HasSubstr("phase 'reload' needs 'spilled'"));
  }
}

TEST(PipelineTest, GeneratedFunctions) {
  PipelineOptions o;
  o.generate = 5;
  o.seed = 100;
  o.size = 300;
  o.target = "aarch64";
  RunResult r = Pipeline(o);
  ASSERT_TRUE(r.summary.ok()) << r.summary.status();
  EXPECT_EQ(r.summary->functions, 5);
  EXPECT_EQ(r.summary->failed, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("%gen104"));
}

// Phase options: MLIR-style braces after the name, commas kept inside them.
TEST(PipelineTest, PhaseOptions) {
  PipelineOptions o;
  // As the flag parser hands it over: split at every comma.
  o.phases = {"legalize", "liveness", "lsra_build{reverse_order}", "lsra_allocate{overlap=false", "scoring=false}",
              "lsra_resolve", "check", "interpret"};
  o.stats = true;
  RunResult r = Pipeline(o);
  ASSERT_TRUE(r.summary.ok()) << r.summary.status();
  EXPECT_EQ(r.summary->failed, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("lsra_build{reverse_order=true}, lsra_allocate{overlap=false,scoring=false}"));
  EXPECT_THAT(r.out, HasSubstr("lsra_allocate.overlapped"));
  // Overlap off: no copy shares its source's register.
  EXPECT_THAT(r.out, ::testing::Not(::testing::ContainsRegex("lsra_allocate.overlapped *[1-9]")));

  o = {};
  o.phases = {"legalize", "lsra_allocate{overlap=maybe}"};
  EXPECT_THAT(Pipeline(o).summary.status().message(),
              HasSubstr("phase 'lsra_allocate': option overlap takes true or false, not 'maybe'"));
  o.phases = {"legalize", "lsra_allocate{frob=1}"};
  EXPECT_THAT(Pipeline(o).summary.status().message(),
              HasSubstr("phase 'lsra_allocate' has no option 'frob'; its options: preference, overlap"));
  o.phases = {"legalize", "check{x}"};
  EXPECT_THAT(Pipeline(o).summary.status().message(), HasSubstr("phase 'check' has no option 'x' (it takes none)"));
  o.phases = {"legalize", "spill{heuristic=belady"};
  EXPECT_THAT(Pipeline(o).summary.status().message(), HasSubstr("options go in one pair of braces at the end"));
}

// The check.* columns of the statistics table's total row, as "name=value ...".
std::string CheckTotals(const std::string& out) {
  size_t table = out.find("\nstatistics\n");
  if (table == std::string::npos) return "";
  std::vector<std::string> lines = absl::StrSplit(out.substr(table + 12), '\n');
  std::vector<std::string> keys = absl::StrSplit(lines[0], ' ', absl::SkipEmpty());
  std::string total;
  for (const std::string& line : lines) {
    if (absl::StartsWith(line, "total (")) total = line;
  }
  std::vector<std::string> values = absl::StrSplit(total, ' ', absl::SkipEmpty());
  // keys[0] is "function"; values[0..1] are "total" and "(N)".
  std::string result;
  for (size_t k = 1; k < keys.size() && k + 1 < values.size(); ++k) {
    if (absl::StartsWith(keys[k], "check.")) absl::StrAppend(&result, keys[k], "=", values[k + 1], " ");
  }
  return result;
}

// The same check.* totals from two pipelines on 30 generated functions per
// target: an allocator object and its phases. Returns the first's output.
std::string ExpectSameAllocation(const std::string& steps_pipeline, const std::string& whole_pipeline) {
  std::string out;
  for (const char* t : {"x86_64", "aarch64", "armv7"}) {
    PipelineOptions o;
    o.target = t;
    o.generate = 30;
    o.stats = true;
    o.pipeline = steps_pipeline;
    RunResult steps = Pipeline(o);
    o.pipeline = whole_pipeline;
    RunResult whole = Pipeline(o);
    EXPECT_TRUE(steps.summary.ok() && whole.summary.ok());
    if (!steps.summary.ok() || !whole.summary.ok()) return out;
    EXPECT_EQ(steps.summary->failed + whole.summary->failed, 0) << steps.err << whole.err;
    std::string totals = CheckTotals(steps.out);
    EXPECT_THAT(totals, HasSubstr("check.weighted_cost="));
    EXPECT_EQ(totals, CheckTotals(whole.out)) << t;
    out += steps.out;
  }
  return out;
}

// The Chaitin allocator as one object gives the same allocation as its two
// steps, and coloring refuses to run without coalescing.
TEST(PipelineTest, ChaitinAllocateMatchesItsSteps) {
  std::string out = ExpectSameAllocation("chaitin", "chaitin_allocate");
  EXPECT_THAT(out, HasSubstr("chaitin_coalesce.aggressive"));
  EXPECT_THAT(out, HasSubstr("chaitin_color.rounds"));
  PipelineOptions o;
  o.phases = {"legalize", "chaitin_color"};
  EXPECT_THAT(Pipeline(o).err, HasSubstr("phase 'chaitin_color' needs 'chaitin_graph'"));
}

// The packing allocator as one object gives the same allocation as its three
// steps, which need each other in order.
TEST(PipelineTest, PackingAllocateMatchesItsSteps) {
  std::string out = ExpectSameAllocation("packing", "packing_allocate");
  EXPECT_THAT(out, HasSubstr("packing_allocations.items"));
  EXPECT_THAT(out, HasSubstr("packing_pack.promoted"));
  EXPECT_THAT(out, HasSubstr("packing_transform.inits"));
  PipelineOptions o;
  o.phases = {"legalize", "packing_transform"};
  EXPECT_THAT(Pipeline(o).err, HasSubstr("phase 'packing_transform' needs 'packing_decisions'"));
}

// The ssa allocator as one object gives the same allocation as its phases.
TEST(PipelineTest, SsaAllocateMatchesThePhases) { ExpectSameAllocation("ssa", "ssa_allocate"); }

TEST(PipelineTest, ConfigurationErrors) {
  PipelineOptions o;
  o.phases = {"verify", "frobnicate"};
  EXPECT_THAT(Pipeline(o).summary.status().message(),
              HasSubstr("unknown phase 'frobnicate'; available phases: chaitin_allocate, chaitin_coalesce, chaitin_color, check, coalesce, color, elide_moves, interpret, legalize, liveness, "
                        "lower_params, lsra_allocate, lsra_build, lsra_resolve, packing_allocate, packing_allocations, packing_pack, "
                        "packing_transform, print, reload, spill, "
                        "split_critical_edges, ssa_allocate, stack_alloc, verify"));
  o = {};
  o.pipeline = "greedy";
  EXPECT_THAT(Pipeline(o).summary.status().message(), HasSubstr("unknown pipeline 'greedy'; known pipelines: chaitin, chaitin_allocate, chaitin_noaggressive, chaitin_noconservative, chaitin_nojoins, chaitin_pessimistic, chaitin_spill_everywhere, front, lsra, lsra_evict_in_place, lsra_local_split, lsra_nooverlap, lsra_nopref, lsra_noremat, lsra_noscoring, lsra_noseed, lsra_second_chance, lsra_split_first, lsra_stress_callee_saved, "
                        "lsra_stress_caller_saved, lsra_stress_nearest, lsra_stress_reversed, packing, packing_allocate, packing_noloops, packing_noyield, packing_size, ssa, ssa_allocate, ssa_belady, ssa_noremat, stack"));
  o = {};
  o.target = "z80";
  EXPECT_THAT(Pipeline(o).summary.status().message(), HasSubstr("unknown target 'z80'"));
  o = {};
  o.dump_after = "print";
  EXPECT_THAT(Pipeline(o).summary.status().message(), HasSubstr("--dump_after=print is not among the phases"));
  o = {};
  o.in = Write("bad.ra", "function %f() {\nblock0:\n    v0 = bogus\n}\n");
  EXPECT_THAT(Pipeline(o).summary.status().message(), HasSubstr("bad.ra:3:10: unknown opcode 'bogus'"));
  o = {};
  o.in = Write("bad.dump", "garbage");
  EXPECT_THAT(Pipeline(o).summary.status().message(), HasSubstr("bad.dump: not a regalloc dump"));
}

TEST(PipelineTest, MissingInputsFailEachFunctionWithOneMessage) {
  PipelineOptions o;
  o.phases = {"lower_params"};
  RunResult r = Pipeline(o);
  ASSERT_TRUE(r.summary.ok());
  EXPECT_EQ(r.summary->failed, 14);
  EXPECT_THAT(r.err, HasSubstr("phase 'lower_params' needs 'locations', which neither the input nor an earlier phase "
                               "provides"));
  EXPECT_THAT(r.err, HasSubstr("[14 function(s): %calls, "));
}

TEST(PipelineTest, APhaseFailingOnOneFunctionLeavesTheOthers) {
  // Legalization rejects i64 on ARMv7 for one function only.
  std::string in = Write("mixed.ra", R"(function %ok(i32) -> i32 {
block0(v0: i32):
    ret v0
}

function %wide(i64) -> i64 {
block0(v0: i64):
    ret v0
}
)");
  PipelineOptions o;
  o.in = in;
  o.target = "armv7";
  RunResult r = Pipeline(o);
  ASSERT_TRUE(r.summary.ok());
  EXPECT_EQ(r.summary->failed, 1);
  EXPECT_THAT(r.err, HasSubstr("%wide: phase legalize: function %wide: v0 has type i64, for which armv7 has no registers"));
  EXPECT_THAT(r.out, HasSubstr("failed in legalize"));
}

}  // namespace
}  // namespace regalloc
