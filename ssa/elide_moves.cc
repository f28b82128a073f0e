#include "ssa/elide_moves.h"

namespace regalloc {
namespace {

constexpr uint32_t kUnknown = ~uint32_t{0};

// The use operand whose bits the def at operand `at` of `i` receives, or -1.
int SourceOf(const Function& f, Inst i, int at) {
  absl::Span<const Operand> ops = f.operands(i);
  switch (f.inst(i).opcode) {
    case Opcode::kCopy:
    case Opcode::kMove:
    case Opcode::kSpill:
    case Opcode::kReload:
      return ops.size() == 2 && at == 0 && ops[1].IsUse() ? 1 : -1;
    case Opcode::kParallelCopy: {
      const int n = static_cast<int>(ops.size() / 2);
      return at < n && ops[n + at].IsUse() ? n + at : -1;
    }
    default:
      return -1;
  }
}

}  // namespace

uint32_t MoveElider::Root(const Function& f, Value v) {
  chain_.clear();
  uint32_t x = v.index(), r;
  while (true) {
    // A value defined more than once (a block parameter after lowering, by
    // each predecessor's parallel copy) has different bits at different
    // points: each question gets a token of its own, equal to nothing else.
    if (defs_[x] > 1 || chain_.size() > root_.size()) {
      r = next_token_++;
      break;
    }
    if (root_[x] != kUnknown) {
      r = root_[x];
      break;
    }
    const int src = def_[x].IsValid() ? SourceOf(f, def_[x], def_at_[x]) : -1;
    if (src < 0) {
      r = root_[x] = x;
      break;
    }
    chain_.push_back(x);
    x = f.operands(def_[x])[src].value().index();
  }
  for (uint32_t c : chain_) root_[c] = r;
  return r;
}

int MoveElider::Run(Function& f, const Target& t) {
  const size_t nv = f.num_values();
  def_.assign(nv, Inst());
  def_at_.assign(nv, 0);
  defs_.assign(nv, 0);
  for (Block b : f.layout()) {
    for (const Operand& p : f.block(b).params) defs_[p.value().index()] += defs_[p.value().index()] < 2;
    for (Inst i : f.block(b).insts) {
      absl::Span<const Operand> ops = f.operands(i);
      for (size_t k = 0; k < ops.size(); ++k) {
        if (!ops[k].IsDef()) continue;
        const uint32_t v = ops[k].value().index();
        def_[v] = i;
        def_at_[v] = static_cast<uint16_t>(k);
        defs_[v] += defs_[v] < 2;
      }
    }
  }
  root_.assign(nv, kUnknown);
  next_token_ = static_cast<uint32_t>(nv);
  const size_t nr = t.num_regs();
  stamp_.assign(nr, 0);
  holds_.assign(nr, kUnknown);
  holder_.assign(nr, Value());
  uint32_t walk = 0;
  int made_free = 0;
  auto write = [&](PReg r, Value v) {
    for (PReg a : t.AliasList(r)) stamp_[a.index()] = 0;
    stamp_[r.index()] = walk;
    holds_[r.index()] = Root(f, v);
    holder_[r.index()] = v;
  };
  for (Block b : f.layout()) {
    ++walk;
    for (const Operand& p : f.block(b).params) {
      if (p.location().IsReg()) write(p.location().reg(), p.value());
    }
    for (Inst i : f.block(b).insts) {
      absl::Span<Operand> ops = f.operands(i);
      const Opcode opcode = f.inst(i).opcode;
      if ((opcode == Opcode::kCopy || opcode == Opcode::kReload || opcode == Opcode::kMove) && ops.size() == 2 &&
          ops[0].IsDef() && ops[1].IsUse() && ops[0].location().IsReg() && ops[1].location() != ops[0].location()) {
        const PReg r = ops[0].location().reg();
        const Value h = holder_[r.index()];
        if (stamp_[r.index()] == walk && holds_[r.index()] == Root(f, ops[1].value()) &&
            f.value_type(h) == f.value_type(ops[0].value())) {
          f.inst(i).opcode = Opcode::kCopy;
          ops[1] = Operand::Use(h).WithLocation(Location::Reg(r));
          ++made_free;
        }
      }
      if (f.inst(i).clobbers >= 0) {
        for (PReg r : f.clobber_set(f.inst(i).clobbers)) {
          for (PReg a : t.AliasList(r)) stamp_[a.index()] = 0;
        }
      }
      // The defs land after every source is read (a parallel copy's too).
      writes_.clear();
      for (const Operand& op : ops) {
        if (op.IsDef() && op.location().IsReg()) writes_.push_back({op.location().reg(), op.value()});
      }
      for (const auto& [r, v] : writes_) write(r, v);
    }
  }
  return made_free;
}

int ElideRedundantMoves(Function& func, const Target& target) { return MoveElider().Run(func, target); }

}  // namespace regalloc
