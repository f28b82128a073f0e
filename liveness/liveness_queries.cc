#include "liveness/liveness_queries.h"

#include <algorithm>

namespace regalloc {

LivenessQueries::LivenessQueries(const Function& func, const ControlFlowGraph& cfg, const DominatorTree& dom,
                                 const LoopNest& loops)
    : cfg_(cfg),
      dom_(dom),
      loops_(loops),
      max_use_rpo_(func.num_values(), -1),
      def_block_(func.num_values()),
      use_mark_(func.num_blocks(), 0),
      visited_(func.num_blocks(), 0) {
  struct UseAt {
    Value value;
    Block block;
  };
  std::vector<UseAt> uses;
  for (Block b : func.layout()) {
    for (const Operand& p : func.block(b).params) def_block_[p.value().index()] = b;
    for (Inst i : func.block(b).insts) {
      for (const Operand& op : func.operands(i)) {
        if (op.IsDef()) {
          def_block_[op.value().index()] = b;
        } else if (uses.empty() || uses.back().value != op.value() || uses.back().block != b) {
          uses.push_back(UseAt{op.value(), b});
        }
      }
    }
  }
  CompressedRows<UseAt> grouped;
  grouped.Build(func.num_values(), uses, [](const UseAt& u) { return u.value.index(); });
  // Reducible iff every retreating edge (to a block not later in RPO) is a back
  // edge (to a dominator).
  for (Block b : cfg.rpo()) {
    for (const Edge& e : cfg.succs(b)) {
      if (cfg.rpo_number(e.to) <= cfg.rpo_number(b) && !dom.Dominates(e.to, b)) reducible_ = false;
    }
  }
  // Topological order of the reduced graph by an iterative DFS that explores the
  // successor with the smaller loop depth (the loop exit) first, so it finishes
  // first and lands after the loop body in reverse post-order.
  topo_.assign(func.num_blocks(), -1);
  if (reducible_ && func.entry().IsValid()) {
    std::vector<Block> post;
    std::vector<uint8_t> seen(func.num_blocks(), 0);
    std::vector<std::pair<Block, int>> dfs = {{func.entry(), 0}};
    seen[func.entry().index()] = 1;
    while (!dfs.empty()) {
      auto& [b, next] = dfs.back();
      absl::Span<const Edge> succs = cfg.succs(b);
      // Order: the successors by ascending loop depth (at most two of them).
      Block order[2];
      int n = 0;
      for (const Edge& e : succs) {
        if (dom.Dominates(e.to, b)) continue;  // back edge: not in the reduced graph
        if (n < 2) order[n++] = e.to;
      }
      if (n == 2 && loops.depth(order[1]) < loops.depth(order[0])) std::swap(order[0], order[1]);
      if (next < n) {
        Block s = order[next++];
        if (!seen[s.index()]) {
          seen[s.index()] = 1;
          dfs.emplace_back(s, 0);
        }
      } else {
        post.push_back(b);
        dfs.pop_back();
      }
    }
    for (size_t i = 0; i < post.size(); ++i) topo_[post[post.size() - 1 - i].index()] = static_cast<int32_t>(i);
  }
  use_blocks_.Clear();
  std::vector<Block> row;
  for (int v = 0; v < func.num_values(); ++v) {
    row.clear();
    for (const UseAt& u : grouped.Row(v)) {
      row.push_back(u.block);
      max_use_rpo_[v] = std::max(max_use_rpo_[v], topo_[u.block.index()]);
    }
    // Sorted by block id, so that "is b a use block of v" is a binary search.
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
    use_blocks_.AppendRow(row);
  }
}

bool LivenessQueries::LoopContains(int loop, Block b) const {
  // Loops nest: `loop` contains b iff it is b's innermost loop or an ancestor of it.
  for (int l = loops_.innermost(b); l >= 0; l = loops_.parent(l)) {
    if (l == loop) return true;
  }
  return false;
}

bool LivenessQueries::ReducibleLiveIn(Value v, Block q) {
  Block d = def_block_[v.index()];
  Block h = q;
  for (int l = loops_.innermost(q); l >= 0 && !LoopContains(l, d); l = loops_.parent(l)) h = loops_.header(l);
  int32_t limit = max_use_rpo_[v.index()];
  if (topo_[h.index()] > limit) return false;
  ++stamp_;
  for (Block u : use_blocks_.Row(v.index())) use_mark_[u.index()] = stamp_;
  uses_marked_ += use_blocks_.Row(v.index()).size();
  if (use_mark_[h.index()] == stamp_) return true;
  // Breadth-first: the nearest use ends a "yes" soonest.
  stack_.clear();
  visited_[h.index()] = stamp_;
  stack_.push_back(h);
  for (size_t next = 0; next < stack_.size(); ++next) {
    Block b = stack_[next];
    ++blocks_visited_;
    for (const Edge& e : cfg_.succs(b)) {
      Block s = e.to;
      // Forward edges of the reduced graph only, and nothing past the last use.
      if (dom_.Dominates(s, b) || visited_[s.index()] == stamp_ || topo_[s.index()] > limit) continue;
      if (use_mark_[s.index()] == stamp_) return true;
      visited_[s.index()] = stamp_;
      stack_.push_back(s);
    }
  }
  return false;
}

bool LivenessQueries::Search(Value v, absl::Span<const Block> starts) {
  Block d = def_block_[v.index()];
  ++stamp_;
  for (Block u : use_blocks_.Row(v.index())) use_mark_[u.index()] = stamp_;
  stack_.clear();
  for (Block s : starts) {
    if (s == d || visited_[s.index()] == stamp_) continue;
    if (use_mark_[s.index()] == stamp_) return true;
    visited_[s.index()] = stamp_;
    stack_.push_back(s);
  }
  while (!stack_.empty()) {
    Block b = stack_.back();
    stack_.pop_back();
    for (const Edge& e : cfg_.succs(b)) {
      Block s = e.to;
      // Reaching the definition again means passing through it: not this value.
      if (s == d || visited_[s.index()] == stamp_) continue;
      if (use_mark_[s.index()] == stamp_) return true;
      visited_[s.index()] = stamp_;
      stack_.push_back(s);
    }
  }
  return false;
}

bool LivenessQueries::IsLiveIn(Value v, Block b) {
  Block d = def_block_[v.index()];
  if (!d.IsValid() || d == b || !dom_.Dominates(d, b)) return false;
  if (reducible_) return ReducibleLiveIn(v, b);
  Block start[1] = {b};
  return Search(v, start);
}

bool LivenessQueries::IsLiveOut(Value v, Block b) {
  Block d = def_block_[v.index()];
  if (!d.IsValid() || !dom_.Dominates(d, b)) return false;
  if (reducible_) {
    // Live out iff live into a successor (an edge back to d passes the definition).
    for (const Edge& e : cfg_.succs(b)) {
      if (e.to != d && IsLiveIn(v, e.to)) return true;
    }
    return false;
  }
  starts_.clear();
  for (const Edge& e : cfg_.succs(b)) starts_.push_back(e.to);
  return Search(v, starts_);
}

}  // namespace regalloc
