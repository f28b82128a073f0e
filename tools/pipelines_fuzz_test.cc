// Differential test of every registered allocator pipeline on generated functions
// for every target: each allocation must pass the checker and agree with the
// original under the interpreter. A failure prints the one command that
// reproduces it.
//
// Allocator issues add their pipeline to kPipelines.
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "tools/pipeline.h"

namespace regalloc {
namespace {

constexpr const char* kPipelines[] = {"stack", "ssa", "lsra"};
constexpr int kSeeds = 1000;  // per target and pipeline: about 20 s each under ASan
constexpr int kSize = 150;

class PipelinesFuzzTest : public ::testing::TestWithParam<const char*> {};

TEST_P(PipelinesFuzzTest, EveryPipelineIsCheckedAndInterpreted) {
  for (const char* pipeline : kPipelines) {
    PipelineOptions o;
    o.target = GetParam();
    o.pipeline = pipeline;
    o.generate = kSeeds;
    o.seed = 1;
    o.size = kSize;
    o.progress = false;
    std::ostringstream out, err;
    absl::StatusOr<PipelineSummary> s = RunPipeline(o, out, err);
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_EQ(s->functions, kSeeds);
    EXPECT_EQ(s->failed, 0) << err.str() << "\nreproduce one function %genS with:\n  ./bazelw run //tools:pipeline -- --pipeline="
                            << pipeline << " --target=" << GetParam() << " --generate=1 --seed=S --size=" << kSize
                            << " --print";
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, PipelinesFuzzTest, ::testing::Values("x86_64", "aarch64", "armv7"));

}  // namespace
}  // namespace regalloc
