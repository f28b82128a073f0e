// Live ranges, use positions and register pressure of an SSA function.
//
//   InstNumbering num(func);
//   LiveSets sets(func);
//   LiveRanges ranges(func, sets, num);
//   if (ranges.Overlaps(a, b)) ...           // interference
//   UsePositions uses(func, num, loops);      // for spill weights and splitting
//   absl::StatusOr<RegisterPressure> p = RegisterPressure::Compute(func, target, sets, num);
//
// A range is Cretonne's representation: the def interval inside the defining
// block, plus a sorted list of live-in intervals for the other blocks where the
// value is live, adjacent blocks (in layout order) coalesced. Intervals are
// closed: [def point, last use point], or up to the block's end when the value is
// live out. A value is live at its def point and at each use point; a dead def is
// live at its def point only. Positions follow the operands: Early defs and uses
// at the Early point, Late ones at the Late point; block parameters are defined at
// the block's start, branch arguments used at the branch's Early point.
//
// Overlap uses SSA dominance (Budimlić et al. 2002): two values interfere iff one
// is live at the other's definition, so Overlaps(a, b) tests b's def point against
// a's range and a's against b's — a binary search each in the live-in intervals.
#ifndef REGALLOC_LIVENESS_LIVE_RANGES_H_
#define REGALLOC_LIVENESS_LIVE_RANGES_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "base/compressed_rows.h"
#include "liveness/live_sets.h"
#include "ssa/cfg.h"
#include "ssa/ir.h"
#include "ssa/program_point.h"
#include "targets/target.h"

namespace regalloc {

// Where, within one block, a value's live range begins (its definition; `inst`
// is invalid for a block parameter) or ends (its last use, for a value not live
// out of the block). Subzero's LiveBegin / LiveEnd lists.
struct LiveEvent {
  Value value;
  Inst inst;
  Block block;
};

struct Interval {
  ProgramPoint begin;
  ProgramPoint end;  // inclusive
  bool Contains(ProgramPoint p) const { return begin <= p && p <= end; }
};

class LiveRanges {
 public:
  LiveRanges() = default;
  LiveRanges(const Function& func, const LiveSets& sets, const InstNumbering& numbering) {
    Compute(func, sets, numbering);
  }
  // What Compute builds: the intervals always; the per-block LiveBegin /
  // LiveEnd lists on request (a caller asking only Covers and Overlaps, such as
  // the coalescer, saves their bucketing).
  enum class Events : uint8_t { kBuild, kSkip };
  // Recomputes, reusing this object's storage (see LiveSets::Compute).
  void Compute(const Function& func, const LiveSets& sets, const InstNumbering& numbering,
               Events events = Events::kBuild);

  bool HasRange(Value v) const { return has_def_[v.index()] != 0; }
  // Precondition: HasRange(v).
  Interval def_interval(Value v) const { return def_[v.index()]; }
  // Sorted by begin, disjoint, not adjacent.
  absl::Span<const Interval> live_ins(Value v) const {
    return absl::MakeConstSpan(live_in_items_.data() + live_in_start_[v.index()], live_in_count_[v.index()]);
  }
  // Definitions in `b` (LiveBegin) and last uses of values not live out of `b`
  // (LiveEnd), in reverse instruction order. Empty after Compute with
  // Events::kSkip.
  absl::Span<const LiveEvent> LiveBegin(Block b) const { return live_begin_.Row(b.index()); }
  absl::Span<const LiveEvent> LiveEnd(Block b) const { return live_end_.Row(b.index()); }
  // Is `v` live at `p`?
  bool Covers(Value v, ProgramPoint p) const;
  // Do `a` and `b` interfere (is one live at the other's definition)?
  bool Overlaps(Value a, Value b) const;
  size_t MemoryBytes() const;

 private:
  std::vector<Interval> def_;
  std::vector<uint8_t> has_def_;
  // Per value a row sized by its coalesced live-in interval count (counted from
  // the sets before the walk), filled in layout order.
  std::vector<uint32_t> live_in_start_;
  std::vector<uint32_t> live_in_count_;
  std::vector<Interval> live_in_items_;
  CompressedRows<LiveEvent> live_begin_;
  CompressedRows<LiveEvent> live_end_;
  std::vector<uint32_t> end_;  // working storage
  std::vector<LiveEvent> begins_, ends_;
};

// What LiveRanges::Overlaps answers, asked of the live sets and the defining
// block's instructions instead of ranges built for every value: for a caller
// asking about few pairs (the coalescer's interference tests), building ranges
// walks every live-in and live-out set, which at a million instructions holds
// 30 values per instruction. Compute is one walk over the instructions (def
// points); Covers(v, p) at a point p of block b is then v's def point or b's
// start (v live into b) up to b's end (v live out of b) or v's last use in b,
// found by scanning b backward: the same intervals LiveRanges builds.
class DefPoints {
 public:
  // `sets` and `numbering` must describe `func` and outlive the queries.
  void Compute(const Function& func, const LiveSets& sets, const InstNumbering& numbering);
  // A value defined in a block with instructions has a def point.
  bool HasDef(Value v) const { return has_def_[v.index()] != 0; }
  ProgramPoint DefPoint(Value v) const { return def_point_[v.index()]; }  // 0 without one
  // The layout block defining `v` (invalid for values defined nowhere).
  Block DefBlock(Value v) const { return def_block_[v.index()]; }
  // Is `v` live at `p`, a point of block `b`?
  bool Covers(Value v, ProgramPoint p, Block b) const;
  // Do `a` and `b` interfere (is one live at the other's definition)? Equals
  // LiveRanges::Overlaps.
  bool Overlaps(Value a, Value b) const;

 private:
  const Function* func_ = nullptr;
  const LiveSets* sets_ = nullptr;
  const InstNumbering* num_ = nullptr;
  std::vector<ProgramPoint> def_point_;
  std::vector<Block> def_block_;
  std::vector<uint8_t> has_def_;
};

// One use or def of a value, for linear scan, spill weights and splitting.
struct UsePosition {
  ProgramPoint point;
  bool is_def = false;
  ConstraintKind constraint = ConstraintKind::kReg;
  uint16_t constraint_arg = 0;  // Fixed: register id; Reuse: use index
  uint8_t loop_depth = 0;
};

class UsePositions {
 public:
  UsePositions(const Function& func, const InstNumbering& numbering, const LoopNest& loops);
  // Sorted by point (defs before uses at the same point).
  absl::Span<const UsePosition> Of(Value v) const { return positions_.Row(v.index()); }

 private:
  CompressedRows<UsePosition> positions_;
};

// Register pressure per program point and pressure bank, in bank slots (an ARMv7
// f64 takes 2 slots of the VFP bank; see targets/target.h), and its maximum per
// block.
class RegisterPressure {
 public:
  // InvalidArgument naming the value when a type has no register class.
  static absl::StatusOr<RegisterPressure> Compute(const Function& func, const Target& target, const LiveSets& sets,
                                                  const InstNumbering& numbering);

  int num_banks() const { return num_banks_; }
  int AtPoint(ProgramPoint p, int bank) const { return at_[p.bits() * num_banks_ + bank]; }
  int MaxInBlock(Block b, int bank) const { return block_max_[b.index() * num_banks_ + bank]; }
  int Max(int bank) const { return max_[bank]; }

 private:
  int num_banks_ = 0;
  std::vector<uint16_t> at_;
  std::vector<uint16_t> block_max_;
  std::vector<int> max_;
};

}  // namespace regalloc

#endif  // REGALLOC_LIVENESS_LIVE_RANGES_H_
