// Spilling and reloading of generated functions of 1k to 1M instructions, after
// coalescing (the input each phase gets in the `ssa` pipeline). Items are
// instructions of the input.
//   ./bazelw run -c opt //spill:spill_benchmark
#include <map>
#include <utility>

#include "benchmark/benchmark.h"
#include "coalesce/coalesce.h"
#include "spill/reload.h"
#include "spill/spill.h"
#include "check/benchmark_functions.h"

namespace regalloc {
namespace {

const Target& X86() { return *TargetByName("x86_64").value(); }

struct Coalesced {
  Function func;
  VirtRegs vregs;
};

// The benchmark function after Coalesce, once per size.
const Coalesced& CoalescedFunction(int insts) {
  static auto* cache = new std::map<int, Coalesced>();
  auto it = cache->find(insts);
  if (it != cache->end()) return it->second;
  Coalesced c{BenchmarkFunction(insts, X86()), VirtRegs()};
  (void)Coalesce(c.func, c.vregs).value();
  return cache->emplace(insts, std::move(c)).first->second;
}

void RunSpill(benchmark::State& state, SpillHeuristic heuristic) {
  const Coalesced& in = CoalescedFunction(static_cast<int>(state.range(0)));
  int insts = in.func.CountInstsInLayout();
  SpillOptions options;
  options.heuristic = heuristic;
  SpillStats last;
  for (auto _ : state) {
    state.PauseTiming();
    Function copy = in.func;
    ValueLocations locs;
    state.ResumeTiming();
    last = Spill(X86(), copy, in.vregs, locs, options).value();
    benchmark::DoNotOptimize(locs);
  }
  state.SetItemsProcessed(state.iterations() * insts);
  state.counters["spilled"] = last.values_spilled;
  state.counters["copies"] = last.prepare.copies;
}

void BM_Spill(benchmark::State& state) { RunSpill(state, SpillHeuristic::kFarthestDef); }
void BM_SpillBelady(benchmark::State& state) { RunSpill(state, SpillHeuristic::kFarthestNextUse); }
BENCHMARK(BM_Spill)->RangeMultiplier(10)->Range(1000, 1000000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SpillBelady)->RangeMultiplier(10)->Range(1000, 1000000)->Unit(benchmark::kMillisecond);

void BM_Reload(benchmark::State& state) {
  const Coalesced& in = CoalescedFunction(static_cast<int>(state.range(0)));
  Function spilled = in.func;
  ValueLocations spilled_locs;
  (void)Spill(X86(), spilled, in.vregs, spilled_locs).value();
  int insts = in.func.CountInstsInLayout();
  ReloadStats last;
  for (auto _ : state) {
    state.PauseTiming();
    Function copy = spilled;
    ValueLocations locs = spilled_locs;
    state.ResumeTiming();
    last = InsertReloads(X86(), copy, locs).value();
    benchmark::DoNotOptimize(locs);
  }
  state.SetItemsProcessed(state.iterations() * insts);
  state.counters["reloads"] = last.reloads;
  state.counters["reuses"] = last.reuses;
}
BENCHMARK(BM_Reload)->RangeMultiplier(10)->Range(1000, 1000000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace regalloc
