// Parsing, printing, verification and CFG analyses of generated functions of 1k,
// 10k, 100k and 1M instructions. Items are instructions, so items/second and its
// flatness across sizes read straight off the output:
//   ./bazelw run -c opt //ssa:ssa_benchmark
#include <map>
#include <string>

#include "benchmark/benchmark.h"
#include "ssa/cfg.h"
#include "ssa/parser.h"
#include "ssa/printer.h"
#include "ssa/verifier.h"
#include "check/benchmark_functions.h"

namespace regalloc {
namespace {

const Target& X86() { return *TargetByName("x86_64").value(); }

const Function& Generated(int insts) { return BenchmarkFunction(insts, X86()); }

const std::string& Text(int insts) {
  static auto* cache = new std::map<int, std::string>();
  auto it = cache->find(insts);
  if (it == cache->end()) it = cache->emplace(insts, PrintFunction(Generated(insts), X86())).first;
  return it->second;
}

void BM_Parse(benchmark::State& state) {
  const std::string& text = Text(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    absl::StatusOr<Function> f = ParseFunction(text, X86());
    benchmark::DoNotOptimize(f);
  }
  state.SetItemsProcessed(state.iterations() * Generated(static_cast<int>(state.range(0))).CountInstsInLayout());
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
}

void BM_Print(benchmark::State& state) {
  const Function& f = Generated(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    std::string text = PrintFunction(f, X86());
    benchmark::DoNotOptimize(text);
  }
  state.SetItemsProcessed(state.iterations() * f.CountInstsInLayout());
}

void BM_Verify(benchmark::State& state) {
  const Function& f = Generated(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    absl::Status s = Verify(f, X86());
    if (!s.ok()) state.SkipWithError("verifier rejected the generated function");
    benchmark::DoNotOptimize(s);
  }
  state.SetItemsProcessed(state.iterations() * f.CountInstsInLayout());
}

void BM_DominatorsAndLoops(benchmark::State& state) {
  const Function& f = Generated(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    ControlFlowGraph cfg(f);
    DominatorTree dom(f, cfg);
    LoopNest loops(f, cfg, dom);
    benchmark::DoNotOptimize(loops.num_loops());
  }
  state.SetItemsProcessed(state.iterations() * f.CountInstsInLayout());
}

void BM_SplitCriticalEdges(benchmark::State& state) {
  const Function& f = Generated(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    state.PauseTiming();
    Function copy = f;
    state.ResumeTiming();
    benchmark::DoNotOptimize(SplitCriticalEdges(copy));
  }
  state.SetItemsProcessed(state.iterations() * f.CountInstsInLayout());
}

#define SIZES RangeMultiplier(10)->Range(1000, 1000000)->Unit(benchmark::kMicrosecond)
BENCHMARK(BM_Parse)->SIZES;
BENCHMARK(BM_Print)->SIZES;
BENCHMARK(BM_Verify)->SIZES;
BENCHMARK(BM_DominatorsAndLoops)->SIZES;
BENCHMARK(BM_SplitCriticalEdges)->SIZES;

}  // namespace
}  // namespace regalloc
