// The `ssa` allocator's invariants on generated functions, 1000 per target:
//  - after spill and reload, the values in registers fit the registers at every
//    point, across every call and fixed operand (CheckRegisterPressure);
//  - coloring never fails on what the spiller left;
//  - a spilled virtual register is spilled whole, to one slot;
//  - the allocation passes the checker.
// The interpreter comparison of the same pipeline runs in
// //tools:pipelines_fuzz_test. A failure prints the command that reproduces it.
#include <string>

#include "absl/strings/str_cat.h"
#include "color/ssa_testing.h"
#include "gtest/gtest.h"
#include "check/generator.h"

namespace regalloc {
namespace {

constexpr int kSeeds = 1000;
constexpr int kSize = 150;

// A block parameter and the arguments feeding it share a virtual register
// (coalesce/): they are spilled together, to one slot, or not at all.
// Returns the number of spilled virtual registers.
int ExpectWholeVregsSpilled(const SsaRun& run, const std::string& where) {
  int spilled = 0;
  for (int r = 0; r < run.vregs.num_vregs(); ++r) {
    absl::Span<const Value> members = run.vregs.Members(VirtReg(r));
    Location first = run.spilled.Get(members[0]);
    for (Value m : members) {
      EXPECT_EQ(run.spilled.Get(m), first) << where << ": virtual register " << r << " member v" << m.index()
                                           << " is not where v" << members[0].index() << " is";
    }
    spilled += first.IsStack();
  }
  return spilled;
}

class SsaPropertyTest : public ::testing::TestWithParam<const char*> {};

TEST_P(SsaPropertyTest, SpillFitsColorNeverFailsAndTheResultChecks) {
  const Target& target = *TargetByName(GetParam()).value();
  GeneratorOptions gen;
  gen.num_insts = kSize;
  int spilled_somewhere = 0, spilled_vregs = 0;
  for (int seed = 1; seed <= kSeeds; ++seed) {
    gen.byte_percent = seed % 5 == 0 ? 30 : 0;  // some functions with i8 values
    absl::StatusOr<Function> f = Generate(seed, gen, target);
    ASSERT_TRUE(f.ok()) << f.status();
    SsaCheckOptions options;
    options.interpret = false;
    if (seed % 4 == 0) options.spill.heuristic = SpillHeuristic::kFarthestNextUse;
    absl::StatusOr<SsaRun> run = AllocateSsaAndCheck(*f, target, options);
    ASSERT_TRUE(run.ok()) << run.status() << "\nreproduce with:\n  ./bazelw run //tools:pipeline -- --pipeline=ssa"
                          << " --target=" << GetParam() << " --generate=1 --seed=" << seed << " --size=" << kSize
                          << " --print";
    spilled_somewhere += run->spill.values_spilled > 0;
    spilled_vregs += ExpectWholeVregsSpilled(*run, absl::StrCat(GetParam(), " seed ", seed));
  }
  // The generator's pressure is well above every register file: most functions spill.
  EXPECT_GT(spilled_somewhere, kSeeds / 2);
  // ... and some spill a block parameter's whole virtual register.
  EXPECT_GT(spilled_vregs, 0);
}

INSTANTIATE_TEST_SUITE_P(Targets, SsaPropertyTest, ::testing::Values("x86_64", "aarch64", "armv7"));

}  // namespace
}  // namespace regalloc
