// The checker on random edits of a correct allocation: the input picks a generated
// function and target, then a list of edits (move an operand to another location,
// delete an instruction, swap two instructions). The checker must never crash, and
// it is sound: whenever it accepts an edited allocation (CheckAllocation and
// CheckKeepsOriginal), the interpreter must agree with the original.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "ssa/lower_params.h"
#include "check/checker.h"
#include "check/generator.h"
#include "check/interpreter.h"
#include "check/stack_allocator.h"

using namespace regalloc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  const char* names[] = {"x86_64", "aarch64", "armv7"};
  const Target& t = *TargetByName(names[data[0] % 3]).value();
  GeneratorOptions g;
  g.num_insts = 60;
  absl::StatusOr<Function> original = Generate(data[1], g, t);
  if (!original.ok()) std::abort();
  Function f = *original;
  if (!AllocateOnStack(f, t).ok() || !LowerBlockParams(f, t).ok() || !CheckAllocation(f, t).ok()) std::abort();
  std::vector<Block> blocks = f.layout();
  for (size_t p = 2; p + 3 < size; p += 4) {
    Block b = blocks[data[p] % blocks.size()];
    std::vector<Inst>& insts = f.block(b).insts;
    if (insts.empty()) continue;
    size_t k = data[p + 1] % insts.size();
    switch (data[p + 2] % 3) {
      case 0: {  // relocate one operand
        std::vector<Operand> ops(f.operands(insts[k]).begin(), f.operands(insts[k]).end());
        if (ops.empty()) break;
        Operand& op = ops[data[p + 3] % ops.size()];
        uint32_t pick = data[p + 3];
        if (pick % 5 == 0 && f.num_stack_slots() > 0) {
          op.set_location(Location::Stack(StackSlot(pick % f.num_stack_slots())));
        } else {
          op.set_location(Location::Reg(PReg(pick % t.num_regs())));
        }
        f.SetOperands(insts[k], ops);
        break;
      }
      case 1:  // delete a non-terminator
        if (k + 1 < insts.size()) insts.erase(insts.begin() + k);
        break;
      case 2:  // swap two neighbours before the terminator
        if (k + 2 < insts.size()) std::swap(insts[k], insts[k + 1]);
        break;
    }
  }
  if (!CheckAllocation(f, t).ok() || !CheckKeepsOriginal(*original, f, t).ok()) return 0;
  for (uint64_t seed = 1; seed <= 2; ++seed) {
    absl::Status s = CompareExecutions(*original, f, t, seed);
    // A run that hits the step limit is not a verdict on the allocation.
    if (!s.ok() && s.code() != absl::StatusCode::kResourceExhausted) std::abort();
  }
  return 0;
}
