#include "liveness/live_sets.h"

#include <algorithm>

#include "ssa/cfg.h"

namespace regalloc {
namespace {

// out = a ∪ b, all sorted.
void Union(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b, std::vector<uint32_t>& out) {
  out.clear();
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
}

}  // namespace

void LiveSets::Compute(const Function& func) {
  global_index_.assign(func.num_values(), -1);
  def_block_.assign(func.num_values(), Block());
  num_global_ = 0;
  block_visits_ = 0;
  // Pass 1: the defining block of every value, and which values appear in more
  // than one block (first block seen; -2 once a second one appears).
  std::vector<int32_t>& seen = seen_;
  seen.assign(func.num_values(), -1);
  auto touch = [&](Value v, Block b) {
    int32_t& s = seen[v.index()];
    if (s == -1) {
      s = static_cast<int32_t>(b.index());
    } else if (s >= 0 && s != static_cast<int32_t>(b.index())) {
      s = -2;
    }
  };
  for (Block b : func.layout()) {
    for (const Operand& p : func.block(b).params) {
      def_block_[p.value().index()] = b;
      touch(p.value(), b);
    }
    for (Inst i : func.block(b).insts) {
      for (const Operand& op : func.operands(i)) {
        if (op.IsDef()) def_block_[op.value().index()] = b;
        touch(op.value(), b);
      }
    }
  }
  for (int v = 0; v < func.num_values(); ++v) {
    if (seen[v] == -2) global_index_[v] = num_global_++;
  }
  std::vector<Value>& global_value = global_value_;
  global_value.assign(num_global_, Value());
  for (int v = 0; v < func.num_values(); ++v) {
    if (global_index_[v] >= 0) global_value[global_index_[v]] = Value(v);
  }

  // Pass 2: per block, upward-exposed uses and defs of global values, as sorted
  // global indexes, in flat rows. In SSA a use in the defining block follows the
  // def, so a use is upward-exposed exactly when the value is defined elsewhere.
  size_t nb = func.num_blocks();
  CompressedRows<uint32_t>& ue = ue_;
  CompressedRows<uint32_t>& defs = defs_;
  ue.Clear();
  defs.Clear();
  std::vector<uint32_t>& u = u_;
  std::vector<uint32_t>& d = d_;
  for (size_t bi = 0; bi < nb; ++bi) {
    Block b(static_cast<uint32_t>(bi));
    u.clear();
    d.clear();
    if (func.block(b).in_layout) {
      for (const Operand& p : func.block(b).params) {
        if (global_index_[p.value().index()] >= 0) d.push_back(global_index_[p.value().index()]);
      }
      for (Inst i : func.block(b).insts) {
        for (const Operand& op : func.operands(i)) {
          int32_t g = global_index_[op.value().index()];
          if (g < 0) continue;
          if (op.IsDef()) {
            d.push_back(g);
          } else if (def_block_[op.value().index()] != b) {
            u.push_back(g);
          }
        }
      }
      std::sort(u.begin(), u.end());
      u.erase(std::unique(u.begin(), u.end()), u.end());
      std::sort(d.begin(), d.end());
    }
    ue.AppendRow(u);
    defs.AppendRow(d);
  }

  // Pass 3: the fixpoint over live-in sets only (live-out is the union of the
  // successors' live-in, taken once at the end). Blocks are visited in post-order
  // first (successors before predecessors); a block whose live-in grows requeues
  // its predecessors.
  ControlFlowGraph& cfg = cfg_;
  cfg.Compute(func);
  std::vector<std::vector<uint32_t>>& in = in_;
  if (in.size() < nb) in.resize(nb);
  for (size_t b = 0; b < nb; ++b) in[b].clear();
  std::vector<uint8_t>& queued = queued_;
  queued.assign(nb, 0);
  std::vector<Block>& work = work_;
  work.assign(cfg.rpo().begin(), cfg.rpo().end());  // popped from the back: post-order
  for (Block b : work) queued[b.index()] = 1;
  std::vector<uint32_t>& out = out_;
  std::vector<uint32_t>& merged = merged_;
  std::vector<uint32_t>& next_in = next_in_;
  auto live_out = [&](Block b) {
    out.clear();
    for (const Edge& e : cfg.succs(b)) {
      Union(out, in[e.to.index()], merged);
      out.swap(merged);
    }
  };
  while (!work.empty()) {
    Block b = work.back();
    work.pop_back();
    queued[b.index()] = 0;
    ++block_visits_;
    live_out(b);
    // in = ue ∪ (out − defs)
    absl::Span<const uint32_t> bd = defs.Row(b.index());
    absl::Span<const uint32_t> bu = ue.Row(b.index());
    merged.clear();
    std::set_difference(out.begin(), out.end(), bd.begin(), bd.end(), std::back_inserter(merged));
    next_in.clear();
    std::set_union(merged.begin(), merged.end(), bu.begin(), bu.end(), std::back_inserter(next_in));
    if (next_in != in[b.index()]) {
      in[b.index()].swap(next_in);
      for (const Edge& e : cfg.preds(b)) {
        if (!queued[e.from.index()]) {
          queued[e.from.index()] = 1;
          work.push_back(e.from);
        }
      }
    }
  }

  // Flatten, translating global indexes back to values (ascending index order is
  // ascending value order, since indexes were given in value order). A block
  // with one successor shares its live-in row as its live-out.
  out_is_in_of_.assign(nb, -1);
  size_t total_in = 0, total_out = 0;
  for (size_t b = 0; b < nb; ++b) {
    total_in += in[b].size();
    absl::Span<const Edge> succs = cfg.succs(Block(static_cast<uint32_t>(b)));
    bool one = !succs.empty() && std::all_of(succs.begin(), succs.end(),
                                             [&](const Edge& e) { return e.to == succs.front().to; });
    if (one) {
      out_is_in_of_[b] = static_cast<int32_t>(succs.front().to.index());
      continue;
    }
    for (const Edge& e : succs) total_out += in[e.to.index()].size();
  }
  live_in_.Clear();
  live_out_.Clear();
  live_in_.Reserve(nb, total_in);
  live_out_.Reserve(nb, total_out);
  std::vector<Value>& row = row_;
  for (size_t b = 0; b < nb; ++b) {
    row.clear();
    for (uint32_t g : in[b]) row.push_back(global_value[g]);
    live_in_.AppendRow(row);
    row.clear();
    if (out_is_in_of_[b] < 0) {
      live_out(Block(static_cast<uint32_t>(b)));
      for (uint32_t g : out) row.push_back(global_value[g]);
    }
    live_out_.AppendRow(row);
  }
  // The working sets are as big as the result: keep them for the next function
  // only when that costs little (a compiler allocating many small functions),
  // not at a million instructions.
  if (total_in > (size_t{1} << 20)) std::vector<std::vector<uint32_t>>().swap(in);
}

bool LiveSets::IsLiveIn(Value v, Block b) const {
  absl::Span<const Value> s = LiveIn(b);
  return std::binary_search(s.begin(), s.end(), v);
}

bool LiveSets::IsLiveOut(Value v, Block b) const {
  absl::Span<const Value> s = LiveOut(b);
  return std::binary_search(s.begin(), s.end(), v);
}

size_t LiveSets::MemoryBytes() const {
  return global_index_.capacity() * sizeof(int32_t) + def_block_.capacity() * sizeof(Block) +
         (live_in_.all().size() + live_out_.all().size()) * sizeof(Value) +
         2 * (out_is_in_of_.size() + 1) * sizeof(uint32_t) + out_is_in_of_.size() * sizeof(int32_t);
}

}  // namespace regalloc
