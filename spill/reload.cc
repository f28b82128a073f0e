#include "spill/reload.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/warm_buffers.h"
#include "liveness/live_sets.h"
#include "liveness/live_walker.h"
#include "spill/demand.h"
#include "spill/prepare.h"
#include "ssa/cfg.h"

namespace regalloc {

// What a Reloader keeps between functions.
struct Reloader::Buffers {
  DemandModelCache model;
  CfgAnalyses cfg;
  std::vector<Operand> ops;
  std::vector<std::pair<Value, Value>> reloaded;
  std::vector<Value> stores, touched;
  std::vector<Inst> insts, out;
  // The reuse step's.
  std::vector<int> slack, bank_slack, through, needs, here, bank_cap, bank_use;
  std::vector<uint8_t> dropped;
  std::vector<uint32_t> seen_in;
  std::vector<Inst> const_def;    // by value: the `const` defining it, for remat
  std::vector<uint8_t> slot_read;  // by value: read from its slot (remat's stores)
  std::vector<Value> remade;
  LiveWalker live;
  struct Loaded {
    Value temp;
    int last_use = -1;  // position of the instruction that reads it last
  };
  std::vector<Loaded> loaded;
};

Reloader::Reloader(const ReloadOptions& options) : options_(options), b_(std::make_unique<Buffers>()) {}
Reloader::~Reloader() = default;

namespace {

// The second step: a reload whose value an earlier reload in the same block
// already brought into a register is dropped, and its use reads the earlier one,
// when every instruction in between has a register of that class to spare (its
// slack under the demand model: capacity outside its pinned registers minus what
// it needs). Slack is computed once per block and charged as ranges grow.
class ReloadReuse {
 public:
  ReloadReuse(const Target& t, Function& f, const ValueLocations& locs, Reloader::Buffers& b)
      : t_(t), f_(f), locs_(locs), b_(b), model_(b.model.For(t)), slack_(b.slack), bank_slack_(b.bank_slack),
        live_(b.live) {}

  void Run(const LoopNest& loops, const LiveSets& sets, ReloadStats& stats);

 private:
  void ComputeSlack(Block b, const LiveSets& sets);
  bool Fits(int from, int to, int cls) const {
    int bank = t_.Class(RegClass(cls)).bank, w = t_.Class(RegClass(cls)).pressure_weight;
    for (int k = from; k < to; ++k) {
      if (slack_[k * nc_ + cls] < 1 || bank_slack_[k * nb_ + bank] < w) return false;
    }
    return true;
  }
  void Charge(int from, int to, int cls) {
    int bank = t_.Class(RegClass(cls)).bank, w = t_.Class(RegClass(cls)).pressure_weight;
    for (int k = from; k < to; ++k) {
      --slack_[k * nc_ + cls];
      bank_slack_[k * nb_ + bank] -= w;
    }
  }
  // Is `r` the source a Reuse def of `inst` takes the register of? Then it dies there.
  bool IsReuseSource(Inst inst, Value r) const {
    for (const Operand& op : f_.operands(inst)) {
      if (!op.IsDef() || op.constraint() != ConstraintKind::kReuse) continue;
      const Operand* src = f_.UseOperand(inst, op.reuse_index());
      if (src != nullptr && src->value() == r) return true;
    }
    return false;
  }

  const Target& t_;
  Function& f_;
  const ValueLocations& locs_;
  Reloader::Buffers& b_;
  const DemandModel& model_;
  int nc_ = 0, nb_ = 0;
  std::vector<int>& slack_;
  std::vector<int>& bank_slack_;
  LiveWalker& live_;
};

void ReloadReuse::ComputeSlack(Block b, const LiveSets& sets) {
  const std::vector<Inst>& insts = f_.block(b).insts;
  size_t m = insts.size();
  slack_.assign(m * nc_, 0);
  bank_slack_.assign(m * nb_, 0);
  std::vector<int>& through = b_.through;
  std::vector<int>& needs = b_.needs;
  std::vector<int>& here = b_.here;
  through.assign(nc_, 0);
  needs.assign(nc_, 0);
  auto count = [&](Value v, int delta) {
    int c = model_.ClassOf(f_, v);
    if (c >= 0 && !locs_.IsSpilled(v)) through[c] += delta;
  };
  live_.StartBlock(sets.LiveOut(b));
  for (Value v : live_.values()) count(v, +1);
  for (size_t k = m; k-- > 0;) {
    Inst i = insts[k];
    here = through;
    int def_index = 0;
    for (const Operand& op : f_.operands(i)) {
      if (!op.IsDef()) continue;
      bool relocation = IsRelocation(f_, i, def_index++);
      int c = model_.ClassOf(f_, op.value());
      if (!relocation && c >= 0 && live_.IsLive(op.value()) && !locs_.IsSpilled(op.value())) --here[c];
    }
    model_.Needs(f_, i, live_, locs_, needs);
    RegSet pinned = model_.Pinned(f_, i);
    for (int bank = 0; bank < nb_; ++bank) bank_slack_[k * nb_ + bank] = 0;
    std::vector<int>& bank_cap = b_.bank_cap;
    std::vector<int>& bank_use = b_.bank_use;
    bank_cap.assign(nb_, 0);
    bank_use.assign(nb_, 0);
    for (int c = 0; c < nc_; ++c) {
      const RegClassInfo& info = t_.Class(RegClass(c));
      int cap = model_.Capacity(c, pinned);
      slack_[k * nc_ + c] = cap - here[c] - needs[c];
      bank_cap[info.bank] = std::max(bank_cap[info.bank], info.pressure_weight * cap);
      bank_use[info.bank] += info.pressure_weight * (here[c] + needs[c]);
    }
    for (int bank = 0; bank < nb_; ++bank) bank_slack_[k * nb_ + bank] = bank_cap[bank] - bank_use[bank];
    def_index = 0;
    for (const Operand& op : f_.operands(i)) {
      if (op.IsDef() && !IsRelocation(f_, i, def_index++) && live_.Remove(op.value())) count(op.value(), -1);
    }
    for (const Operand& op : f_.operands(i)) {
      if (op.IsUse() && live_.Add(op.value())) count(op.value(), +1);
    }
  }
}

void ReloadReuse::Run(const LoopNest& loops, const LiveSets& sets, ReloadStats& stats) {
  nc_ = t_.num_classes();
  nb_ = t_.num_banks();
  live_.Reset(f_.num_values());
  using Loaded = Reloader::Buffers::Loaded;
  std::vector<Loaded>& loaded = b_.loaded;
  loaded.assign(f_.num_values(), Loaded());
  std::vector<Value>& touched = b_.touched;
  touched.clear();
  std::vector<Operand>& ops = b_.ops;
  std::vector<uint32_t>& seen_in = b_.seen_in;  // stamped with block index + 1
  seen_in.assign(f_.num_values(), 0);
  uint32_t stamp = 0;
  for (Block b : f_.layout()) {
    std::vector<Inst>& insts = f_.block(b).insts;
    int m = static_cast<int>(insts.size());
    // Only a block that reloads one value twice has anything to reuse; the
    // slack walk is for those.
    ++stamp;
    bool repeated = false;
    for (int k = 0; k < m && !repeated; ++k) {
      if (f_.inst(insts[k]).opcode != Opcode::kReload) continue;
      Value v = f_.operands(insts[k])[1].value();
      repeated = seen_in[v.index()] == stamp;
      seen_in[v.index()] = stamp;
    }
    if (!repeated) continue;
    ComputeSlack(b, sets);
    std::vector<uint8_t>& dropped = b_.dropped;
    dropped.assign(m, 0);
    for (Value v : touched) loaded[v.index()] = Loaded();
    touched.clear();
    for (int k = 0; k < m; ++k) {
      Inst i = insts[k];
      if (f_.inst(i).opcode != Opcode::kReload) continue;
      absl::Span<const Operand> rops = f_.operands(i);
      Value r = rops[0].value(), v = rops[1].value();
      if (r == v || !locs_.IsSpilled(v)) continue;
      // The instruction the reload serves: the first after it that reads r.
      int j = k + 1;
      while (j < m) {
        bool reads = false;
        for (const Operand& op : f_.operands(insts[j])) reads |= op.IsUse() && op.value() == r;
        if (reads) break;
        ++j;
      }
      if (j == m) continue;
      Loaded& prev = loaded[v.index()];
      int c = model_.ClassOf(f_, v);
      if (prev.temp.IsValid() && prev.last_use < k && !IsReuseSource(insts[prev.last_use], prev.temp) &&
          Fits(prev.last_use, j, c)) {
        Charge(prev.last_use, j, c);
        ops.assign(f_.operands(insts[j]).begin(), f_.operands(insts[j]).end());
        for (Operand& op : ops) {
          if (op.IsUse() && op.value() == r) op.set_value(prev.temp);
        }
        f_.SetOperands(insts[j], ops);
        dropped[k] = 1;
        prev.last_use = j;
        --stats.reloads;
        ++stats.reuses;
        stats.weighted_cost -= loops.Weight(b);
        continue;
      }
      if (!prev.temp.IsValid()) touched.push_back(v);
      prev = Loaded{r, j};
    }
    int kept = 0;
    for (int k = 0; k < m; ++k) {
      if (!dropped[k]) insts[kept++] = insts[k];
    }
    insts.resize(kept);
  }
}

}  // namespace

absl::StatusOr<ReloadStats> InsertReloads(const Target& target, Function& func, ValueLocations& locs) {
  return InsertReloads(target, func, locs, ReloadOptions());
}

absl::StatusOr<ReloadStats> InsertReloads(const Target& target, Function& func, LiveSets& sets,
                                          ValueLocations& locs) {
  return Reloader().Run(target, func, sets, locs);
}

absl::StatusOr<ReloadStats> InsertReloads(const Target& target, Function& func, ValueLocations& locs,
                                          const ReloadOptions& options) {
  if (func.IsAllocated()) {
    return absl::FailedPreconditionError(absl::StrCat("function %", func.name(), ": reload needs SSA form"));
  }
  LiveSets sets(func);
  return Reloader(options).Run(target, func, sets, locs);
}

absl::StatusOr<ReloadStats> Reloader::Run(const Target& target, Function& func, LiveSets& sets,
                                          ValueLocations& locs) {
  return Finish(func, Rewrite(target, func, sets, locs, nullptr));
}

absl::StatusOr<ReloadStats> Reloader::Run(const Target& target, Function& func, LiveSets& sets,
                                          ValueLocations& locs, const CfgAnalyses& analyses) {
  return Finish(func, Rewrite(target, func, sets, locs, &analyses));
}

absl::StatusOr<ReloadStats> Reloader::Finish(const Function& func, absl::StatusOr<ReloadStats> s) {
  ReleaseAfterLargeFunction(func.num_insts(), b_);
  return s;
}

absl::StatusOr<ReloadStats> Reloader::Rewrite(const Target& target, Function& func, LiveSets& sets,
                                              ValueLocations& locs, const CfgAnalyses* analyses) {
  Buffers& buf = *b_;
  ReloadStats stats;
  if (func.IsAllocated()) {
    return absl::FailedPreconditionError(absl::StrCat("function %", func.name(), ": reload needs SSA form"));
  }
  locs.Resize(func.num_values());
  if (analyses == nullptr) {
    buf.cfg.Compute(func);
    analyses = &buf.cfg;
  }
  const LoopNest& loops = analyses->loops;
  auto emit = [&](Opcode op, Value def, Value use, std::vector<Inst>& out, int64_t weight) {
    InstData d;
    d.opcode = op;
    Operand ops[2] = {Operand::Def(def), Operand::Use(use)};
    out.push_back(func.NewInst(d, ops));
    ++(op == Opcode::kSpill ? stats.spills : stats.reloads);
    stats.weighted_cost += weight;
  };
  // Remat: the `const` defining each spilled constant, made again at its
  // register reads (one that clobbers registers is not: the spiller made room
  // for its clobbers where it is, not at the reads).
  std::vector<Inst>& const_def = buf.const_def;
  const_def.clear();
  if (options_.remat) {
    const_def.assign(func.num_values(), Inst());
    for (Block b : func.layout()) {
      for (Inst i : func.block(b).insts) {
        const InstData& d = func.inst(i);
        if (d.opcode != Opcode::kConst || d.clobbers >= 0) continue;
        const Value v = func.operands(i)[0].value();
        if (locs.IsSpilled(v)) const_def[v.index()] = i;
      }
    }
  }
  auto remat_of = [&](Value v) { return v.index() < const_def.size() ? const_def[v.index()] : Inst(); };
  const int sets_size = func.num_values();  // the values the sets know (Reload's own come after)
  std::vector<Value>& remade = buf.remade;  // constants made again that live across blocks
  remade.clear();
  std::vector<Operand>& ops = buf.ops;
  std::vector<std::pair<Value, Value>>& reloaded = buf.reloaded;  // (spilled value, its reload) for one instruction
  std::vector<Value>& stores = buf.stores;
  std::vector<Inst>& insts = buf.insts;
  std::vector<Inst>& out = buf.out;
  for (Block b : func.layout()) {
    int64_t weight = loops.Weight(b);
    insts = func.block(b).insts;
    out.clear();
    for (Operand& p : func.block(b).params) {
      if (!locs.IsSpilled(p.value())) continue;
      if (b == func.entry() && p.constraint() == ConstraintKind::kFixed) {
        emit(Opcode::kSpill, p.value(), p.value(), out, weight);  // arrives in a register
      } else if (b == func.entry() && p.constraint() == ConstraintKind::kReg) {
        // Arrives in a register the colorer chooses: a new value, stored at once.
        Value r = func.NewValue(func.value_type(p.value()));
        locs.Set(r, Location());
        emit(Opcode::kSpill, p.value(), r, out, weight);
        p.set_value(r);
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
      // A copy: emitting reloads and stores grows the instruction table.
      const Opcode opcode = func.inst(i).opcode;
      ops.assign(func.operands(i).begin(), func.operands(i).end());
      bool changed = false;
      reloaded.clear();
      if (!IsMoveLike(opcode)) {
        // A branch reads spilled arguments from their slots (the edge's copy does);
        // an opaque branch's own uses (a machine compare-and-branch) need a register.
        const size_t args_from = opcode == Opcode::kBranch ? func.NumNonArgOperands(i) : 0;
        for (size_t k = 0; k < ops.size(); ++k) {
          Operand& op = ops[k];
          const bool branch = IsBranch(opcode) && k >= args_from;
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
            if (const Inst c = remat_of(v); c.IsValid()) {
              const InstData d = func.inst(c);  // by value: NewInst may move the table
              const Operand def = Operand::Def(r);
              out.push_back(func.NewInst(d, absl::MakeConstSpan(&def, 1)));
              ++stats.remats;
              // Only a constant live across blocks is in the sets.
              if (v.index() < static_cast<uint32_t>(sets_size) && sets.GlobalIndex(v) >= 0) remade.push_back(v);
            } else {
              emit(Opcode::kReload, r, v, out, weight);
            }
            reloaded.push_back({v, r});
          }
          op.set_value(r);
          changed = true;
        }
      }
      if (changed) func.SetOperands(i, ops);
      if (copy.IsValid()) out.push_back(copy);
      out.push_back(i);
      if (IsMoveLike(opcode)) continue;
      // Collected first: emitting grows the operand pool under the span.
      stores.clear();
      for (const Operand& op : func.operands(i)) {
        if (op.IsDef() && locs.IsSpilled(op.value()) && op.constraint() != ConstraintKind::kStack) {
          stores.push_back(op.value());
        }
      }
      for (Value v : stores) emit(Opcode::kSpill, v, v, out, weight);
    }
    func.block(b).insts.assign(out.begin(), out.end());
  }
  if (stats.remats > 0) {
    // A spilled constant's store serves the reads of its slot (Any and Stack
    // uses, constraint copies, branch arguments): with none left, it goes, and
    // the constant is a register value read by nobody.
    const int gone = EraseUnreadStores(
        func, buf.slot_read,
        [&](Inst i) { return remat_of(func.operands(i)[0].value()).IsValid(); },
        [&](Block b, Inst i) {
          locs.Set(func.operands(i)[0].value(), Location());  // in its register, dead
          stats.weighted_cost -= loops.Weight(b);
        });
    stats.spills -= gone;
    stats.dead_stores += gone;
    // Their live ranges shrank (see InsertReloads): where one of them lives
    // across blocks, it leaves the sets where it no longer lives, for the
    // reuse step and Color.
    if (!remade.empty()) sets.Shrink(func, analyses->cfg, remade);
  }
  ReloadReuse(target, func, locs, buf).Run(loops, sets, stats);
  return stats;
}

}  // namespace regalloc
