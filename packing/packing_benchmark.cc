// The packing allocator's three steps and the whole allocator on generated
// functions of 1k to 1M instructions (BenchmarkFunction: 200 long-lived values).
// Items are instructions of the input. Counters: items, allocations, the
// allocation list's bytes per instruction (busy ranges, pins, per-value tables:
// the rivals structure, since rivals are answered from busy ranges), packed
// allocations, and the heap the packing's per-register occupancy takes is
// inside the Pack step's time.
//   ./bazelw run -c opt //packing:packing_benchmark
#include <vector>

#include "benchmark/benchmark.h"
#include "check/benchmark_functions.h"
#include "packing/packing.h"

namespace regalloc {
namespace {

const Target& X86() { return *TargetByName("x86_64").value(); }

// Step 0: Allocations (split loop entries, items, timespans, busy ranges, pins,
// profits); 1: Pack; 2: Transform (with block parameters lowered); 3: Run.
void BM_Packing(benchmark::State& state) {
  const Function& f = BenchmarkFunction(static_cast<int>(state.range(0)), X86());
  const int step = static_cast<int>(state.range(1));
  const int insts = f.CountInstsInLayout();
  PackingAllocator allocator;
  PackingStats last;
  for (auto _ : state) {
    state.PauseTiming();
    Function copy = f;
    if (step >= 1 && step <= 2) (void)allocator.Allocations(copy, X86()).value();
    if (step == 2) (void)allocator.Pack(copy, X86()).value();
    state.ResumeTiming();
    switch (step) {
      case 0: last = allocator.Allocations(copy, X86()).value(); break;
      case 1: last = allocator.Pack(copy, X86()).value(); break;
      case 2: last = allocator.Transform(copy, X86()).value(); break;
      default: last = allocator.Run(copy, X86()).value(); break;
    }
    benchmark::DoNotOptimize(copy);
    state.PauseTiming();
    copy = Function();  // freeing the copy is the harness's work (as in allocators_benchmark)
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * insts);
  static const char* const kSteps[] = {"allocations", "pack", "transform", "whole"};
  state.SetLabel(kSteps[step]);
  state.counters["packing_items"] = last.items;
  state.counters["allocations"] = last.allocations;
  state.counters["list_bytes_per_inst"] = static_cast<double>(last.problem_bytes) / insts;
  state.counters["packed"] = last.packed;
}
BENCHMARK(BM_Packing)
    ->ArgsProduct({{1000, 10000, 100000, 1000000}, {0, 1, 2, 3}})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace regalloc
