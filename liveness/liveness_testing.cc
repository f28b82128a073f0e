#include "liveness/liveness_testing.h"

#include "ssa/cfg.h"

namespace regalloc {

std::vector<Value> DenseSet::Values() const {
  std::vector<Value> out;
  for (size_t w = 0; w < words_.size(); ++w) {
    for (uint64_t bits = words_[w]; bits != 0; bits &= bits - 1) {
      out.push_back(Value(static_cast<uint32_t>(w * 64 + __builtin_ctzll(bits))));
    }
  }
  return out;
}

DenseLiveness::DenseLiveness(const Function& func) {
  int n = func.num_values();
  size_t nb = func.num_blocks();
  std::vector<DenseSet> use(nb, DenseSet(n)), def(nb, DenseSet(n));
  live_in.assign(nb, DenseSet(n));
  live_out.assign(nb, DenseSet(n));
  for (Block b : func.layout()) {
    DenseSet& u = use[b.index()];
    DenseSet& d = def[b.index()];
    for (const Operand& p : func.block(b).params) d.Set(p.value().index());
    for (Inst i : func.block(b).insts) {
      for (const Operand& op : func.operands(i)) {
        if (op.IsUse() && !d.Test(op.value().index())) u.Set(op.value().index());
      }
      for (const Operand& op : func.operands(i)) {
        if (op.IsDef()) d.Set(op.value().index());
      }
    }
  }
  ControlFlowGraph cfg(func);
  bool changed = true;
  while (changed) {
    changed = false;
    for (auto it = cfg.rpo().rbegin(); it != cfg.rpo().rend(); ++it) {
      size_t b = it->index();
      std::vector<uint64_t>& out = live_out[b].words();
      for (const Edge& e : cfg.succs(*it)) {
        const std::vector<uint64_t>& in = live_in[e.to.index()].words();
        for (size_t w = 0; w < out.size(); ++w) out[w] |= in[w];
      }
      std::vector<uint64_t>& in = live_in[b].words();
      const std::vector<uint64_t>& uw = use[b].words();
      const std::vector<uint64_t>& dw = def[b].words();
      for (size_t w = 0; w < in.size(); ++w) {
        uint64_t next = uw[w] | (out[w] & ~dw[w]);
        if (next != in[w]) {
          in[w] = next;
          changed = true;
        }
      }
    }
  }
}

std::vector<DenseSet> LiveAtEveryPoint(const Function& func, const DenseLiveness& dense, const InstNumbering& num) {
  std::vector<DenseSet> at(static_cast<size_t>(num.num_insts()) * 2, DenseSet(func.num_values()));
  for (Block b : func.layout()) {
    const std::vector<Inst>& insts = func.block(b).insts;
    DenseSet live = dense.live_out[b.index()];
    for (size_t k = insts.size(); k-- > 0;) {
      Inst i = insts[k];
      for (const Operand& op : func.operands(i)) {
        if (op.position() == Position::kLate) live.Set(op.value().index());
      }
      at[num.Late(i).bits()] = live;
      for (const Operand& op : func.operands(i)) {
        if (op.IsDef() && op.position() == Position::kLate) live.Reset(op.value().index());
      }
      for (const Operand& op : func.operands(i)) {
        if (op.position() == Position::kEarly) live.Set(op.value().index());
      }
      if (k == 0) {
        for (const Operand& p : func.block(b).params) live.Set(p.value().index());
      }
      at[num.Early(i).bits()] = live;
      for (const Operand& op : func.operands(i)) {
        if (op.IsDef() && op.position() == Position::kEarly) live.Reset(op.value().index());
      }
      if (k == 0) {
        for (const Operand& p : func.block(b).params) live.Reset(p.value().index());
      }
    }
  }
  return at;
}

}  // namespace regalloc
