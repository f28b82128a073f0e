// The packing allocator's machine table (packing/, after the Amsterdam Compiler
// Kit's register-allocation descriptor): what holding an item in a register gains
// per occurrence, by the kind of operand, and what putting it there costs, for the
// two goals the ACK optimizes for.
//
//   const PackingCosts& costs = PackingCostsFor(target.isa());
//   int64_t bytes = occurrences * costs.size.reg_use - costs.size.load_init;
//
// Like the ACK's table, the figures are averages (a load is a load whatever its
// offset) so that the allocator needs no code generator: `size` in bytes of
// instruction encoding, `time` in cycles of a simple in-order pipeline, both per
// occurrence before loop weighting.
#ifndef REGALLOC_TARGETS_PACKING_COSTS_H_
#define REGALLOC_TARGETS_PACKING_COSTS_H_

#include "targets/target.h"

namespace regalloc {

// One goal's table.
struct PackingCostModel {
  int reg_use = 0;       // a use that would need a load from the item's slot
  int memory_use = 0;    // a use an `Any` operand could read from memory in place
  int def = 0;           // a def that would need a store to the item's slot
  int constant_use = 0;  // a use of a constant that would need rematerializing
  int load_init = 0;     // initializing a register from the item's slot
  int constant_init = 0; // initializing a register by rematerializing a constant
  int save_restore = 0;  // saving and restoring one callee-saved register
};

struct PackingCosts {
  PackingCostModel size;  // bytes
  PackingCostModel time;  // cycles
};

// The table of `isa` (a generic one for Isa::kOther).
const PackingCosts& PackingCostsFor(Isa isa);

}  // namespace regalloc

#endif  // REGALLOC_TARGETS_PACKING_COSTS_H_
