// Alias-aware register-set operations, the inner loop of every allocator's
// free/busy bookkeeping: mark a register busy with its aliases, test, unmark.
#include <vector>

#include "benchmark/benchmark.h"
#include "targets/target.h"

namespace regalloc {
namespace {

void BM_MarkUnmarkWithAliases(benchmark::State& state, const char* name) {
  const Target& t = *TargetByName(name).value();
  std::vector<PReg> regs;
  for (int c = 0; c < t.num_classes(); ++c) {
    for (PReg r : t.Class(RegClass(c)).allocation_order) regs.push_back(r);
  }
  constexpr int kOps = 1 << 20;
  for (auto _ : state) {
    RegSet busy;
    int conflicts = 0;
    for (int i = 0; i < kOps; ++i) {
      PReg r = regs[(i * 7) % regs.size()];
      if (busy.Contains(r)) {
        ++conflicts;
        busy.RemoveWithAliases(t, r);
      } else {
        busy.InsertWithAliases(t, r);
      }
    }
    benchmark::DoNotOptimize(conflicts);
    benchmark::DoNotOptimize(busy);
  }
  state.SetItemsProcessed(state.iterations() * kOps);
}
BENCHMARK_CAPTURE(BM_MarkUnmarkWithAliases, x86_64, "x86_64");
BENCHMARK_CAPTURE(BM_MarkUnmarkWithAliases, aarch64, "aarch64");
BENCHMARK_CAPTURE(BM_MarkUnmarkWithAliases, armv7, "armv7");

void BM_FirstFreeInClass(benchmark::State& state) {
  const Target& t = *TargetByName("armv7").value();
  const RegClassInfo& d = t.Class(*t.ClassFor(Type::kF64));
  constexpr int kOps = 1 << 20;
  for (auto _ : state) {
    RegSet busy;
    int found = 0;
    for (int i = 0; i < kOps; ++i) {
      RegSet free = d.members;
      free.Subtract(busy);
      if (free.Empty()) {
        busy = RegSet();
        continue;
      }
      PReg r = *free.begin();
      busy.InsertWithAliases(t, r);
      ++found;
    }
    benchmark::DoNotOptimize(found);
  }
  state.SetItemsProcessed(state.iterations() * kOps);
}
BENCHMARK(BM_FirstFreeInClass);

}  // namespace
}  // namespace regalloc
