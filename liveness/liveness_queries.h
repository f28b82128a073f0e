// Liveness queries for SSA without live sets: is value v live into / out of block
// b? For phases that ask about a few values (SSA coloring at block entry,
// coalescing's interference checks) and for functions too large to keep sets.
//
//   LivenessQueries q(func, cfg, dom);
//   if (q.IsLiveIn(v, b)) ...
//
// Boissinot et al. ("Fast liveness checking for SSA-form programs", CGO 2008)
// answer in time proportional to the uses of v after precomputing, per block, the
// set of blocks reachable without back edges and the back-edge targets above it:
// two n×n bit matrices, 3.9 GB for the 125k blocks of a million-instruction
// function. This class keeps their guarantees — exact answers for strict SSA,
// nothing to recompute when instructions (uses) change as long as the CFG stays,
// no live sets — with linear memory, by exploring paths per query (the
// per-variable exploration of Brandner et al., "Computing liveness sets for
// SSA-form programs", 2011): v is live into b iff v's definition strictly
// dominates b and a use of v is reachable from b without passing through v's
// defining block. The search stays inside the dominance region of that block and
// stops at the first use, so it costs the size of the region it has to cover —
// small for short ranges, up to the function for long-lived values that are not
// live.
#ifndef REGALLOC_LIVENESS_LIVENESS_QUERIES_H_
#define REGALLOC_LIVENESS_LIVENESS_QUERIES_H_

#include <cstdint>
#include <vector>

#include "base/compressed_rows.h"
#include "ssa/cfg.h"
#include "ssa/ir.h"

namespace regalloc {

class LivenessQueries {
 public:
  // `cfg` and `dom` must outlive this object and describe `func`.
  LivenessQueries(const Function& func, const ControlFlowGraph& cfg, const DominatorTree& dom);

  bool IsLiveIn(Value v, Block b);
  bool IsLiveOut(Value v, Block b);

 private:
  // Marks v's use blocks, then searches from `starts` (not entering the def block).
  bool Search(Value v, absl::Span<const Block> starts);

  const ControlFlowGraph& cfg_;
  const DominatorTree& dom_;
  std::vector<Block> def_block_;
  CompressedRows<Block> use_blocks_;
  // Scratch, stamped with a query number instead of cleared.
  uint32_t stamp_ = 0;
  std::vector<uint32_t> use_mark_;
  std::vector<uint32_t> visited_;
  std::vector<Block> stack_;
};

}  // namespace regalloc

#endif  // REGALLOC_LIVENESS_LIVENESS_QUERIES_H_
