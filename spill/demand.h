// What one instruction needs of each register class: the contract between the
// spiller and the colorer (color/). The spiller makes every instruction fit; the
// colorer then never spills.
//
//   DemandModel model(target);
//   RegSet pinned = model.Pinned(func, inst);
//   model.Needs(func, inst, live_after, locs, needs);       // per class
//   if (std::optional<Overflow> o = model.Check(through, needs, pinned)) ... spill
//
// The model, per class c, at instruction i (after PrepareConstraints):
//  - pinned(i): the registers of i's Fixed operands and its clobbers, with their
//    aliases. Fixed operands sit in pinned registers; nothing else needs them.
//  - through(i)_c: values of class c in registers that are live after i and not
//    defined by i. The colorer keeps them outside pinned(i) (moving them away
//    inside the constraint copy before i when needed).
//  - need(i)_c = max(early, late): registers i's other operands need at its Early
//    point (uses that die at i — a spilled value's Reg use is reloaded into a new
//    value that dies at i — and early defs) and at its Late point (Late uses that
//    die at i, and defs: a spilled value is defined in a register and stored
//    right after). Reads of spilled values by Any and Stack uses, move-likes and
//    branch arguments need no register.
// i fits when through_c + need_c <= capacity_c(pinned) for every class, where
// capacity_c counts the class's counted registers (RegClassInfo::counted) that
// overlap nothing pinned, and when
// the classes sharing a pressure bank fit it together: the sum over the bank of
// weight_c * (through_c + need_c) is at most max_c weight_c * capacity_c(pinned)
// (ARMv7: an f64 takes two s-sized slots of the 64-slot VFP bank).
//
// Counting the operands of i outside pinned(i) is conservative where an operand
// could share a pinned register, and exact where it matters: values live across
// a call must fit the callee-saved registers of their class. The spiller uses
// the finer count (NeedsAtInst, CheckAtInst): a Reg use read early only that
// dies at i, not overwritten in place, may sit in a register i clobbers or a
// fixed def writes (the colorer's rule), so it counts against the registers
// outside i's fixed uses only; and a value i reads so and that lives on may be
// spilled when nothing else will do (its reload then dies at i).
#ifndef REGALLOC_SPILL_DEMAND_H_
#define REGALLOC_SPILL_DEMAND_H_

#include <optional>
#include <vector>

#include "liveness/live_walker.h"
#include "ssa/ir.h"
#include "ssa/value_locations.h"
#include "targets/target.h"

namespace regalloc {

struct Overflow {
  int cls = -1;   // the class over capacity, or -1 when only the bank sum is
  int bank = -1;  // the bank of `cls`, or the bank over capacity
};

class DemandModel {
 public:
  explicit DemandModel(const Target& target);

  const Target& target() const { return target_; }
  int num_classes() const { return target_.num_classes(); }
  // The class index of values of `type`; -1 when the target has none.
  int ClassOf(Type type) const { return class_of_[static_cast<int>(type)]; }
  int ClassOf(const Function& func, Value v) const { return ClassOf(func.value_type(v)); }

  // Registers of class `cls` overlapping no register of `pinned` (which holds
  // every alias of what it pins, see Pinned).
  int Capacity(int cls, const RegSet& pinned) const {
    return pinned.Empty() ? full_capacity_[cls] : CapacityOutside(cls, pinned);
  }
  // Clobbers and Fixed operand registers of `inst`, closed under aliasing.
  RegSet Pinned(const Function& func, Inst inst) const;
  // The Fixed registers of the entry block's parameters, closed under aliasing.
  RegSet PinnedParams(const Function& func, Block b) const;

  // Fills `needs` (one per class) with need(i)_c; `live_after` is the set of
  // values live after `inst`, `locs` says which values are spilled.
  void Needs(const Function& func, Inst inst, const LiveWalker& live_after, const ValueLocations& locs,
             std::vector<int>& needs) const;

  // The first class or bank over capacity, or nullopt when `through` + `needs`
  // fit outside `pinned`.
  std::optional<Overflow> Check(const std::vector<int>& through, const std::vector<int>& needs,
                                const RegSet& pinned) const;

  // The spiller's finer count (the colorer's rules): a Reg use read early only
  // that dies at `inst` (no two-address source) may sit in a register `inst`
  // clobbers or writes, just not in one its fixed uses read. Fills `needs`
  // with what must fit outside every pinned register, max(early - those,
  // late), and `early` with all of early; CheckAtInst tests both, the second
  // against the registers outside `FixedUses(inst)` only.
  void NeedsAtInst(const Function& func, Inst inst, const LiveWalker& live_after, const ValueLocations& locs,
                   std::vector<int>& needs, std::vector<int>& early) const;
  // The registers of `inst`'s Fixed uses, closed under aliasing.
  RegSet FixedUses(const Function& func, Inst inst) const;
  std::optional<Overflow> CheckAtInst(const std::vector<int>& through, const std::vector<int>& needs,
                                      const std::vector<int>& early, const RegSet& pinned,
                                      const RegSet& fixed_uses) const;
  // Whether an instruction that pins nothing and has at most `operands`
  // operands surely fits over `through` (per class): a class's need is at
  // most its operands, so Check would find nothing over capacity whatever
  // Needs says. A walk's fast path: most instructions are far from every
  // capacity, and this costs a fraction of Needs and Check.
  bool SurelyFits(const std::vector<int>& through, int operands) const;

 private:
  int CapacityOutside(int cls, const RegSet& pinned) const;
  // Capacity(c, pinned) for every class c (the last pinned set's are kept).
  const int* CapacitiesOutside(const RegSet& pinned) const;

  const Target& target_;
  int class_of_[kNumTypes];
  std::vector<int> weights_, banks_;
  std::vector<int> full_capacity_;  // per class, nothing pinned
  // The banks of more than one class, in bank order: the ones whose weighted
  // sums Check and SurelyFits test.
  struct SharedBank {
    int bank = -1;
    std::vector<int> classes;
    int max_weight = 0;
    int capacity = 0;  // the most weight * capacity of its classes, nothing pinned
  };
  std::vector<SharedBank> shared_banks_;
  // Scratch for Needs, reused.
  mutable std::vector<Value> seen_early_, seen_late_;
  mutable std::vector<int> early_, late_, anywhere_;  // one per class
  // Pinned's last clobber set and its closure under aliasing.
  mutable RegSet last_clobbers_, last_closure_;
  mutable bool has_last_clobbers_ = false;
  mutable RegSet last_pinned_;
  mutable std::vector<int> last_capacity_;
  mutable bool has_last_pinned_ = false;
};

// The DemandModel of the target of the last call, made again only when the
// target changes (for phase objects kept between functions).
class DemandModelCache {
 public:
  const DemandModel& For(const Target& target) {
    if (target_ != &target) {
      model_.emplace(target);
      target_ = &target;
    }
    return *model_;
  }

 private:
  const Target* target_ = nullptr;
  std::optional<DemandModel> model_;
};

}  // namespace regalloc

#endif  // REGALLOC_SPILL_DEMAND_H_
