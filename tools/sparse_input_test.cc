// A function costs what it contains, not the numbers its text writes nor the
// sizes its slots declare: tiny functions naming the largest ids, and a frame of
// 1,500 one-MiB slots, go through every pipeline on every target within a heap
// bound (an allocation counter, not a clock).
#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "check/heap_counter.h"
#include "gtest/gtest.h"
#include "tools/phases.h"
#include "tools/pipeline.h"

namespace regalloc {
namespace {

std::string Module() {
  std::string text = R"(function %values(i32) -> i32 {
block0(v16777215: i32):
    v16000000 = add v16777215, v16777215
    ret v16000000
}

function %blocks(i32) -> i32 {
    ss16777215 = stack_slot 4
block0(v16777215: i32):
    v16000000 = add v16777215, v16777215
    br v16777215, block9000000(v16000000), block16777215(v16777215)
block9000000(v9: i32):
    jump block16777215(v9)
block16777215(v9000000: i32):
    v3 = call.i32 %g(v9000000)
    ret v3
}

function %loop(i32) -> i32 {
block16777215(v0: i32):
    v16777215 = const.i32 0
    jump block9000000(v16777215, v0)
block9000000(v1: i32, v2: i32):
    v3 = add v2, v1
    v4 = const.i32 1
    v5 = add v1, v4
    v6 = cmp.lt v5, v0
    br v6, block9000000(v5, v3), block0
block0:
    ret v3
}

function %frame(i32) -> i32 {
)";
  for (int s = 0; s < 1500; ++s) absl::StrAppend(&text, "    ss", s, " = stack_slot 1048576\n");
  absl::StrAppend(&text, "block0(v0: i32):\n    v1 = add v0, v0\n    ret v1\n}\n");
  return text;
}

TEST(SparseInputTest, EveryPipelineOnEveryTargetWithinAHeapBound) {
  std::string path = ::testing::TempDir() + "/sparse.ra";
  std::ofstream(path) << Module();
  std::vector<std::string> pipelines = PhaseRegistry::Default().PipelineNames();
  ASSERT_GE(pipelines.size(), 16u);
  size_t max_peak = 0;
  for (const char* target : {"x86_64", "x86_64_win", "aarch64", "armv7"}) {
    for (const std::string& pipeline : pipelines) {
      PipelineOptions o;
      o.target = target;
      o.pipeline = pipeline;
      o.in = path;
      o.progress = false;
      std::ostringstream out, err;
      size_t before = HeapCounter::Live();
      HeapCounter::ResetPeak();
      absl::StatusOr<PipelineSummary> s = RunPipeline(o, out, err);
      size_t peak = HeapCounter::Peak() - before;
      ASSERT_TRUE(s.ok()) << s.status();
      EXPECT_EQ(s->functions, 4);
      EXPECT_EQ(s->failed, 0) << pipeline << " on " << target << ":\n" << err.str();
      // Before ids were dense, one of these functions took 1.3 to 4.3 GB.
      EXPECT_LT(peak, 4u << 20) << pipeline << " on " << target;
      max_peak = std::max(max_peak, peak);
    }
  }
  std::cout << "largest heap peak of a run: " << max_peak << " bytes\n";
}

}  // namespace
}  // namespace regalloc
