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
// no live sets — with linear memory, by searching per query instead of
// precomputing:
//  - On a reducible CFG (every retreating edge goes to a dominator) it uses the
//    loop-forest form of their test: v (defined in d) is live into q iff d
//    strictly dominates q and a use of v is reachable in the reduced graph (back
//    edges removed) from h, the header of the outermost loop that contains q but
//    not d (q itself when there is none). Reduced-graph paths only go forward in
//    reverse post-order, so the search prunes every block numbered past v's last
//    use block and answers "no" at once when h is past it.
//  - On an irreducible CFG it falls back to exploring paths from q that don't
//    pass through d (Brandner et al., "Computing liveness sets for SSA-form
//    programs", 2011), inside d's dominance region.
// Either search stops at the first use it reaches.
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
  // `cfg`, `dom` and `loops` must outlive this object and describe `func`.
  LivenessQueries(const Function& func, const ControlFlowGraph& cfg, const DominatorTree& dom, const LoopNest& loops);
  bool reducible() const { return reducible_; }
  // Work done so far: blocks a search visited, use blocks it marked.
  int64_t blocks_visited() const { return blocks_visited_; }
  int64_t uses_marked() const { return uses_marked_; }

  bool IsLiveIn(Value v, Block b);
  bool IsLiveOut(Value v, Block b);

 private:
  // Marks v's use blocks, then searches from `starts` (not entering the def block).
  bool Search(Value v, absl::Span<const Block> starts);
  // The reducible-CFG test from `q`.
  bool ReducibleLiveIn(Value v, Block q);
  bool LoopContains(int loop, Block b) const;

  const ControlFlowGraph& cfg_;
  const DominatorTree& dom_;
  const LoopNest& loops_;
  bool reducible_ = true;
  // A topological order of the reduced graph in which loop bodies come before
  // the code after the loop (the CFG's RPO puts them after it, which would make
  // every use in a loop look late and defeat the pruning).
  std::vector<int32_t> topo_;
  std::vector<int32_t> max_use_rpo_;  // per value, its last use block in topo_ order
  int64_t blocks_visited_ = 0;
  int64_t uses_marked_ = 0;  // per value, the last use block in RPO (-1: none)
  std::vector<Block> def_block_;
  CompressedRows<Block> use_blocks_;
  // Scratch, stamped with a query number instead of cleared.
  uint32_t stamp_ = 0;
  std::vector<uint32_t> use_mark_;
  std::vector<uint32_t> visited_;
  std::vector<Block> stack_;
  std::vector<Block> starts_;
};

}  // namespace regalloc

#endif  // REGALLOC_LIVENESS_LIVENESS_QUERIES_H_
