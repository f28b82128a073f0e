#include "ssa/cfg.h"

#include <algorithm>
#include <utility>

namespace regalloc {

void ControlFlowGraph::Compute(const Function& func) {
  rpo_number_.assign(func.num_blocks(), -1);
  rpo_.clear();
  std::vector<Edge>& edges = edges_;
  edges.clear();
  for (Block b : func.layout()) {
    Inst term = func.Terminator(b);
    if (!term.IsValid()) continue;
    absl::Span<const BranchTarget> targets = func.targets(term);
    for (int t = 0; t < static_cast<int>(targets.size()); ++t) {
      Block to = targets[t].block;
      if (func.BlockExists(to)) edges.push_back(Edge{b, to, term, t});
    }
  }
  succs_.Build(func.num_blocks(), edges, [](const Edge& e) { return e.from.index(); });
  preds_.Build(func.num_blocks(), edges, [](const Edge& e) { return e.to.index(); });
  // Iterative DFS for the post-order (a million blocks must not overflow the stack).
  Block entry = func.entry();
  if (!entry.IsValid()) return;
  std::vector<uint8_t>& visited = visited_;
  visited.assign(func.num_blocks(), 0);
  std::vector<std::pair<Block, size_t>>& stack = stack_;
  stack.clear();
  std::vector<Block>& post = rpo_;  // reversed below
  stack.emplace_back(entry, 0);
  visited[entry.index()] = 1;
  while (!stack.empty()) {
    auto& [b, next] = stack.back();
    absl::Span<const Edge> s = succs(b);
    if (next < s.size()) {
      Block to = s[next++].to;
      if (!visited[to.index()] && func.block(to).in_layout) {
        visited[to.index()] = 1;
        stack.emplace_back(to, 0);
      }
    } else {
      post.push_back(b);
      stack.pop_back();
    }
  }
  std::reverse(rpo_.begin(), rpo_.end());
  for (size_t i = 0; i < rpo_.size(); ++i) rpo_number_[rpo_[i].index()] = static_cast<int>(i);
}

std::vector<Edge> ControlFlowGraph::CriticalEdges() const {
  std::vector<Edge> out;
  for (const Edge& e : succs_.all()) {
    if (IsCritical(e)) out.push_back(e);
  }
  return out;
}

void DominatorTree::Compute(const Function& func, const ControlFlowGraph& cfg) {
  idom_.assign(func.num_blocks(), Block());
  pre_.assign(func.num_blocks(), -1);
  post_.assign(func.num_blocks(), -1);
  preorder_.clear();
  const std::vector<Block>& rpo = cfg.rpo();
  if (rpo.empty()) {
    children_.Build(func.num_blocks(), absl::Span<const Block>(), [](Block b) { return b.index(); });
    return;
  }
  // Work on RPO numbers: intersect walks up by comparing them.
  std::vector<int>& idom = rpo_idom_;
  idom.assign(rpo.size(), -1);
  idom[0] = 0;
  auto intersect = [&](int a, int b) {
    while (a != b) {
      while (a > b) a = idom[a];
      while (b > a) b = idom[b];
    }
    return a;
  };
  bool changed = true;
  while (changed) {
    changed = false;
    for (size_t i = 1; i < rpo.size(); ++i) {
      int new_idom = -1;
      for (const Edge& e : cfg.preds(rpo[i])) {
        int p = cfg.rpo_number(e.from);
        if (p < 0 || idom[p] < 0) continue;
        new_idom = new_idom < 0 ? p : intersect(p, new_idom);
      }
      if (new_idom != idom[i]) {
        idom[i] = new_idom;
        changed = true;
      }
    }
  }
  std::vector<Block>& non_entry = non_entry_;
  non_entry.assign(rpo.begin() + 1, rpo.end());
  for (size_t i = 1; i < rpo.size(); ++i) idom_[rpo[i].index()] = rpo[idom[i]];
  children_.Build(func.num_blocks(), non_entry, [&](Block b) { return idom_[b.index()].index(); });
  // Pre/post numbering of the dominator tree, iteratively.
  int counter = 0;
  std::vector<std::pair<Block, size_t>>& stack = stack_;
  stack.assign(1, {rpo[0], 0});
  pre_[rpo[0].index()] = counter++;
  preorder_.push_back(rpo[0]);
  while (!stack.empty()) {
    auto& [b, next] = stack.back();
    absl::Span<const Block> kids = children(b);
    if (next < kids.size()) {
      Block c = kids[next++];
      pre_[c.index()] = counter++;
      preorder_.push_back(c);
      stack.emplace_back(c, 0);
    } else {
      post_[b.index()] = counter++;
      stack.pop_back();
    }
  }
}

void LoopNest::Compute(const Function& func, const ControlFlowGraph& cfg, const DominatorTree& dom) {
  depth_.assign(func.num_blocks(), 0);
  innermost_.assign(func.num_blocks(), -1);
  headers_.clear();
  bodies_.clear();
  body_start_.assign(1, 0);
  // Headers in RPO order, so an outer loop's header precedes its inner loops'.
  std::vector<int>& stamp = stamp_;
  stamp.assign(func.num_blocks(), -1);
  std::vector<Block>& work = work_;
  for (Block h : cfg.rpo()) {
    work.clear();
    for (const Edge& e : cfg.preds(h)) {
      if (dom.Dominates(h, e.from)) work.push_back(e.from);
    }
    if (work.empty()) continue;
    int loop = static_cast<int>(headers_.size());
    headers_.push_back(h);
    bodies_.push_back(h);
    stamp[h.index()] = loop;
    while (!work.empty()) {
      Block b = work.back();
      work.pop_back();
      if (stamp[b.index()] == loop || !cfg.Reachable(b)) continue;
      stamp[b.index()] = loop;
      bodies_.push_back(b);
      for (const Edge& e : cfg.preds(b)) work.push_back(e.from);
    }
    body_start_.push_back(static_cast<uint32_t>(bodies_.size()));
  }
  // Outer loops come first in `headers_`; assigning innermost in that order leaves
  // each block with its innermost loop, and each loop's parent is the innermost
  // loop (seen before it) that contains its header.
  parents_.assign(headers_.size(), -1);
  for (size_t l = 0; l < headers_.size(); ++l) {
    parents_[l] = innermost_[headers_[l].index()];
    for (uint32_t k = body_start_[l]; k < body_start_[l + 1]; ++k) {
      Block b = bodies_[k];
      innermost_[b.index()] = static_cast<int>(l);
      ++depth_[b.index()];
    }
  }
}

bool LoopNest::IsHeader(Block b) const {
  // A header's innermost loop is its own: a loop nested inside it has a header
  // the outer header dominates, so containing the outer header would make the
  // two headers dominate each other.
  const int l = innermost_[b.index()];
  return l >= 0 && headers_[l] == b;
}

int SplitCriticalEdges(Function& func) {
  return SplitCriticalEdges(func, [](const Edge&) { return true; });
}

int SplitCriticalEdges(Function& func, const std::function<bool(const Edge&)>& filter) {
  ControlFlowGraph cfg(func);
  std::vector<Edge> critical = cfg.CriticalEdges();
  critical.erase(std::remove_if(critical.begin(), critical.end(), [&](const Edge& e) { return !filter(e); }),
                 critical.end());
  // New blocks go after their source, in edge order; the layout is rebuilt once.
  std::vector<std::vector<Block>> placed_after(func.num_blocks());
  for (const Edge& e : critical) {
    Block mid = func.NewBlock();
    placed_after[e.from.index()].push_back(mid);
    const BranchTarget bt = func.targets(e.branch)[e.target];
    absl::Span<const Operand> moved = func.BranchArgs(e.branch, e.target);
    std::vector<Operand> args(moved.begin(), moved.end());
    // The new block jumps on with the arguments; the branch now passes none.
    InstData jump;
    jump.opcode = Opcode::kJump;
    const BranchTarget to[] = {{bt.block, 0, static_cast<uint16_t>(args.size())}};
    Inst j = func.NewInst(jump, args, to);  // may reallocate the instruction table
    func.block(mid).insts.push_back(j);
    // The branch passes this target's arguments no more, and jumps to mid.
    func.SpliceBranchArgs(e.branch, e.target, 0, bt.num_args, {});
    func.mutable_targets(e.branch)[e.target].block = mid;
  }
  if (!critical.empty()) {
    std::vector<Block> layout;
    layout.reserve(func.layout().size() + critical.size());
    for (Block b : func.layout()) {
      layout.push_back(b);
      if (b.index() < placed_after.size()) {
        layout.insert(layout.end(), placed_after[b.index()].begin(), placed_after[b.index()].end());
      }
    }
    func.SetLayout(std::move(layout));
  }
  return static_cast<int>(critical.size());
}

}  // namespace regalloc

