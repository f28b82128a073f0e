#include "liveness/live_walker.h"

namespace regalloc {

void LiveWalker::Reset(int num_values) {
  for (Value v : values_) {
    if (v.index() < pos_.size()) pos_[v.index()] = -1;
  }
  values_.clear();
  pos_.assign(num_values, -1);
}

void LiveWalker::StartBlock(absl::Span<const Value> live_out) {
  for (Value v : values_) pos_[v.index()] = -1;
  // A live-out set is sorted and has no duplicates: taken whole.
  if (!live_out.empty() && live_out.back().index() >= pos_.size()) pos_.resize(live_out.back().index() + 1, -1);
  values_.assign(live_out.begin(), live_out.end());
  for (size_t k = 0; k < live_out.size(); ++k) pos_[live_out[k].index()] = static_cast<int32_t>(k);
}

bool LiveWalker::Add(Value v) {
  if (v.index() >= pos_.size()) pos_.resize(v.index() + 1, -1);
  if (pos_[v.index()] >= 0) return false;
  pos_[v.index()] = static_cast<int32_t>(values_.size());
  values_.push_back(v);
  return true;
}

bool LiveWalker::Remove(Value v) {
  if (!IsLive(v)) return false;
  int32_t p = pos_[v.index()];
  Value last = values_.back();
  values_[p] = last;
  pos_[last.index()] = p;
  values_.pop_back();
  pos_[v.index()] = -1;
  return true;
}

bool IsRelocation(const Function& func, Inst inst, int def_index) {
  if (!IsMoveLike(func.inst(inst).opcode)) return false;
  const Operand* use = func.UseOperand(inst, def_index);
  return use != nullptr && use->value() == func.operands(inst)[def_index].value();
}

void LiveWalker::StepBack(const Function& func, Inst inst) {
  absl::Span<const Operand> ops = func.operands(inst);
  bool move_like = IsMoveLike(func.inst(inst).opcode);
  int def_index = 0;
  for (const Operand& op : ops) {
    if (!op.IsDef()) continue;
    if (!move_like || !IsRelocation(func, inst, def_index)) Remove(op.value());
    ++def_index;
  }
  for (const Operand& op : ops) {
    if (op.IsUse()) Add(op.value());
  }
}

void LiveWalker::StepBackOverParams(const Function& func, Block b) {
  for (const Operand& p : func.block(b).params) Remove(p.value());
}

}  // namespace regalloc
