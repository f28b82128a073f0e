// Coloring of generated functions of 1k to 1M instructions after coalescing,
// spilling and reloading, and the whole `ssa` allocator (coalesce, spill, reload,
// color, lower block parameters). Items are instructions of the input.
//   ./bazelw run -c opt //color:color_benchmark
#include <map>
#include <utility>

#include "benchmark/benchmark.h"
#include "coalesce/coalesce.h"
#include "color/color.h"
#include "spill/reload.h"
#include "spill/spill.h"
#include "ssa/lower_params.h"
#include "check/benchmark_functions.h"
#include "check/checker.h"

namespace regalloc {
namespace {

const Target& X86() { return *TargetByName("x86_64").value(); }

struct Prepared {
  Function func;
  VirtRegs vregs;
  ValueLocations locs;
  int input_insts = 0;
};

// The benchmark function after Coalesce, Spill and InsertReloads, once per size.
const Prepared& ReloadedFunction(int insts) {
  static auto* cache = new std::map<int, Prepared>();
  auto it = cache->find(insts);
  if (it != cache->end()) return it->second;
  Prepared p{BenchmarkFunction(insts, X86()), VirtRegs(), ValueLocations(), 0};
  p.input_insts = p.func.CountInstsInLayout();
  (void)Coalesce(p.func, p.vregs).value();
  (void)Spill(X86(), p.func, p.vregs, p.locs).value();
  (void)InsertReloads(X86(), p.func, p.locs).value();
  return cache->emplace(insts, std::move(p)).first->second;
}

void BM_Color(benchmark::State& state) {
  const Prepared& in = ReloadedFunction(static_cast<int>(state.range(0)));
  ColorStats last;
  for (auto _ : state) {
    state.PauseTiming();
    Function copy = in.func;
    ValueLocations locs = in.locs;
    state.ResumeTiming();
    last = Color(X86(), copy, in.vregs, locs).value();
    benchmark::DoNotOptimize(copy);
  }
  state.SetItemsProcessed(state.iterations() * in.input_insts);
  state.counters["moves"] = last.moves;
  state.counters["relocations"] = last.relocations;
}
BENCHMARK(BM_Color)->RangeMultiplier(10)->Range(1000, 1000000)->Unit(benchmark::kMillisecond);

// The whole `ssa` allocator: coalesce, spill, reload, color, lower block parameters.
void RunSsaAllocator(const Target& t, Function& f) {
  VirtRegs vregs;
  ValueLocations locs;
  LiveSets sets;
  (void)Coalesce(f, vregs, sets).value();
  (void)Spill(t, f, vregs, sets, locs).value();
  (void)InsertReloads(t, f, sets, locs).value();
  (void)Color(t, f, vregs, sets, locs).value();
  (void)LowerBlockParams(f, t).value();
}

void BM_SsaAllocator(benchmark::State& state) {
  const Function& f = BenchmarkFunction(static_cast<int>(state.range(0)), X86());
  int insts = f.CountInstsInLayout();
  for (auto _ : state) {
    state.PauseTiming();
    Function copy = f;
    state.ResumeTiming();
    RunSsaAllocator(X86(), copy);
    benchmark::DoNotOptimize(copy);
  }
  state.SetItemsProcessed(state.iterations() * insts);
}
BENCHMARK(BM_SsaAllocator)->RangeMultiplier(10)->Range(1000, 1000000)->Unit(benchmark::kMillisecond);

// The whole `ssa` allocator on real code: every function of the LLVM corpus
// (testdata/llvm) for x86-64 (0) or AArch64 (1), one allocator run per function.
void BM_SsaAllocatorLlvmCorpus(benchmark::State& state) {
  const RealFunctions& real = LlvmCorpusFunctions(state.range(0) == 0 ? "x86_64" : "aarch64");
  const Target& t = *real.target;
  for (auto _ : state) {
    for (const Function& f : real.funcs) {
      state.PauseTiming();
      Function copy = f;
      state.ResumeTiming();
      RunSsaAllocator(t, copy);
      benchmark::DoNotOptimize(copy);
    }
  }
  state.SetItemsProcessed(state.iterations() * real.insts);
  state.SetLabel(std::string(t.name()));
}
BENCHMARK(BM_SsaAllocatorLlvmCorpus)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// The checker on the whole `ssa` allocator's result (block parameters lowered);
// items are instructions of the checked function.
void BM_CheckSsaAllocation(benchmark::State& state) {
  static auto* cache = new std::map<int, Function>();
  int size = static_cast<int>(state.range(0));
  if (!cache->count(size)) {
    Function f = BenchmarkFunction(size, X86());
    VirtRegs vregs;
    ValueLocations locs;
    LiveSets sets;
    (void)Coalesce(f, vregs, sets).value();
    (void)Spill(X86(), f, vregs, sets, locs).value();
    (void)InsertReloads(X86(), f, sets, locs).value();
    (void)Color(X86(), f, vregs, sets, locs).value();
    (void)LowerBlockParams(f, X86()).value();
    cache->emplace(size, std::move(f));
  }
  const Function& f = cache->at(size);
  AllocationChecker checker;  // warm: buffers sized by the first run
  (void)checker.Run(f, X86());
  for (auto _ : state) benchmark::DoNotOptimize(checker.Run(f, X86()));
  int insts = f.CountInstsInLayout();
  state.SetItemsProcessed(state.iterations() * insts);
  const CheckStats& s = checker.stats();
  state.counters["state_bytes_per_inst"] = static_cast<double>(s.entry_bytes + s.live_in * 4) / insts;
  state.counters["visits_per_block"] = static_cast<double>(s.block_visits) / s.blocks;
  state.counters["ops_per_inst"] = static_cast<double>(s.state_ops) / insts;
}
BENCHMARK(BM_CheckSsaAllocation)->RangeMultiplier(10)->Range(1000, 1000000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace regalloc
