#include "spill/spill.h"

#include <cstdint>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "base/warm_buffers.h"
#include "liveness/live_ranges.h"
#include "liveness/live_sets.h"
#include "liveness/live_walker.h"
#include "spill/demand.h"
#include "ssa/cfg.h"
#include "ssa/printer.h"
#include "ssa/program_point.h"

namespace regalloc {

// What a Spiller keeps between functions.
struct Spiller::Buffers {
  DemandModelCache model;
  PrepareBuffers prepare;
  InstNumbering num;
  std::vector<uint8_t> spilled, unspillable, excluded;
  std::vector<uint32_t> def_point;
  std::vector<int> through, adjust, scratch_through, needs, early;
  std::vector<Value> dying_args, marked;
  LiveWalker live;
};

Spiller::Spiller() : b_(std::make_unique<Buffers>()) {}
Spiller::~Spiller() = default;

namespace {

class SpillWalk {
 public:
  SpillWalk(const Target& target, Function& func, const VirtRegs& vregs, const LiveSets& sets, ValueLocations& locs,
            const SpillOptions& options, Spiller::Buffers& b)
      : t_(target), f_(func), vregs_(vregs), sets_(sets), locs_(locs), options_(options), b_(b),
        model_(b.model.For(target)),
        spilled_(b.spilled), unspillable_(b.unspillable), excluded_(b.excluded), def_point_(b.def_point),
        through_(b.through), adjust_(b.adjust), scratch_through_(b.scratch_through), dying_args_(b.dying_args),
        live_(b.live) {}

  absl::StatusOr<SpillStats> Run();

 private:
  // Spills `v` and the rest of its virtual register to one new slot.
  void SpillVreg(Value v);
  void MarkSpilled(Value v, StackSlot slot);
  // Counts `v` in `through_` when it is live in a register.
  void Count(Value v, int delta) {
    int c = model_.ClassOf(f_, v);
    if (c >= 0 && !spilled_[v.index()]) through_[c] += delta;
  }
  bool Eligible(Value v, const Overflow& o) const;
  // The victim for `o` at point `p` (invalid when there is none).
  Value Choose(const Overflow& o, ProgramPoint p) const;
  // Spills until `through_ - defs_live` + needs fits outside `pinned` (and, at
  // an instruction, + early outside `fixed_uses`: DemandModel::CheckAtInst). `at` is
  // the point (for the heuristics); `where` names the place in errors;
  // `refresh` recomputes `needs` after a spill of one of `dying_args_`.
  template <typename Where, typename Refresh>
  absl::Status Fit(std::vector<int>& needs, const std::vector<int>* early, const RegSet& pinned,
                   const RegSet& fixed_uses, ProgramPoint at, const Where& where,
                   const Refresh& refresh);
  void ComputeDefPoints(const InstNumbering& num);

  const Target& t_;
  Function& f_;
  const VirtRegs& vregs_;
  const LiveSets& sets_;
  ValueLocations& locs_;
  const SpillOptions& options_;
  Spiller::Buffers& b_;
  const DemandModel& model_;
  SpillStats stats_;

  std::vector<uint8_t>& spilled_;
  std::vector<uint8_t>& unspillable_;  // constraint copies' defs
  // Operands of the instruction being fitted: excluded, or read early only in
  // a register (kReadEarly: spilling such a value still helps where the
  // instruction clobbers registers, its reload dying there may sit in one;
  // chosen only when nothing else will do).
  std::vector<uint8_t>& excluded_;
  static constexpr uint8_t kExcluded = 1, kReadEarly = 2;
  bool read_early_ok_ = false;
  std::vector<uint32_t>& def_point_;
  std::vector<int>& through_;          // per class: live, in registers
  std::vector<int>& adjust_;           // per class: live defs of the current instruction
  std::vector<int>& scratch_through_;
  // The arguments of the branch being fitted that die at it: candidates too.
  std::vector<Value>& dying_args_;
  LiveWalker& live_;
  const UsePositions* uses_ = nullptr;
};

void SpillWalk::MarkSpilled(Value v, StackSlot slot) {
  if (live_.IsLive(v)) Count(v, -1);
  spilled_[v.index()] = 1;
  locs_.Set(v, Location::Stack(slot));
  ++stats_.values_spilled;
}

void SpillWalk::SpillVreg(Value v) {
  if (spilled_[v.index()]) return;
  // One slot for the whole virtual register (or the lone value), big enough for
  // every member.
  VirtReg r = vregs_.Get(v);
  absl::Span<const Value> members = r.IsValid() ? vregs_.Members(r) : absl::MakeConstSpan(&v, 1);
  int size = 0;
  for (Value m : members) size = std::max(size, TypeSize(f_.value_type(m)));
  StackSlot slot = f_.NewStackSlot(size);
  ++stats_.slots;
  for (Value m : members) MarkSpilled(m, slot);
}

bool SpillWalk::Eligible(Value v, const Overflow& o) const {
  if (spilled_[v.index()] || unspillable_[v.index()]) return false;
  if (excluded_[v.index()] == kExcluded || (excluded_[v.index()] == kReadEarly && !read_early_ok_)) return false;
  int c = model_.ClassOf(f_, v);
  if (c < 0) return false;
  if (o.cls >= 0) return c == o.cls;
  return t_.Class(RegClass(c)).bank == o.bank;
}

Value SpillWalk::Choose(const Overflow& o, ProgramPoint p) const {
  Value best;
  uint64_t best_key = 0;
  // The values live through the point first; a branch's dying arguments only
  // when none of those will do.
  absl::Span<const Value> live = live_.values();
  for (size_t k = 0; k < live.size() + dying_args_.size(); ++k) {
    if (k == live.size() && best.IsValid()) break;
    Value v = k < live.size() ? live[k] : dying_args_[k - live.size()];
    if (!Eligible(v, o)) continue;
    uint64_t key;
    if (options_.heuristic == SpillHeuristic::kFarthestDef) {
      key = std::numeric_limits<uint32_t>::max() - def_point_[v.index()];
    } else {
      // Distance to the next use after p in layout order; none (a value used only
      // around a back edge, or only earlier) counts as farthest.
      absl::Span<const UsePosition> us = uses_->Of(v);
      auto it = std::upper_bound(us.begin(), us.end(), p,
                                 [](ProgramPoint x, const UsePosition& u) { return x < u.point; });
      while (it != us.end() && it->is_def) ++it;
      key = it == us.end() ? std::numeric_limits<uint64_t>::max() : it->point.bits() - p.bits();
    }
    // Ties: the lower value id, so results do not depend on set order.
    if (!best.IsValid() || key > best_key || (key == best_key && v < best)) {
      best = v;
      best_key = key;
    }
  }
  return best;
}

template <typename Where, typename Refresh>
absl::Status SpillWalk::Fit(std::vector<int>& needs, const std::vector<int>* early, const RegSet& pinned,
                            const RegSet& fixed_uses, ProgramPoint at, const Where& where,
                          const Refresh& refresh) {
  std::vector<int>& through = scratch_through_;
  through.resize(through_.size());
  while (true) {
    for (size_t c = 0; c < through.size(); ++c) through[c] = through_[c] - adjust_[c];
    std::optional<Overflow> over = early != nullptr ? model_.CheckAtInst(through, needs, *early, pinned, fixed_uses)
                                                    : model_.Check(through, needs, pinned);
    if (!over.has_value()) return absl::OkStatus();
    Value victim = Choose(*over, at);
    if (!victim.IsValid() && early != nullptr) {
      read_early_ok_ = true;
      victim = Choose(*over, at);
      read_early_ok_ = false;
    }
    if (!victim.IsValid()) {
      std::string what = over->cls >= 0 ? absl::StrCat("class ", t_.Class(RegClass(over->cls)).name)
                                        : absl::StrCat("bank ", t_.Bank(over->bank).name);
      return absl::InvalidArgumentError(absl::StrCat(where(), ": over-constrained: its operands and the values it "
                                                     "must keep alive do not fit the registers of ", what,
                                                     " left by its fixed registers and clobbers"));
    }
    const bool read_here = excluded_[victim.index()] == kReadEarly;
    SpillVreg(victim);
    ++stats_.spill_decisions;
    if (!dying_args_.empty() || read_here) refresh();
  }
}

void SpillWalk::ComputeDefPoints(const InstNumbering& num) {
  def_point_.assign(f_.num_values(), 0);
  for (Block b : f_.layout()) {
    if (f_.block(b).insts.empty()) continue;
    for (const Operand& p : f_.block(b).params) def_point_[p.value().index()] = num.BlockStart(b).bits();
    for (Inst i : f_.block(b).insts) {
      for (const Operand& op : f_.operands(i)) {
        if (op.IsDef()) def_point_[op.value().index()] = num.Late(i).bits();
      }
    }
  }
}

absl::StatusOr<SpillStats> SpillWalk::Run() {
  if (f_.IsAllocated()) {
    return absl::FailedPreconditionError(absl::StrCat("function %", f_.name(), ": spilling needs SSA form"));
  }
  // Constraint copies define values local to their blocks: the live-in and
  // live-out sets stay exact, so one computation serves both steps.
  const LiveSets& sets = sets_;
  RA_ASSIGN_OR_RETURN(stats_.prepare, PrepareConstraints(f_, t_, sets, b_.prepare));
  int n = f_.num_values();
  for (int v = 0; v < n; ++v) {
    if (f_.ValueExists(Value(v)) && model_.ClassOf(f_, Value(v)) < 0) {
      return absl::InvalidArgumentError(absl::StrCat("function %", f_.name(), ": ", f_.ValueName(Value(v)), " has type ",
                                                     TypeName(f_.value_type(Value(v))), ", for which ", t_.name(),
                                                     " has no registers"));
    }
  }
  InstNumbering& num = b_.num;
  num.Compute(f_);
  ComputeDefPoints(num);
  std::optional<ControlFlowGraph> cfg;
  std::optional<DominatorTree> dom;
  std::optional<LoopNest> loops;
  std::optional<UsePositions> uses;
  if (options_.heuristic == SpillHeuristic::kFarthestNextUse) {
    cfg.emplace(f_);
    dom.emplace(f_, *cfg);
    loops.emplace(f_, *cfg, *dom);
    uses.emplace(f_, num, *loops);
    uses_ = &*uses;
  }
  spilled_.assign(n, 0);
  unspillable_.assign(n, 0);
  excluded_.assign(n, 0);
  live_.Reset(n);
  // Values defined on the stack, and the defs of constraint copies.
  for (Block b : f_.layout()) {
    for (const Operand& p : f_.block(b).params) {
      if (p.constraint() == ConstraintKind::kStack) SpillVreg(p.value());
    }
    for (Inst i : f_.block(b).insts) {
      bool copy = IsConstraintCopy(f_, i);
      for (const Operand& op : f_.operands(i)) {
        if (!op.IsDef()) continue;
        if (copy) unspillable_[op.value().index()] = 1;
        if (op.constraint() == ConstraintKind::kStack) SpillVreg(op.value());
      }
    }
  }

  int nc = model_.num_classes();
  through_.assign(nc, 0);
  adjust_.assign(nc, 0);
  std::vector<int>& needs = b_.needs;
  std::vector<int>& early = b_.early;
  needs.assign(nc, 0);
  std::vector<Value>& marked = b_.marked;
  marked.clear();
  // The operands of the instruction being fitted may not be spilled to fit it,
  // except a branch's arguments and uses read @stack (a call's stack-passed
  // arguments): spilled, they need no register there (the edge's parallel copy,
  // or the instruction, reads their slot).
  // `fitted`: i is the instruction being fitted (not the one a constraint
  // copy serves, whose operands are only kept).
  auto exclude = [&](Inst i, bool fitted) {
    absl::Span<const Operand> ops = f_.operands(i);
    size_t keep = f_.NumNonArgOperands(i);
    for (size_t k = 0; k < keep; ++k) {
      if (ops[k].IsUse() && ops[k].constraint() == ConstraintKind::kStack) continue;
      if (excluded_[ops[k].value().index()] == 0) marked.push_back(ops[k].value());
      excluded_[ops[k].value().index()] = kExcluded;
    }
    if (!fitted || f_.inst(i).clobbers < 0) return;
    // Values read early only, in a register of the allocator's choice, by no
    // other operand and not overwritten in place.
    for (size_t k = 0; k < keep; ++k) {
      const Operand& op = ops[k];
      if (!op.IsUse() || op.constraint() != ConstraintKind::kReg || op.position() != Position::kEarly ||
          IsReuseSource(ops, k)) {
        continue;
      }
      bool alone = true;
      for (size_t x = 0; x < ops.size(); ++x) alone &= x == k || ops[x].value() != op.value();
      if (alone) excluded_[op.value().index()] = kReadEarly;
    }
  };
  // The arguments of branch `i` not live after it (a value both a live-through
  // and an argument is a candidate anyway).
  auto collect_dying_args = [&](Inst i) {
    dying_args_.clear();
    if (!IsBranch(f_.inst(i).opcode)) return;
    absl::Span<const Operand> ops = f_.operands(i);
    for (size_t k = f_.NumNonArgOperands(i); k < ops.size(); ++k) {
      Value v = ops[k].value();
      if (!live_.IsLive(v) && std::find(dying_args_.begin(), dying_args_.end(), v) == dying_args_.end()) {
        dying_args_.push_back(v);
      }
    }
  };
  for (Block b : f_.layout()) {
    const std::vector<Inst>& insts = f_.block(b).insts;
    if (insts.empty()) continue;
    live_.StartBlock(sets.LiveOut(b));
    std::fill(through_.begin(), through_.end(), 0);
    for (Value v : live_.values()) Count(v, +1);
    for (size_t k = insts.size(); k-- > 0;) {
      Inst i = insts[k];
      absl::Span<const Operand> ops = f_.operands(i);
      std::fill(adjust_.begin(), adjust_.end(), 0);
      bool pins = f_.inst(i).clobbers >= 0;
      for (const Operand& op : ops) {
        pins |= op.constraint() == ConstraintKind::kFixed;
        if (!op.IsDef() || !live_.IsLive(op.value()) || spilled_[op.value().index()]) continue;
        int c = model_.ClassOf(f_, op.value());
        if (c >= 0) ++adjust_[c];
      }
      std::vector<int>& through = scratch_through_;
      through.resize(nc);
      for (int c = 0; c < nc; ++c) through[c] = through_[c] - adjust_[c];
      if (pins || !model_.SurelyFits(through, static_cast<int>(ops.size()))) {
        // A constraint copy is fitted with the instruction it serves: neither
        // may lose the other's operands.
        exclude(i, true);
        if (IsConstraintCopy(f_, i) && k + 1 < insts.size()) exclude(insts[k + 1], false);
        model_.NeedsAtInst(f_, i, live_, locs_, needs, early);
        collect_dying_args(i);
        RA_RETURN_IF_ERROR(Fit(
            needs, &early, model_.Pinned(f_, i), model_.FixedUses(f_, i), num.Late(i),
            [&] { return absl::StrCat("function %", f_.name(), ", ", f_.BlockName(b), " `", PrintInst(f_, i, t_), "`"); },
            [&] { model_.NeedsAtInst(f_, i, live_, locs_, needs, early); }));
        dying_args_.clear();
        for (Value v : marked) excluded_[v.index()] = 0;
        marked.clear();
      }
      // Step back over i.
      for (const Operand& op : ops) {
        if (op.IsDef() && live_.Remove(op.value())) Count(op.value(), -1);
      }
      for (const Operand& op : ops) {
        if (op.IsUse() && live_.Add(op.value())) Count(op.value(), +1);
      }
    }
    // Block entry: live-in values and parameters; fixed parameters (the entry
    // block's) sit in pinned registers, dead ones still take a register.
    std::fill(adjust_.begin(), adjust_.end(), 0);
    std::fill(needs.begin(), needs.end(), 0);
    for (const Operand& p : f_.block(b).params) {
      int c = model_.ClassOf(f_, p.value());
      if (c < 0 || spilled_[p.value().index()] || p.constraint() == ConstraintKind::kStack) continue;
      bool live = live_.IsLive(p.value());
      if (p.constraint() == ConstraintKind::kFixed) {
        adjust_[c] += live;
      } else if (!live) {
        ++needs[c];
      }
    }
    RA_RETURN_IF_ERROR(Fit(
        needs, nullptr, model_.PinnedParams(f_, b), RegSet(), num.BlockStart(b),
        [&] { return absl::StrCat("function %", f_.name(), ", ", f_.BlockName(b), " entry"); }, [] {}));
  }

  locs_.Resize(f_.num_values());
  return stats_;
}

}  // namespace

absl::StatusOr<SpillStats> Spill(const Target& target, Function& func, const VirtRegs& vregs, const LiveSets& sets,
                                 ValueLocations& locs, const SpillOptions& options) {
  return Spiller().Run(target, func, vregs, sets, locs, options);
}

absl::StatusOr<SpillStats> Spiller::Run(const Target& target, Function& func, const VirtRegs& vregs,
                                        const LiveSets& sets, ValueLocations& locs, const SpillOptions& options) {
  locs.Clear();
  locs.Resize(func.num_values());
  absl::StatusOr<SpillStats> s = SpillWalk(target, func, vregs, sets, locs, options, *b_).Run();
  ReleaseAfterLargeFunction(func.num_insts(), b_);
  return s;
}

absl::StatusOr<SpillStats> Spill(const Target& target, Function& func, const VirtRegs& vregs, ValueLocations& locs,
                                 const SpillOptions& options) {
  if (func.IsAllocated()) {
    return absl::FailedPreconditionError(absl::StrCat("function %", func.name(), ": spilling needs SSA form"));
  }
  LiveSets sets(func);
  return Spill(target, func, vregs, sets, locs, options);
}

}  // namespace regalloc
