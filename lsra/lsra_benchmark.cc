// The linear-scan allocator's phases on generated functions of 1k to 1M
// instructions, and the whole allocator. Items are instructions of the input.
// One LsraBuild is reused across iterations, as a compiler would across functions.
//   ./bazelw run -c opt //lsra:lsra_benchmark
#include <memory>

#include "benchmark/benchmark.h"
#include "liveness/live_sets.h"
#include "lsra/allocate.h"
#include "lsra/build.h"
#include "lsra/resolve.h"
#include "check/benchmark_functions.h"

namespace regalloc {
namespace {

const Target& X86() { return *TargetByName("x86_64").value(); }

void BM_LsraBuild(benchmark::State& state) {
  const Target& t = *TargetByName("x86_64").value();
  const Function& f = BenchmarkFunction(static_cast<int>(state.range(0)), t);
  int insts = f.CountInstsInLayout();
  LiveSets sets(f);
  LsraBuild build;
  LsraBuildStats last;
  {
    // A warm context, as in a compiler that has built functions before (at 1M
    // instructions the timed loop runs once).
    Function copy = f;
    (void)build.Run(t, copy, sets).value();
  }
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

// The benchmark function after lsra_build, for the phases after it.
struct Built {
  explicit Built(int size) : f(BenchmarkFunction(size, X86())), insts(f.CountInstsInLayout()) {
    sets.Compute(f);
    (void)build.Run(X86(), f, sets).value();
  }
  Function f;
  int insts;
  LiveSets sets;
  LsraBuild build;
};

void BM_LsraAllocate(benchmark::State& state) {
  Built in(static_cast<int>(state.range(0)));
  LsraAllocStats last;
  for (auto _ : state) {
    LsraAllocation alloc;
    last = alloc.Run(X86(), in.f, in.build).value();
    benchmark::DoNotOptimize(alloc);
  }
  state.SetItemsProcessed(state.iterations() * in.insts);
  double live_ins = 0;
  for (Block b : in.f.layout()) live_ins += static_cast<double>(in.sets.LiveIn(b).size());
  state.counters["live_ins"] = live_ins;
  state.counters["splits"] = last.splits;
  state.counters["stack_pieces"] = last.spilled;
}
BENCHMARK(BM_LsraAllocate)->RangeMultiplier(10)->Range(1000, 1000000)->Unit(benchmark::kMillisecond);

void BM_LsraResolve(benchmark::State& state) {
  Built in(static_cast<int>(state.range(0)));
  LsraAllocation alloc;
  (void)alloc.Run(X86(), in.f, in.build).value();
  for (auto _ : state) {
    state.PauseTiming();
    auto copy = std::make_unique<Function>(in.f);
    auto a = std::make_unique<LsraAllocation>(alloc);
    state.ResumeTiming();
    (void)ResolveLsra(X86(), *copy, in.build, *a).value();
    benchmark::DoNotOptimize(*copy);
    // Freeing the copies is the harness's work, not resolution's.
    state.PauseTiming();
    copy.reset();
    a.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * in.insts);
}
BENCHMARK(BM_LsraResolve)->RangeMultiplier(10)->Range(1000, 1000000)->Unit(benchmark::kMillisecond);

// The whole allocator: build, allocate, resolve, with a warm `build`.
void RunLsra(const Target& t, Function& f, LsraBuild& build) {
  LiveSets sets(f);
  (void)build.Run(t, f, sets).value();
  LsraAllocation alloc;
  (void)alloc.Run(t, f, build).value();
  (void)ResolveLsra(t, f, build, alloc).value();
}

void BM_LsraAllocator(benchmark::State& state) {
  const Target& t = *TargetByName("x86_64").value();
  const Function& f = BenchmarkFunction(static_cast<int>(state.range(0)), t);
  int insts = f.CountInstsInLayout();
  LsraBuild build;
  {
    // A warm context, as in BM_LsraBuild.
    Function copy = f;
    LiveSets sets(copy);
    (void)build.Run(t, copy, sets).value();
  }
  for (auto _ : state) {
    state.PauseTiming();
    Function copy = f;
    state.ResumeTiming();
    RunLsra(t, copy, build);
    benchmark::DoNotOptimize(copy);
  }
  state.SetItemsProcessed(state.iterations() * insts);
}
BENCHMARK(BM_LsraAllocator)->RangeMultiplier(10)->Range(1000, 1000000)->Unit(benchmark::kMillisecond);

// The whole allocator on real code: every function of the LLVM corpus
// (testdata/llvm) for x86-64 (0) or AArch64 (1), with one warm LsraBuild.
void BM_LsraAllocatorLlvmCorpus(benchmark::State& state) {
  const RealFunctions& real = LlvmCorpusFunctions(state.range(0) == 0 ? "x86_64" : "aarch64");
  const Target& t = *real.target;
  LsraBuild build;
  for (auto _ : state) {
    for (const Function& f : real.funcs) {
      state.PauseTiming();
      Function copy = f;
      state.ResumeTiming();
      RunLsra(t, copy, build);
      benchmark::DoNotOptimize(copy);
    }
  }
  state.SetItemsProcessed(state.iterations() * real.insts);
  state.SetLabel(std::string(t.name()));
}
BENCHMARK(BM_LsraAllocatorLlvmCorpus)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace regalloc
