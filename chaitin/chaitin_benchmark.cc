// The Chaitin–Briggs allocator's two steps and the whole allocator on generated
// functions of 1k to 1M instructions (BenchmarkFunction: 200 long-lived
// values). Items are instructions of the input. Counters: the first round's
// graph (live ranges, edges, bytes per instruction of its rows: the bit matrix
// at 1k, sparse rows from 10k on), rounds.
//   ./bazelw run -c opt //chaitin:chaitin_benchmark
// The 1M runs take about a minute each (3 GB at their peak).
#include <vector>

#include "benchmark/benchmark.h"
#include "chaitin/chaitin.h"
#include "check/benchmark_functions.h"

namespace regalloc {
namespace {

const Target& X86() { return *TargetByName("x86_64").value(); }

// Step 0: constraints, the graph and aggressive coalescing (Coalesce); step 1:
// the rest (Color, timed after an untimed Coalesce); step 2: both (Run).
void BM_Chaitin(benchmark::State& state) {
  const Function& f = BenchmarkFunction(static_cast<int>(state.range(0)), X86());
  const int step = static_cast<int>(state.range(1));
  const int insts = f.CountInstsInLayout();
  ChaitinAllocator allocator;
  ChaitinStats last;
  for (auto _ : state) {
    state.PauseTiming();
    Function copy = f;
    if (step == 1) (void)allocator.Coalesce(copy, X86()).value();
    state.ResumeTiming();
    if (step == 0) {
      last = allocator.Coalesce(copy, X86()).value();
      state.PauseTiming();
      (void)allocator.Color(copy, X86()).value();  // finish the function, untimed
      state.ResumeTiming();
    } else if (step == 1) {
      last = allocator.Color(copy, X86()).value();
    } else {
      last = allocator.Run(copy, X86()).value();
    }
    benchmark::DoNotOptimize(copy);
    state.PauseTiming();
    copy = Function();  // freeing the copy is the harness's work (as in allocators_benchmark)
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * insts);
  state.SetLabel(step == 0 ? "coalesce" : step == 1 ? "color" : "whole");
  state.counters["live_ranges"] = last.live_ranges;
  state.counters["edges"] = static_cast<double>(last.edges);
  state.counters["graph_bytes_per_inst"] = static_cast<double>(last.graph_bytes) / insts;
  state.counters["rounds"] = last.rounds;
}
BENCHMARK(BM_Chaitin)
    ->ArgsProduct({{1000, 10000, 100000, 1000000}, {0, 1, 2}})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace regalloc
