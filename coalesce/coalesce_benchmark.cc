// Coalescing of generated functions of 1k, 10k and 100k instructions (including
// its liveness rounds and critical-edge splitting). Items are instructions.
//   ./bazelw run -c opt //coalesce:coalesce_benchmark
#include "benchmark/benchmark.h"
#include "coalesce/coalesce.h"
#include "check/benchmark_functions.h"

namespace regalloc {
namespace {

void BM_Coalesce(benchmark::State& state) {
  const Target& t = *TargetByName("x86_64").value();
  const Function& f = BenchmarkFunction(static_cast<int>(state.range(0)), t);
  int insts = f.CountInstsInLayout();
  CoalesceStats last;
  for (auto _ : state) {
    state.PauseTiming();
    Function copy = f;
    VirtRegs vregs;
    state.ResumeTiming();
    last = Coalesce(copy, vregs).value();
    benchmark::DoNotOptimize(vregs);
  }
  state.SetItemsProcessed(state.iterations() * insts);
  state.counters["vregs"] = last.vregs;
  state.counters["copies"] = last.arg_copies + last.param_copies;
  state.counters["rounds"] = last.rounds;
}
BENCHMARK(BM_Coalesce)->RangeMultiplier(10)->Range(1000, 100000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace regalloc
