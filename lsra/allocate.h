// Linear scan over the intervals of LsraBuild (`lsra_allocate`): Mössenböck–
// Pfeiffer / Wimmer linear scan with lifetime holes and interval splitting.
//
//   LsraAllocation alloc;
//   absl::StatusOr<LsraAllocStats> s = alloc.Run(target, func, build);
//   Location l = alloc.At(v, pos);   // where v is at position pos
//
// Intervals are taken in order of their start. Active intervals hold a register
// at the current position, inactive ones hold one but are in a lifetime hole.
//  - TryAllocateFreeReg: for each register of the interval's class, the position
//    until which it stays free (0 when an active interval holds it or an alias;
//    the next overlap with an inactive one; the next fixed use, def or clobber of
//    it from LsraBuild). The hint first (a fixed register the value is defined in
//    or read from, or the register of the interval it was split from), then the
//    register free the longest. Free for the whole interval: take it; free for a
//    while: take it and split the interval at the last gap before that position
//    (with spill_before_loops: earlier, or not at all, where that gap lies in a
//    loop the piece needs no register in up to it; see LsraOptions).
//  - AllocateBlockedReg: otherwise, for each register the next position where an
//    interval holding it needs a register. If the current interval's first
//    register use comes later than every such position, it is spilled up to the
//    gap before that use; otherwise it takes the register whose next use is
//    farthest, and the intervals holding it (or an alias) that overlap are split
//    and spilled up to their next register use (an inactive one only if it
//    actually overlaps: the correction Subzero makes to the original paper). The
//    split is at the earliest outermost block start after their last reference
//    (Wimmer's split position), else at the gap.
//  - A Reuse def takes the register its source is read from at its instruction.
//  - Second chance (optional): after the scan, stack pieces take registers
//    still free over their whole life, in rounds until nothing changes.
//  - Block starts (RyuJIT): where the scan enters a block, a live-in value
//    held in another register than at the end of the block's seed predecessor
//    is split there and prefers the seed's register.
//  - Overlap: a copy's first piece may share the register of its live source.
//    Both pieces are then active in it; an interval that wants the register
//    must find it free of both, or evict both.
// Pieces of an interval ("children") partition the value's lifetime; each has
// one location, a register or the value's stack slot. Splits happen only at gaps
// (4k + 3) and at defs, where lsra_resolve can put moves.
//
// Errors: Internal when an instruction needs more registers at once than the
// class has (LsraBuild's references make that impossible for legalized input).
#ifndef REGALLOC_LSRA_ALLOCATE_H_
#define REGALLOC_LSRA_ALLOCATE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "lsra/build.h"
#include "ssa/ir.h"
#include "targets/target.h"

namespace regalloc {

// One piece of a value's interval: positions [from, to) of its ranges.
struct LsraChild {
  Value value;
  uint32_t from = 0;
  uint32_t to = 0;
  Location loc;
};

// Choices of lsra_allocate, switchable so that each one's effect can be measured,
// and RyuJIT-style stress modes that make allocation bugs show on small functions.
struct LsraOptions {
  // Subzero's register preference: a def whose instruction is the last use of a
  // source prefers the source's register, so copies and two-address forms need
  // no move.
  bool preference = true;
  // Stress: allocate only from the registers a call preserves, or only from those
  // it destroys (a class with none of them keeps all its registers). A piece the
  // subset cannot serve (a late read beside clobbers of the whole subset) takes
  // from every register of its class, as RyuJIT's stress limits give way.
  enum class Registers : uint8_t { kAll, kCalleeSavedOnly, kCallerSavedOnly };
  Registers registers = Registers::kAll;
  // Stress: evict the holder needed soonest (still after the current piece)
  // instead of the one needed latest.
  bool spill_nearest = false;
  // Subzero's register overlap: a `copy` whose source lives on may share the
  // source's register (both values are in it until either is written), so the
  // copy costs nothing. Only for a source in a register free of everything else
  // over the copy's whole interval, and when neither value is overwritten in
  // place (a two-address def) where the other is still live. The sharing may
  // span blocks: an edge into the shared register moves only the copy
  // (lsra_resolve).
  bool overlap = true;
  // Subzero's repeat-until-convergence (second-chance bin-packing): after the
  // scan, the pieces left on the stack get another round against the finished
  // allocation table, which it never changes: a piece takes a register free
  // over its whole life (a neighbouring piece's register first, so no move
  // joins them). Rounds repeat until one assigns nothing. (Taking only
  // registers that cost no more moves than the reload, by loop weight, measured
  // worse: a piece in a register also spares the store at its definition and
  // the slot reads of its Any uses.) Off by default: it gains 0.01 to 0.3% of
  // the weighted cost and costs 1.6 to 2x the scan's time.
  bool second_chance = false;
  // Wimmer's split position for an evicted interval: it leaves its register at
  // the earliest block start of the smallest loop depth after its last
  // reference that needs a register (an Any, Stack or Fixed use reads the
  // stack as well), not at the current position (so not in the middle of a
  // loop that does not need it in a register). The same for a piece that takes
  // a register free only for a while, where the register is taken in a place
  // the piece lives: it leaves the register at that block start when one lies
  // before the place, and takes none (the stack up to its next register use)
  // when it has no register use before a place in a loop. Otherwise the
  // register is left in the loop, and the loop's back edge puts the value back
  // in it at every iteration (weighted cost on 100 generated functions:
  // x86-64 -18%, AArch64 -24%, ARMv7 -17%).
  bool spill_before_loops = true;
  // RyuJIT's selection among free registers (RegisterSelection): each rule in
  // turn keeps the candidates that satisfy it, if any do: in the preference set
  // (the register of the piece it was split from, of a dying source, the fixed
  // register the value is defined in or read from; for a piece that spans a
  // call only those the call preserves) and free over the current range; in the
  // preference set; preserved by calls for a piece that spans one, not
  // preserved for one that does not; held by no inactive piece; free over the
  // whole piece; the best fit (the covering register taken soonest after the
  // piece, else the one free the longest); the allocation order. Off: the hint
  // if it covers the piece, else the register free the longest.
  bool scoring = true;
  // RyuJIT's block-start locations: a block starts from the state at the end of
  // its seed predecessor (LsraBuild::seed). At each block start, a value live
  // into the block whose piece holds another location than the register it had
  // at the seed's end is split there, and the new piece prefers that register,
  // if no piece that stays holds it there. The edge from the seed then moves
  // nothing; the other edges into the block do the work.
  bool seed_blocks = true;
  // Subzero's block-local splitting: an interval spanning several blocks is cut
  // at every block start, so each block's part gets a register of its own (or
  // the stack) and edges reconcile them.
  bool local_split = false;
  // Eviction over a split: a piece whose best free register is free only for
  // a while, and which needs a register again after the split, takes a
  // register by eviction instead (the register whose holders are needed
  // latest, as when none is free) if some register's holders and fixed
  // references are all needed later than that. Off: it takes the free
  // register and is split where the register is taken, as in Wimmer's
  // TryAllocateFreeReg, and is reloaded or moved for its next use even where
  // a value held in another register is not needed until much later (a
  // constant used only after a loop holding a callee-saved register that a
  // value live across the loop's call needs).
  bool evict_over_split = true;
};

struct LsraAllocStats {
  int children = 0;  // interval pieces after splitting
  int splits = 0;
  int spilled = 0;   // pieces on the stack
  int registers = 0; // pieces in registers
  int preferred = 0;  // defs hinted to the register of a source dying at their instruction
  int overlapped = 0; // copies sharing their source's register
  int recovered = 0;  // stack pieces given a register by a second round
  int rounds = 0;     // rounds after the scan, the last of which assigned nothing
  int seeded = 0;     // live-in pieces split at a block start to take the seed's register
};

namespace lsra_internal {
class Allocator;
}  // namespace lsra_internal

class LsraAllocation {
 public:
  LsraAllocation();
  ~LsraAllocation();
  // Copies the result; the scan's buffers are not copied (the copy makes its
  // own when it runs).
  LsraAllocation(const LsraAllocation& other);
  LsraAllocation& operator=(const LsraAllocation& other);

  absl::StatusOr<LsraAllocStats> Run(const Target& target, Function& func, const LsraBuild& build,
                                     const LsraOptions& options = LsraOptions());

  // The pieces of `v`, by position (stored together: resolution looks up
  // every operand and every value live across an edge).
  absl::Span<const LsraChild> PiecesOf(Value v) const {
    return v.index() < pieces_.num_rows() ? pieces_.Row(v.index()) : absl::Span<const LsraChild>();
  }
  // Where `v` is at `pos` (the piece whose [from, to) holds pos); none if no piece does.
  Location At(Value v, uint32_t pos) const;
  // The same, looked up from piece `hint` of v (that piece or the next, else
  // searched), which becomes the piece found: for a caller asking about a
  // value at increasing positions, as resolution mostly does.
  Location At(Value v, uint32_t pos, uint32_t& hint) const;
  // The value's stack slot, made on first request (every stack piece of a value
  // uses the same one).
  StackSlot SlotOf(Value v, Function& func);

  // RyuJIT-style dump: each value's pieces and where they are, then each
  // register's contents in position order (the allocation table).
  std::string Print(const Function& func, const Target& target) const;

 private:
  CompressedRows<LsraChild> pieces_;  // the scan's pieces, by value and position
  std::vector<StackSlot> slots_;
  // The scan's state, kept between runs so that a warm allocation reuses its
  // buffers.
  std::unique_ptr<lsra_internal::Allocator> scratch_;
};

}  // namespace regalloc

#endif  // REGALLOC_LSRA_ALLOCATE_H_
