#include "ssa/legalize.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "ssa/verifier.h"

namespace regalloc {
namespace {

bool IsDefault(const Operand& op) {
  return op.constraint() == ConstraintKind::kReg && op.HasDefaultPosition();
}

// Applies `c` to `op` unless it was constrained by hand.
void Constrain(Operand& op, const Operand& c) {
  if (IsDefault(op)) op = c.WithLocation(op.location());
}

// The two-address form: `def` takes the register of `src` (use 0), unless either
// was constrained by hand. A source written `any` is read from a register (the
// def's); one written `stack` keeps the instruction three-address.
void ReuseFirst(Operand& def, Operand& src) {
  if (!IsDefault(def) || src.constraint() == ConstraintKind::kStack) return;
  def = Operand::ReuseDef(def.value(), 0).WithLocation(def.location());
  if (src.constraint() == ConstraintKind::kAny) src = src.WithConstraint(ConstraintKind::kReg);
}

// Fixes each operand to its ABI register, or to the stack past the registers.
void ApplyAbi(absl::Span<Operand> ops, const std::vector<ArgLocation>& locs) {
  for (size_t i = 0; i < ops.size(); ++i) {
    Operand base = ops[i];
    Operand c = locs[i].reg.has_value() ? base.WithFixed(*locs[i].reg) : base.WithConstraint(ConstraintKind::kStack);
    Constrain(ops[i], c);
  }
}

absl::Status LegalizeInPlace(Function& func, const Target& target) {
  auto error = [&](absl::string_view msg) {
    return absl::InvalidArgumentError(absl::StrCat("function %", func.name(), ": ", msg));
  };
  for (int v = 0; v < func.num_values(); ++v) {
    if (!func.ValueExists(Value(v))) continue;
    Type t = func.value_type(Value(v));
    if (!target.ClassFor(t).has_value()) {
      return error(absl::StrCat(func.ValueName(Value(v)), " has type ", TypeName(t), ", for which ", target.name(), " has no registers",
                                target.isa() == Isa::kArmv7 && t == Type::kI64
                                    ? " (i64 would need register pairs, which are out of scope)"
                                    : ""));
    }
  }
  if (func.layout().empty()) return absl::OkStatus();

  // Incoming parameters.
  {
    std::vector<Operand>& params = func.block(func.entry()).params;
    std::vector<Type> types;
    for (const Operand& p : params) types.push_back(func.value_type(p.value()));
    RA_ASSIGN_OR_RETURN(std::vector<ArgLocation> locs, target.AssignArguments(types));
    ApplyAbi(absl::MakeSpan(params), locs);
  }

  const bool x86 = target.isa() == Isa::kX86_64;
  auto view = [&](absl::string_view root, Value v) -> std::optional<PReg> {
    std::optional<PReg> r = target.FindReg(root);
    if (!r.has_value()) return std::nullopt;
    return target.View(*r, *target.ClassFor(func.value_type(v)));
  };
  int clobber_id = -1;
  for (Block b : func.layout()) {
    for (Inst inst : func.block(b).insts) {
      InstData& d = func.inst(inst);
      absl::Span<Operand> ops = func.operands(inst);
      size_t num_defs = 0;
      while (num_defs < ops.size() && ops[num_defs].IsDef()) ++num_defs;
      absl::Span<Operand> defs = ops.subspan(0, num_defs);
      absl::Span<Operand> uses = ops.subspan(num_defs);
      std::vector<Type> def_types, use_types;
      for (const Operand& o : defs) def_types.push_back(func.value_type(o.value()));
      for (const Operand& o : uses) use_types.push_back(func.value_type(o.value()));

      switch (d.opcode) {
        case Opcode::kRet: {
          RA_ASSIGN_OR_RETURN(std::vector<ArgLocation> locs, target.AssignResults(use_types));
          ApplyAbi(uses, locs);
          break;
        }
        case Opcode::kCall: {
          if (uses.size() > kMaxCallArgs) {
            return error(absl::StrCat("call %", func.callee(static_cast<int>(d.imm)), " passes ", uses.size(),
                                      " arguments; at most ", kMaxCallArgs, " are supported"));
          }
          RA_ASSIGN_OR_RETURN(std::vector<ArgLocation> args, target.AssignArguments(use_types));
          ApplyAbi(uses, args);
          absl::StatusOr<std::vector<ArgLocation>> results = target.AssignResults(def_types);
          if (!results.ok()) {
            return error(absl::StrCat("call %", func.callee(static_cast<int>(d.imm)), ": ", results.status().message()));
          }
          ApplyAbi(defs, *results);
          if (clobber_id < 0) clobber_id = func.InternClobbers(target.abi().caller_saved);
          d.clobbers = clobber_id;
          break;
        }
        case Opcode::kAdd: case Opcode::kSub: case Opcode::kAnd: case Opcode::kOr: case Opcode::kXor:
        case Opcode::kMul: case Opcode::kFadd: case Opcode::kFsub: case Opcode::kFmul: case Opcode::kFdiv:
          if (!x86) break;
          ReuseFirst(defs[0], uses[0]);
          Constrain(uses[1], uses[1].WithConstraint(ConstraintKind::kAny));
          break;
        case Opcode::kShl: case Opcode::kShr: case Opcode::kSar:
          if (!x86) break;
          ReuseFirst(defs[0], uses[0]);
          Constrain(uses[1], uses[1].WithFixed(*view("rcx", uses[1].value())));
          break;
        case Opcode::kDiv: case Opcode::kRem: {
          if (!x86) break;
          // idiv divides rdx:rax (edx:eax) into rax and rdx; the 8-bit form divides ax
          // (al sign-extended into ah) into al and ah.
          bool div = d.opcode == Opcode::kDiv;
          bool byte = func.value_type(defs[0].value()) == Type::kI8;
          const char* quotient = byte ? "al" : "rax";
          const char* remainder = byte ? "ah" : "rdx";
          Constrain(uses[0], uses[0].WithFixed(*view("rax", uses[0].value())));
          Constrain(uses[1], uses[1].WithConstraint(ConstraintKind::kAny).WithPosition(Position::kLate));
          Constrain(defs[0], defs[0].WithFixed(*view(div ? quotient : remainder, defs[0].value())));
          RegSet clobbered;
          clobbered.Insert(*target.FindReg(div ? remainder : quotient));
          if (d.clobbers < 0) d.clobbers = func.InternClobbers(clobbered);
          break;
        }
        case Opcode::kCmp:
          if (x86) Constrain(uses[1], uses[1].WithConstraint(ConstraintKind::kAny));
          break;
        default:
          break;
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status Legalize(Function& func_out, const Target& target) {
  RA_RETURN_IF_ERROR(Verify(func_out, target));  // invalid input stops here, named
  // Work on a copy so that an error leaves the caller's function untouched.
  Function func = func_out;
  RA_RETURN_IF_ERROR(LegalizeInPlace(func, target));
  // What legalize adds can contradict what the input fixed by hand: an early
  // def in a register the instruction now clobbers (x86 division's other
  // half, a call's caller-saved registers), or a use fixed where an operand
  // legalize fixed must be. Named here, on the legalized instruction.
  RA_RETURN_IF_ERROR(Verify(func, target));
  RA_RETURN_IF_ERROR(CheckRegisterDemand(func, target));
  func_out = std::move(func);
  return absl::OkStatus();
}

}  // namespace regalloc
