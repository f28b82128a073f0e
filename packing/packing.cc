#include "packing/packing.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "base/warm_buffers.h"
#include "ssa/verifier.h"

namespace regalloc {

PackingAllocator::PackingAllocator(const PackingOptions& options)
    : options_(options),
      pack_buffers_(std::make_unique<PackBuffers>()),
      transform_buffers_(std::make_unique<PackingTransformBuffers>()) {}
PackingAllocator::~PackingAllocator() = default;

absl::Status PackingAllocator::Expect(const Function& func, int step, const char* name) const {
  if (function_ != &func || step_ != step) {
    return absl::FailedPreconditionError(absl::StrCat("function %", func.name(), ": the packing step ", name,
                                                      " runs after the step before it on the same function"));
  }
  return absl::OkStatus();
}

absl::StatusOr<PackingStats> PackingAllocator::Allocations(Function& func, const Target& target) {
  function_ = nullptr;
  step_ = 0;
  if (func.IsAllocated()) {
    return absl::FailedPreconditionError(absl::StrCat("function %", func.name(), " is already allocated"));
  }
  // One set of analyses from the verifier to the transform (SplitLoopEntries
  // computes them again only where it splits an edge).
  RA_RETURN_IF_ERROR(verifier_.Run(func, target, analyses_));
  RA_RETURN_IF_ERROR(CheckRegisterDemand(func, target));
  stats_ = PackingStats();
  stats_.loop_entries_split = SplitLoopEntries(func, analyses_, split_outside_preds_);
  ReleaseAfterLargeFunction(func.num_insts(), split_outside_preds_);
  RA_RETURN_IF_ERROR(BuildPackingProblem(func, target, options_, problem_, analyses_));
  // The transform's lowering reads the graph only: after a large function the
  // rest goes before the function grows.
  if (func.num_insts() > kWarmBufferInsts) analyses_.ReleaseAllButGraph();
  stats_.items = static_cast<int>(problem_.items().size());
  stats_.timespans = static_cast<int>(problem_.timespans().size());
  stats_.allocations = static_cast<int>(problem_.allocations().size());
  for (int c = 0; c < target.num_classes(); ++c) stats_.scratch += static_cast<int>(problem_.Scratch(RegClass(c)).size());
  stats_.problem_bytes = static_cast<int64_t>(problem_.MemoryBytes());
  if (options_.dump) {
    std::string scratch;
    for (int c = 0; c < target.num_classes(); ++c) {
      for (PReg r : problem_.Scratch(RegClass(c))) absl::StrAppend(&scratch, " %", target.RegName(r));
    }
    absl::StrAppend(&stats_.printed, "packing %", func.name(), " (", options_.goal == PackingGoal::kTime ? "time" : "size",
                    " goal): ", stats_.items, " items, ", stats_.timespans, " timespans, scratch", scratch, "\n",
                    PrintPackingProblem(func, problem_));
  }
  function_ = &func;
  step_ = 1;
  return stats_;
}

absl::StatusOr<PackingStats> PackingAllocator::Pack(const Function& func, const Target& target) {
  RA_RETURN_IF_ERROR(Expect(func, 1, "pack"));
  RA_RETURN_IF_ERROR(regalloc::Pack(problem_, target, options_, decisions_, *pack_buffers_));
  ReleaseAfterLargeFunction(func.num_insts(), pack_buffers_);  // before the transform's peak
  stats_.packed = decisions_.packed;
  stats_.promoted = decisions_.promoted;
  stats_.yield_lost = decisions_.yield_lost;
  stats_.registers = decisions_.registers;
  if (options_.dump) absl::StrAppend(&stats_.printed, decisions_.printed);
  step_ = 2;
  return stats_;
}

absl::StatusOr<PackingStats> PackingAllocator::Transform(Function& func, const Target& target) {
  RA_RETURN_IF_ERROR(Expect(func, 2, "transform"));
  function_ = nullptr;
  step_ = 0;
  RA_ASSIGN_OR_RETURN(stats_.transform, TransformPacking(func, target, problem_, decisions_, options_.lower_params,
                                                         *transform_buffers_));
  ReleaseAfterLargeFunction(func.num_insts(), transform_buffers_);
  ReleaseAfterLargeFunction(func.num_insts(), analyses_);
  return stats_;
}

absl::StatusOr<PackingStats> PackingAllocator::Run(Function& func, const Target& target) {
  RA_RETURN_IF_ERROR(Allocations(func, target).status());
  RA_RETURN_IF_ERROR(Pack(func, target).status());
  return Transform(func, target);
}

}  // namespace regalloc
