#include "check/stack_allocator.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "ssa/cfg.h"
#include "ssa/printer.h"
#include "ssa/verifier.h"

namespace regalloc {
namespace {

class StackAllocator {
 public:
  StackAllocator(Function& f, const Target& t) : f_(f), t_(t), home_(f.num_values()) {}
  absl::StatusOr<StackAllocStats> Run();

 private:
  Location Home(Value v) {
    StackSlot& s = home_[v.index()];
    if (!s.IsValid()) s = f_.NewStackSlot(TypeSize(f_.value_type(v)));
    return Location::Stack(s);
  }
  // The first register of v's class not aliasing `taken`.
  std::optional<PReg> Pick(Value v, const RegSet& taken) {
    std::optional<RegClass> cls = t_.ClassFor(f_.value_type(v));
    if (!cls.has_value()) return std::nullopt;
    for (PReg r : t_.Class(*cls).allocation_order) {
      if (!taken.Contains(r)) return r;
    }
    return std::nullopt;
  }
  // Appends `v[to] = op v[from]` (a spill or reload) to `out` and counts it.
  void Emit(Opcode op, Value v, Location from, Location to, std::vector<Inst>& out) {
    InstData d;
    d.opcode = op;
    Operand ops[2] = {Operand::Def(v).WithLocation(to), Operand::Use(v).WithLocation(from)};
    out.push_back(f_.NewInst(d, ops));
    ++(op == Opcode::kSpill ? stats_.spills : stats_.reloads);
    stats_.weighted_cost += weight_;
  }
  void Touch(PReg r) { used_ |= t_.Aliases(r); }
  absl::Status NoRegister(Block b, Inst i, Value v) {
    return absl::FailedPreconditionError(absl::StrCat("function %", f_.name(), ", ", f_.BlockName(b), " `",
                                                      PrintInst(f_, i, t_), "`: no register left for ", f_.ValueName(v)));
  }
  absl::Status AssignParams(Block b, std::vector<Inst>& out);
  absl::Status AssignInst(Block b, Inst i, std::vector<Inst>& out);

  Function& f_;
  const Target& t_;
  std::vector<StackSlot> home_;
  RegSet used_;
  StackAllocStats stats_;
  int64_t weight_ = 1;
};

absl::Status StackAllocator::AssignParams(Block b, std::vector<Inst>& out) {
  std::vector<Operand>& params = f_.block(b).params;
  RegSet taken;
  for (const Operand& p : params) {
    if (p.constraint() == ConstraintKind::kFixed) taken.InsertWithAliases(t_, p.fixed_reg());
  }
  for (Operand& p : params) {
    Value v = p.value();
    Location loc;
    switch (p.constraint()) {
      case ConstraintKind::kFixed: loc = Location::Reg(p.fixed_reg()); break;
      case ConstraintKind::kStack: loc = Home(v); break;
      // A parameter is an edge's parallel-copy destination: memory will do
      // where the registers run out (a block may take more parameters than
      // there are registers).
      case ConstraintKind::kAny: loc = Home(v); break;
      default: {
        std::optional<PReg> r = Pick(v, taken);
        if (!r.has_value() && b != f_.entry()) {
          p = p.WithConstraint(ConstraintKind::kAny);
          loc = Home(v);
          break;
        }
        if (!r.has_value()) {
          return absl::FailedPreconditionError(absl::StrCat("function %", f_.name(), ", ", f_.BlockName(b),
                                                            ": no register left for parameter ", f_.ValueName(v)));
        }
        loc = Location::Reg(*r);
        taken.InsertWithAliases(t_, *r);
      }
    }
    p.set_location(loc);
    if (loc.IsReg()) {
      Touch(loc.reg());
      Emit(Opcode::kSpill, v, loc, Home(v), out);
    }
  }
  return absl::OkStatus();
}

absl::Status StackAllocator::AssignInst(Block b, Inst i, std::vector<Inst>& out) {
  std::vector<Operand> ops(f_.operands(i).begin(), f_.operands(i).end());
  RegSet clobbered = f_.Clobbers(i);
  RegSet clobbered_aliases;
  for (PReg r : clobbered) clobbered_aliases |= t_.Aliases(r);
  // Every register any operand is fixed to is off limits to the others. A late
  // def may take the register of an early read (every value here dies in its
  // register), so `late_taken` holds only the registers still read late.
  RegSet taken;
  for (const Operand& op : ops) {
    if (op.constraint() == ConstraintKind::kFixed) taken.InsertWithAliases(t_, op.fixed_reg());
  }
  RegSet late_taken = taken;
  std::vector<Location> use_locs;
  std::vector<Inst> before, after;
  // A branch's arguments are its edges' parallel-copy sources: where the
  // registers run out they stay home.
  const size_t first_arg = f_.NumNonArgOperands(i);
  // Uses.
  for (size_t k = 0; k < ops.size(); ++k) {
    Operand& op = ops[k];
    if (!op.IsUse()) continue;
    Value v = op.value();
    Location loc;
    if (k >= first_arg && op.constraint() == ConstraintKind::kReg && !Pick(v, taken).has_value()) {
      op = op.WithConstraint(ConstraintKind::kAny);
    }
    switch (op.constraint()) {
      case ConstraintKind::kAny:
      case ConstraintKind::kStack:
        loc = Home(v);
        break;
      case ConstraintKind::kFixed:
        loc = Location::Reg(op.fixed_reg());
        break;
      default: {
        // One value read twice early shares the register of its first read.
        if (op.position() != Position::kLate) {
          for (size_t j = 0; j < k && !loc.IsReg(); ++j) {
            const Operand& o = ops[j];
            if (o.IsUse() && o.value() == v && o.constraint() == ConstraintKind::kReg &&
                o.position() != Position::kLate && o.location().IsReg()) {
              loc = o.location();
            }
          }
          if (loc.IsReg()) break;
        }
        RegSet avoid = taken;
        if (op.position() == Position::kLate) avoid |= clobbered_aliases;
        std::optional<PReg> r = Pick(v, avoid);
        if (!r.has_value()) return NoRegister(b, i, v);
        loc = Location::Reg(*r);
        taken.InsertWithAliases(t_, *r);
      }
    }
    if (loc.IsReg() && op.position() == Position::kLate) late_taken.InsertWithAliases(t_, loc.reg());
    op.set_location(loc);
    use_locs.push_back(loc);
    if (loc.IsReg()) {
      Touch(loc.reg());
      bool already = false;  // one value read twice from one register: one reload
      for (Inst prev : before) already |= f_.operands(prev)[0].location() == loc && f_.operands(prev)[0].value() == v;
      if (!already) Emit(Opcode::kReload, v, Home(v), loc, before);
    }
  }
  // Defs. A two-address def writes its source's register.
  for (const Operand& op : ops) {
    if (op.IsDef() && op.constraint() == ConstraintKind::kReuse && use_locs[op.reuse_index()].IsReg()) {
      late_taken.InsertWithAliases(t_, use_locs[op.reuse_index()].reg());
    }
  }
  for (Operand& op : ops) {
    if (!op.IsDef()) continue;
    Value v = op.value();
    Location loc;
    switch (op.constraint()) {
      case ConstraintKind::kFixed:
        loc = Location::Reg(op.fixed_reg());
        break;
      case ConstraintKind::kReuse:
        loc = use_locs[op.reuse_index()];
        break;
      case ConstraintKind::kAny:
      case ConstraintKind::kStack:
        loc = Home(v);
        break;
      case ConstraintKind::kReg: {
        std::optional<PReg> r = Pick(v, op.position() == Position::kEarly ? taken : late_taken);
        if (!r.has_value()) return NoRegister(b, i, v);
        loc = Location::Reg(*r);
        taken.InsertWithAliases(t_, *r);
      }
    }
    if (loc.IsReg()) late_taken.InsertWithAliases(t_, loc.reg());
    op.set_location(loc);
    if (loc.IsReg()) {
      Touch(loc.reg());
      Emit(Opcode::kSpill, v, loc, Home(v), after);
    }
  }
  f_.SetOperands(i, ops);
  out.insert(out.end(), before.begin(), before.end());
  out.push_back(i);
  out.insert(out.end(), after.begin(), after.end());
  return absl::OkStatus();
}

absl::StatusOr<StackAllocStats> StackAllocator::Run() {
  ControlFlowGraph cfg(f_);
  DominatorTree dom(f_, cfg);
  LoopNest loops(f_, cfg, dom);
  for (Block b : f_.layout()) {
    weight_ = loops.Weight(b);
    std::vector<Inst> out;
    RA_RETURN_IF_ERROR(AssignParams(b, out));
    std::vector<Inst> insts = f_.block(b).insts;
    for (Inst i : insts) RA_RETURN_IF_ERROR(AssignInst(b, i, out));
    f_.block(b).insts = std::move(out);
  }
  f_.set_saved_regs(FrameSaves(f_, t_, used_));
  return stats_;
}

}  // namespace

absl::StatusOr<StackAllocStats> AllocateOnStack(Function& func, const Target& target) {
  if (func.IsAllocated()) {
    return absl::FailedPreconditionError(absl::StrCat("function %", func.name(), " is already allocated"));
  }
  RA_RETURN_IF_ERROR(Verify(func, target));
  RA_RETURN_IF_ERROR(CheckRegisterDemand(func, target));
  return StackAllocator(func, target).Run();
}

}  // namespace regalloc
