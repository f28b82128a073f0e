#include "targets/packing_costs.h"

namespace regalloc {

const PackingCosts& PackingCostsFor(Isa isa) {
  // x86-64: `mov r, [rsp+d8]` and its store take 5 bytes (REX, opcode, ModRM,
  // SIB, disp8); `add r, [rsp+d8]` is 2 bytes longer than `add r, r`; `mov r,
  // imm32` takes 5 to 7; push and pop of r12-r15 take 2 bytes each. A load hits
  // L1 in 4 cycles; a memory operand adds the load's latency minus the ALU's;
  // a push and a pop cost a store and a load.
  static const PackingCosts kX86{{5, 2, 5, 5, 5, 6, 4}, {4, 3, 1, 1, 4, 1, 5}};
  // AArch64: every instruction 4 bytes; constants past 16 bits take two
  // (movz/movk), so 6 on average; stp/ldp save two registers at once, so one
  // register costs half a pair's store and load.
  static const PackingCosts kAArch64{{4, 0, 4, 6, 4, 6, 4}, {4, 0, 1, 1, 4, 1, 3}};
  // ARMv7 (ARM state): 4 bytes each; movw/movt for most constants; one push and
  // one pop save every register, so one more register costs little; most
  // constants fit one movw.
  static const PackingCosts kArmv7{{4, 0, 4, 6, 4, 6, 2}, {3, 0, 1, 1, 3, 1, 2}};
  static const PackingCosts kOther{{4, 1, 4, 4, 4, 4, 4}, {3, 1, 1, 1, 3, 1, 2}};
  switch (isa) {
    case Isa::kX86_64: return kX86;
    case Isa::kAArch64: return kAArch64;
    case Isa::kArmv7: return kArmv7;
    default: return kOther;
  }
}

}  // namespace regalloc
