// Liveness on generated functions of 1k, 10k, 100k and 1M instructions (200
// long-lived values, loops, calls): sets, ranges, pressure and queries separately,
// and the dense reference for comparison. Items are instructions (queries for
// BM_Queries); bytes_per_inst is what the result holds.
//   ./bazelw run -c opt //liveness:liveness_benchmark
#include <vector>

#include "benchmark/benchmark.h"
#include "liveness/live_ranges.h"
#include "liveness/live_sets.h"
#include "liveness/liveness_queries.h"
#include "liveness/liveness_testing.h"
#include "ssa/cfg.h"
#include "check/benchmark_functions.h"

namespace regalloc {
namespace {

const Target& X86() { return *TargetByName("x86_64").value(); }

void BM_LiveSets(benchmark::State& state) {
  const Function& f = BenchmarkFunction(static_cast<int>(state.range(0)), X86());
  int insts = f.CountInstsInLayout();
  // One LiveSets reused across runs, as a phase keeps it across functions; the
  // first Compute (outside the timing) sizes its buffers.
  LiveSets sets(f);
  for (auto _ : state) {
    sets.Compute(f);
    benchmark::DoNotOptimize(sets);
  }
  size_t bytes = sets.MemoryBytes();
  int visits = sets.block_visits();
  state.SetItemsProcessed(state.iterations() * insts);
  state.counters["bytes_per_inst"] = static_cast<double>(bytes) / insts;
  state.counters["visits_per_block"] = static_cast<double>(visits) / f.layout().size();
}

void BM_DenseReference(benchmark::State& state) {
  const Function& f = BenchmarkFunction(static_cast<int>(state.range(0)), X86());
  int insts = f.CountInstsInLayout();
  for (auto _ : state) {
    DenseLiveness dense(f);
    benchmark::DoNotOptimize(dense);
  }
  state.SetItemsProcessed(state.iterations() * insts);
  state.counters["bytes_per_inst"] =
      2.0 * f.num_blocks() * ((f.num_values() + 63) / 64) * 8 / insts;
}

void BM_LiveRanges(benchmark::State& state) {
  const Function& f = BenchmarkFunction(static_cast<int>(state.range(0)), X86());
  int insts = f.CountInstsInLayout();
  LiveSets sets(f);
  InstNumbering num(f);
  LiveRanges ranges(f, sets, num);  // reused, as for BM_LiveSets
  for (auto _ : state) {
    ranges.Compute(f, sets, num);
    benchmark::DoNotOptimize(ranges);
  }
  size_t bytes = ranges.MemoryBytes();
  state.SetItemsProcessed(state.iterations() * insts);
  state.counters["bytes_per_inst"] = static_cast<double>(bytes) / insts;
}

void BM_Pressure(benchmark::State& state) {
  const Function& f = BenchmarkFunction(static_cast<int>(state.range(0)), X86());
  int insts = f.CountInstsInLayout();
  LiveSets sets(f);
  InstNumbering num(f);
  for (auto _ : state) {
    absl::StatusOr<RegisterPressure> p = RegisterPressure::Compute(f, X86(), sets, num);
    benchmark::DoNotOptimize(p);
  }
  state.SetItemsProcessed(state.iterations() * insts);
}

// Random (value, block) live-in queries: half on values live somewhere (globals),
// all on blocks of the function.
void BM_Queries(benchmark::State& state) {
  const Function& f = BenchmarkFunction(static_cast<int>(state.range(0)), X86());
  ControlFlowGraph cfg(f);
  DominatorTree dom(f, cfg);
  LiveSets sets(f);
  std::vector<Value> globals;
  for (int v = 0; v < f.num_values(); ++v) {
    if (sets.GlobalIndex(Value(v)) >= 0) globals.push_back(Value(v));
  }
  LoopNest loops(f, cfg, dom);
  LivenessQueries q(f, cfg, dom, loops);
  uint64_t x = 12345;
  constexpr int kQueries = 1000;
  for (auto _ : state) {
    int live = 0;
    for (int i = 0; i < kQueries; ++i) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      Value v = globals[(x >> 33) % globals.size()];
      Block b = f.layout()[(x >> 13) % f.layout().size()];
      live += q.IsLiveIn(v, b);
    }
    benchmark::DoNotOptimize(live);
  }
  state.SetItemsProcessed(state.iterations() * kQueries);
  double queries = static_cast<double>(state.iterations()) * kQueries;
  state.counters["visits_per_query"] = q.blocks_visited() / queries;
  state.counters["uses_marked_per_query"] = q.uses_marked() / queries;
}

#define SIZES RangeMultiplier(10)->Range(1000, 1000000)->Unit(benchmark::kMillisecond)
BENCHMARK(BM_LiveSets)->SIZES;
BENCHMARK(BM_LiveRanges)->SIZES;
BENCHMARK(BM_Pressure)->SIZES;
BENCHMARK(BM_Queries)->SIZES;
// The dense reference is quadratic in memory: 1M instructions would need ~30 GB.
BENCHMARK(BM_DenseReference)->RangeMultiplier(10)->Range(1000, 100000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace regalloc
