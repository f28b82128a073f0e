// The linear-scan allocator's phases on generated functions of 1k to 1M
// instructions. Items are instructions. So far: lsra_build (block order,
// intervals, RefPositions, fixed registers), with one LsraBuild reused across
// iterations as a compiler would across functions.
//   ./bazelw run -c opt //lsra:lsra_benchmark
#include "benchmark/benchmark.h"
#include "liveness/live_sets.h"
#include "lsra/build.h"
#include "tools/benchmark_functions.h"

namespace regalloc {
namespace {

void BM_LsraBuild(benchmark::State& state) {
  const Target& t = *TargetByName("x86_64").value();
  const Function& f = BenchmarkFunction(static_cast<int>(state.range(0)), t);
  int insts = f.CountInstsInLayout();
  LiveSets sets(f);
  LsraBuild build;
  LsraBuildStats last;
  for (auto _ : state) {
    state.PauseTiming();
    Function copy = f;
    state.ResumeTiming();
    last = build.Run(t, copy, sets).value();
    benchmark::DoNotOptimize(build);
  }
  state.SetItemsProcessed(state.iterations() * insts);
  state.counters["intervals"] = last.intervals;
  state.counters["ranges"] = last.ranges;
  state.counters["refs"] = last.refs;
}
BENCHMARK(BM_LsraBuild)->RangeMultiplier(10)->Range(1000, 1000000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace regalloc
