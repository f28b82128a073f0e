#include "packing/transform.h"

#include <algorithm>
#include <optional>
#include <tuple>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "base/warm_buffers.h"
#include "ssa/printer.h"

namespace regalloc {
using packing_internal::Fetched;
using packing_internal::Held;
using packing_internal::LastHeld;

namespace {

class Transformer {
 public:
  // Every buffer starts empty, as in a new object; only its storage is kept.
  Transformer(Function& f, const Target& t, const PackingProblem& p, const PackingDecisions& d,
              PackingTransformBuffers& b)
      : f_(f), t_(t), p_(p), d_(d), b_(b), held_start_(b.held_start), held_(b.held), last_held_(b.last_held),
        const_def_(b.const_def), needs_home_(b.needs_home), home_(b.home), inits_(b.inits), fetched_(b.fetched),
        ops_(b.ops), before_(b.before), after_(b.after), moves_after_(b.moves_after), insts_(b.insts) {
    ClearAll(held_start_, held_, last_held_, const_def_, needs_home_, home_, fetched_, ops_, before_, after_,
             moves_after_, insts_);
  }
  absl::StatusOr<PackingTransformStats> Run(bool lower);

 private:
  // The allocations of one item have timespans that do not overlap (the
  // packer never grants overlapping ones), so at most one holds `b`: held_[v]
  // is sorted by where the timespans' preorder ranges start, and the last one
  // starting at or before b's innermost loop is the only candidate (a
  // long-lived value held in a register in each of hundreds of loops is not
  // scanned at every use; a whole-function allocation starts at 0 and comes
  // alone).
  const Held* HeldAt(Value v, Block b) {
    if (v.index() + 1 >= held_start_.size()) return nullptr;
    const Held* begin = held_.data() + held_start_[v.index()];
    const Held* end = held_.data() + held_start_[v.index() + 1];
    if (begin == end) return nullptr;
    const uint32_t at = p_.InnermostPreorder(b);
    if (end - begin <= 4) {  // most values: a scan is cheaper than the search
      for (const Held* h = begin; h != end; ++h) {
        if (h->Covers(at)) return h;
      }
      return nullptr;
    }
    // Uses of one value come in runs within one loop: the last answer is kept.
    LastHeld& last = last_held_[v.index()];
    if (last.at != at) {
      const Held* it = std::upper_bound(begin, end, at, [](uint32_t x, const Held& h) { return x < h.first; });
      last.at = at;
      last.held = it != begin && (it - 1)->Covers(at) ? static_cast<int32_t>(it - 1 - held_.data()) : -1;
    }
    return last.held < 0 ? nullptr : &held_[last.held];
  }
  bool IsConst(Value v) const { return v.index() < const_def_.size() && const_def_[v.index()].IsValid(); }
  Location Home(Value v) {
    StackSlot& s = home_[v.index()];
    if (!s.IsValid()) s = f_.NewStackSlot(TypeSize(f_.value_type(v)));
    return Location::Stack(s);
  }
  void Touch(Location l) {
    if (l.IsReg()) used_ |= t_.Aliases(l.reg());
  }
  // Appends `v[to] = op v[from]` to `out`.
  void Emit(Opcode op, Value v, Location from, Location to, std::vector<Inst>& out, int* count) {
    InstData d;
    d.opcode = op;
    Operand ops[2] = {Operand::Def(v).WithLocation(to), Operand::Use(v).WithLocation(from)};
    out.push_back(f_.NewInst(d, ops));
    Touch(to);
    ++*count;
    stats_.weighted += weight_;
  }
  // Appends `name[to] = const` (the constant `v` is defined by) to `out`.
  void Remat(Value v, Value name, Location to, std::vector<Inst>& out) {
    out.push_back(MakeConstAgain(f_, const_def_[v.index()], Operand::Def(name).WithLocation(to)));
    Touch(to);
  }
  // Brings the value a use of `v` in block `b` reads into register `dst`;
  // returns the name it has there.
  Value Fetch(Value v, Block b, PReg dst, std::vector<Inst>& out) {
    const Location to = Location::Reg(dst);
    for (const auto& [loc, orig, name] : fetched_) {
      if (loc == to && orig == v) return name;
    }
    Value name = v;
    if (const Held* h = HeldAt(v, b)) {
      name = h->name;
      if (h->reg != dst) Emit(Opcode::kMove, name, Location::Reg(h->reg), to, out, &stats_.moves);
    } else if (IsConst(v)) {
      name = f_.NewValue(f_.value_type(v));
      Remat(v, name, to, out);
      ++stats_.remats;
    } else {
      Emit(Opcode::kReload, v, Home(v), to, out, &stats_.reloads);
    }
    fetched_.push_back({to, v, name});
    return name;
  }
  absl::StatusOr<PReg> Scratch(Value v, const RegSet& avoid, Block b, Inst i) {
    std::optional<RegClass> cls = t_.ClassFor(f_.value_type(v));
    if (cls.has_value()) {
      for (PReg r : p_.Scratch(*cls)) {
        if (!avoid.Contains(r)) return r;
      }
    }
    return absl::InternalError(absl::StrCat("function %", f_.name(), ", ", f_.BlockName(b), " `",
                                            PrintInst(f_, i, t_), "`: no scratch register left for ",
                                            f_.ValueName(v)));
  }
  size_t MarkHomes();
  void Params(Block b, std::vector<Inst>& out);
  void Inits(Block b, std::vector<Inst>& out);
  absl::Status Rewrite(Block b, Inst i, std::vector<Inst>& out);

  Function& f_;
  const Target& t_;
  const PackingProblem& p_;
  const PackingDecisions& d_;
  PackingTransformBuffers& b_;
  // Each value's held allocations, held_[held_start_[v] .. held_start_[v + 1]).
  std::vector<uint32_t>& held_start_;
  std::vector<Held>& held_;
  std::vector<LastHeld>& last_held_;  // HeldAt's last answer per value with many allocations
  std::vector<Inst>& const_def_;
  std::vector<uint8_t>& needs_home_;
  std::vector<StackSlot>& home_;
  std::vector<std::vector<std::pair<Value, Held>>>& inits_;  // per entry block
  std::vector<Fetched>& fetched_;  // this instruction's
  std::vector<Operand>& ops_;      // Rewrite's buffers, kept between instructions
  std::vector<Inst>& before_;
  std::vector<Inst>& after_;
  std::vector<Inst>& moves_after_;
  std::vector<Inst>& insts_;
  RegSet used_;
  int64_t weight_ = 1;
  PackingTransformStats stats_;
};

// Which values some use reads from their slot. Returns about how many
// instructions the rewrite adds (one per use not held in a register or held in
// another than a fixed use wants, one per def), to reserve them at once.
size_t Transformer::MarkHomes() {
  size_t added = 0;
  needs_home_.assign(f_.num_values(), 0);
  for (Block b : f_.layout()) {
    for (Inst i : f_.block(b).insts) {
      absl::Span<const Operand> ops = f_.operands(i);
      const size_t first_arg = f_.NumNonArgOperands(i);
      for (size_t k = 0; k < ops.size(); ++k) {
        const Operand& op = ops[k];
        if (!op.IsUse()) {
          ++added;
          continue;
        }
        const Value v = op.value();
        const bool held = HeldAt(v, b) != nullptr;
        added += !held || op.constraint() == ConstraintKind::kFixed;
        const bool stack = op.constraint() == ConstraintKind::kStack;
        if (IsConst(v)) {
          needs_home_[v.index()] |= stack || (k >= first_arg && !held && op.constraint() != ConstraintKind::kFixed);
        } else {
          needs_home_[v.index()] |= stack || !held;
        }
      }
    }
  }
  for (size_t v = 0; v + 1 < held_start_.size(); ++v) {
    for (uint32_t k = held_start_[v]; k < held_start_[v + 1]; ++k) {
      needs_home_[v] |= held_[k].init && !IsConst(Value(v));
      ++added;
    }
  }
  return added;
}

void Transformer::Params(Block b, std::vector<Inst>& out) {
  std::vector<Operand>& params = f_.block(b).params;
  std::vector<Inst>& moves = b_.moves;
  moves.clear();
  for (Operand& prm : params) {
    const Value v = prm.value();
    const Held* h = HeldAt(v, b);
    if (prm.constraint() == ConstraintKind::kFixed) {
      const Location at = Location::Reg(prm.fixed_reg());
      prm.set_location(at);
      Touch(at);
      if (needs_home_[v.index()]) Emit(Opcode::kSpill, v, at, Home(v), out, &stats_.spills);
      if (h != nullptr && h->reg != prm.fixed_reg()) {
        Emit(Opcode::kMove, v, at, Location::Reg(h->reg), moves, &stats_.moves);
      }
    } else if (prm.constraint() == ConstraintKind::kStack) {
      prm.set_location(Home(v));
      if (h != nullptr) Emit(Opcode::kReload, v, Home(v), Location::Reg(h->reg), moves, &stats_.reloads);
    } else if (h != nullptr) {
      prm = prm.WithConstraint(ConstraintKind::kReg);
      prm.set_location(Location::Reg(h->reg));
      Touch(prm.location());
      if (needs_home_[v.index()]) Emit(Opcode::kSpill, v, prm.location(), Home(v), out, &stats_.spills);
    } else {
      // The edges' parallel copies write the slot itself.
      prm = prm.WithConstraint(ConstraintKind::kAny);
      prm.set_location(Home(v));
    }
  }
  // Arriving registers are pinned where the parameters' own registers are busy,
  // so the moves out of them may go one after another.
  out.insert(out.end(), moves.begin(), moves.end());
}

void Transformer::Inits(Block b, std::vector<Inst>& out) {
  for (const auto& [v, h] : inits_[b.index()]) {
    if (IsConst(v)) {
      Remat(v, h.name, Location::Reg(h.reg), out);
    } else {
      Emit(Opcode::kReload, v, Home(v), Location::Reg(h.reg), out, &stats_.reloads);
    }
    ++stats_.inits;
  }
}

absl::Status Transformer::Rewrite(Block b, Inst i, std::vector<Inst>& out) {
  std::vector<Operand>& ops = ops_;
  ops.assign(f_.operands(i).begin(), f_.operands(i).end());
  const size_t first_arg = f_.NumNonArgOperands(i);
  RegSet clobbered;
  for (PReg r : f_.Clobbers(i)) clobbered |= t_.Aliases(r);
  // `taken`: the registers of the instruction so far; `late_taken`: those still
  // in use when its late defs are written (fixed registers, late reads,
  // two-address sources), so a def may take an early read's scratch register.
  RegSet taken;
  for (const Operand& op : ops) {
    if (op.constraint() == ConstraintKind::kFixed) taken.InsertWithAliases(t_, op.fixed_reg());
  }
  RegSet late_taken = taken;
  fetched_.clear();
  std::vector<Inst>& before = before_;
  std::vector<Inst>& after = after_;
  before.clear();
  after.clear();

  // Where each Reuse def's use goes: a fixed register, the def's own register
  // when nothing else of the instruction is in it, else a scratch register.
  // Use ordinals (what Reuse names) to operand indices.
  absl::InlinedVector<size_t, 8> use_index;
  for (size_t k = 0; k < ops.size(); ++k) {
    if (ops[k].IsUse()) use_index.push_back(k);
  }
  absl::InlinedVector<PReg, 8> reuse(ops.size(), PReg());
  for (size_t k = 0; k < ops.size(); ++k) {
    const Operand& op = ops[k];
    if (!op.IsDef() || op.constraint() != ConstraintKind::kReuse) continue;
    const size_t u = use_index[static_cast<size_t>(op.reuse_index())];
    const Operand& use = ops[u];
    if (use.constraint() == ConstraintKind::kFixed) {
      reuse[u] = use.fixed_reg();
      continue;
    }
    const Held* h = HeldAt(op.value(), b);
    // A source read late survives the clobbers: not in a clobbered register
    // (the def, written after them, may hold one).
    const RegSet avoid = use.position() == Position::kLate ? taken | clobbered : taken;
    bool safe = h != nullptr && !avoid.Contains(h->reg);
    for (size_t j = 0; safe && j < ops.size(); ++j) {
      if (j == k || (ops[j].IsUse() && ops[j].value() == use.value())) continue;
      const Held* o = HeldAt(ops[j].value(), b);
      if (o != nullptr && t_.RegsAlias(o->reg, h->reg)) safe = false;
    }
    PReg r;
    if (safe) {
      r = h->reg;
    } else {
      RA_ASSIGN_OR_RETURN(r, Scratch(use.value(), avoid, b, i));
    }
    reuse[u] = r;
    taken.InsertWithAliases(t_, r);
    late_taken.InsertWithAliases(t_, r);
  }

  // Uses.
  for (size_t k = 0; k < ops.size(); ++k) {
    Operand& op = ops[k];
    if (!op.IsUse()) continue;
    const Value v = op.value();
    const Held* h = HeldAt(v, b);
    Location loc;
    Value name = v;
    if (op.constraint() == ConstraintKind::kFixed || reuse[k].IsValid()) {
      const PReg dst = op.constraint() == ConstraintKind::kFixed ? op.fixed_reg() : reuse[k];
      name = Fetch(v, b, dst, before);
      loc = Location::Reg(dst);
    } else if (op.constraint() == ConstraintKind::kStack) {
      loc = Home(v);
    } else if (k >= first_arg) {  // a branch argument: the edge's parallel copy reads it where it is
      if (h != nullptr) {
        loc = Location::Reg(h->reg);
        name = h->name;
      } else {
        loc = Home(v);
        if (op.constraint() == ConstraintKind::kReg) op = op.WithConstraint(ConstraintKind::kAny);
      }
    } else if (h != nullptr && !(op.position() == Position::kLate && clobbered.Contains(h->reg))) {
      loc = Location::Reg(h->reg);
      name = h->name;
    } else if (op.constraint() == ConstraintKind::kAny && !IsConst(v)) {
      loc = Home(v);
    } else {
      const bool late = op.position() == Position::kLate;
      std::optional<PReg> again;
      for (const Fetched& x : fetched_) {
        if (x.orig == v && x.loc.IsReg() && !(late && clobbered.Contains(x.loc.reg()))) again = x.loc.reg();
      }
      PReg r;
      if (again.has_value()) {
        r = *again;
      } else {
        RegSet avoid = taken;
        if (late) avoid |= clobbered;
        RA_ASSIGN_OR_RETURN(r, Scratch(v, avoid, b, i));
        taken.InsertWithAliases(t_, r);
      }
      if (late) late_taken.InsertWithAliases(t_, r);
      name = Fetch(v, b, r, before);
      loc = Location::Reg(r);
    }
    op.set_value(name);
    op.set_location(loc);
    Touch(loc);
  }

  // Defs.
  std::vector<Inst>& moves_after = moves_after_;
  moves_after.clear();
  for (size_t k = 0; k < ops.size(); ++k) {
    Operand& op = ops[k];
    if (!op.IsDef()) continue;
    const Value v = op.value();
    const Held* h = HeldAt(v, b);
    const bool home = needs_home_[v.index()] != 0;
    Location loc;
    switch (op.constraint()) {
      case ConstraintKind::kStack:
        // Written to its slot; a register holding it in this block takes it
        // from there (as a parameter passed on the stack).
        loc = Home(v);
        if (h != nullptr) Emit(Opcode::kReload, v, loc, Location::Reg(h->reg), moves_after, &stats_.reloads);
        break;
      case ConstraintKind::kFixed:
      case ConstraintKind::kReuse:
        loc = op.constraint() == ConstraintKind::kFixed ? Location::Reg(op.fixed_reg())
                                                        : ops[use_index[op.reuse_index()]].location();
        if (home) Emit(Opcode::kSpill, v, loc, Home(v), after, &stats_.spills);
        if (h != nullptr && Location::Reg(h->reg) != loc) {
          Emit(Opcode::kMove, v, loc, Location::Reg(h->reg), moves_after, &stats_.moves);
        }
        break;
      case ConstraintKind::kAny:
      case ConstraintKind::kReg:
        if (h != nullptr) {
          loc = Location::Reg(h->reg);
        } else if (op.constraint() == ConstraintKind::kAny) {
          loc = Home(v);
          break;
        } else {
          PReg r;
          RA_ASSIGN_OR_RETURN(r, Scratch(v, op.position() == Position::kEarly ? taken : late_taken, b, i));
          taken.InsertWithAliases(t_, r);
          late_taken.InsertWithAliases(t_, r);
          loc = Location::Reg(r);
        }
        if (home) Emit(Opcode::kSpill, v, loc, Home(v), after, &stats_.spills);
        break;
    }
    op.set_location(loc);
    Touch(loc);
  }
  f_.SetOperands(i, ops);
  out.insert(out.end(), before.begin(), before.end());
  out.push_back(i);
  out.insert(out.end(), after.begin(), after.end());
  out.insert(out.end(), moves_after.begin(), moves_after.end());
  return absl::OkStatus();
}

absl::StatusOr<PackingTransformStats> Transformer::Run(bool lower) {
  const int num_values = f_.num_values();
  home_.assign(num_values, StackSlot());
  ConstDefs(f_, const_def_, /*with_clobbers=*/true);
  if (inits_.size() < static_cast<size_t>(f_.num_blocks())) inits_.resize(f_.num_blocks());
  for (auto& row : inits_) row.clear();
  held_start_.assign(num_values + 1, 0);
  for (uint32_t a = 0; a < d_.reg.size(); ++a) {
    if (d_.reg[a].IsValid()) ++held_start_[p_.items()[p_.allocations()[a].item].value.index() + 1];
  }
  for (int v = 0; v < num_values; ++v) held_start_[v + 1] += held_start_[v];
  held_.resize(held_start_[num_values]);
  last_held_.assign(num_values, LastHeld());
  std::vector<uint32_t>& next = b_.next;
  next.assign(held_start_.begin(), held_start_.end() - 1);
  for (uint32_t a = 0; a < d_.reg.size(); ++a) {
    if (!d_.reg[a].IsValid()) continue;
    const PackingAllocation& x = p_.allocations()[a];
    const PackingItem& item = p_.items()[x.item];
    Held h{x.timespan, d_.reg[a], item.value, x.init};
    if (x.init && IsConst(item.value)) h.name = f_.NewValue(f_.value_type(item.value));
    std::tie(h.first, h.end) = p_.PreorderRange(x.timespan);
    h.whole = p_.timespans()[x.timespan].loop < 0;
    held_[next[item.value.index()]++] = h;
    if (x.init) inits_[p_.timespans()[x.timespan].entry.index()].push_back({item.value, h});
  }
  for (int v = 0; v < num_values; ++v) {
    if (held_start_[v + 1] - held_start_[v] > 1) {
      std::sort(held_.begin() + held_start_[v], held_.begin() + held_start_[v + 1],
                [](const Held& x, const Held& y) { return x.first < y.first; });
    }
  }
  const size_t added = MarkHomes();
  f_.ReserveInsts(added, 2 * added);
  for (Block b : f_.layout()) {
    weight_ = p_.Weight(b);
    std::vector<Inst>& out = b_.out;
    out.clear();
    Params(b, out);
    insts_ = f_.block(b).insts;
    for (Inst i : insts_) {
      if (IsTerminator(f_.inst(i).opcode)) Inits(b, out);
      RA_RETURN_IF_ERROR(Rewrite(b, i, out));
    }
    f_.block(b).insts.assign(out.begin(), out.end());
  }
  f_.set_saved_regs(FrameSaves(f_, t_, used_));
  if (lower) {
    RA_ASSIGN_OR_RETURN(stats_.lower, b_.lowerer.Run(f_, t_, p_.analyses().cfg));  // no blocks added since
  }
  return stats_;
}

}  // namespace

absl::StatusOr<PackingTransformStats> TransformPacking(Function& func, const Target& target,
                                                       const PackingProblem& problem,
                                                       const PackingDecisions& decisions, bool lower_params) {
  PackingTransformBuffers buffers;
  return TransformPacking(func, target, problem, decisions, lower_params, buffers);
}

absl::StatusOr<PackingTransformStats> TransformPacking(Function& func, const Target& target,
                                                       const PackingProblem& problem,
                                                       const PackingDecisions& decisions, bool lower_params,
                                                       PackingTransformBuffers& buffers) {
  return Transformer(func, target, problem, decisions, buffers).Run(lower_params);
}

}  // namespace regalloc
