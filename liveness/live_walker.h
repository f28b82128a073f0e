// The values live at each instruction of one block, by a backward walk from the
// block's live-out set: what a phase needs that decides per instruction (the
// spiller's pressure, the colorer's last uses, the reload pass's next uses)
// without keeping a live set per program point.
//
//   LiveWalker live;                 // keep it across blocks and functions
//   live.Reset(func.num_values());
//   live.StartBlock(sets.LiveOut(b));
//   for (auto it = insts.rbegin(); it != insts.rend(); ++it) {
//     ... live.values() is what is live after *it ...
//     live.StepBack(func, *it);       // now: what is live before *it
//   }
//
// A move-like pair naming one value on both sides (`v1[ss0] = spill v1[%rax]`)
// re-locates its value and defines nothing (ssa/ir.h), so stepping back over it
// keeps the value live. Block parameters are defined at the block's start: after
// the walk over the block's instructions they are still in the set, and
// `StepBackOverParams` removes them.
#ifndef REGALLOC_LIVENESS_LIVE_WALKER_H_
#define REGALLOC_LIVENESS_LIVE_WALKER_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "ssa/ir.h"

namespace regalloc {

class LiveWalker {
 public:
  // Sizes the walker for value ids below `num_values` and empties it.
  void Reset(int num_values);
  // Empties the set and fills it with `live_out`, a LiveSets row (sorted, no
  // value twice).
  void StartBlock(absl::Span<const Value> live_out);

  bool IsLive(Value v) const { return v.index() < pos_.size() && pos_[v.index()] >= 0; }
  // In no particular order.
  absl::Span<const Value> values() const { return values_; }
  // Inserting a live value or removing a dead one does nothing; both return
  // whether the set changed.
  bool Add(Value v);
  bool Remove(Value v);
  // Removes what `inst` defines, then adds what it uses.
  void StepBack(const Function& func, Inst inst);
  void StepBackOverParams(const Function& func, Block b);

 private:
  std::vector<int32_t> pos_;  // index into values_, or -1
  std::vector<Value> values_;
};

// True when def operand `def_index` of move-like `inst` re-locates the value of
// the paired use instead of defining a new one.
bool IsRelocation(const Function& func, Inst inst, int def_index);

}  // namespace regalloc

#endif  // REGALLOC_LIVENESS_LIVE_WALKER_H_
