#include "spill/reload.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "spill/prepare.h"
#include "ssa/cfg.h"

namespace regalloc {
namespace {

int64_t LoopWeight(int depth) {
  int64_t w = 1;
  for (int d = 0; d < depth && d < 9; ++d) w *= 10;
  return w;
}

}  // namespace

absl::StatusOr<ReloadStats> InsertReloads(const Target& target, Function& func, ValueLocations& locs) {
  ReloadStats stats;
  if (func.IsAllocated()) {
    return absl::FailedPreconditionError(absl::StrCat("function %", func.name(), ": reload needs SSA form"));
  }
  locs.Resize(func.num_values());
  ControlFlowGraph cfg(func);
  DominatorTree dom(func, cfg);
  LoopNest loops(func, cfg, dom);
  auto emit = [&](Opcode op, Value def, Value use, std::vector<Inst>& out, int64_t weight) {
    InstData d;
    d.opcode = op;
    Operand ops[2] = {Operand::Def(def), Operand::Use(use)};
    out.push_back(func.NewInst(d, ops));
    ++(op == Opcode::kSpill ? stats.spills : stats.reloads);
    stats.weighted_cost += weight;
  };
  std::vector<Operand> ops;
  std::vector<std::pair<Value, Value>> reloaded;  // (spilled value, its reload) for one instruction
  for (Block b : func.layout()) {
    int64_t weight = LoopWeight(loops.depth(b));
    std::vector<Inst> insts = func.block(b).insts;
    std::vector<Inst> out;
    out.reserve(insts.size() + insts.size() / 4);
    for (Operand& p : func.block(b).params) {
      if (!locs.IsSpilled(p.value())) continue;
      if (b == func.entry() && p.constraint() == ConstraintKind::kFixed) {
        emit(Opcode::kSpill, p.value(), p.value(), out, weight);  // arrives in a register
      } else if (b != func.entry()) {
        p = p.WithConstraint(ConstraintKind::kAny);
      }
    }
    for (size_t k = 0; k < insts.size(); ++k) {
      Inst i = insts[k];
      // A constraint copy goes out with the instruction it serves: reloads for that
      // instruction go before the copy, which must stay right before it.
      Inst copy;
      if (IsConstraintCopy(func, i) && k + 1 < insts.size()) {
        copy = i;
        i = insts[++k];
      }
      const InstData& d = func.inst(i);
      ops.assign(func.operands(i).begin(), func.operands(i).end());
      bool changed = false;
      reloaded.clear();
      if (!IsMoveLike(d.opcode)) {
        bool branch = IsBranch(d.opcode);
        for (Operand& op : ops) {
          if (!op.IsUse()) continue;
          Value v = op.value();
          bool spilled = locs.IsSpilled(v);
          if (op.constraint() == ConstraintKind::kStack) {
            if (spilled) continue;
            Value s = func.NewValue(func.value_type(v));
            locs.Set(s, Location::Stack(func.NewStackSlot(TypeSize(func.value_type(v)))));
            emit(Opcode::kSpill, s, v, out, weight);
            op.set_value(s);
            changed = true;
            continue;
          }
          if (!spilled) continue;
          if (branch || op.constraint() == ConstraintKind::kAny) {
            if (branch && op.constraint() != ConstraintKind::kAny) {
              op = op.WithConstraint(ConstraintKind::kAny);
              changed = true;
            }
            continue;
          }
          Value r;
          for (const auto& [from, to] : reloaded) {
            if (from == v) r = to;
          }
          if (!r.IsValid()) {
            r = func.NewValue(func.value_type(v));
            locs.Set(r, Location());
            emit(Opcode::kReload, r, v, out, weight);
            reloaded.push_back({v, r});
          }
          op.set_value(r);
          changed = true;
        }
      }
      if (changed) func.SetOperands(i, ops);
      if (copy.IsValid()) out.push_back(copy);
      out.push_back(i);
      if (IsMoveLike(d.opcode)) continue;
      for (const Operand& op : func.operands(i)) {
        if (op.IsDef() && locs.IsSpilled(op.value()) && op.constraint() != ConstraintKind::kStack) {
          emit(Opcode::kSpill, op.value(), op.value(), out, weight);
        }
      }
    }
    func.block(b).insts = std::move(out);
  }
  return stats;
}

}  // namespace regalloc
