#include "ssa/verifier.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "absl/container/inlined_vector.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "base/warm_buffers.h"
#include "ssa/cfg.h"
#include "ssa/printer.h"

namespace regalloc {
namespace {

class Verifier {
 public:
  Verifier(const Function& func, const Target& target, ControlFlowGraph& cfg, DominatorTree& dom,
           std::vector<Block>& def_block, std::vector<int>& def_index)
      : func_(func), target_(target), cfg_(cfg), dom_(dom), def_block_(def_block), def_index_(def_index) {}
  absl::Status Run();

 private:
  absl::Status FuncError(absl::string_view msg) const {
    return absl::InvalidArgumentError(absl::StrCat("function %", func_.name(), ": ", msg));
  }
  absl::Status BlockError(Block b, absl::string_view msg) const {
    return absl::InvalidArgumentError(absl::StrCat("function %", func_.name(), ", ", func_.BlockName(b), ": ", msg));
  }
  absl::Status InstError(Block b, int index, Inst i, absl::string_view msg) const {
    return absl::InvalidArgumentError(absl::StrCat("function %", func_.name(), ", ", func_.BlockName(b), ", inst ",
                                                   index, " `", PrintInst(func_, i, target_), "`: ", msg));
  }
  std::string V(Value v) const { return func_.ValueName(v); }
  // The messages of CheckOperandShape's failed checks, out of its line.
  ABSL_ATTRIBUTE_NOINLINE absl::Status CountError(Block b, int index, Inst i, size_t nd, size_t nu, size_t defs,
                                                  size_t uses) const {
    return InstError(b, index, i, absl::StrCat("'", OpcodeName(func_.inst(i).opcode), "' takes ", nd, " def(s) and ",
                                               nu, " use(s), found ", defs, " and ", uses));
  }
  ABSL_ATTRIBUTE_NOINLINE absl::Status TypeError(Block b, int index, Inst i, Value v, absl::string_view expected) const {
    return InstError(b, index, i, absl::StrCat(V(v), " has type ", TypeName(func_.value_type(v)), ", expected ", expected));
  }
  absl::Status CheckStructure();
  absl::Status CheckInst(Block b, int index, Inst i);
  absl::Status CheckOperandShape(Block b, int index, Inst i);
  absl::Status CheckOperand(const Operand& op, absl::FunctionRef<absl::Status(absl::string_view)> error);
  absl::Status CheckFixedConflicts(absl::Span<const Operand> ops, const RegSet& clobbers,
                                   absl::FunctionRef<absl::Status(absl::string_view)> error);
  absl::Status CheckThroughClobbers(absl::Span<const Operand> ops, const RegSet& clobbers,
                                    absl::FunctionRef<absl::Status(absl::string_view)> error);
  absl::Status CheckSsa();

  const Function& func_;
  const Target& target_;
  // Buffers: the CFG (computed by CheckStructure), the dominator tree, and
  // where each value is defined.
  ControlFlowGraph& cfg_;
  DominatorTree& dom_;
  std::vector<Block>& def_block_;
  std::vector<int>& def_index_;
  bool allocated_ = false;
};

absl::Status Verifier::Run() {
  if (func_.layout().empty()) return FuncError("has no blocks");
  allocated_ = func_.IsAllocated();
  RA_RETURN_IF_ERROR(CheckStructure());
  for (Block b : func_.layout()) {
    const std::vector<Inst>& insts = func_.block(b).insts;
    const std::vector<Operand>& params = func_.block(b).params;
    bool any_fixed = false;
    for (const Operand& p : params) {
      RA_RETURN_IF_ERROR(CheckOperand(p, [&](absl::string_view m) {
        return BlockError(b, absl::StrCat("parameter ", V(p.value()), ": ", m));
      }));
      any_fixed |= p.constraint() == ConstraintKind::kFixed;
      if (p.constraint() == ConstraintKind::kFixed && b != func_.entry()) {
        return BlockError(b, absl::StrCat("parameter ", V(p.value()),
                                          " is fixed to a register: only the entry block's parameters arrive in fixed "
                                          "registers (the ABI's); the others arrive where the edges' parallel copies "
                                          "put them"));
      }
    }
    // Two parameters cannot arrive in one register.
    for (size_t x = 0; any_fixed && x < params.size(); ++x) {
      if (params[x].constraint() != ConstraintKind::kFixed) continue;
      for (size_t y = x + 1; y < params.size(); ++y) {
        if (params[y].constraint() == ConstraintKind::kFixed &&
            target_.RegsAlias(params[x].fixed_reg(), params[y].fixed_reg())) {
          return BlockError(b, absl::StrCat("parameters ", V(params[x].value()), " and ", V(params[y].value()),
                                            " are both fixed to %", target_.RegName(params[x].fixed_reg()), " / %",
                                            target_.RegName(params[y].fixed_reg())));
        }
      }
    }
    for (size_t k = 0; k < insts.size(); ++k) RA_RETURN_IF_ERROR(CheckInst(b, static_cast<int>(k), insts[k]));
  }
  if (!allocated_) RA_RETURN_IF_ERROR(CheckSsa());
  return absl::OkStatus();
}

absl::Status Verifier::CheckStructure() {
  Block entry = func_.entry();
  const BlockData& eb = func_.block(entry);
  if (!allocated_ || !eb.params.empty()) {
    if (eb.params.size() != func_.param_types().size()) {
      return BlockError(entry, absl::StrCat("the entry block has ", eb.params.size(), " parameters, the signature ",
                                            func_.param_types().size()));
    }
    for (size_t i = 0; i < eb.params.size(); ++i) {
      Value v = eb.params[i].value();
      if (func_.ValueExists(v) && func_.value_type(v) != func_.param_types()[i]) {
        return BlockError(entry, absl::StrCat("parameter ", V(v), " has type ", TypeName(func_.value_type(v)),
                                              ", the signature says ", TypeName(func_.param_types()[i])));
      }
    }
  }
  for (Block b : func_.layout()) {
    const std::vector<Inst>& insts = func_.block(b).insts;
    if (insts.empty()) return BlockError(b, "is empty (a block ends in a terminator)");
    for (size_t k = 0; k + 1 < insts.size(); ++k) {
      if (IsTerminator(func_.inst(insts[k]).opcode)) {
        return InstError(b, static_cast<int>(k), insts[k], "terminator in the middle of the block");
      }
    }
    if (!IsTerminator(func_.inst(insts.back()).opcode)) {
      return InstError(b, static_cast<int>(insts.size() - 1), insts.back(),
                       "the block does not end in a terminator (ret, jump, br)");
    }
    absl::Span<const BranchTarget> targets = func_.targets(insts.back());
    // A branch continuing in the function keeps the values live into its
    // targets where they are (the tool's LLVM import refuses one that
    // clobbers registers); a return or a tail call may clobber.
    if (!targets.empty() && !func_.Clobbers(insts.back()).Empty()) {
      return InstError(b, static_cast<int>(insts.size() - 1), insts.back(),
                       "a branch to blocks of the function clobbers no registers (the values live into its targets "
                       "are in them); clobber them in an instruction before it");
    }
    for (size_t t = 0; t < targets.size(); ++t) {
      Block to = targets[t].block;
      int index = static_cast<int>(insts.size() - 1);
      if (!func_.BlockExists(to) || !func_.block(to).in_layout) {
        return InstError(b, index, insts.back(), absl::StrCat("branch to ", func_.BlockName(to), ", which is not in the function"));
      }
      if (to == entry) return InstError(b, index, insts.back(), "branch to the entry block");
      const std::vector<Operand>& params = func_.block(to).params;
      absl::Span<const Operand> args = func_.BranchArgs(insts.back(), t);
      if (args.size() != params.size()) {
        return InstError(b, index, insts.back(), absl::StrCat("passes ", args.size(), " arguments to ", func_.BlockName(to),
                                                              ", which has ", params.size(), " parameters"));
      }
      for (size_t a = 0; a < args.size(); ++a) {
        Value av = args[a].value();
        Value pv = params[a].value();
        if (args[a].constraint() == ConstraintKind::kFixed) {
          return InstError(b, index, insts.back(),
                           absl::StrCat("argument ", V(av), " is fixed to a register",
                                        ": a branch's arguments go to the edge's parallel copy, which reads them "
                                        "where they are (fix the parameter or its uses instead)"));
        }
        if (!func_.ValueExists(av) || !func_.ValueExists(pv)) continue;  // reported below
        if (func_.value_type(av) != func_.value_type(pv)) {
          return InstError(b, index, insts.back(),
                           absl::StrCat("argument ", V(av), " has type ", TypeName(func_.value_type(av)), ", parameter ",
                                        V(pv), " of ", func_.BlockName(to), " has type ", TypeName(func_.value_type(pv))));
        }
      }
    }
  }
  cfg_.Compute(func_);
  for (Block b : func_.layout()) {
    if (!cfg_.Reachable(b)) return BlockError(b, "is unreachable from the entry block");
  }
  return absl::OkStatus();
}

absl::Status Verifier::CheckOperand(const Operand& op,
                                    absl::FunctionRef<absl::Status(absl::string_view)> error) {
  Value v = op.value();
  if (!func_.ValueExists(v)) return error(absl::StrCat(V(v), " is not defined"));
  Location loc = op.location();
  if (loc.IsReg() && loc.reg().index() >= static_cast<uint32_t>(target_.num_regs())) {
    return error(absl::StrCat(V(v), " is located in register #", loc.reg().index(), ", which ", target_.name(),
                              " does not have"));
  }
  if (loc.IsStack() && loc.slot().index() >= static_cast<uint32_t>(func_.num_stack_slots())) {
    return error(absl::StrCat(V(v), " is located in undeclared stack slot ss", loc.slot().index()));
  }
  if (op.constraint() == ConstraintKind::kFixed) {
    PReg r = op.fixed_reg();
    if (r.index() >= static_cast<uint32_t>(target_.num_regs())) {
      return error(absl::StrCat(V(v), " is fixed to register #", r.index(), ", which ", target_.name(), " does not have"));
    }
    Type t = func_.value_type(v);
    std::optional<RegClass> cls = target_.ClassFor(t);
    if (!cls.has_value()) {
      return error(absl::StrCat(V(v), " has type ", TypeName(t), ", for which ", target_.name(), " has no registers"));
    }
    if (!target_.InClass(r, *cls)) {
      return error(absl::StrCat(V(v), " of type ", TypeName(t), " is fixed to %", target_.RegName(r),
                                ", which is not an allocatable register of class ", target_.Class(*cls).name));
    }
  }
  return absl::OkStatus();
}

// Fixed registers one instruction cannot satisfy. Its uses are all in their
// registers as it starts, and its defs all in theirs as it ends, so two values
// fixed to aliasing registers conflict among the uses, and among the defs,
// whatever their positions; a def and a use conflict only when the def is
// written early and the use read late. A late use fixed to a register the
// instruction clobbers is gone before it is read, and an early def fixed to one
// is gone before the instruction ends.
absl::Status Verifier::CheckFixedConflicts(absl::Span<const Operand> ops, const RegSet& clobbers,
                                           absl::FunctionRef<absl::Status(absl::string_view)> error) {
  for (size_t a = 0; a < ops.size(); ++a) {
    if (ops[a].constraint() != ConstraintKind::kFixed) continue;
    PReg ra = ops[a].fixed_reg();
    // Clobbers happen between early and late: a late use or an early def in
    // a clobbered register is gone by then.
    const bool late_use = ops[a].IsUse() && ops[a].position() == Position::kLate;
    const bool early_def = ops[a].IsDef() && ops[a].position() == Position::kEarly;
    if (late_use || early_def) {
      for (PReg c : clobbers) {
        if (target_.RegsAlias(ra, c)) {
          return error(absl::StrCat(V(ops[a].value()), late_use ? " is read late in %" : "@early is written to %",
                                    target_.RegName(ra), ", which the instruction clobbers"));
        }
      }
    }
    for (size_t b = a + 1; b < ops.size(); ++b) {
      if (ops[b].constraint() != ConstraintKind::kFixed) continue;
      PReg rb = ops[b].fixed_reg();
      if (!target_.RegsAlias(ra, rb)) continue;
      const Operand& x = ops[a].IsDef() ? ops[a] : ops[b];  // a def, if either is
      const Operand& y = ops[a].IsDef() ? ops[b] : ops[a];
      if (x.IsDef() == y.IsDef()) {
        if (x.IsUse() && x.value() == y.value()) continue;  // one value, read twice
        return error(absl::StrCat(V(ops[a].value()), " and ", V(ops[b].value()), " are both fixed to %",
                                  target_.RegName(ra), " / %", target_.RegName(rb), " as ",
                                  x.IsDef() ? "defs" : "uses", " of one instruction"));
      }
      if (x.position() == Position::kEarly && y.position() == Position::kLate) {
        return error(absl::StrCat(V(x.value()), "@early is written to %", target_.RegName(x.fixed_reg()),
                                  " before ", V(y.value()), " is read late from %", target_.RegName(y.fixed_reg())));
      }
    }
  }
  return absl::OkStatus();
}

// An operand in a register of its class (no fixed one) that is read late or
// written early: it holds its register through the instruction's clobbers.
bool HeldThroughClobbers(const Operand& op) {
  return op.constraint() == ConstraintKind::kReg &&
         op.position() == (op.IsUse() ? Position::kLate : Position::kEarly);
}

// The operands HeldThroughClobbers need as many registers of their class as
// the instruction leaves alone (a value read late twice counts once).
absl::Status Verifier::CheckThroughClobbers(absl::Span<const Operand> ops, const RegSet& clobbers,
                                            absl::FunctionRef<absl::Status(absl::string_view)> error) {
  auto repeated = [&](size_t b) {  // a use of a value an earlier use reads
    for (size_t c = 0; c < b; ++c) {
      if (HeldThroughClobbers(ops[c]) && ops[c].IsUse() && ops[b].IsUse() && ops[c].value() == ops[b].value()) return true;
    }
    return false;
  };
  absl::InlinedVector<RegClass, 4> counted;  // classes checked
  for (size_t a = 0; a < ops.size(); ++a) {
    if (!HeldThroughClobbers(ops[a])) continue;
    std::optional<RegClass> cls = target_.ClassFor(func_.value_type(ops[a].value()));
    if (!cls.has_value() || std::find(counted.begin(), counted.end(), *cls) != counted.end()) continue;
    counted.push_back(*cls);
    int need = 0;
    for (size_t b = a; b < ops.size(); ++b) {
      need += HeldThroughClobbers(ops[b]) && !repeated(b) && target_.ClassFor(func_.value_type(ops[b].value())) == cls;
    }
    int left = 0;
    for (PReg r : target_.Class(*cls).members) left += !target_.Aliases(r).Intersects(clobbers);
    if (need <= left) continue;
    const std::string& name = target_.Class(*cls).name;
    if (need == 1) {
      return error(absl::StrCat(V(ops[a].value()), ops[a].IsUse() ? " is read late" : "@early is written",
                                " in a register of class ", name, ", but the instruction clobbers every one"));
    }
    return error(absl::StrCat(need, " operands read late or written early (the first ", V(ops[a].value()),
                              ") need as many registers of class ", name,
                              " the instruction does not clobber; it leaves ", left));
  }
  return absl::OkStatus();
}

absl::Status Verifier::CheckInst(Block b, int index, Inst i) {
  auto error = [&](absl::string_view m) { return InstError(b, index, i, m); };
  absl::Span<const Operand> ops = func_.operands(i);
  // Most operands name a defined value, with no location and no fixed
  // register: nothing more to check of them alone.
  bool any_fixed = false, any_reuse = false, any_through = false;
  int num_uses = 0;
  for (const Operand& op : ops) {
    const ConstraintKind k = op.constraint();
    any_fixed |= k == ConstraintKind::kFixed;
    any_reuse |= k == ConstraintKind::kReuse;
    any_through |= HeldThroughClobbers(op);
    num_uses += op.IsUse();
    if (k != ConstraintKind::kFixed && op.location().IsNone() && func_.ValueExists(op.value())) continue;
    RA_RETURN_IF_ERROR(CheckOperand(op, error));
  }
  RA_RETURN_IF_ERROR(CheckOperandShape(b, index, i));
  if (any_fixed || any_through) {
    const RegSet clobbers = func_.Clobbers(i);
    if (any_fixed) RA_RETURN_IF_ERROR(CheckFixedConflicts(ops, clobbers, error));
    if (any_through && !clobbers.Empty()) RA_RETURN_IF_ERROR(CheckThroughClobbers(ops, clobbers, error));
  }
  if (!any_reuse) return absl::OkStatus();
  for (const Operand& op : ops) {
    if (op.constraint() != ConstraintKind::kReuse) continue;
    if (!op.IsDef()) return error(absl::StrCat(V(op.value()), ": a reuse constraint is only valid on a def"));
    if (op.reuse_index() >= num_uses) {
      return error(absl::StrCat(V(op.value()), "@reuse", op.reuse_index(), " names use #", op.reuse_index(),
                                ", but the instruction has ", num_uses, " uses"));
    }
    const Operand* use = func_.UseOperand(i, op.reuse_index());
    if (op.position() == Position::kEarly) {
      return error(absl::StrCat(V(op.value()), "@reuse", op.reuse_index(),
                                " cannot be early: a reused register is written after its use is read"));
    }
    if (use->constraint() == ConstraintKind::kStack || use->constraint() == ConstraintKind::kAny) {
      return error(absl::StrCat(V(op.value()), "@reuse", op.reuse_index(), " must share a register with ",
                                V(use->value()), ", which is read @",
                                use->constraint() == ConstraintKind::kStack ? "stack" : "any (write it @reg)"));
    }
    std::optional<RegClass> dc = target_.ClassFor(func_.value_type(op.value()));
    std::optional<RegClass> uc = target_.ClassFor(func_.value_type(use->value()));
    if (dc != uc) {
      return error(absl::StrCat(V(op.value()), "@reuse", op.reuse_index(), " ties a ",
                                TypeName(func_.value_type(op.value())), " def to ", V(use->value()), " of type ",
                                TypeName(func_.value_type(use->value())), ": different register classes"));
    }
  }
  return absl::OkStatus();
}

absl::Status Verifier::CheckOperandShape(Block b, int index, Inst i) {
  auto error = [&](absl::string_view m) { return InstError(b, index, i, m); };
  const InstData& d = func_.inst(i);
  absl::Span<const Operand> ops = func_.operands(i);
  size_t num_defs = 0;
  while (num_defs < ops.size() && ops[num_defs].IsDef()) ++num_defs;
  for (size_t k = num_defs; k < ops.size(); ++k) {
    if (ops[k].IsDef()) return error("defs must come before uses");
  }
  absl::Span<const Operand> defs = ops.subspan(0, num_defs);
  absl::Span<const Operand> uses = ops.subspan(num_defs);
  auto type = [&](const Operand& op) { return func_.value_type(op.value()); };
  // Each check passes inline; only a failure builds its message, out of line
  // (the checks run on every instruction of every function an allocator is
  // given: built in place, the messages' code kept them from inlining, and
  // the verifier took 700 instructions per instruction).
  auto counts = [&](size_t nd, size_t nu) -> absl::Status {
    if (ABSL_PREDICT_TRUE(defs.size() == nd && uses.size() == nu)) return absl::OkStatus();
    return CountError(b, index, i, nd, nu, defs.size(), uses.size());
  };
  auto want = [&](const Operand& op, Type t) -> absl::Status {
    if (ABSL_PREDICT_TRUE(type(op) == t)) return absl::OkStatus();
    return TypeError(b, index, i, op.value(), TypeName(t));
  };
  auto want_int = [&](const Operand& op) -> absl::Status {
    if (ABSL_PREDICT_TRUE(IsInteger(type(op)))) return absl::OkStatus();
    return TypeError(b, index, i, op.value(), "an integer type");
  };
  if (d.num_targets() > 0 || (d.opcode == Opcode::kJump || d.opcode == Opcode::kBr)) {
    const int expected_targets = d.opcode == Opcode::kJump ? 1
                                 : d.opcode == Opcode::kBr ? 2
                                 : d.opcode == Opcode::kBranch ? d.num_targets()
                                                               : 0;
    if (d.num_targets() != expected_targets) return error("wrong number of branch targets");
    absl::Span<const BranchTarget> targets = func_.targets(i);
    size_t next = d.opcode == Opcode::kBr ? 1 : d.opcode == Opcode::kBranch ? targets[0].first_arg : 0;
    if (next > ops.size()) return error("branch arguments do not follow the operand order");
    for (size_t k = 0; k < next; ++k) {
      if (!ops[k].IsUse()) return error("an opaque branch defines no values");
    }
    for (const BranchTarget& bt : targets) {
      if (bt.first_arg != next) return error("branch arguments do not follow the operand order");
      next += bt.num_args;
    }
    if (next != ops.size()) return error("branch arguments do not cover the operands");
  }
  switch (d.opcode) {
    case Opcode::kConst:
      RA_RETURN_IF_ERROR(counts(1, 0));
      if (d.type == Type::kF80) return error("no f80 constants (an f80 comes from memory or an opaque instruction)");
      return want(defs[0], d.type);
    case Opcode::kAdd: case Opcode::kSub: case Opcode::kMul: case Opcode::kDiv: case Opcode::kRem:
    case Opcode::kAnd: case Opcode::kOr: case Opcode::kXor: case Opcode::kShl: case Opcode::kShr:
    case Opcode::kSar:
      RA_RETURN_IF_ERROR(counts(1, 2));
      RA_RETURN_IF_ERROR(want_int(defs[0]));
      RA_RETURN_IF_ERROR(want(uses[0], type(defs[0])));
      return want(uses[1], type(defs[0]));
    case Opcode::kFadd: case Opcode::kFsub: case Opcode::kFmul: case Opcode::kFdiv:
      RA_RETURN_IF_ERROR(counts(1, 2));
      if (!IsFloat(type(defs[0]))) {
        return error(absl::StrCat(V(defs[0].value()), " has type ", TypeName(type(defs[0])), ", expected f32 or f64"));
      }
      RA_RETURN_IF_ERROR(want(uses[0], type(defs[0])));
      return want(uses[1], type(defs[0]));
    case Opcode::kCmp:
      RA_RETURN_IF_ERROR(counts(1, 2));
      RA_RETURN_IF_ERROR(want(defs[0], Type::kI32));
      RA_RETURN_IF_ERROR(want(uses[1], type(uses[0])));
      if (type(uses[0]) == Type::kV128 || type(uses[0]) == Type::kF80) {
        return error(absl::StrCat("cmp does not compare ", TypeName(type(uses[0])), " values"));
      }
      if (IsFloat(type(uses[0])) && d.cc >= CondCode::kUlt) {
        return error(absl::StrCat("unsigned condition '", CondCodeName(d.cc), "' on floats"));
      }
      return absl::OkStatus();
    case Opcode::kLoad:
      RA_RETURN_IF_ERROR(counts(1, 1));
      RA_RETURN_IF_ERROR(want(defs[0], d.type));
      return want_int(uses[0]);
    case Opcode::kStore:
      RA_RETURN_IF_ERROR(counts(0, 2));
      return want_int(uses[1]);
    case Opcode::kCopy:
      RA_RETURN_IF_ERROR(counts(1, 1));
      return want(uses[0], type(defs[0]));
    case Opcode::kCall:
    case Opcode::kInst:
      if (d.imm < 0 || d.imm >= func_.num_callees()) return error(absl::StrCat(OpcodeName(d.opcode), " names no callee"));
      return absl::OkStatus();
    case Opcode::kBranch:
      if (d.imm < 0 || d.imm >= func_.num_callees()) return error("branch names no instruction");
      return counts(0, ops.size());
    case Opcode::kRet:
      if (!defs.empty() || uses.size() != func_.result_types().size()) {
        return error(absl::StrCat("returns ", uses.size(), " value(s), the signature says ", func_.result_types().size()));
      }
      for (size_t k = 0; k < uses.size(); ++k) RA_RETURN_IF_ERROR(want(uses[k], func_.result_types()[k]));
      return absl::OkStatus();
    case Opcode::kJump:
      return counts(0, ops.size());
    case Opcode::kBr:
      if (uses.empty()) return error("br needs a condition");
      RA_RETURN_IF_ERROR(counts(0, ops.size()));
      return want_int(uses[0]);
    case Opcode::kSpill: case Opcode::kReload: case Opcode::kMove: case Opcode::kParallelCopy:
      if (d.opcode != Opcode::kParallelCopy) RA_RETURN_IF_ERROR(counts(1, 1));
      if (defs.size() != uses.size()) return error("a parallel copy needs as many defs as uses");
      for (size_t k = 0; k < defs.size(); ++k) RA_RETURN_IF_ERROR(want(defs[k], type(uses[k])));
      return absl::OkStatus();
  }
  return absl::OkStatus();
}

absl::Status Verifier::CheckSsa() {
  const ControlFlowGraph& cfg = cfg_;  // CheckStructure's
  dom_.Compute(func_, cfg);
  const DominatorTree& dom = dom_;
  // Definition site of each value: block and instruction index (-1: parameter).
  std::vector<Block>& def_block = def_block_;
  def_block.assign(func_.num_values(), Block());
  std::vector<int>& def_index = def_index_;
  def_index.assign(func_.num_values(), 0);
  for (Block b : func_.layout()) {
    for (const Operand& p : func_.block(b).params) {
      Value v = p.value();
      if (def_block[v.index()].IsValid()) {
        return BlockError(b, absl::StrCat("parameter ", V(v), " is already defined in ", func_.BlockName(def_block[v.index()])));
      }
      def_block[v.index()] = b;
      def_index[v.index()] = -1;
    }
    const std::vector<Inst>& insts = func_.block(b).insts;
    for (size_t k = 0; k < insts.size(); ++k) {
      bool move_like = IsMoveLike(func_.inst(insts[k]).opcode);
      absl::Span<const Operand> ops = func_.operands(insts[k]);
      for (size_t o = 0; o < ops.size(); ++o) {
        const Operand& op = ops[o];
        if (!op.IsDef()) continue;
        Value v = op.value();
        // A move-like pair naming one value re-locates it; it defines nothing.
        if (move_like && func_.UseOperand(insts[k], static_cast<int>(o))->value() == v) continue;
        if (def_block[v.index()].IsValid()) {
          return InstError(b, static_cast<int>(k), insts[k],
                           absl::StrCat(V(v), " is already defined in ", func_.BlockName(def_block[v.index()])));
        }
        def_block[v.index()] = b;
        def_index[v.index()] = static_cast<int>(k);
      }
    }
  }
  for (Block b : func_.layout()) {
    const std::vector<Inst>& insts = func_.block(b).insts;
    for (size_t k = 0; k < insts.size(); ++k) {
      for (const Operand& op : func_.operands(insts[k])) {
        if (!op.IsUse()) continue;
        Value v = op.value();
        Block db = def_block[v.index()];
        if (!db.IsValid()) {
          return InstError(b, static_cast<int>(k), insts[k], absl::StrCat(V(v), " is used but never defined"));
        }
        bool ok = db == b ? def_index[v.index()] < static_cast<int>(k) : dom.Dominates(db, b);
        if (!ok) {
          return InstError(b, static_cast<int>(k), insts[k],
                           absl::StrCat("use of ", V(v), " is not dominated by its definition in ", func_.BlockName(db)));
        }
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status Verify(const Function& func, const Target& target) { return FunctionVerifier().Run(func, target); }

absl::Status CheckRegisterDemand(const Function& func, const Target& target) {
  const int nb = target.num_banks();
  // Per bank, the registers classes add beyond the ones pressure counts (x86
  // ah-dh: an i8 there leaves al free), and the operand count below which no
  // instruction can exceed any bank.
  absl::InlinedVector<int, 4> extra(nb, 0);
  size_t quick = std::numeric_limits<size_t>::max();
  for (int c = 0; c < target.num_classes(); ++c) {
    const RegClassInfo& info = target.Class(RegClass(c));
    extra[info.bank] = std::max(extra[info.bank], info.members.Count() - info.counted.Count());
    quick = std::min(quick, static_cast<size_t>(target.Bank(info.bank).capacity / info.pressure_weight));
  }
  struct Need {
    Value value;
    RegClass cls;
  };
  absl::InlinedVector<Need, 32> needs;  // no heap for up to 32 operands in registers
  absl::InlinedVector<int, 4> slots(nb), with_extra(nb);
  auto in_reg = [&](const Operand& op) {
    return op.constraint() == ConstraintKind::kReg || op.constraint() == ConstraintKind::kReuse ||
           (op.constraint() == ConstraintKind::kFixed && target.Reg(op.fixed_reg()).reg_class.has_value());
  };
  for (Block b : func.layout()) {
    const std::vector<Inst>& insts = func.block(b).insts;
    for (size_t index = 0; index < insts.size(); ++index) {
      const Inst i = insts[index];
      absl::Span<const Operand> ops = func.operands(i);
      if (ops.size() <= quick || IsMoveLike(func.inst(i).opcode)) continue;
      const size_t first_arg = func.NumNonArgOperands(i);
      // Most wide instructions are calls (their arguments fixed or on the
      // stack) and branches (their arguments the edges'): count first.
      size_t in_regs = 0;
      for (size_t k = 0; k < ops.size(); ++k) in_regs += (ops[k].IsDef() || k < first_arg) && in_reg(ops[k]);
      if (in_regs <= quick) continue;
      for (const bool defs : {false, true}) {
        needs.clear();
        for (size_t k = 0; k < ops.size(); ++k) {
          const Operand& op = ops[k];
          if (op.IsDef() != defs || (!defs && k >= first_arg)) continue;
          if (!in_reg(op)) continue;
          std::optional<RegClass> cls = target.ClassFor(func.value_type(op.value()));
          if (cls.has_value()) needs.push_back({op.value(), *cls});
        }
        std::sort(needs.begin(), needs.end(), [](const Need& a, const Need& b) { return a.value < b.value; });
        needs.erase(std::unique(needs.begin(), needs.end(), [](const Need& a, const Need& b) { return a.value == b.value; }),
                    needs.end());
        std::fill(slots.begin(), slots.end(), 0);
        std::fill(with_extra.begin(), with_extra.end(), 0);
        for (const Need& n : needs) {
          const RegClassInfo& info = target.Class(n.cls);
          slots[info.bank] += info.pressure_weight;
          if (info.members.Count() > info.counted.Count()) ++with_extra[info.bank];
        }
        for (int k = 0; k < nb; ++k) {
          const int capacity = target.Bank(k).capacity;
          if (slots[k] <= capacity + std::min(extra[k], with_extra[k])) continue;
          int values = 0;
          for (const Need& n : needs) values += target.Class(n.cls).bank == k;
          return absl::InvalidArgumentError(absl::StrCat(
              "function %", func.name(), ", ", func.BlockName(b), ", inst ", index, " `", PrintInst(func, i, target),
              "`: over-constrained: its ", defs ? "defs write " : "uses read ", values, " values in registers of bank ",
              target.Bank(k).name, " at once (", slots[k], " slots), and the bank has ", capacity));
        }
      }
    }
  }
  return absl::OkStatus();
}

absl::Status FunctionVerifier::Run(const Function& func, const Target& target) {
  absl::Status s = Verifier(func, target, cfg_, dom_, def_block_, def_index_).Run();
  ReleaseAfterLargeFunction(func.num_insts(), *this);
  return s;
}

absl::Status FunctionVerifier::Run(const Function& func, const Target& target, CfgAnalyses& analyses) {
  absl::Status s = Verifier(func, target, analyses.cfg, analyses.dom, def_block_, def_index_).Run();
  ReleaseAfterLargeFunction(func.num_insts(), *this);
  RA_RETURN_IF_ERROR(s);
  // An allocated function's checks stop short of the dominator tree.
  if (func.IsAllocated()) analyses.dom.Compute(func, analyses.cfg);
  analyses.loops.Compute(func, analyses.cfg, analyses.dom);
  return absl::OkStatus();
}

}  // namespace regalloc
