#include "liveness/liveness_queries.h"

namespace regalloc {

LivenessQueries::LivenessQueries(const Function& func, const ControlFlowGraph& cfg, const DominatorTree& dom)
    : cfg_(cfg),
      dom_(dom),
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
  use_blocks_.Clear();
  std::vector<Block> row;
  for (int v = 0; v < func.num_values(); ++v) {
    row.clear();
    for (const UseAt& u : grouped.Row(v)) {
      if (row.empty() || row.back() != u.block) row.push_back(u.block);
    }
    use_blocks_.AppendRow(row);
  }
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
  Block start[1] = {b};
  return Search(v, start);
}

bool LivenessQueries::IsLiveOut(Value v, Block b) {
  Block d = def_block_[v.index()];
  if (!d.IsValid() || !dom_.Dominates(d, b)) return false;
  std::vector<Block> succs;
  for (const Edge& e : cfg_.succs(b)) succs.push_back(e.to);
  return Search(v, succs);
}

}  // namespace regalloc
