// The whole linear-scan allocator (Subzero / RyuJIT) as one reusable object:
// live sets, lsra_build, lsra_allocate and lsra_resolve, with every buffer kept
// between functions. This is the entry point for a compiler that takes the
// allocator whole (the pipeline's `lsra` pipelines, the benchmarks, the LLVM
// plugin); LsraBuild, LsraAllocation and ResolveLsra stay for those who take one
// phase.
//
//   LsraAllocator allocator;                      // once per thread
//   allocator.options().allocate.overlap = false; // every switch is an option
//   for (Function& f : module) {
//     absl::StatusOr<LsraAllocatorStats> s = allocator.Run(f, target);
//   }
//
// Preconditions: `func` is legalized for `target` (ssa/legalize.h), in SSA form
// and verified. Afterwards every operand has a location, block parameters are
// resolved into edge moves (critical edges split where they need moves), ready
// for the checker. Errors are the phases' own.
#ifndef REGALLOC_LSRA_ALLOCATOR_H_
#define REGALLOC_LSRA_ALLOCATOR_H_

#include "absl/status/statusor.h"
#include "liveness/live_sets.h"
#include "lsra/allocate.h"
#include "lsra/build.h"
#include "lsra/resolve.h"
#include "ssa/cfg.h"
#include "ssa/ir.h"
#include "ssa/verifier.h"
#include "targets/target.h"

namespace regalloc {

struct LsraAllocatorOptions {
  LsraBuildOptions build;
  LsraOptions allocate;
  LsraResolveOptions resolve;  // Run's (Resolve takes its own)
};

struct LsraAllocatorStats {
  LsraBuildStats build;
  LsraAllocStats allocate;
  LsraResolveStats resolve;
};

class LsraAllocator {
 public:
  explicit LsraAllocator(const LsraAllocatorOptions& options = LsraAllocatorOptions()) : options_(options) {}

  LsraAllocatorOptions& options() { return options_; }
  const LsraAllocatorOptions& options() const { return options_; }

  absl::StatusOr<LsraAllocatorStats> Run(Function& func, const Target& target);

  // The same in its three steps, for a driver that shows each one's result (the
  // pipeline's lsra_build, lsra_allocate and lsra_resolve phases): call them in
  // order on one function; Run is the three together.
  absl::StatusOr<LsraBuildStats> Build(Function& func, const Target& target);
  absl::StatusOr<LsraAllocStats> Allocate(Function& func, const Target& target);
  absl::StatusOr<LsraResolveStats> Resolve(Function& func, const Target& target,
                                           const LsraResolveOptions& options = LsraResolveOptions());
  // What the steps left, for dumps.
  const LsraBuild& build() const { return build_; }
  const LsraAllocation& allocation() const { return alloc_; }

 private:
  LsraAllocatorOptions options_;
  FunctionVerifier verifier_;
  CfgAnalyses analyses_;  // the function's, from the verifier: the sets, build and resolution share them
  LiveSets sets_;
  LsraBuild build_;
  LsraAllocation alloc_;
  LsraResolver resolver_;
};

}  // namespace regalloc

#endif  // REGALLOC_LSRA_ALLOCATOR_H_
