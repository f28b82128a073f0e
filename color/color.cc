#include "color/color.h"

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "base/warm_buffers.h"
#include "liveness/live_sets.h"
#include "liveness/live_walker.h"
#include "spill/demand.h"
#include "spill/prepare.h"
#include "ssa/cfg.h"
#include "ssa/parallel_copy.h"
#include "ssa/printer.h"

namespace regalloc {

// What a Colorer keeps between functions.
struct Colorer::Buffers {
  DemandModelCache model;
  CfgAnalyses cfg;
  std::vector<Inst> insts, out;
  std::vector<Value> owner;
  std::vector<Location> cur;
  std::vector<int32_t> pos;
  std::vector<Value> in_regs;
  std::vector<uint8_t> frozen;
  // Avoid sets, interned: most values share one of a few (none, a call's
  // clobbers, ...), so a value holds a 4-byte id, not a 32-byte set.
  std::vector<uint32_t> avoid;       // per value: an index into avoid_sets
  std::vector<RegSet> avoid_sets;    // [0] is the empty set
  absl::flat_hash_map<RegSet, uint32_t> avoid_ids;
  // Prepass, per set id: its union with the current instruction's pinned set,
  // valid where union_stamp equals that instruction's stamp.
  std::vector<uint32_t> union_of, union_stamp;
  std::vector<PReg> hint;
  std::vector<PReg> vreg_reg;
  std::vector<Value> dies;
  std::vector<uint32_t> dies_begin;
  std::vector<uint16_t> dies_count;
  std::vector<uint16_t> dies_uses;
  std::vector<uint8_t> param_dead;
  std::vector<std::pair<Value, uint32_t>> pinned_defs;  // Prepass: an instruction's live defs and their avoid sets
  LiveWalker live;
};

Colorer::Colorer() : b_(std::make_unique<Buffers>()) {}
Colorer::~Colorer() = default;

namespace {

class ColorWalk {
 public:
  ColorWalk(const Target& t, Function& f, const VirtRegs& vregs, const LiveSets& sets, ValueLocations& locs,
            Colorer::Buffers& b, const CfgAnalyses* analyses)
      : t_(t), f_(f), vregs_(vregs), sets_(sets), locs_(locs), b_(b), analyses_(analyses), model_(b.model.For(t)),
        owner_(b.owner),
        cur_(b.cur), pos_(b.pos), in_regs_(b.in_regs), frozen_(b.frozen), avoid_(b.avoid),
        avoid_sets_(b.avoid_sets), hint_(b.hint), vreg_reg_(b.vreg_reg), dies_(b.dies),
        dies_begin_(b.dies_begin), dies_count_(b.dies_count), dies_uses_(b.dies_uses),
        param_dead_(b.param_dead), live_(b.live) {}
  absl::StatusOr<ColorStats> Run();

 private:
  // --- register file state ---
  bool InReg(Value v) const { return cur_[v.index()].IsReg(); }
  void Occupy(Value v, Location l) {
    cur_[v.index()] = l;
    if (!l.IsReg()) return;
    for (uint32_t u : t_.UnitList(l.reg())) owner_[u] = v;
    busy_ |= t_.Units(l.reg());
    used_ |= t_.Aliases(l.reg());
    if (pos_[v.index()] < 0) {
      pos_[v.index()] = static_cast<int32_t>(in_regs_.size());
      in_regs_.push_back(v);
    }
  }
  // Frees v's register (if v holds it); v's location is kept for the record.
  void Vacate(Value v) {
    Location l = cur_[v.index()];
    if (!l.IsReg()) return;
    for (uint32_t u : t_.UnitList(l.reg())) {
      if (owner_[u] == v) {
        owner_[u] = Value();
        busy_.Reset(u);
      }
    }
    int32_t p = pos_[v.index()];
    if (p >= 0) {
      Value last = in_regs_.back();
      in_regs_[p] = last;
      pos_[last.index()] = p;
      in_regs_.pop_back();
      pos_[v.index()] = -1;
    }
  }
  void ClearState() {
    for (Value v : in_regs_) pos_[v.index()] = -1;
    in_regs_.clear();
    std::fill(owner_.begin(), owner_.end(), Value());
    busy_ = UnitSet();
  }

  // A free register for `v` (of its class) overlapping neither `busy` units nor
  // `forbid` registers; `hint` first, then registers outside v's avoid set.
  // With `pack`, plain first fit in allocation order (no hint, no avoid set).
  std::optional<PReg> Pick(Value v, const UnitSet& busy, const RegSet& forbid, std::optional<PReg> hint,
                           bool pack = false) const;
  std::optional<PReg> HintFor(Value v) const;
  // The first register a member of a virtual register gets becomes the others' hint.
  void NoteVregReg(Value v, Location l) {
    VirtReg vr = vregs_.Get(v);
    if (l.IsReg() && vr.IsValid() && !vreg_reg_[vr.index()].IsValid()) vreg_reg_[vr.index()] = l.reg();
  }

  std::string Where(Block b, Inst i) const {
    return absl::StrCat("function %", f_.name(), ", ", f_.BlockName(b), " `", PrintInst(f_, i, t_), "`");
  }
  absl::Status Bug(Block b, Inst i, absl::string_view what) const {
    return absl::InternalError(absl::StrCat(Where(b, i), ": ", what, " (the spiller should have made room)"));
  }

  // One backward walk per block: avoid sets, hints, and each instruction's last
  // uses and dead defs.
  void Prepass(const LiveSets& sets);
  // The id of avoid set `s`, made on first request.
  uint32_t InternAvoid(const RegSet& s) {
    auto [it, added] = b_.avoid_ids.emplace(s, static_cast<uint32_t>(avoid_sets_.size()));
    if (added) avoid_sets_.push_back(s);
    return it->second;
  }
  static constexpr uint32_t kNoId = ~uint32_t{0};
  // The values whose last use is `i`, and the values `i` defines that nothing reads.
  absl::Span<const Value> DyingUses(Inst i) const {
    return absl::MakeConstSpan(dies_.data() + dies_begin_[i.index()], dies_uses_[i.index()]);
  }
  absl::Span<const Value> DeadDefs(Inst i) const {
    return absl::MakeConstSpan(dies_.data() + dies_begin_[i.index()] + dies_uses_[i.index()],
                               dies_count_[i.index()] - dies_uses_[i.index()]);
  }
  bool DiesAt(Value v, Inst i) const {
    for (Value d : DyingUses(i)) {
      if (d == v) return true;
    }
    return false;
  }
  void EnterBlock(Block b, const LiveSets& sets);
  absl::Status AssignParams(Block b);
  // Emits the parallel copy `moves` (already reflected in the state) before the
  // instruction being processed.
  absl::Status EmitCopy(absl::Span<const CopyMove> moves);
  // The constraint copy `copy` (may be invalid) and the relocations inst `i` needs.
  absl::Status Relocate(Block b, Inst copy, Inst i);
  absl::Status RestoreHomes(Block b, Inst branch, const LiveSets& sets);
  absl::Status AssignInst(Block b, Inst i);

  const Target& t_;
  Function& f_;
  const VirtRegs& vregs_;
  const LiveSets& sets_;
  ValueLocations& locs_;
  Colorer::Buffers& b_;
  const CfgAnalyses* analyses_;  // the caller's, or b_.cfg once computed
  const DemandModel& model_;
  ColorStats stats_;

  std::vector<Value>& owner_;       // per unit
  UnitSet busy_;
  std::vector<Location>& cur_;      // per value: where it is now (or was last)
  std::vector<int32_t>& pos_;       // per value: index in in_regs_, or -1
  std::vector<Value>& in_regs_;     // values holding a register now
  std::vector<uint8_t>& frozen_;    // per value: home fixed (block-crossing values)
  std::vector<uint32_t>& avoid_;    // per value: registers pinned during its life (an id)
  std::vector<RegSet>& avoid_sets_;  // by id
  std::vector<PReg>& hint_;         // per value: fixed register of a later copy of it
  std::vector<PReg>& vreg_reg_;     // per virtual register: its members' register
  RegSet used_;
  int64_t weight_ = 1;
  std::vector<Inst>* out_ = nullptr;
  // Per instruction: the values whose last use it is, and its dead defs.
  std::vector<Value>& dies_;
  std::vector<uint32_t>& dies_begin_;
  std::vector<uint16_t>& dies_count_;
  std::vector<uint16_t>& dies_uses_;  // the first dies_uses_ of each row are uses
  std::vector<uint8_t>& param_dead_;  // per value: a block parameter nothing reads
  LiveWalker& live_;
  Value missing_home_;
};

std::optional<PReg> ColorWalk::HintFor(Value v) const {
  VirtReg r = vregs_.Get(v);
  if (r.IsValid() && vreg_reg_[r.index()].IsValid()) return vreg_reg_[r.index()];
  if (v.index() < hint_.size() && hint_[v.index()].IsValid()) return hint_[v.index()];
  return std::nullopt;
}

std::optional<PReg> ColorWalk::Pick(Value v, const UnitSet& busy, const RegSet& forbid, std::optional<PReg> hint,
                                  bool pack) const {
  std::optional<RegClass> cls = t_.ClassFor(f_.value_type(v));
  if (!cls.has_value()) return std::nullopt;
  auto fits = [&](PReg r) { return t_.InClass(r, *cls) && !forbid.Contains(r) && !busy.Intersects(t_.Units(r)); };
  if (pack) {
    for (PReg r : t_.Class(*cls).allocation_order) {
      if (fits(r)) return r;
    }
    return std::nullopt;
  }
  const RegSet& avoid = avoid_sets_[avoid_[v.index()]];
  if (hint.has_value() && fits(*hint) && !avoid.Contains(*hint)) return hint;
  std::optional<PReg> fallback;
  for (PReg r : t_.Class(*cls).allocation_order) {
    if (!fits(r)) continue;
    if (!avoid.Contains(r)) return r;
    if (!fallback.has_value()) fallback = r;
  }
  if (hint.has_value() && fits(*hint)) return hint;
  return fallback;
}

// Avoid sets: the pinned registers of every instruction a value lives across.
// Hints: a value copied into a fixed register by a constraint copy prefers it.
// Last uses: the uses of an instruction not live after it, and its dead defs.
void ColorWalk::Prepass(const LiveSets& sets) {
  int n = f_.num_values();
  avoid_.assign(n, 0);
  avoid_sets_.assign(1, RegSet());
  b_.avoid_ids.clear();
  b_.avoid_ids.emplace(RegSet(), 0);
  std::vector<uint32_t>& union_of = b_.union_of;
  std::vector<uint32_t>& union_stamp = b_.union_stamp;
  union_stamp.clear();
  union_of.clear();
  uint32_t stamp = 0;
  hint_.assign(n, PReg());
  param_dead_.assign(n, 0);
  dies_.clear();
  dies_begin_.assign(f_.num_insts(), 0);
  dies_count_.assign(f_.num_insts(), 0);
  dies_uses_.assign(f_.num_insts(), 0);
  live_.Reset(n);
  for (Block b : f_.layout()) {
    const std::vector<Inst>& insts = f_.block(b).insts;
    live_.StartBlock(sets.LiveOut(b));
    for (size_t k = insts.size(); k-- > 0;) {
      Inst i = insts[k];
      absl::Span<const Operand> ops = f_.operands(i);
      if (IsConstraintCopy(f_, i)) {
        size_t m = ops.size() / 2;
        for (size_t e = 0; e < m; ++e) {
          if (ops[e].constraint() == ConstraintKind::kFixed) hint_[ops[m + e].value().index()] = ops[e].fixed_reg();
        }
      }
      RegSet pinned = model_.Pinned(f_, i);
      if (!pinned.Empty()) {
        // Every value live across i avoids them; i's own defs (live below i
        // too) do not: their sets are put back after the sweep.
        std::vector<std::pair<Value, uint32_t>>& defs = b_.pinned_defs;
        defs.clear();
        for (const Operand& op : ops) {
          if (op.IsDef() && live_.IsLive(op.value())) defs.push_back({op.value(), avoid_[op.value().index()]});
        }
        // Each set id met here gets its union with `pinned` once; runs of
        // values with one id (the usual case) look it up once.
        ++stamp;
        union_stamp.resize(avoid_sets_.size(), 0);  // the ids the live values hold
        union_of.resize(avoid_sets_.size());
        uint32_t last = kNoId, last_union = 0;
        for (Value v : live_.values()) {
          uint32_t& id = avoid_[v.index()];
          if (id != last) {
            last = id;
            if (union_stamp[id] != stamp) {
              union_stamp[id] = stamp;
              union_of[id] = InternAvoid(avoid_sets_[id] | pinned);
            }
            last_union = union_of[id];
          }
          id = last_union;
        }
        for (const auto& [v, before] : defs) avoid_[v.index()] = before;
      }
      uint32_t begin = static_cast<uint32_t>(dies_.size());
      for (const Operand& op : ops) {
        if (op.IsUse() && !live_.IsLive(op.value()) &&
            std::find(dies_.begin() + begin, dies_.end(), op.value()) == dies_.end()) {
          dies_.push_back(op.value());
        }
      }
      dies_uses_[i.index()] = static_cast<uint16_t>(dies_.size() - begin);
      int def_index = 0;
      for (const Operand& op : ops) {
        if (!op.IsDef()) continue;
        // A dead def dies where it is born.
        if (!IsRelocation(f_, i, def_index) && !live_.IsLive(op.value())) dies_.push_back(op.value());
        ++def_index;
      }
      dies_begin_[i.index()] = begin;
      dies_count_[i.index()] = static_cast<uint16_t>(dies_.size() - begin);
      live_.StepBack(f_, i);
    }
    for (const Operand& p : f_.block(b).params) param_dead_[p.value().index()] = !live_.IsLive(p.value());
  }
  for (int v = 0; v < n; ++v) {
    if (hint_[v].IsValid() && avoid_sets_[avoid_[v]].Contains(hint_[v])) hint_[v] = PReg();
  }
}

void ColorWalk::EnterBlock(Block b, const LiveSets& sets) {
  ClearState();
  for (Value v : sets.LiveIn(b)) {
    if (!frozen_[v.index()]) {
      // Cannot happen in dominator order on a strict SSA function.
      missing_home_ = v;
      continue;
    }
    Location home = locs_.Get(v);
    cur_[v.index()] = home;
    if (home.IsReg()) Occupy(v, home);
  }
}

absl::Status ColorWalk::AssignParams(Block b) {
  std::vector<Operand>& params = f_.block(b).params;
  RegSet fixed;
  for (const Operand& p : params) {
    if (p.constraint() == ConstraintKind::kFixed && !locs_.IsSpilled(p.value())) fixed |= t_.Aliases(p.fixed_reg());
  }
  // Fixed ones first (the entry block's ABI registers), then the others.
  for (int pass = 0; pass < 2; ++pass) {
    for (Operand& p : params) {
      Value v = p.value();
      bool is_fixed = p.constraint() == ConstraintKind::kFixed;
      if ((pass == 0) != is_fixed) continue;
      Location loc;
      if (is_fixed) {
        loc = Location::Reg(p.fixed_reg());  // a spilled one arrives here, then is stored
        if (busy_.Intersects(t_.Units(p.fixed_reg()))) {
          return absl::InternalError(absl::StrCat("function %", f_.name(), ", ", f_.BlockName(b), ": parameter ",
                                                  f_.ValueName(v), " is fixed to an occupied register"));
        }
      } else if (locs_.IsSpilled(v)) {
        loc = locs_.Get(v);
      } else {
        std::optional<PReg> r = Pick(v, busy_, fixed, HintFor(v));
        if (!r.has_value()) {
          return absl::InternalError(absl::StrCat("function %", f_.name(), ", ", f_.BlockName(b),
                                                  ": no register for parameter ", f_.ValueName(v),
                                                  " (the spiller should have made room)"));
        }
        loc = Location::Reg(*r);
      }
      NoteVregReg(v, loc);
      p.set_location(loc);
      Occupy(v, loc);
    }
  }
  for (const Operand& p : params) {
    if (param_dead_[p.value().index()]) Vacate(p.value());
  }
  return absl::OkStatus();
}

absl::Status ColorWalk::EmitCopy(absl::Span<const CopyMove> moves) {
  RA_ASSIGN_OR_RETURN(EmittedCopy e, EmitParallelCopy(f_, t_, moves, *out_));
  stats_.moves += e.moves;
  stats_.renames += e.renames;
  stats_.swaps += e.swaps;
  stats_.stack_temps += e.stack_temps;
  stats_.weighted_cost += e.moves * weight_;
  return absl::OkStatus();
}

absl::Status ColorWalk::Relocate(Block b, Inst copy, Inst i) {
  RegSet fixed_uses, late_forbid;
  const InstData& d = f_.inst(i);
  if (d.clobbers >= 0) {
    for (PReg r : f_.clobber_set(d.clobbers)) late_forbid |= t_.Aliases(r);
  }
  for (const Operand& op : f_.operands(i)) {
    if (op.constraint() != ConstraintKind::kFixed) continue;
    (op.IsUse() ? fixed_uses : late_forbid) |= t_.Aliases(op.fixed_reg());
  }
  const RegSet pinned = fixed_uses | late_forbid;  // what DemandModel::Pinned(f_, i) gives
  if (!copy.IsValid() && pinned.Empty()) return absl::OkStatus();

  struct Move {
    Value value;
    RegSet forbid;
  };
  absl::InlinedVector<Move, 8> moving;
  absl::InlinedVector<Value, 8> dying_at_copy;
  for (Value w : in_regs_) {
    // Read by the copy and by nothing after it (so not by i either).
    if (copy.IsValid() && DiesAt(w, copy)) {
      dying_at_copy.push_back(w);
      continue;
    }
    bool through = !DiesAt(w, i);
    RegSet forbid;
    if (through) {
      forbid = pinned;
    } else {
      forbid = fixed_uses;
      for (const Operand& op : f_.operands(i)) {
        if (op.IsUse() && op.value() == w && op.position() == Position::kLate) forbid |= late_forbid;
      }
    }
    if (forbid.Contains(cur_[w.index()].reg())) moving.push_back(Move{w, forbid});
  }
  if (!copy.IsValid() && moving.empty()) return absl::OkStatus();

  // The register file after the copy: what stays, the copy's fixed defs, then
  // the moved values and the copy's other defs.
  UnitSet after = busy_;
  for (Value w : dying_at_copy) after.Subtract(t_.Units(cur_[w.index()].reg()));
  for (const Move& m : moving) after.Subtract(t_.Units(cur_[m.value.index()].reg()));
  absl::InlinedVector<CopyMove, 8> moves;
  absl::InlinedVector<std::pair<Value, Location>, 8> placed;
  if (copy.IsValid()) {
    absl::Span<const Operand> ops = f_.operands(copy);
    size_t m = ops.size() / 2;
    // Each def of the copy reads its source from where it is now.
    auto place = [&](size_t e, PReg r) {
      after |= t_.Units(r);
      placed.push_back({ops[e].value(), Location::Reg(r)});
      Value src = ops[m + e].value();
      moves.push_back(CopyMove{cur_[src.index()], Location::Reg(r), src, ops[e].value(), f_.value_type(src)});
    };
    for (size_t e = 0; e < m; ++e) {
      if (ops[e].constraint() != ConstraintKind::kFixed) continue;
      PReg r = ops[e].fixed_reg();
      if (after.Intersects(t_.Units(r))) return Bug(b, i, absl::StrCat("%", t_.RegName(r), " is not free for ", f_.ValueName(ops[e].value())));
      place(e, r);
    }
    for (size_t e = 0; e < m; ++e) {
      if (ops[e].constraint() == ConstraintKind::kFixed) continue;
      Value src = ops[m + e].value();
      std::optional<PReg> hint;
      if (cur_[src.index()].IsReg() && DiesAt(src, copy)) hint = cur_[src.index()].reg();
      std::optional<PReg> r = Pick(ops[e].value(), after, fixed_uses, hint);
      if (!r.has_value()) return Bug(b, i, absl::StrCat("no register for the copy ", f_.ValueName(ops[e].value())));
      place(e, *r);
    }
  }
  // Place the moved values. If aliasing leaves no aligned register (ARMv7: an
  // s or d value in each of d8-d15 blocks every callee-saved q), re-place every
  // value of that bank still live after the copy, largest first, in allocation
  // order: that packs each aligned region without holes.
  UnitSet before_moves = after;
  auto place = [&](bool pack) -> std::optional<Value> {
    after = before_moves;
    size_t base = placed.size();
    for (const Move& m : moving) {
      Value w = m.value;
      std::optional<PReg> home;
      if (!pack && frozen_[w.index()] && locs_.Get(w).IsReg()) home = locs_.Get(w).reg();
      std::optional<PReg> r = Pick(w, after, m.forbid, home, pack);
      if (!r.has_value()) {
        placed.resize(base);
        return w;
      }
      after |= t_.Units(*r);
      placed.push_back({w, Location::Reg(*r)});
    }
    return std::nullopt;
  };
  if (std::optional<Value> stuck = place(/*pack=*/false)) {
    int bank = t_.Class(*t_.ClassFor(f_.value_type(*stuck))).bank;
    auto bank_of = [&](Value v) { return t_.Class(*t_.ClassFor(f_.value_type(v))).bank; };
    for (Value w : in_regs_) {
      if (bank_of(w) != bank) continue;
      if (std::find(dying_at_copy.begin(), dying_at_copy.end(), w) != dying_at_copy.end()) continue;
      bool listed = false;
      for (const Move& m : moving) listed |= m.value == w;
      if (listed) continue;
      RegSet forbid = DiesAt(w, i) ? fixed_uses : pinned;
      for (const Operand& op : f_.operands(i)) {
        if (op.IsUse() && op.value() == w && op.position() == Position::kLate) forbid |= late_forbid;
      }
      moving.push_back(Move{w, forbid});
      before_moves.Subtract(t_.Units(cur_[w.index()].reg()));
    }
    auto weight = [&](Value v) { return t_.Class(*t_.ClassFor(f_.value_type(v))).pressure_weight; };
    std::stable_sort(moving.begin(), moving.end(), [&](const Move& a, const Move& b) {
      bool ta = a.forbid == pinned, tb = b.forbid == pinned;
      if (ta != tb) return ta;
      return weight(a.value) > weight(b.value);
    });
    if (std::optional<Value> still = place(/*pack=*/true)) {
      return Bug(b, i, absl::StrCat("no register to move v", still->index(), " out of the way"));
    }
  }
  for (const Move& m : moving) {
    Value w = m.value;
    Location to;
    for (const auto& [pv, pl] : placed) {
      if (pv == w) to = pl;
    }
    if (to == cur_[w.index()]) continue;
    moves.push_back(CopyMove{cur_[w.index()], to, w, Value(), f_.value_type(w)});
    ++stats_.relocations;
  }
  // Update the state: all reads happen before all writes.
  for (Value w : dying_at_copy) Vacate(w);
  for (const Move& m : moving) Vacate(m.value);
  for (const auto& [v, l] : placed) Occupy(v, l);
  return EmitCopy(moves);
}

absl::Status ColorWalk::RestoreHomes(Block b, Inst branch, const LiveSets& sets) {
  // Live at the branch: the live-out values and the branch's own operands.
  absl::InlinedVector<Value, 8> targets_v;
  UnitSet targets;
  for (Value v : sets.LiveOut(b)) {
    if (!InReg(v) || pos_[v.index()] < 0 || !frozen_[v.index()]) continue;
    Location home = locs_.Get(v);
    if (home != cur_[v.index()]) {
      targets_v.push_back(v);
      targets |= t_.Units(home.reg());
    }
  }
  if (targets_v.empty()) return absl::OkStatus();
  absl::InlinedVector<CopyMove, 8> moves;
  UnitSet after = busy_;
  for (Value v : targets_v) after.Subtract(t_.Units(cur_[v.index()].reg()));
  absl::InlinedVector<Value, 8> displaced;
  for (Value w : in_regs_) {
    if (std::find(targets_v.begin(), targets_v.end(), w) != targets_v.end()) continue;
    if (targets.Intersects(t_.Units(cur_[w.index()].reg()))) displaced.push_back(w);
  }
  for (Value w : displaced) after.Subtract(t_.Units(cur_[w.index()].reg()));
  after |= targets;
  absl::InlinedVector<std::pair<Value, Location>, 8> placed;
  for (Value v : targets_v) {
    moves.push_back(CopyMove{cur_[v.index()], locs_.Get(v), v, Value(), f_.value_type(v)});
    placed.push_back({v, locs_.Get(v)});
    ++stats_.restores;
  }
  for (Value w : displaced) {
    std::optional<PReg> r = Pick(w, after, RegSet(), HintFor(w));
    if (!r.has_value()) return Bug(b, branch, absl::StrCat("no register to move ", f_.ValueName(w), " off a home"));
    after |= t_.Units(*r);
    moves.push_back(CopyMove{cur_[w.index()], Location::Reg(*r), w, Value(), f_.value_type(w)});
    placed.push_back({w, Location::Reg(*r)});
  }
  for (Value v : targets_v) Vacate(v);
  for (Value w : displaced) Vacate(w);
  for (const auto& [v, l] : placed) Occupy(v, l);
  return EmitCopy(moves);
}

absl::Status ColorWalk::AssignInst(Block b, Inst i) {
  absl::InlinedVector<Operand, 8> ops(f_.operands(i).begin(), f_.operands(i).end());
  const InstData& d = f_.inst(i);
  bool move_like = IsMoveLike(d.opcode);
  // Uses read where their values are.
  absl::InlinedVector<Location, 8> use_locs;
  for (Operand& op : ops) {
    if (!op.IsUse()) continue;
    Location l = cur_[op.value().index()];
    if (l.IsNone()) return Bug(b, i, absl::StrCat(f_.ValueName(op.value()), " has no location"));
    op.set_location(l);
    use_locs.push_back(l);
    if (move_like) continue;
    bool ok = true;
    switch (op.constraint()) {
      case ConstraintKind::kReg: ok = l.IsReg(); break;
      case ConstraintKind::kStack: ok = l.IsStack(); break;
      case ConstraintKind::kFixed: ok = l == Location::Reg(op.fixed_reg()); break;
      default: break;
    }
    if (!ok) return Bug(b, i, absl::StrCat("use of ", f_.ValueName(op.value()), " cannot be met"));
  }
  // Early defs: clear of every use and of the clobbers.
  RegSet clobbered;
  if (d.clobbers >= 0) {
    for (PReg r : f_.clobber_set(d.clobbers)) clobbered |= t_.Aliases(r);
  }
  auto def_reg = [&](Operand& op, const RegSet& forbid) -> absl::Status {
    Value v = op.value();
    Location l;
    if (op.constraint() == ConstraintKind::kFixed) {
      l = Location::Reg(op.fixed_reg());
      if (busy_.Intersects(t_.Units(op.fixed_reg()))) return Bug(b, i, absl::StrCat("%", t_.RegName(op.fixed_reg()), " is not free for ", f_.ValueName(v)));
    } else if (op.constraint() == ConstraintKind::kReuse) {
      const Operand* src = f_.UseOperand(i, op.reuse_index());
      if (src == nullptr || !cur_[src->value().index()].IsReg()) return Bug(b, i, "reuse of a use that is not in a register");
      l = cur_[src->value().index()];
      if (busy_.Intersects(t_.Units(l.reg()))) return Bug(b, i, absl::StrCat(f_.ValueName(v), " cannot reuse its source's register"));
    } else if (locs_.IsSpilled(v) && (move_like || op.constraint() == ConstraintKind::kStack)) {
      l = locs_.Get(v);
    } else {
      std::optional<PReg> hint = HintFor(v);
      if (d.opcode == Opcode::kCopy && use_locs[0].IsReg() && !hint.has_value()) hint = use_locs[0].reg();
      std::optional<PReg> r = Pick(v, busy_, forbid, hint);
      if (!r.has_value()) return Bug(b, i, absl::StrCat("no register for ", f_.ValueName(v)));
      l = Location::Reg(*r);
    }
    NoteVregReg(v, l);
    op.set_location(l);
    return absl::OkStatus();
  };
  // An early def fixed to the register of a use that dies here, read early only,
  // is written after that read (`v2@%rax@early = add v6@%rax, v1`): the use
  // leaves first.
  for (const Operand& def : ops) {
    if (!def.IsDef() || def.position() != Position::kEarly || def.constraint() != ConstraintKind::kFixed) continue;
    for (Value v : DyingUses(i)) {
      if (!InReg(v) || !t_.RegsAlias(cur_[v.index()].reg(), def.fixed_reg())) continue;
      bool read_late = false;
      for (const Operand& op : ops) read_late |= op.IsUse() && op.value() == v && op.position() == Position::kLate;
      if (!read_late) Vacate(v);
    }
  }
  for (Operand& op : ops) {
    if (!op.IsDef() || op.position() != Position::kEarly) continue;
    RA_RETURN_IF_ERROR(def_reg(op, clobbered));
    Occupy(op.value(), op.location());
  }
  // Values whose last use this is leave; relocations to a slot leave their register.
  for (Value v : DyingUses(i)) Vacate(v);
  int def_index = 0;
  for (Operand& op : ops) {
    if (!op.IsDef()) continue;
    int di = def_index++;
    if (op.position() == Position::kEarly) continue;
    if (move_like && IsRelocation(f_, i, di)) Vacate(op.value());
    RA_RETURN_IF_ERROR(def_reg(op, RegSet()));
    Occupy(op.value(), op.location());
  }
  // Dead defs leave at once.
  for (Value v : DeadDefs(i)) Vacate(v);
  if (!clobbered.Empty()) {
    for (Value w : in_regs_) {
      bool defined_here = false;
      for (const Operand& op : ops) defined_here |= op.IsDef() && op.value() == w;
      if (!defined_here && clobbered.Contains(cur_[w.index()].reg())) {
        return Bug(b, i, absl::StrCat(f_.ValueName(w), " is live across the clobber of %", t_.RegName(cur_[w.index()].reg())));
      }
    }
  }
  f_.SetOperands(i, ops);
  out_->push_back(i);
  return absl::OkStatus();
}

absl::StatusOr<ColorStats> ColorWalk::Run() {
  if (f_.IsAllocated()) {
    return absl::FailedPreconditionError(absl::StrCat("function %", f_.name(), ": coloring needs SSA form"));
  }
  // Each move of a constraint copy becomes one move (or half a swap) during the
  // walk: room for those now, before the walk's buffers exist.
  size_t copy_operands = 0;
  for (Block b : f_.layout()) {
    for (Inst i : f_.block(b).insts) {
      if (IsConstraintCopy(f_, i)) copy_operands += f_.operands(i).size();
    }
  }
  f_.GrowInsts(copy_operands / 2, copy_operands);
  int n = f_.num_values();
  locs_.Resize(n);
  if (analyses_ == nullptr) {
    b_.cfg.Compute(f_);
    analyses_ = &b_.cfg;
  }
  const ControlFlowGraph& cfg = analyses_->cfg;
  const LoopNest& loops = analyses_->loops;
  for (Block b : f_.layout()) {
    if (!cfg.Reachable(b)) {
      return absl::InvalidArgumentError(absl::StrCat("function %", f_.name(), ", ", f_.BlockName(b),
                                                     " is unreachable; remove it before coloring"));
    }
  }
  const LiveSets& sets = sets_;
  Prepass(sets);
  owner_.assign(t_.num_units(), Value());
  cur_.assign(n, Location());
  pos_.assign(n, -1);
  frozen_.assign(n, 0);
  vreg_reg_.assign(vregs_.num_vregs(), PReg());
  for (int v = 0; v < n; ++v) {
    if (locs_.IsSpilled(Value(v))) {
      cur_[v] = locs_.Get(Value(v));
      frozen_[v] = 1;
    } else {
      locs_.Set(Value(v), Location());
    }
  }
  for (Block b : analyses_->dom.preorder()) {
    weight_ = loops.Weight(b);
    EnterBlock(b, sets);
    if (missing_home_.IsValid()) {
      return absl::InternalError(absl::StrCat("function %", f_.name(), ", ", f_.BlockName(b), ": live-in ",
                                              f_.ValueName(missing_home_), " has no home yet"));
    }
    RA_RETURN_IF_ERROR(AssignParams(b));
    std::vector<Inst>& insts = b_.insts;
    insts = f_.block(b).insts;
    std::vector<Inst>& out = b_.out;
    out.clear();
    out_ = &out;
    for (size_t k = 0; k < insts.size(); ++k) {
      Inst i = insts[k];
      if (IsConstraintCopy(f_, i) && k + 1 < insts.size()) {
        RA_RETURN_IF_ERROR(Relocate(b, i, insts[k + 1]));
        ++k;
        i = insts[k];
      } else {
        RA_RETURN_IF_ERROR(Relocate(b, Inst(), i));
      }
      if (IsBranch(f_.inst(i).opcode)) RA_RETURN_IF_ERROR(RestoreHomes(b, i, sets));
      RA_RETURN_IF_ERROR(AssignInst(b, i));
    }
    f_.block(b).insts.assign(out.begin(), out.end());
    // Values defined here and live out: their homes are where they are now.
    for (Value v : sets.LiveOut(b)) {
      if (frozen_[v.index()]) continue;
      if (!cur_[v.index()].IsReg()) {
        return absl::InternalError(absl::StrCat("function %", f_.name(), ", ", f_.BlockName(b), ": ", f_.ValueName(v),
                                                " is live out but holds no register"));
      }
      locs_.Set(v, cur_[v.index()]);
      frozen_[v.index()] = 1;
    }
  }
  // The record: each value's home, or where it was last.
  for (int v = 0; v < n; ++v) {
    if (!frozen_[v] && cur_[v].IsReg()) locs_.Set(Value(v), cur_[v]);
  }
  f_.set_saved_regs(FrameSaves(f_, t_, used_));
  return stats_;
}

}  // namespace

absl::StatusOr<ColorStats> Color(const Target& target, Function& func, const VirtRegs& vregs, const LiveSets& sets,
                                 ValueLocations& locs) {
  return Colorer().Run(target, func, vregs, sets, locs);
}

absl::StatusOr<ColorStats> Colorer::Run(const Target& target, Function& func, const VirtRegs& vregs,
                                        const LiveSets& sets, ValueLocations& locs) {
  absl::StatusOr<ColorStats> s = ColorWalk(target, func, vregs, sets, locs, *b_, nullptr).Run();
  ReleaseAfterLargeFunction(func.num_insts(), b_);
  return s;
}

absl::StatusOr<ColorStats> Colorer::Run(const Target& target, Function& func, const VirtRegs& vregs,
                                        const LiveSets& sets, ValueLocations& locs, const CfgAnalyses& analyses) {
  absl::StatusOr<ColorStats> s = ColorWalk(target, func, vregs, sets, locs, *b_, &analyses).Run();
  ReleaseAfterLargeFunction(func.num_insts(), b_);
  return s;
}

absl::StatusOr<ColorStats> Color(const Target& target, Function& func, const VirtRegs& vregs, ValueLocations& locs) {
  if (func.IsAllocated()) {
    return absl::FailedPreconditionError(absl::StrCat("function %", func.name(), ": coloring needs SSA form"));
  }
  LiveSets sets(func);
  return Color(target, func, vregs, sets, locs);
}

}  // namespace regalloc
