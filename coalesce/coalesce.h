// CSSA virtual registers: partitions SSA values into virtual registers so that
// (1) every branch argument and the block parameter it feeds are in one virtual
// register, and (2) no two values of a virtual register interfere. Giving each
// virtual register one location is then a correct way to leave SSA: block
// parameters need no moves.
//
//   VirtRegs vregs;
//   absl::StatusOr<CoalesceStats> s = Coalesce(func, vregs);
//   if (VirtReg r = vregs.Get(v); r.IsValid()) for (Value m : vregs.Members(r)) ...
//
// Algorithm (Cretonne's coalescing; Budimlić et al., "Fast copy coalescing and
// live-range identification", PLDI 2002; Boissinot et al., "Revisiting
// out-of-SSA translation for correctness, code quality, and efficiency", CGO
// 2009): for each parameter and each incoming argument, try to union their
// virtual registers. The union is checked with a walk of the dominance forest of
// both member lists: visit the values in dominance order (dominator-tree preorder
// of the defining block, then program point) with a stack of the values whose
// definitions dominate the current one; a value can only interfere with the set
// if it interferes with the nearest such ancestor, since both sets are already
// interference-free. That is linear in the set sizes after the merge of two sorted
// lists. When a union interferes, the argument is isolated with a copy in the
// predecessor (Cretonne's `%interference` example: v1 passed as an argument and
// also live into the target block); if even the copy interferes (with another
// argument already in the set), the parameter and all its arguments are isolated
// with copies (Sreedhar et al.'s method I), which cannot interfere: each copy
// lives between itself and its branch in its own predecessor (critical edges are
// split first), the new parameter only at the top of its block. Those copies
// define values local to one block, so the live sets are computed once; the live
// ranges are recomputed after each round of copies, until a round inserts none.
//
// Singleton virtual registers are not stored. Precondition: the function
// verifies and is in SSA form.
#ifndef REGALLOC_COALESCE_COALESCE_H_
#define REGALLOC_COALESCE_COALESCE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "base/id.h"
#include "liveness/live_sets.h"
#include "ssa/ir.h"

namespace regalloc {

struct VirtRegTag {};
using VirtReg = Id<VirtRegTag>;

class VirtRegs {
 public:
  // The virtual register of `v`, or an invalid id when v is alone.
  VirtReg Get(Value v) const {
    return v.index() < of_.size() ? of_[v.index()] : VirtReg();
  }
  // Members in dominance order (dominator-tree preorder of the defining block,
  // then program point).
  absl::Span<const Value> Members(VirtReg r) const { return members_[r.index()]; }
  int num_vregs() const { return static_cast<int>(members_.size()); }
  // Replaces the contents (used by Coalesce and by the dump loader).
  void Assign(int num_values, std::vector<std::vector<Value>> sets);

 private:
  std::vector<VirtReg> of_;
  std::vector<std::vector<Value>> members_;
};

struct CoalesceStats {
  int vregs = 0;             // stored (non-singleton) virtual registers
  int values_in_vregs = 0;   // their members
  int arg_copies = 0;        // arguments isolated with a copy in the predecessor
  int param_copies = 0;      // parameters isolated with a copy at the block top
  int rounds = 0;            // liveness computations
};

absl::StatusOr<CoalesceStats> Coalesce(Function& func, VirtRegs& vregs);
// The same, also leaving in `sets` the live sets of the result: exact for it,
// and for the allocator's later phases (spill/spill.h), which add only values
// local to one block.
absl::StatusOr<CoalesceStats> Coalesce(Function& func, VirtRegs& vregs, LiveSets& sets);

}  // namespace regalloc

#endif  // REGALLOC_COALESCE_COALESCE_H_
