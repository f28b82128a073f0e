// Deterministic random functions for tests, fuzzing and benchmarks.
//
//   GeneratorOptions opts;
//   opts.num_insts = 10'000;
//   absl::StatusOr<Function> f = Generate(/*seed=*/42, opts, target);
//
// The same (seed, options, target) gives the same function on every machine (the
// generator does its own arithmetic on a 64-bit SplitMix stream rather than rely
// on std:: distributions, which differ between standard libraries).
//
// Shape: a structured CFG of straight-line runs, diamonds (if/else joining in a
// block with parameters), diamonds with a critical edge (`br c, join(..), then`),
// and counted loops (a header with loop-carried parameters, a counter that makes
// every loop run `loop_trips` times, so the interpreter terminates). Operands
// come from a pool of `long_lived` values defined in the entry block and used all
// over the function (register pressure well above the register count) and from
// recently defined values (short, single-block ranges). Calls, divisions, shifts
// and mixed integer (i8 with `byte_percent`)/float/vector types exercise the constraints that
// legalization attaches (the function is legalized for `target` unless
// `legalize` is false). The result always passes the verifier.
#ifndef REGALLOC_CHECK_GENERATOR_H_
#define REGALLOC_CHECK_GENERATOR_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "ssa/ir.h"
#include "targets/target.h"

namespace regalloc {

struct GeneratorOptions {
  int num_insts = 200;          // approximate instruction count (terminators included)
  int avg_block_insts = 8;      // average straight-line run length
  int long_lived = 24;          // values defined at entry and used throughout
  int max_nesting = 4;          // diamonds and loops inside each other
  int loop_trips = 3;           // iterations of every loop
  int call_percent = 4;         // share of instructions that are calls
  int float_percent = 25;       // share of values that are floats
  int vector_percent = 3;       // share of values that are v128
  int byte_percent = 0;         // share of integer values that are i8 (where the target has them)
  int div_percent = 4;          // share of divisions / remainders
  int memory_percent = 10;      // share of loads and stores
  int diamond_percent = 30;     // chance a region is an if/else
  int critical_percent = 15;    // chance a region is an if with a critical edge
  int loop_percent = 25;        // chance a region is a loop
  // Share of joins, loops, calls and instructions given a shape the plain
  // generator never makes (0: none, and every seed's function is what it was):
  // joins of 12-41 parameters, loops whose parameters rotate, calls of 8-47
  // arguments (most on the stack) reading one value twice, and after
  // legalization a Reuse source fixed to a register, an early def fixed to the
  // register of its own first use, a hand clobber of a callee-saved register.
  int unusual_percent = 0;
  bool legalize = true;         // attach the target's constraints
  std::string name;             // function name; "gen<seed>" when empty
};

absl::StatusOr<Function> Generate(uint64_t seed, const GeneratorOptions& options, const Target& target);

}  // namespace regalloc

#endif  // REGALLOC_CHECK_GENERATOR_H_
