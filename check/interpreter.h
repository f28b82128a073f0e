// The interpreter: runs a function on values (SSA semantics, locations ignored)
// or on a machine (registers by byte, a stack frame, memory), so that an
// allocation can be compared with the function it came from.
//
//   std::vector<Bits> args = ArgumentsForSeed(original, seed);
//   RA_RETURN_IF_ERROR(CompareExecutions(original, allocated, target, seed));
//
// Semantics (total: no input has undefined behaviour):
//  - integers wrap; `div` by zero gives 0 and INT_MIN / -1 gives INT_MIN; `rem` by
//    zero gives the dividend and INT_MIN % -1 gives 0; shift counts are taken
//    modulo the width; `cmp` gives 1 or 0 (signed lt/le/gt/ge, unsigned u*;
//    floats compare ordered, so NaN fails all but `ne`);
//  - memory is 64 KiB, zero-filled then seeded; an access at address a + offset
//    goes to (a + offset) mod 64 Ki (integers read as signed), little-endian;
//  - `const.v128 imm` puts imm in the low 64 bits;
//  - `call` is an opaque, deterministic function of the callee's name and the
//    argument bits (finite floats for float results); it does not touch memory.
// The machine run writes every value zero-extended to the whole register, reads
// the low bytes of its type; fills every register with garbage at entry, fills
// clobbered registers and Early-def locations with garbage before Late uses are
// read (so an early clobber or a value kept in a caller-saved register across a
// call is caught), and at `ret` requires callee-saved registers not in the frame's
// `saves` to hold their entry bytes.
#ifndef REGALLOC_CHECK_INTERPRETER_H_
#define REGALLOC_CHECK_INTERPRETER_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ssa/ir.h"
#include "targets/target.h"

namespace regalloc {

// The bits of one value (v128 uses both halves; narrower types the low bits).
struct Bits {
  uint64_t lo = 0;
  uint64_t hi = 0;
  friend bool operator==(const Bits& a, const Bits& b) { return a.lo == b.lo && a.hi == b.hi; }
  friend bool operator!=(const Bits& a, const Bits& b) { return !(a == b); }
};

struct InterpOptions {
  // Instructions before giving up (a runaway loop). CompareExecutions gives the
  // allocation 17 times as many: its moves, spills and reloads are steps too.
  int64_t step_limit = 5'000'000;
  uint64_t seed = 1;               // initial memory and register garbage
};

// What a run leaves: its results and memory, and how long it ran. The trace of
// computed values is compared as the runs go (CompareExecutions), never kept, so
// memory does not grow with the number of steps.
struct Execution {
  std::vector<Bits> results;
  std::vector<uint8_t> memory;
  int64_t steps = 0;   // instructions executed
  int64_t events = 0;  // of them, instructions with results that are not move-like
};

inline constexpr int kMemorySize = 1 << 16;

// Unimplemented, naming the first one, when `func` holds an opaque target
// instruction (`inst`, `branch`: imported machine code), whose semantics the
// interpreter does not know; every run below starts with this check.
absl::Status CheckInterpretable(const Function& func);

// Deterministic arguments for `func`'s parameters.
std::vector<Bits> ArgumentsForSeed(const Function& func, uint64_t seed);

// Runs on values: SSA semantics; move-likes copy values; locations are ignored.
absl::StatusOr<Execution> RunOnValues(const Function& func, absl::Span<const Bits> args, const InterpOptions& options);

// Runs on the machine: every operand reads and writes its location.
// FailedPrecondition if an operand has no location.
absl::StatusOr<Execution> RunOnMachine(const Function& func, const Target& target, absl::Span<const Bits> args,
                                       const InterpOptions& options);

// Runs `original` on values and `allocated` on the machine from the same
// arguments and memory; InvalidArgument naming the first diverging instruction,
// or the differing result or memory byte, when they disagree. Only values the
// original computes with instructions are compared step by step (values some
// instruction of the original that is not move-like defines); copies phases add
// are skipped. Runs are matched on the defined value ids, which allocation
// preserves (an allocator may renumber or add instructions, never rename a value
// it computes). Streams: the original and the allocation run in lockstep, so
// memory is independent of the number of steps.
absl::Status CompareExecutions(const Function& original, const Function& allocated, const Target& target,
                               uint64_t seed, const InterpOptions& options = {});

}  // namespace regalloc

#endif  // REGALLOC_CHECK_INTERPRETER_H_
