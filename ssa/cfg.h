// Control-flow graph analyses: successors and predecessors (per edge), reverse
// post-order, the dominator tree, the loop nest, and critical edges.
//
//   ControlFlowGraph cfg(func);
//   DominatorTree dom(func, cfg);
//   if (dom.Dominates(b1, b2)) ...
//   LoopNest loops(func, cfg, dom);
//   int depth = loops.depth(b);        // 0 outside loops
//
// All are computed from the function as it is and never updated in place: after a
// phase changes the CFG, compute them again. `Compute` recomputes an object for
// another function (or the same one changed), reusing its buffers: an allocator
// that keeps these objects allocates nothing for them once warm. Blocks not in the layout, and blocks
// unreachable from the entry, have no RPO number and no dominator.
#ifndef REGALLOC_SSA_CFG_H_
#define REGALLOC_SSA_CFG_H_

#include <functional>
#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "base/compressed_rows.h"
#include "ssa/ir.h"

namespace regalloc {

// One CFG edge: the branch in `from`, which of its targets (0 or 1), and `to`.
struct Edge {
  Block from;
  Block to;
  Inst branch;
  int target = 0;
};

class ControlFlowGraph {
 public:
  ControlFlowGraph() = default;
  explicit ControlFlowGraph(const Function& func) { Compute(func); }
  void Compute(const Function& func);

  // Edges leaving / entering a block, in branch-target order / discovery order.
  // A `br` with both targets equal contributes two edges.
  absl::Span<const Edge> succs(Block b) const { return succs_.Row(b.index()); }
  absl::Span<const Edge> preds(Block b) const { return preds_.Row(b.index()); }
  // Reachable blocks in reverse post-order (entry first).
  const std::vector<Block>& rpo() const { return rpo_; }
  // Position of `b` in rpo(), or -1 when unreachable.
  int rpo_number(Block b) const { return rpo_number_[b.index()]; }
  bool Reachable(Block b) const { return rpo_number_[b.index()] >= 0; }
  // An edge is critical when its source has several successor edges and its
  // target several predecessor edges: moves for it belong on neither end.
  bool IsCritical(const Edge& e) const { return succs(e.from).size() > 1 && preds(e.to).size() > 1; }
  std::vector<Edge> CriticalEdges() const;
  // Every edge, by source block.
  absl::Span<const Edge> all_edges() const { return succs_.all(); }

 private:
  CompressedRows<Edge> succs_;
  CompressedRows<Edge> preds_;
  std::vector<Block> rpo_;
  std::vector<int> rpo_number_;
  // Compute's scratch.
  std::vector<Edge> edges_;
  std::vector<uint8_t> visited_;
  std::vector<std::pair<Block, size_t>> stack_;
};

// Immediate dominators by Cooper, Harvey & Kennedy, "A Simple, Fast Dominance
// Algorithm" (2001): iterate `idom[b] = intersect(processed preds)` over the RPO
// until stable. Dominance queries are O(1) through pre/post numbers of a DFS of the
// dominator tree.
class DominatorTree {
 public:
  DominatorTree() = default;
  DominatorTree(const Function& func, const ControlFlowGraph& cfg) { Compute(func, cfg); }
  void Compute(const Function& func, const ControlFlowGraph& cfg);

  // The immediate dominator; invalid for the entry and unreachable blocks.
  Block idom(Block b) const { return idom_[b.index()]; }
  absl::Span<const Block> children(Block b) const { return children_.Row(b.index()); }
  // Reflexive: every reachable block dominates itself. False if either is unreachable.
  bool Dominates(Block a, Block b) const {
    return pre_[a.index()] >= 0 && pre_[b.index()] >= 0 && pre_[a.index()] <= pre_[b.index()] &&
           post_[b.index()] <= post_[a.index()];
  }
  // Blocks in a pre-order walk of the dominator tree (the order SSA coloring visits).
  const std::vector<Block>& preorder() const { return preorder_; }

 private:
  std::vector<Block> idom_;
  CompressedRows<Block> children_;
  std::vector<int> pre_;
  std::vector<int> post_;
  std::vector<Block> preorder_;
  // Compute's scratch.
  std::vector<int> rpo_idom_;
  std::vector<Block> non_entry_;
  std::vector<std::pair<Block, size_t>> stack_;
};

// Natural loops: for each back edge (an edge whose target dominates its source) the
// loop of its header is the set of blocks reaching the source without passing the
// header. Loops with the same header merge; loops nest by containment. Irreducible
// cycles (no dominating header) form no loop here; their blocks keep the depth of
// the loops around them.
class LoopNest {
 public:
  LoopNest() = default;
  LoopNest(const Function& func, const ControlFlowGraph& cfg, const DominatorTree& dom) { Compute(func, cfg, dom); }
  void Compute(const Function& func, const ControlFlowGraph& cfg, const DominatorTree& dom);

  int num_loops() const { return static_cast<int>(headers_.size()); }
  // Loop nesting depth: 0 outside every loop.
  int depth(Block b) const { return depth_[b.index()]; }
  // The static execution-frequency estimate every cost in the project uses:
  // 10^depth (capped at 10^9), as the weighted costs of the pipeline's stats.
  int64_t Weight(Block b) const {
    int64_t w = 1;
    for (int d = 0; d < depth_[b.index()] && d < 9; ++d) w *= 10;
    return w;
  }
  // The innermost loop containing `b`, or -1.
  int innermost(Block b) const { return innermost_[b.index()]; }
  Block header(int loop) const { return headers_[loop]; }
  // The enclosing loop, or -1 for an outermost loop.
  int parent(int loop) const { return parents_[loop]; }
  bool IsHeader(Block b) const;

 private:
  std::vector<int> depth_;
  std::vector<int> innermost_;
  std::vector<Block> headers_;
  std::vector<int> parents_;
  // Compute's scratch: each loop's blocks, loop after loop.
  std::vector<Block> bodies_;
  std::vector<uint32_t> body_start_;
  std::vector<int> stamp_;
  std::vector<Block> work_;
};

// The three together, for phase objects that keep them between functions.
struct CfgAnalyses {
  ControlFlowGraph cfg;
  DominatorTree dom;
  LoopNest loops;

  void Compute(const Function& func) {
    cfg.Compute(func);
    dom.Compute(func, cfg);
    loops.Compute(func, cfg, dom);
  }
  // Gives the dominator tree's and loop nest's storage back, keeping the
  // graph: for an allocator whose last phases read the graph only, after a
  // large function (base/warm_buffers.h), before the function grows.
  void ReleaseAllButGraph() {
    dom = DominatorTree();
    loops = LoopNest();
  }
};

// Splits every critical edge with a new block holding only a jump, placed in the
// layout after the edge's source; the branch arguments move to the new jump.
// Returns the number of edges split. The second form splits only the critical
// edges `filter` accepts.
int SplitCriticalEdges(Function& func);
int SplitCriticalEdges(Function& func, const std::function<bool(const Edge&)>& filter);

}  // namespace regalloc

#endif  // REGALLOC_SSA_CFG_H_
