// The checker on the reference allocator's results (every value in a slot of its
// own, block parameters lowered) of generated functions of 1k to 1M instructions,
// and on chains of 1k to 100k blocks. Items are instructions of the checked
// function; `state_bytes_per_inst` is what the block entry states and live-in
// sets hold, per instruction. `//color:color_benchmark` checks the `ssa`
// allocator's results the same way.
//   ./bazelw run -c opt //check:check_benchmark
#include <map>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "check/benchmark_functions.h"
#include "check/checker.h"
#include "check/stack_allocator.h"
#include "ssa/legalize.h"
#include "ssa/lower_params.h"
#include "ssa/parser.h"

namespace regalloc {
namespace {

const Target& X86() { return *TargetByName("x86_64").value(); }

Function OnStack(Function f) {
  (void)AllocateOnStack(f, X86()).value();
  (void)LowerBlockParams(f, X86()).value();
  return f;
}

// A chain of `n` blocks, each adding to the value it passes to the next.
Function Chain(int n) {
  std::string text = "function %chain(i64) -> i64 {\nblock0(v0: i64):\n    jump block1(v0)\n";
  for (int b = 1; b < n; ++b) {
    absl::StrAppend(&text, "block", b, "(v", 2 * b - 1, ": i64):\n    v", 2 * b, " = add v", 2 * b - 1, ", v",
                    2 * b - 1, "\n    jump block", b + 1, "(v", 2 * b, ")\n");
  }
  absl::StrAppend(&text, "block", n, "(v", 2 * n - 1, ": i64):\n    ret v", 2 * n - 1, "\n}\n");
  Function f = ParseFunction(text, X86()).value();
  (void)Legalize(f, X86());
  return f;
}

void Report(benchmark::State& state, const AllocationChecker& checker, int insts) {
  state.SetItemsProcessed(state.iterations() * insts);
  const CheckStats& s = checker.stats();
  state.counters["insts"] = insts;
  state.counters["state_bytes_per_inst"] = static_cast<double>(s.entry_bytes + s.live_in * 4) / insts;
  state.counters["visits_per_block"] = static_cast<double>(s.block_visits) / s.blocks;
  state.counters["ops_per_inst"] = static_cast<double>(s.state_ops) / insts;
}

void BM_CheckReferenceAllocation(benchmark::State& state) {
  static auto* cache = new std::map<int, Function>();
  int size = static_cast<int>(state.range(0));
  if (!cache->count(size)) cache->emplace(size, OnStack(BenchmarkFunction(size, X86())));
  const Function& f = cache->at(size);
  AllocationChecker checker;  // warm: buffers sized by the first run
  (void)checker.Run(f, X86());
  for (auto _ : state) benchmark::DoNotOptimize(checker.Run(f, X86()));
  Report(state, checker, f.CountInstsInLayout());
}
BENCHMARK(BM_CheckReferenceAllocation)->RangeMultiplier(10)->Range(1000, 1000000)->Unit(benchmark::kMillisecond);

void BM_CheckBlockChain(benchmark::State& state) {
  static auto* cache = new std::map<int, Function>();
  int blocks = static_cast<int>(state.range(0));
  if (!cache->count(blocks)) cache->emplace(blocks, OnStack(Chain(blocks)));
  const Function& f = cache->at(blocks);
  AllocationChecker checker;
  (void)checker.Run(f, X86());
  for (auto _ : state) benchmark::DoNotOptimize(checker.Run(f, X86()));
  Report(state, checker, f.CountInstsInLayout());
}
BENCHMARK(BM_CheckBlockChain)->RangeMultiplier(10)->Range(1000, 100000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace regalloc
