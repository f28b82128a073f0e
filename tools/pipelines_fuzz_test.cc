// Differential test of every registered allocator pipeline on generated functions
// for every target: each allocation must pass the checker and agree with the
// original under the interpreter. A failure prints the one command that
// reproduces it.
//
// Allocator issues add their pipeline to kPipelines; variants (an enhancement
// off, a stress mode) run on fewer seeds.
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "tools/pipeline.h"

namespace regalloc {
namespace {

struct FuzzedPipeline {
  const char* name;
  int seeds;  // per target
  int byte_percent = 0;  // share of integer values that are i8
  int unusual_percent = 0;  // share of shapes the plain generator never makes
};
constexpr FuzzedPipeline kPipelines[] = {
    {"stack", 1000},
    {"ssa", 1000},
    {"ssa_belady", 200},
    {"ssa_noremat", 200},
    {"ssa_allocate", 100},
    {"chaitin", 1000},
    {"chaitin_allocate", 100},
    {"chaitin_noaggressive", 200},
    {"chaitin_noconservative", 200},
    {"chaitin_pessimistic", 200},
    {"chaitin_spill_everywhere", 200},
    {"chaitin_nojoins", 200},
    {"packing", 1000},
    {"packing_size", 1000},
    {"packing_allocate", 100},
    {"packing_noloops", 200},
    {"packing_noyield", 200},
    {"lsra", 1000},
    {"lsra_nopref", 200},
    {"lsra_nooverlap", 200},
    {"lsra_noscoring", 200},
    {"lsra_noseed", 200},
    {"lsra_second_chance", 200},
    {"lsra_evict_in_place", 100},
    {"lsra_local_split", 200},
    {"lsra_split_first", 100},
    {"lsra_noremat", 100},
    {"lsra_stress_callee_saved", 200},
    {"lsra_stress_caller_saved", 200},
    {"lsra_stress_nearest", 200},
    {"lsra_stress_reversed", 200},
    // i8 values: x86 byte registers (ah-dh beside al-dl), 8-bit division in ax.
    {"stack", 200, 30},
    {"ssa", 300, 30},
    {"ssa_belady", 100, 30},
    {"chaitin", 300, 30},
    {"packing", 300, 30},
    {"packing_size", 100, 30},
    {"lsra", 300, 30},
    {"lsra_noscoring", 100, 30},
    // Unusual shapes (issue 16): wide branches, rotating parameters, calls with
    // stack-passed arguments, fixed Reuse sources, early fixed defs, hand
    // clobbers of callee-saved registers; every pipeline.
    {"stack", 100, 0, 10},
    {"ssa", 150, 0, 10},
    {"ssa_belady", 60, 0, 10},
    {"ssa_noremat", 40, 0, 10},
    {"chaitin", 150, 0, 10},
    {"chaitin_pessimistic", 40, 0, 10},
    {"chaitin_spill_everywhere", 40, 0, 10},
    {"chaitin_nojoins", 40, 0, 10},
    {"packing", 150, 0, 10},
    {"packing_size", 150, 0, 10},
    {"packing_noloops", 40, 0, 10},
    {"packing_noyield", 40, 0, 10},
    {"lsra", 150, 0, 10},
    {"lsra_nopref", 40, 0, 10},
    {"lsra_nooverlap", 40, 0, 10},
    {"lsra_noscoring", 40, 0, 10},
    {"lsra_noseed", 40, 0, 10},
    {"lsra_second_chance", 40, 0, 10},
    {"lsra_evict_in_place", 40, 0, 10},
    {"lsra_local_split", 40, 0, 10},
    {"lsra_split_first", 40, 0, 10},
    {"lsra_noremat", 40, 0, 10},
    {"lsra_stress_callee_saved", 40, 0, 10},
    {"lsra_stress_caller_saved", 40, 0, 10},
    {"lsra_stress_nearest", 40, 0, 10},
    {"lsra_stress_reversed", 40, 0, 10},
};
constexpr int kSize = 150;

class PipelinesFuzzTest : public ::testing::TestWithParam<const char*> {};

TEST_P(PipelinesFuzzTest, EveryPipelineIsCheckedAndInterpreted) {
  for (const FuzzedPipeline& p : kPipelines) {
    const char* pipeline = p.name;
    PipelineOptions o;
    o.target = GetParam();
    o.pipeline = pipeline;
    o.generate = p.seeds;
    o.seed = 1;
    o.size = kSize;
    o.byte_percent = p.byte_percent;
    o.unusual_percent = p.unusual_percent;
    o.progress = false;
    std::ostringstream out, err;
    absl::StatusOr<PipelineSummary> s = RunPipeline(o, out, err);
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_EQ(s->functions, p.seeds);
    EXPECT_EQ(s->failed, 0) << err.str() << "\nreproduce one function %genS with:\n  ./bazelw run //tools:pipeline -- --pipeline="
                            << pipeline << " --target=" << GetParam() << " --generate=1 --seed=S --size=" << kSize
                            << " --byte_percent=" << p.byte_percent << " --unusual_percent=" << p.unusual_percent
                            << " --print";
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, PipelinesFuzzTest, ::testing::Values("x86_64", "aarch64", "armv7"));

}  // namespace
}  // namespace regalloc
