#include "check/checker.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "ssa/cfg.h"
#include "ssa/printer.h"

namespace regalloc {
namespace {

// A set of value ids, sorted. Ids from kEntryMarker up stand for "the entry value
// of register unit (id - kEntryMarker)".
using ValueSet = absl::InlinedVector<uint32_t, 2>;
constexpr uint32_t kEntryMarker = 0x80000000u;

void Insert(ValueSet& s, uint32_t v) {
  auto it = std::lower_bound(s.begin(), s.end(), v);
  if (it == s.end() || *it != v) s.insert(it, v);
}

ValueSet Intersect(const ValueSet& a, const ValueSet& b) {
  ValueSet out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

bool Contains(const ValueSet& s, uint32_t v) { return std::binary_search(s.begin(), s.end(), v); }

std::string Describe(const ValueSet& s) {
  if (s.empty()) return "nothing";
  std::vector<std::string> names;
  for (uint32_t v : s) names.push_back(v >= kEntryMarker ? "an entry value" : absl::StrCat("v", v));
  return absl::StrJoin(names, ", ");
}

// Locations of one function: register units first, then stack slots.
class State {
 public:
  State(int num_units, int num_slots) : sets_(num_units + num_slots), num_units_(num_units) {}

  ValueSet Read(Location loc, const Target& t) const {
    if (loc.IsStack()) return sets_[num_units_ + loc.slot().index()];
    bool first = true;
    ValueSet out;
    for (uint32_t u : t.Units(loc.reg())) {
      out = first ? sets_[u] : Intersect(out, sets_[u]);
      first = false;
    }
    return out;
  }
  void Write(Location loc, const ValueSet& s, const Target& t) {
    if (loc.IsStack()) {
      sets_[num_units_ + loc.slot().index()] = s;
      return;
    }
    for (uint32_t u : t.Units(loc.reg())) sets_[u] = s;
  }
  void Kill(const UnitSet& units) {
    for (uint32_t u : units) sets_[u].clear();
  }
  ValueSet& unit(uint32_t u) { return sets_[u]; }
  const ValueSet& unit(uint32_t u) const { return sets_[u]; }
  // Meets `other` into this state; true when this state changed.
  bool MeetWith(const State& other) {
    bool changed = false;
    for (size_t i = 0; i < sets_.size(); ++i) {
      ValueSet m = Intersect(sets_[i], other.sets_[i]);
      if (m.size() != sets_[i].size()) {
        sets_[i] = std::move(m);
        changed = true;
      }
    }
    return changed;
  }

 private:
  std::vector<ValueSet> sets_;
  int num_units_;
};

class Checker {
 public:
  Checker(const Function& func, const Target& target) : f_(func), t_(target) {}
  absl::Status Run();

 private:
  std::string Where(Block b, int index, Inst i) const {
    return absl::StrCat("function %", f_.name(), ", block", b.index(), ", inst ", index, " `",
                        PrintInst(f_, i, t_), "`");
  }
  std::string Loc(Location l) const { return PrintLocation(l, t_); }
  bool LocationExists(Location l) const {
    return (l.IsReg() && l.reg().index() < static_cast<uint32_t>(t_.num_regs())) ||
           (l.IsStack() && l.slot().index() < static_cast<uint32_t>(f_.num_stack_slots()));
  }
  absl::Status CheckOperandStatic(const Operand& op, absl::Span<const Operand> ops, const std::string& where,
                                  int index, bool move_like = false);
  // Applies one instruction; with `check`, reports the first violation.
  absl::Status Transfer(State& s, Block b, int index, Inst i, bool check);
  void TransferEdge(State& s, const Edge& e);
  absl::Status CheckReturn(const State& s, Block b, int index, Inst i);

  const Function& f_;
  const Target& t_;
};

absl::Status Checker::CheckOperandStatic(const Operand& op, absl::Span<const Operand> ops, const std::string& where,
                                         int index, bool move_like) {
  std::string name = absl::StrCat(where, ": ", op.IsDef() ? "def" : "use", " #", index, " (v",
                                  op.value().index(), ")");
  Location loc = op.location();
  Type type = f_.value_type(op.value());
  if (loc.IsNone()) return absl::InvalidArgumentError(absl::StrCat(name, " has no location"));
  if (loc.IsReg()) {
    std::optional<RegClass> cls = t_.ClassFor(type);
    if (loc.reg().index() >= static_cast<uint32_t>(t_.num_regs()) || !cls.has_value() || !t_.InClass(loc.reg(), *cls)) {
      return absl::InvalidArgumentError(absl::StrCat(name, " of type ", TypeName(type), " is in ", Loc(loc),
                                                     ", which is not an allocatable register of its class",
                                                     cls.has_value() ? absl::StrCat(" (", t_.Class(*cls).name, ")") : ""));
    }
  } else {
    if (loc.slot().index() >= static_cast<uint32_t>(f_.num_stack_slots())) {
      return absl::InvalidArgumentError(absl::StrCat(name, " is in undeclared stack slot ", Loc(loc)));
    }
    if (f_.stack_slot(loc.slot()).size < TypeSize(type)) {
      return absl::InvalidArgumentError(absl::StrCat(name, " of type ", TypeName(type), " is in ", Loc(loc), " of ",
                                                     f_.stack_slot(loc.slot()).size, " bytes, too small"));
    }
  }
  // Spills, reloads and moves are the allocator's own: where they read and write is
  // what the allocator chose, so only class and size above apply to them.
  if (move_like) return absl::OkStatus();
  switch (op.constraint()) {
    case ConstraintKind::kReg:
      if (!loc.IsReg()) return absl::InvalidArgumentError(absl::StrCat(name, " needs a register, is in ", Loc(loc)));
      break;
    case ConstraintKind::kStack:
      if (!loc.IsStack()) return absl::InvalidArgumentError(absl::StrCat(name, " needs a stack slot, is in ", Loc(loc)));
      break;
    case ConstraintKind::kFixed:
      if (loc != Location::Reg(op.fixed_reg())) {
        return absl::InvalidArgumentError(absl::StrCat(name, " is fixed to %", t_.RegName(op.fixed_reg()), ", is in ",
                                                       Loc(loc)));
      }
      break;
    case ConstraintKind::kReuse: {
      const Operand* use = nullptr;
      int k = op.reuse_index();
      for (const Operand& o : ops) {
        if (o.IsUse() && k-- == 0) use = &o;
      }
      if (use == nullptr || !loc.IsReg() || use->location() != loc) {
        return absl::InvalidArgumentError(absl::StrCat(name, " must reuse the register of use #", op.reuse_index(),
                                                       use != nullptr ? absl::StrCat(" (", Loc(use->location()), ")") : "",
                                                       ", is in ", Loc(loc)));
      }
      break;
    }
    case ConstraintKind::kAny:
      break;
  }
  return absl::OkStatus();
}

absl::Status Checker::Transfer(State& s, Block b, int index, Inst i, bool check) {
  const InstData& d = f_.inst(i);
  absl::Span<const Operand> ops = f_.operands(i);
  std::string where = check ? Where(b, index, i) : std::string();
  auto check_use = [&](const Operand& op, int k) -> absl::Status {
    if (!check) return absl::OkStatus();
    ValueSet held = s.Read(op.location(), t_);
    if (!Contains(held, op.value().index())) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": use #", k, " expects v", op.value().index(), " in ",
                                                     Loc(op.location()), ", which holds ", Describe(held)));
    }
    return absl::OkStatus();
  };
  if (check) {
    int defs = 0, uses = 0;
    for (const Operand& op : ops) {
      RA_RETURN_IF_ERROR(CheckOperandStatic(op, ops, where, op.IsDef() ? defs++ : uses++, IsMoveLike(d.opcode)));
    }
    for (size_t a = 0; a < ops.size(); ++a) {
      for (size_t c = a + 1; c < ops.size(); ++c) {
        if (ops[a].IsDef() && ops[c].IsDef() && LocationsOverlap(ops[a].location(), ops[c].location(), t_)) {
          return absl::InvalidArgumentError(absl::StrCat(where, ": defs v", ops[a].value().index(), " and v",
                                                         ops[c].value().index(), " overlap in ",
                                                         Loc(ops[a].location()), " / ", Loc(ops[c].location())));
        }
      }
    }
  }
  bool move_like = IsMoveLike(d.opcode);
  // A copy's def equals its source, so its location holds the source's values too
  // (a read-only copy may share its source's register: Subzero's overlap).
  bool preserves = move_like || d.opcode == Opcode::kCopy;
  std::vector<ValueSet> sources;
  int k = 0;
  for (const Operand& op : ops) {
    if (!op.IsUse()) continue;
    if (op.position() == Position::kEarly) RA_RETURN_IF_ERROR(check_use(op, k));
    if (preserves) sources.push_back(s.Read(op.location(), t_));
    ++k;
  }
  for (const Operand& op : ops) {
    if (op.IsDef() && op.position() == Position::kEarly) s.Write(op.location(), ValueSet{op.value().index()}, t_);
  }
  if (d.clobbers >= 0) s.Kill(t_.UnitsOf(f_.clobber_set(d.clobbers)));
  k = 0;
  for (const Operand& op : ops) {
    if (!op.IsUse()) continue;
    if (op.position() == Position::kLate) RA_RETURN_IF_ERROR(check_use(op, k));
    ++k;
  }
  int def_index = 0;
  for (const Operand& op : ops) {
    if (!op.IsDef()) continue;
    if (op.position() == Position::kLate) {
      ValueSet set;
      if (preserves) set = sources[def_index];
      Insert(set, op.value().index());
      s.Write(op.location(), set, t_);
    }
    ++def_index;
  }
  return absl::OkStatus();
}

void Checker::TransferEdge(State& s, const Edge& e) {
  absl::Span<const Operand> args = f_.BranchArgs(e.branch, e.target);
  const std::vector<Operand>& params = f_.block(e.to).params;
  std::vector<ValueSet> sets;
  for (const Operand& a : args) sets.push_back(s.Read(a.location(), t_));
  for (size_t i = 0; i < params.size() && i < sets.size(); ++i) {
    Insert(sets[i], params[i].value().index());
    s.Write(params[i].location(), sets[i], t_);
  }
}

absl::Status Checker::CheckReturn(const State& s, Block b, int index, Inst i) {
  UnitSet saved = t_.UnitsOf(f_.saved_regs());
  for (PReg r : t_.abi().callee_saved) {
    UnitSet units = t_.Units(r);
    if (saved.Contains(units)) continue;
    for (uint32_t u : units) {
      if (saved.Test(u)) continue;
      if (!Contains(s.unit(u), kEntryMarker + u)) {
        return absl::InvalidArgumentError(absl::StrCat(
            Where(b, index, i), ": callee-saved %", t_.RegName(r), " does not hold its entry value at ret (holds ",
            Describe(s.Read(Location::Reg(r), t_)), "); restore it or list it in the frame's saves"));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status Checker::Run() {
  if (f_.layout().empty()) return absl::InvalidArgumentError(absl::StrCat("function %", f_.name(), ": has no blocks"));
  ControlFlowGraph cfg(f_);
  int num_units = t_.num_units();
  State entry(num_units, f_.num_stack_slots());
  for (uint32_t u : t_.UnitsOf(t_.abi().callee_saved)) entry.unit(u) = ValueSet{kEntryMarker + u};
  for (const Operand& p : f_.block(f_.entry()).params) {
    if (p.location().IsNone()) {
      return absl::InvalidArgumentError(absl::StrCat("function %", f_.name(), ", block", f_.entry().index(),
                                                     ": parameter v", p.value().index(), " has no location"));
    }
    // Class, slot size and constraint are checked with every parameter in the
    // final pass; a location that doesn't exist can't even be written, so it is
    // reported (by the same check) now.
    if (!LocationExists(p.location())) {
      std::string where = absl::StrCat("function %", f_.name(), ", block", f_.entry().index(), ", parameter");
      RA_RETURN_IF_ERROR(CheckOperandStatic(p, {}, where, 0));
    }
    entry.Write(p.location(), ValueSet{p.value().index()}, t_);
  }
  std::vector<std::optional<State>> in(f_.num_blocks());
  in[f_.entry().index()] = entry;

  // Forward dataflow to a fixpoint, in RPO, without checks.
  std::vector<uint8_t> queued(f_.num_blocks(), 0);
  std::vector<Block> work(cfg.rpo().rbegin(), cfg.rpo().rend());
  for (Block b : work) queued[b.index()] = 1;
  while (!work.empty()) {
    Block b = work.back();
    work.pop_back();
    queued[b.index()] = 0;
    if (!in[b.index()].has_value()) continue;
    State s = *in[b.index()];
    const std::vector<Inst>& insts = f_.block(b).insts;
    for (size_t k = 0; k < insts.size(); ++k) RA_RETURN_IF_ERROR(Transfer(s, b, static_cast<int>(k), insts[k], false));
    for (const Edge& e : cfg.succs(b)) {
      State out = s;
      TransferEdge(out, e);
      std::optional<State>& target = in[e.to.index()];
      bool changed = !target.has_value() ? (target = std::move(out), true) : target->MeetWith(out);
      if (changed && !queued[e.to.index()]) {
        queued[e.to.index()] = 1;
        work.push_back(e.to);
      }
    }
  }
  // Check every reachable block against its fixpoint state.
  for (Block b : cfg.rpo()) {
    for (const Operand& p : f_.block(b).params) {
      std::string where = absl::StrCat("function %", f_.name(), ", block", b.index(), ", parameter");
      RA_RETURN_IF_ERROR(CheckOperandStatic(p, {}, where, 0));
    }
    State s = *in[b.index()];
    const std::vector<Inst>& insts = f_.block(b).insts;
    for (size_t k = 0; k < insts.size(); ++k) {
      RA_RETURN_IF_ERROR(Transfer(s, b, static_cast<int>(k), insts[k], true));
      if (f_.inst(insts[k]).opcode == Opcode::kRet) RA_RETURN_IF_ERROR(CheckReturn(s, b, static_cast<int>(k), insts[k]));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckAllocation(const Function& func, const Target& target) { return Checker(func, target).Run(); }

AllocationCost MeasureAllocation(const Function& func) {
  AllocationCost cost;
  ControlFlowGraph cfg(func);
  DominatorTree dom(func, cfg);
  LoopNest loops(func, cfg, dom);
  for (Block b : func.layout()) {
    int64_t weight = loops.Weight(b);
    for (Inst i : func.block(b).insts) {
      const InstData& d = func.inst(i);
      if (!IsMoveLike(d.opcode) && d.opcode != Opcode::kCopy) continue;
      absl::Span<const Operand> ops = func.operands(i);
      bool moving = false;
      for (size_t k = 0; k < ops.size() / 2; ++k) moving |= ops[k].location() != ops[ops.size() / 2 + k].location();
      if (!moving) continue;
      if (d.opcode == Opcode::kSpill) {
        ++cost.spills;
      } else if (d.opcode == Opcode::kReload) {
        ++cost.reloads;
      } else if (d.opcode == Opcode::kCopy && ops[1].location().IsStack() != ops[0].location().IsStack()) {
        // A copy between the stack and a register is a store or a load.
        ++(ops[0].location().IsStack() ? cost.spills : cost.reloads);
      } else {
        ++cost.moves;
      }
      cost.weighted += weight;
    }
  }
  cost.saves = func.saved_regs().Count();
  return cost;
}

}  // namespace regalloc
