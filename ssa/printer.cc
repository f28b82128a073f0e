#include "ssa/printer.h"

#include "base/bit_cast.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace regalloc {
namespace {

void AppendOperands(std::string& out, const Function& func, absl::Span<const Operand> ops,
                    const Target& target) {
  for (size_t i = 0; i < ops.size(); ++i) {
    if (i > 0) out += ", ";
    out += PrintOperand(func, ops[i], target);
  }
}

void AppendTarget(std::string& out, const Function& func, Inst inst, int t, const Target& target) {
  const BranchTarget& bt = func.targets(inst)[t];
  out += func.BlockName(bt.block);
  if (bt.num_args > 0) {
    out += "(";
    AppendOperands(out, func, func.BranchArgs(inst, t), target);
    out += ")";
  }
}

}  // namespace

namespace {

std::string LocationText(const Function* func, Location loc, const Target& target) {
  switch (loc.kind()) {
    case Location::Kind::kReg: return absl::StrCat("%", target.RegName(loc.reg()));
    case Location::Kind::kStack:
      return func != nullptr ? func->SlotName(loc.slot()) : absl::StrCat("ss", loc.slot().index());
    case Location::Kind::kNone: break;
  }
  return "none";
}

std::string OperandText(const Function* func, const Operand& op, const Target& target) {
  std::string out = func != nullptr ? func->ValueName(op.value()) : absl::StrCat("v", op.value().index());
  switch (op.constraint()) {
    case ConstraintKind::kReg: break;
    case ConstraintKind::kAny: out += "@any"; break;
    case ConstraintKind::kStack: out += "@stack"; break;
    case ConstraintKind::kFixed: absl::StrAppend(&out, "@%", target.RegName(op.fixed_reg())); break;
    case ConstraintKind::kReuse: absl::StrAppend(&out, "@reuse", op.reuse_index()); break;
  }
  if (!op.HasDefaultPosition()) out += op.position() == Position::kEarly ? "@early" : "@late";
  if (!op.location().IsNone()) absl::StrAppend(&out, "[", LocationText(func, op.location(), target), "]");
  return out;
}

}  // namespace

std::string PrintLocation(Location loc, const Target& target) { return LocationText(nullptr, loc, target); }
std::string PrintLocation(const Function& func, Location loc, const Target& target) {
  return LocationText(&func, loc, target);
}
std::string PrintOperand(const Operand& op, const Target& target) { return OperandText(nullptr, op, target); }
std::string PrintOperand(const Function& func, const Operand& op, const Target& target) {
  return OperandText(&func, op, target);
}

std::string PrintImmediate(Type type, int64_t bits) {
  switch (type) {
    case Type::kI8: return absl::StrCat(static_cast<int8_t>(bits));
    case Type::kI32: return absl::StrCat(static_cast<int32_t>(bits));
    case Type::kF32: return absl::StrFormat("%.9g", BitCast<float>(static_cast<uint32_t>(bits)));
    case Type::kF64: return absl::StrFormat("%.17g", BitCast<double>(bits));
    case Type::kI64:
    case Type::kV128:
    case Type::kF80: break;
  }
  return absl::StrCat(bits);
}

std::string PrintInst(const Function& func, Inst inst, const Target& target) {
  const InstData& d = func.inst(inst);
  absl::Span<const Operand> ops = func.operands(inst);
  std::string out;
  size_t num_defs = 0;
  while (num_defs < ops.size() && ops[num_defs].IsDef()) ++num_defs;
  if (num_defs > 0) {
    AppendOperands(out, func, ops.subspan(0, num_defs), target);
    out += " = ";
  }
  absl::Span<const Operand> uses = ops.subspan(num_defs);
  absl::StrAppend(&out, OpcodeName(d.opcode));
  switch (d.opcode) {
    case Opcode::kConst:
      absl::StrAppend(&out, ".", TypeName(d.type), " ", PrintImmediate(d.type, d.imm));
      break;
    case Opcode::kCmp:
      absl::StrAppend(&out, ".", CondCodeName(d.cc), " ");
      AppendOperands(out, func, uses, target);
      break;
    case Opcode::kLoad:
      absl::StrAppend(&out, ".", TypeName(d.type), " ");
      AppendOperands(out, func, uses, target);
      absl::StrAppend(&out, ", ", d.imm);
      break;
    case Opcode::kStore:
      out += " ";
      AppendOperands(out, func, uses, target);
      absl::StrAppend(&out, ", ", d.imm);
      break;
    case Opcode::kCall:
    case Opcode::kInst:
      for (size_t i = 0; i < num_defs; ++i) {
        absl::StrAppend(&out, ".", TypeName(func.value_type(ops[i].value())));
      }
      absl::StrAppend(&out, " %", func.callee(static_cast<int>(d.imm)), "(");
      AppendOperands(out, func, uses, target);
      out += ")";
      break;
    case Opcode::kJump:
      out += " ";
      AppendTarget(out, func, inst, 0, target);
      break;
    case Opcode::kBranch:
      absl::StrAppend(&out, " %", func.callee(static_cast<int>(d.imm)), "(");
      AppendOperands(out, func, uses.subspan(0, func.NumNonArgOperands(inst)), target);
      out += ")";
      for (int t = 0; t < d.num_targets(); ++t) {
        out += ", ";
        AppendTarget(out, func, inst, t, target);
      }
      break;
    case Opcode::kBr:
      out += " ";
      AppendOperands(out, func, ops.subspan(0, 1), target);
      out += ", ";
      AppendTarget(out, func, inst, 0, target);
      out += ", ";
      AppendTarget(out, func, inst, 1, target);
      break;
    default:
      if (!uses.empty()) out += " ";
      AppendOperands(out, func, uses, target);
      break;
  }
  if (d.clobbers >= 0) {
    std::vector<std::string> names;
    for (PReg r : func.clobber_set(d.clobbers)) names.push_back(absl::StrCat("%", target.RegName(r)));
    absl::StrAppend(&out, " clobbers ", absl::StrJoin(names, ", "));
  }
  return out;
}

std::string PrintFunction(const Function& func, const Target& target) {
  std::string out = absl::StrCat("function %", func.name(), "(");
  std::vector<absl::string_view> types;
  for (Type t : func.param_types()) types.push_back(TypeName(t));
  absl::StrAppend(&out, absl::StrJoin(types, ", "), ")");
  if (!func.result_types().empty()) {
    types.clear();
    for (Type t : func.result_types()) types.push_back(TypeName(t));
    absl::StrAppend(&out, " -> ", absl::StrJoin(types, ", "));
  }
  out += " {\n";
  for (int s = 0; s < func.num_stack_slots(); ++s) {
    absl::StrAppend(&out, "    ", func.SlotName(StackSlot(s)), " = stack_slot ", func.stack_slot(StackSlot(s)).size, "\n");
  }
  if (!func.saved_regs().Empty()) {
    std::vector<std::string> names;
    for (PReg r : func.saved_regs()) names.push_back(absl::StrCat("%", target.RegName(r)));
    absl::StrAppend(&out, "    saves ", absl::StrJoin(names, ", "), "\n");
  }
  for (Block b : func.layout()) {
    const BlockData& bd = func.block(b);
    out += func.BlockName(b);
    if (!bd.params.empty()) {
      out += "(";
      for (size_t i = 0; i < bd.params.size(); ++i) {
        if (i > 0) out += ", ";
        absl::StrAppend(&out, PrintOperand(func, bd.params[i], target), ": ",
                        TypeName(func.value_type(bd.params[i].value())));
      }
      out += ")";
    }
    out += ":\n";
    for (Inst i : bd.insts) absl::StrAppend(&out, "    ", PrintInst(func, i, target), "\n");
  }
  out += "}\n";
  return out;
}

std::string PrintModule(absl::Span<const Function> funcs, const Target& target) {
  std::string out;
  for (size_t i = 0; i < funcs.size(); ++i) {
    if (i > 0) out += "\n";
    out += PrintFunction(funcs[i], target);
  }
  return out;
}

}  // namespace regalloc
