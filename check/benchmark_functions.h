// Generated functions for benchmarks, built once per process and shared: the
// realistic shape the liveness and allocator benchmarks measure (most values
// single-block, a few hundred long-lived ones, nested loops, calls).
//
//   const Function& f = BenchmarkFunction(100'000, target);
#ifndef REGALLOC_CHECK_BENCHMARK_FUNCTIONS_H_
#define REGALLOC_CHECK_BENCHMARK_FUNCTIONS_H_

#include "ssa/ir.h"
#include "targets/target.h"

namespace regalloc {

// A legalized generated function of about `insts` instructions with 200
// long-lived values (seed 1), cached per (size, target).
const Function& BenchmarkFunction(int insts, const Target& target);

}  // namespace regalloc

#endif  // REGALLOC_CHECK_BENCHMARK_FUNCTIONS_H_
