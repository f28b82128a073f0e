// Whole allocators, one reusable object per family (ssa, lsra, chaitin, packing), on the generated functions
// of issue 19's table: the set of 100 functions of about 200 instructions (seeds
// 1-100, `--generate=100 --seed=1 --size=200`) and one function each of 10k,
// 100k and 1M instructions (seed 3), all for x86-64 after legalize and
// split_critical_edges, as `pipeline` makes them. Items are instructions of the
// input; the checker is off. Counters: bytes_per_inst is the heap the
// allocation takes at its peak beyond the input function (the allocator's
// buffers and the function's growth), per input instruction, on a cold
// allocator; weighted_cost is MeasureAllocation's (spills, reloads and moves
// weighted by loop depth), summed over the functions; allocs_per_function
// counts operator new calls per function on a warm allocator.
//   ./bazelw run -c opt //tools:allocators_benchmark
#include <map>
#include <vector>

#include "benchmark/benchmark.h"
#include "check/checker.h"
#include "check/generator.h"
#include "check/heap_counter.h"
#include "chaitin/chaitin.h"
#include "color/ssa_allocator.h"
#include "lsra/allocator.h"
#include "packing/packing.h"
#include "ssa/cfg.h"
#include "ssa/legalize.h"

namespace regalloc {
namespace {

const Target& X86() { return *TargetByName("x86_64").value(); }

// Size 0 is the set of 100 × 200; other sizes one function of that size.
const std::vector<Function>& Functions(int size) {
  static auto* cache = new std::map<int, std::vector<Function>>();
  auto it = cache->find(size);
  if (it != cache->end()) return it->second;
  std::vector<Function> funcs;
  GeneratorOptions g;
  g.legalize = false;
  g.num_insts = size == 0 ? 200 : size;
  int count = size == 0 ? 100 : 1;
  uint64_t seed = size == 0 ? 1 : 3;
  for (int i = 0; i < count; ++i) {
    Function f = Generate(seed + i, g, X86()).value();
    (void)Legalize(f, X86());
    SplitCriticalEdges(f);
    funcs.push_back(std::move(f));
  }
  return cache->emplace(size, std::move(funcs)).first->second;
}

template <typename Allocator>
void RunAllocator(benchmark::State& state) {
  const std::vector<Function>& funcs = Functions(static_cast<int>(state.range(0)));
  int insts = 0;
  for (const Function& f : funcs) insts += f.CountInstsInLayout();
  // Memory and cost, once, on a cold allocator.
  double cost = 0;
  size_t peak = 0;
  {
    std::vector<Function> copies = funcs;
    size_t before = HeapCounter::Live();
    HeapCounter::ResetPeak();
    {
      Allocator allocator;
      for (Function& f : copies) (void)allocator.Run(f, X86()).value();
      peak = HeapCounter::Peak() - before;
    }
    for (const Function& f : copies) cost += static_cast<double>(MeasureAllocation(f).weighted);
  }
  Allocator allocator;  // warm from here on, as in a compiler
  double allocs_per_function = 0;
  {
    std::vector<Function> warm = funcs, copies = funcs;
    for (Function& f : warm) (void)allocator.Run(f, X86()).value();
    size_t before = HeapCounter::Allocations();
    for (Function& f : copies) (void)allocator.Run(f, X86()).value();
    allocs_per_function = static_cast<double>(HeapCounter::Allocations() - before) / copies.size();
  }
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<Function> copies = funcs;
    state.ResumeTiming();
    for (Function& f : copies) benchmark::DoNotOptimize(allocator.Run(f, X86()).value());
    state.PauseTiming();
    copies.clear();  // freeing the copies is the harness's work
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * insts);
  state.counters["bytes_per_inst"] = static_cast<double>(peak) / insts;
  state.counters["weighted_cost"] = cost;
  // Heap allocations of one function's allocation by an allocator that has
  // already allocated these functions once (issue 19's goal: none).
  state.counters["allocs_per_function"] = allocs_per_function;
}

void BM_Ssa(benchmark::State& state) { RunAllocator<SsaAllocator>(state); }
void BM_Lsra(benchmark::State& state) { RunAllocator<LsraAllocator>(state); }
void BM_Chaitin(benchmark::State& state) { RunAllocator<ChaitinAllocator>(state); }
void BM_Packing(benchmark::State& state) { RunAllocator<PackingAllocator>(state); }

BENCHMARK(BM_Ssa)->Arg(0)->Arg(10'000)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Lsra)->Arg(0)->Arg(10'000)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Chaitin)->Arg(0)->Arg(10'000)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Packing)->Arg(0)->Arg(10'000)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace regalloc
