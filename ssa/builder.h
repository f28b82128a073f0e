// Builds functions in code: tests, the generator and phases that insert
// instructions use it instead of assembling InstData by hand.
//
//   Function f("add1", {Type::kI64}, {Type::kI64});
//   FunctionBuilder b(f);
//   Block entry = b.CreateEntryBlock();        // parameters from the signature
//   Value one = b.Const(Type::kI64, 1);
//   Value sum = b.Binary(Opcode::kAdd, b.Param(entry, 0), one);
//   b.Ret({sum});
#ifndef REGALLOC_SSA_BUILDER_H_
#define REGALLOC_SSA_BUILDER_H_

#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "ssa/ir.h"

namespace regalloc {

class FunctionBuilder {
 public:
  explicit FunctionBuilder(Function& func) : func_(func) {}

  // Creates a block at the end of the layout and makes it current.
  Block CreateBlock();
  // Creates the first block with one parameter per signature parameter.
  Block CreateEntryBlock();
  void SwitchToBlock(Block b) { current_ = b; }
  Block current_block() const { return current_; }
  Value AddBlockParam(Block b, Type type);
  Value Param(Block b, int i) const { return func_.block(b).params[i].value(); }

  // Instructions appended to the current block. Preconditions are the verifier's
  // rules (operand types match); the builder does not check them.
  Value Const(Type type, int64_t bits);
  Value ConstF64(double v);
  Value ConstF32(float v);
  // add..sar and fadd..fdiv: the result has the type of `a`.
  Value Binary(Opcode op, Value a, Value b);
  Value Cmp(CondCode cc, Value a, Value b);
  Value Load(Type type, Value addr, int64_t offset);
  void Store(Value value, Value addr, int64_t offset);
  Value Copy(Value v);
  std::vector<Value> Call(absl::string_view callee, absl::Span<const Value> args,
                          absl::Span<const Type> result_types);
  void Ret(absl::Span<const Value> values);
  void Jump(Block target, absl::Span<const Value> args);
  void Br(Value cond, Block if_true, absl::Span<const Value> true_args, Block if_false,
          absl::Span<const Value> false_args);

  // Appends an instruction with explicit data and operands to the current block.
  Inst Append(const InstData& data, absl::Span<const Operand> operands,
              absl::Span<const BranchTarget> targets = {});
  Inst last_inst() const { return last_; }

 private:
  Function& func_;
  Block current_;
  Inst last_;
};

}  // namespace regalloc

#endif  // REGALLOC_SSA_BUILDER_H_
