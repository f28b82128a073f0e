#include "ssa/builder.h"

#include "base/bit_cast.h"

namespace regalloc {

Block FunctionBuilder::CreateBlock() {
  Block b = func_.NewBlock();
  func_.AppendToLayout(b);
  current_ = b;
  return b;
}

Block FunctionBuilder::CreateEntryBlock() {
  Block b = CreateBlock();
  for (Type t : func_.param_types()) AddBlockParam(b, t);
  return b;
}

Value FunctionBuilder::AddBlockParam(Block b, Type type) {
  Value v = func_.NewValue(type);
  func_.block(b).params.push_back(Operand::Def(v));
  return v;
}

Inst FunctionBuilder::Append(const InstData& data, absl::Span<const Operand> operands,
                             absl::Span<const BranchTarget> targets) {
  last_ = func_.NewInst(data, operands, targets);
  func_.block(current_).insts.push_back(last_);
  return last_;
}

Value FunctionBuilder::Const(Type type, int64_t bits) {
  Value v = func_.NewValue(type);
  InstData d;
  d.opcode = Opcode::kConst;
  d.type = type;
  d.imm = bits;
  Append(d, {Operand::Def(v)});
  return v;
}

Value FunctionBuilder::ConstF64(double value) { return Const(Type::kF64, BitCast<int64_t>(value)); }

Value FunctionBuilder::ConstF32(float value) { return Const(Type::kF32, BitCast<uint32_t>(value)); }

Value FunctionBuilder::Binary(Opcode op, Value a, Value b) {
  Value v = func_.NewValue(func_.value_type(a));
  InstData d;
  d.opcode = op;
  Append(d, {Operand::Def(v), Operand::Use(a), Operand::Use(b)});
  return v;
}

Value FunctionBuilder::Cmp(CondCode cc, Value a, Value b) {
  Value v = func_.NewValue(Type::kI32);
  InstData d;
  d.opcode = Opcode::kCmp;
  d.cc = cc;
  Append(d, {Operand::Def(v), Operand::Use(a), Operand::Use(b)});
  return v;
}

Value FunctionBuilder::Load(Type type, Value addr, int64_t offset) {
  Value v = func_.NewValue(type);
  InstData d;
  d.opcode = Opcode::kLoad;
  d.type = type;
  d.imm = offset;
  Append(d, {Operand::Def(v), Operand::Use(addr)});
  return v;
}

void FunctionBuilder::Store(Value value, Value addr, int64_t offset) {
  InstData d;
  d.opcode = Opcode::kStore;
  d.imm = offset;
  Append(d, {Operand::Use(value), Operand::Use(addr)});
}

Value FunctionBuilder::Copy(Value a) {
  Value v = func_.NewValue(func_.value_type(a));
  InstData d;
  d.opcode = Opcode::kCopy;
  Append(d, {Operand::Def(v), Operand::Use(a)});
  return v;
}

std::vector<Value> FunctionBuilder::Call(absl::string_view callee, absl::Span<const Value> args,
                                         absl::Span<const Type> result_types) {
  std::vector<Value> results;
  std::vector<Operand> ops;
  for (Type t : result_types) {
    results.push_back(func_.NewValue(t));
    ops.push_back(Operand::Def(results.back()));
  }
  for (Value a : args) ops.push_back(Operand::Use(a));
  InstData d;
  d.opcode = Opcode::kCall;
  d.imm = func_.InternCallee(callee);
  Append(d, ops);
  return results;
}

void FunctionBuilder::Ret(absl::Span<const Value> values) {
  std::vector<Operand> ops;
  for (Value v : values) ops.push_back(Operand::Use(v));
  InstData d;
  d.opcode = Opcode::kRet;
  Append(d, ops);
}

void FunctionBuilder::Jump(Block target, absl::Span<const Value> args) {
  std::vector<Operand> ops;
  for (Value v : args) ops.push_back(Operand::Use(v));
  InstData d;
  d.opcode = Opcode::kJump;
  const BranchTarget targets[] = {{target, 0, static_cast<uint16_t>(args.size())}};
  Append(d, ops, targets);
}

void FunctionBuilder::Br(Value cond, Block if_true, absl::Span<const Value> true_args,
                         Block if_false, absl::Span<const Value> false_args) {
  std::vector<Operand> ops = {Operand::Use(cond)};
  for (Value v : true_args) ops.push_back(Operand::Use(v));
  for (Value v : false_args) ops.push_back(Operand::Use(v));
  InstData d;
  d.opcode = Opcode::kBr;
  const BranchTarget targets[] = {
      {if_true, 1, static_cast<uint16_t>(true_args.size())},
      {if_false, static_cast<uint16_t>(1 + true_args.size()), static_cast<uint16_t>(false_args.size())}};
  Append(d, ops, targets);
}

}  // namespace regalloc
