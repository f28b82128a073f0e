// The allocator objects (SsaAllocator, LsraAllocator, ChaitinAllocator,
// PackingAllocator) keep their buffers between functions. A warm object must
// allocate every function exactly as a fresh one does: nothing of the previous
// function may leak into the next, whatever its size, its target's register
// file or the options set between functions. One object per family and target
// runs a sequence of generated functions of mixed sizes, with one above
// kWarmBufferInsts in the middle on x86-64 (after it the phases give their
// buffers back and start cold again), and an already-allocated function it must
// refuse;
// each result is compared, printed, with a fresh object's, and checked.
#include <functional>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/warm_buffers.h"
#include "chaitin/chaitin.h"
#include "check/checker.h"
#include "check/generator.h"
#include "color/ssa_allocator.h"
#include "gtest/gtest.h"
#include "lsra/allocator.h"
#include "packing/packing.h"
#include "ssa/cfg.h"
#include "ssa/legalize.h"
#include "ssa/printer.h"

namespace regalloc {
namespace {

const Target& T(const char* name) { return *TargetByName(name).value(); }

constexpr int kFunctions = 14;
constexpr int kLarge = 6;  // the index of the function above kWarmBufferInsts (x86-64 only: it takes time)

Function Make(int k, const Target& target, bool large) {
  GeneratorOptions g;
  g.legalize = false;
  const int sizes[] = {40, 300, 1500, 120, 10};
  g.num_insts = large ? kWarmBufferInsts + kWarmBufferInsts / 8 : sizes[k % 5];
  g.unusual_percent = k % 3 == 2 ? 20 : 0;
  Function f = Generate(static_cast<uint64_t>(100 + k), g, target).value();
  (void)Legalize(f, target);
  SplitCriticalEdges(f);
  return f;
}

// Runs `warm` and a fresh allocator (both configured by `configure` for
// function k) on a sequence of functions for `target`.
template <typename Allocator>
void ExpectWarmAllocatesAsFresh(const char* target_name, const std::function<void(Allocator&, int)>& configure) {
  const Target& target = T(target_name);
  Allocator warm;
  for (int k = 0; k < kFunctions; ++k) {
    const bool large = k == kLarge && target.name() == "x86_64";
    Function f = Make(k, target, large);
    Function g = f;
    const std::string where = absl::StrCat(target_name, ", function ", k, " (", f.num_insts(), " instructions)");
    configure(warm, k);
    if (large) {
      // Run and checked, not compared (the functions after it show what it
      // left behind): its phases give buffers back while they run (the
      // live sets after the build, a round's graph, the build's intervals
      // before resolution grows the function), so it must not read them after.
      ASSERT_GT(f.num_insts(), kWarmBufferInsts) << where;
      auto ws = warm.Run(f, target);
      ASSERT_TRUE(ws.ok()) << where << ": " << ws.status();
      absl::Status checked = CheckAllocation(f, target);
      EXPECT_TRUE(checked.ok()) << where << ": " << checked;
      continue;
    }
    Allocator fresh;
    configure(fresh, k);
    auto ws = warm.Run(f, target);
    auto fs = fresh.Run(g, target);
    ASSERT_TRUE(ws.ok()) << where << ": " << ws.status();
    ASSERT_TRUE(fs.ok()) << where << ": " << fs.status();
    EXPECT_EQ(PrintFunction(f, target), PrintFunction(g, target)) << where;
    absl::Status checked = CheckAllocation(f, target);
    EXPECT_TRUE(checked.ok()) << where << ": " << checked;
    if (k == 3) {
      // A refused function leaves the object as it was.
      EXPECT_FALSE(warm.Run(f, target).ok()) << where;
    }
  }
}

class AllocatorObjectsTest : public ::testing::TestWithParam<const char*> {};

TEST_P(AllocatorObjectsTest, AWarmSsaAllocatorAllocatesAsAFreshOne) {
  ExpectWarmAllocatesAsFresh<SsaAllocator>(GetParam(), [](SsaAllocator& a, int k) {
    SsaAllocatorOptions o;
    o.spill = k % 4 == 1 ? SpillHeuristic::kFarthestNextUse : SpillHeuristic::kFarthestDef;
    a.set_options(o);
  });
}

TEST_P(AllocatorObjectsTest, AWarmLsraAllocatorAllocatesAsAFreshOne) {
  ExpectWarmAllocatesAsFresh<LsraAllocator>(GetParam(), [](LsraAllocator& a, int k) {
    a.options() = LsraAllocatorOptions();
    a.options().allocate.second_chance = k % 4 == 1;
    a.options().allocate.overlap = k % 3 != 0;
  });
}

TEST_P(AllocatorObjectsTest, AWarmChaitinAllocatorAllocatesAsAFreshOne) {
  ExpectWarmAllocatesAsFresh<ChaitinAllocator>(GetParam(), [](ChaitinAllocator& a, int k) {
    a.options() = ChaitinOptions();
    a.options().split = k % 4 != 1;
    a.options().conservative = k % 3 != 0;
  });
}

TEST_P(AllocatorObjectsTest, AWarmPackingAllocatorAllocatesAsAFreshOne) {
  ExpectWarmAllocatesAsFresh<PackingAllocator>(GetParam(), [](PackingAllocator& a, int k) {
    a.options() = PackingOptions();
    a.options().goal = k % 4 == 1 ? PackingGoal::kSize : PackingGoal::kTime;
    a.options().loops = k % 3 != 0;
  });
}

INSTANTIATE_TEST_SUITE_P(Targets, AllocatorObjectsTest, ::testing::Values("x86_64", "aarch64", "armv7"));

}  // namespace
}  // namespace regalloc
