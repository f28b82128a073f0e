// Generated functions for benchmarks, built once per process and shared: the
// realistic shape the liveness and allocator benchmarks measure (most values
// single-block, a few hundred long-lived ones, nested loops, calls).
//
//   const Function& f = BenchmarkFunction(100'000, target);
#ifndef REGALLOC_CHECK_BENCHMARK_FUNCTIONS_H_
#define REGALLOC_CHECK_BENCHMARK_FUNCTIONS_H_

#include <string>
#include <vector>

#include "ssa/ir.h"
#include "targets/target.h"

namespace regalloc {

// A legalized generated function of about `insts` instructions with 200
// long-lived values (seed 1), cached per (size, target).
const Function& BenchmarkFunction(int insts, const Target& target);

// The real machine functions of the embedded LLVM corpus (testdata/llvm) for
// `target_name` ("x86_64" or "aarch64"), parsed and legalized, with that target;
// empty for other targets. Built once per process.
struct RealFunctions {
  const Target* target = nullptr;
  std::vector<Function> funcs;
  int insts = 0;  // instructions of all of them
};
const RealFunctions& LlvmCorpusFunctions(const std::string& target_name);

}  // namespace regalloc

#endif  // REGALLOC_CHECK_BENCHMARK_FUNCTIONS_H_
