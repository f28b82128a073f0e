#include "spill/demand.h"

#include <algorithm>

namespace regalloc {

DemandModel::DemandModel(const Target& target) : target_(target) {
  for (int t = 0; t < kNumTypes; ++t) {
    std::optional<RegClass> c = target.ClassFor(static_cast<Type>(t));
    class_of_[t] = c.has_value() ? static_cast<int>(c->index()) : -1;
  }
  for (int c = 0; c < target.num_classes(); ++c) {
    weights_.push_back(target.Class(RegClass(c)).pressure_weight);
    banks_.push_back(target.Class(RegClass(c)).bank);
    full_capacity_.push_back(target.Class(RegClass(c)).counted.Count());
  }
  early_.resize(target.num_classes());
  late_.resize(target.num_classes());
  anywhere_.resize(target.num_classes());
  for (int bank = 0; bank < target.num_banks(); ++bank) {
    SharedBank b;
    b.bank = bank;
    for (int c = 0; c < target.num_classes(); ++c) {
      if (banks_[c] != bank) continue;
      b.classes.push_back(c);
      b.max_weight = std::max(b.max_weight, weights_[c]);
      b.capacity = std::max(b.capacity, weights_[c] * full_capacity_[c]);
    }
    if (b.classes.size() > 1) shared_banks_.push_back(std::move(b));
  }
}

int DemandModel::CapacityOutside(int cls, const RegSet& pinned) const {
  RegSet free = target_.Class(RegClass(cls)).counted;
  free.Subtract(pinned);
  return free.Count();
}

RegSet DemandModel::Pinned(const Function& func, Inst inst) const {
  RegSet pinned;
  const InstData& d = func.inst(inst);
  if (d.clobbers >= 0) {
    // Most calls of a function share one clobber set: its closure is kept.
    const RegSet& clobbers = func.clobber_set(d.clobbers);
    if (!(clobbers == last_clobbers_) || !has_last_clobbers_) {
      RegSet closure;
      for (PReg r : clobbers) closure |= target_.Aliases(r);
      last_clobbers_ = clobbers;
      last_closure_ = closure;
      has_last_clobbers_ = true;
    }
    pinned |= last_closure_;
  }
  for (const Operand& op : func.operands(inst)) {
    if (op.constraint() == ConstraintKind::kFixed) pinned |= target_.Aliases(op.fixed_reg());
  }
  return pinned;
}

RegSet DemandModel::PinnedParams(const Function& func, Block b) const {
  RegSet pinned;
  for (const Operand& p : func.block(b).params) {
    if (p.constraint() == ConstraintKind::kFixed) pinned |= target_.Aliases(p.fixed_reg());
  }
  return pinned;
}

void DemandModel::Needs(const Function& func, Inst inst, const LiveWalker& live_after, const ValueLocations& locs,
                        std::vector<int>& needs) const {
  int n = num_classes();
  std::fill(early_.begin(), early_.end(), 0);  // sized by the constructor
  std::fill(late_.begin(), late_.end(), 0);
  std::fill(anywhere_.begin(), anywhere_.end(), 0);
  seen_early_.clear();
  seen_late_.clear();
  const InstData& d = func.inst(inst);
  bool move_like = IsMoveLike(d.opcode);
  const size_t args_from = d.opcode == Opcode::kBranch ? func.NumNonArgOperands(inst) : 0;  // see reload.cc
  size_t k = 0;
  auto count_once = [](std::vector<Value>& seen, Value v) {
    if (std::find(seen.begin(), seen.end(), v) != seen.end()) return false;
    seen.push_back(v);
    return true;
  };
  for (const Operand& op : func.operands(inst)) {
    const bool branch = IsBranch(d.opcode) && k++ >= args_from;
    Value v = op.value();
    int c = ClassOf(func, v);
    if (c < 0) continue;
    bool spilled = locs.IsSpilled(v);
    if (op.IsUse()) {
      if (op.constraint() == ConstraintKind::kFixed || op.constraint() == ConstraintKind::kStack) continue;
      if (spilled && (move_like || branch || op.constraint() == ConstraintKind::kAny)) continue;
      if (!spilled && live_after.IsLive(v)) continue;  // counted as through
      if (count_once(seen_early_, v)) {
        ++early_[c];
        ++anywhere_[c];  // taken back below if it is read late or overwritten in place
      }
      if (op.position() == Position::kLate && count_once(seen_late_, v)) ++late_[c];
    } else {
      if (op.constraint() == ConstraintKind::kFixed || op.constraint() == ConstraintKind::kStack) continue;
      if (move_like && spilled) continue;  // written straight to its slot
      ++late_[c];
      if (op.position() == Position::kEarly) ++early_[c];
    }
  }
  needs.resize(n);
  for (int c = 0; c < n; ++c) needs[c] = std::max(early_[c], late_[c]);
}

void DemandModel::NeedsAtInst(const Function& func, Inst inst, const LiveWalker& live_after,
                              const ValueLocations& locs, std::vector<int>& needs, std::vector<int>& early) const {
  Needs(func, inst, live_after, locs, needs);
  // Of the dying early reads counted, those read late too (seen_late_) and
  // two-address sources must stay clear of the clobbers and fixed defs.
  for (const Operand& d : func.operands(inst)) {
    if (!d.IsDef() || d.constraint() != ConstraintKind::kReuse) continue;
    if (const Operand* src = func.UseOperand(inst, d.reuse_index())) seen_late_.push_back(src->value());
  }
  for (Value v : seen_early_) {
    if (std::find(seen_late_.begin(), seen_late_.end(), v) != seen_late_.end()) --anywhere_[ClassOf(func, v)];
  }
  const int n = num_classes();
  early.resize(n);
  for (int c = 0; c < n; ++c) {
    early[c] = early_[c];
    needs[c] = std::max(early_[c] - anywhere_[c], late_[c]);
  }
}

RegSet DemandModel::FixedUses(const Function& func, Inst inst) const {
  RegSet fixed;
  for (const Operand& op : func.operands(inst)) {
    if (op.IsUse() && op.constraint() == ConstraintKind::kFixed) fixed |= target_.Aliases(op.fixed_reg());
  }
  return fixed;
}

std::optional<Overflow> DemandModel::CheckAtInst(const std::vector<int>& through,
                                                 const std::vector<int>& needs, const std::vector<int>& early,
                                                 const RegSet& pinned, const RegSet& fixed_uses) const {
  if (std::optional<Overflow> o = Check(through, needs, pinned)) return o;
  return Check(through, early, fixed_uses);
}

const int* DemandModel::CapacitiesOutside(const RegSet& pinned) const {
  if (pinned.Empty()) return full_capacity_.data();
  if (!has_last_pinned_ || !(pinned == last_pinned_)) {
    last_capacity_.resize(full_capacity_.size());
    for (size_t c = 0; c < full_capacity_.size(); ++c) last_capacity_[c] = CapacityOutside(static_cast<int>(c), pinned);
    last_pinned_ = pinned;
    has_last_pinned_ = true;
  }
  return last_capacity_.data();
}

std::optional<Overflow> DemandModel::Check(const std::vector<int>& through, const std::vector<int>& needs,
                                           const RegSet& pinned) const {
  int n = num_classes();
  const int* capacity = CapacitiesOutside(pinned);  // the spiller asks again for one instruction as it spills
  for (int c = 0; c < n; ++c) {
    if (through[c] + needs[c] > capacity[c]) return Overflow{c, banks_[c]};
  }
  for (const SharedBank& b : shared_banks_) {
    int sum = 0, cap = 0;
    for (int c : b.classes) {
      sum += weights_[c] * (through[c] + needs[c]);
      cap = std::max(cap, weights_[c] * capacity[c]);
    }
    if (sum > cap) return Overflow{-1, b.bank};
  }
  return std::nullopt;
}

bool DemandModel::SurelyFits(const std::vector<int>& through, int operands) const {
  const int n = num_classes();
  for (int c = 0; c < n; ++c) {
    if (through[c] + operands > full_capacity_[c]) return false;
  }
  // A bank's sum of weight * need is at most its heaviest class's weight
  // times all the operands.
  for (const SharedBank& b : shared_banks_) {
    int sum = b.max_weight * operands;
    for (int c : b.classes) sum += weights_[c] * through[c];
    if (sum > b.capacity) return false;
  }
  return true;
}

}  // namespace regalloc
