// The packing allocator after the Amsterdam Compiler Kit's global optimizer
// (util/ego/ra: ra_items, ra_lifet, ra_interv, ra_profits, ra_pack, ra_xform),
// the fourth allocator family. One reusable object, as for the others:
//
//   PackingAllocator allocator;                   // once per thread
//   allocator.options().goal = PackingGoal::kSize;
//   absl::StatusOr<PackingStats> s = allocator.Run(func, target);
//
// The flow, each step a function of the library with explicit inputs and
// outputs (a driver may run them one by one, as the pipeline's
// packing_allocations, packing_pack and packing_transform do):
//  1. SplitLoopEntries, then BuildPackingProblem (allocations.h): items,
//     timespans (the whole function and the loops with one entry), the
//     allocation list with busy ranges, the pins and scratch registers that
//     decide rivals, and the profits for the goal.
//  2. Pack (pack.h): registers for allocations, by the goal's order; the
//     callee-save yield check.
//  3. TransformPacking (transform.h): initializations, operand locations,
//     stores, scratch reloads, moves for fixed and reuse operands, the frame's
//     saved registers; block parameters lowered.
// It is a faithful 1980s design: a value is in one register for a whole
// timespan or in memory, nothing is split at a finer grain, and the scratch
// registers are withheld from the packing for the whole function.
//
// Preconditions: `func` is legalized for `target`, verified, in SSA form, not
// allocated (FailedPrecondition otherwise).
#ifndef REGALLOC_PACKING_PACKING_H_
#define REGALLOC_PACKING_PACKING_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "packing/allocations.h"
#include "packing/pack.h"
#include "packing/transform.h"
#include "ssa/cfg.h"
#include "ssa/ir.h"
#include "ssa/verifier.h"
#include "targets/target.h"

namespace regalloc {

struct PackingStats {
  int loop_entries_split = 0;
  int items = 0;
  int timespans = 0;        // the whole function and the loops with one entry
  int allocations = 0;      // (item, timespan) pairs considered
  int scratch = 0;          // scratch registers withheld, all classes
  int64_t problem_bytes = 0;  // the allocation list with busy ranges and pins
  int packed = 0;
  int promoted = 0;
  int yield_lost = 0;
  int registers = 0;        // distinct registers handed out
  PackingTransformStats transform;
  std::string printed;      // with PackingOptions::dump
};

class PackingAllocator {
 public:
  explicit PackingAllocator(const PackingOptions& options = PackingOptions());
  ~PackingAllocator();

  PackingOptions& options() { return options_; }
  const PackingOptions& options() const { return options_; }

  absl::StatusOr<PackingStats> Run(Function& func, const Target& target);

  // The same in three steps on one function; options may change in between
  // (the goal and `loops` are read by the first step, `yield` by the second).
  absl::StatusOr<PackingStats> Allocations(Function& func, const Target& target);
  absl::StatusOr<PackingStats> Pack(const Function& func, const Target& target);
  absl::StatusOr<PackingStats> Transform(Function& func, const Target& target);

  // Of the last function, for tests and tools.
  const PackingProblem& problem() const { return problem_; }
  const PackingDecisions& decisions() const { return decisions_; }

 private:
  absl::Status Expect(const Function& func, int step, const char* name) const;

  PackingOptions options_;
  PackingProblem problem_;
  PackingDecisions decisions_;
  // The steps' buffers, kept between functions.
  FunctionVerifier verifier_;
  CfgAnalyses analyses_;  // the function's, from the verifier to the transform
  std::vector<int> split_outside_preds_;
  std::unique_ptr<PackBuffers> pack_buffers_;
  std::unique_ptr<PackingTransformBuffers> transform_buffers_;
  PackingStats stats_;
  const Function* function_ = nullptr;
  int step_ = 0;  // steps done on function_
};

}  // namespace regalloc

#endif  // REGALLOC_PACKING_PACKING_H_
