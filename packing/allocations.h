// The analysis half of the packing allocator (after the Amsterdam Compiler Kit's
// global optimizer, util/ego/ra): items, timespans, allocations, their busy
// ranges and rivals, and their profits. The decisions (pack.h) and the rewrite
// (transform.h) read what this builds; packing.h puts the three together.
//
//   SplitLoopEntries(func);                       // once, before the analysis
//   PackingProblem problem;
//   RA_RETURN_IF_ERROR(BuildPackingProblem(func, target, options, problem));
//   for (const PackingAllocation& a : problem.allocations()) ...
//
// The model. Every value has a home stack slot: it is stored there once after
// its definition and read from there otherwise (as in the reference allocator,
// check/stack_allocator.h), unless an allocation holds it in a register. An
// allocation is a pair (item, timespan); the registers the packing does not hand
// out are scratch registers for every other operand.
//
// Items (ra_items.c). Every SSA value of a register class with a use that could
// read a register (a use constrained `Stack` could not), and every constant used
// more than once: a value defined by `const` with at least two such uses. A
// constant's register is initialized by making the constant again, not by a
// load, and a constant outside registers is made again at each register use
// (the ACK's immediate operand). Our IR has no global variables and no
// procedure addresses, so the ACK's other two kinds of item (the address of a
// global, the address of a procedure) have no counterpart; a local variable is
// an SSA value. Each `const` instruction is its own item: two `const 5` are two
// items, as a value-numbered IR would have merged them already.
//
// Timespans (ra_lifet.c, ra_interv.c). The whole function, and every natural
// loop with one entry: its header has exactly one predecessor edge from outside
// the loop. SplitLoopEntries gives that edge a block of its own when it is
// critical, so the initialization goes at the end of the edge's source (before
// its jump) and runs once per entry to the loop, never per iteration. The ACK
// considers only timespans with no live exit points, since a variable changed in
// a register must be written back where the timespan ends. SSA values never
// change after their definition, so (like the ACK's constants and addresses) no
// timespan needs an update at its exits: a value defined outside the timespan
// was stored at its definition and its slot still holds it at every exit, and a
// value defined inside is stored at its definition when it is live beyond the
// register's timespans. Every loop timespan therefore qualifies.
//
// Busy ranges and rivals (ra_lifet.c). An allocation is busy where its timespan
// meets its item's live range (liveness/live_ranges.h), plus the entry edge's
// jump when the item is initialized there. Two allocations of different items
// busy at one point are rivals and cannot share a register unit. Registers
// pinned at a point (fixed operands, clobbers at calls, the entry's argument
// registers) are rivals of every allocation busy there, except the allocation
// of the value the operand itself names (a value may sit in its own fixed
// register), and, for clobbers, an allocation whose value the instruction
// defines Late (it is written after the clobber).
//
// Profits (ra_profits.c), per the target's table (targets/packing_costs.h):
// size: occurrences × gain − initialization; time: occurrences weighted by
// 10^loop depth − initialization weighted by its block's depth, and for an item
// with no occurrence in a loop, its whole-function allocation counts the
// minimal number of occurrences along any path from the item's definition to
// the function's exit (a shortest path over the CFG region where it is live),
// so that an item used on some paths only is not put in a register when it may
// never pay off. (For the ACK, whose variables exist from the procedure's
// entry, the paths run from the entry; an SSA value's register is first
// written by its definition, so no initialization happens on a path that
// misses it.)
//
// Scratch registers. Per class, the registers the rewrite takes for operands
// whose item is not in a register there (reloads, constants made again, defs
// before their store) are withheld from the packing: as many as the most
// demanding instruction needs, counted by simulating the rewrite's choices on
// every instruction (fixed registers and clobbers excluded), chosen from the
// caller-saved registers no argument or result uses, then the other
// caller-saved ones, then the callee-saved, last in allocation order first.
#ifndef REGALLOC_PACKING_ALLOCATIONS_H_
#define REGALLOC_PACKING_ALLOCATIONS_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "base/compressed_rows.h"
#include "liveness/live_ranges.h"
#include "liveness/live_sets.h"
#include "ssa/cfg.h"
#include "ssa/ir.h"
#include "ssa/program_point.h"
#include "targets/target.h"

namespace regalloc {

enum class PackingGoal : uint8_t {
  kTime,  // loop timespans first, occurrences weighted by loop depth
  kSize,  // greedy by static profit
};


struct PackingOptions {
  PackingGoal goal = PackingGoal::kTime;
  // Loop timespans besides the whole function (off: whole-function only).
  bool loops = true;
  // The callee-save yield check (off: every packed allocation keeps its register).
  bool yield = true;
  // Lower block parameters to edge moves after the transformation.
  bool lower_params = true;
  // Fill PackingStats::printed with the allocation list, the decisions and the
  // yield verdicts.
  bool dump = false;
};

struct PackingItem {
  Value value;
  RegClass reg_class;
  bool constant = false;    // defined by `const`: initialized by making it again
  bool in_loop = false;     // an occurrence at loop depth > 0
  ProgramPoint def_point;   // where the value is defined
};

// The whole function (loop == -1) or one loop with one entry edge.
struct PackingTimespan {
  int loop = -1;
  Block header;  // loops only
  Block entry;   // loops only: the block before the header whose jump enters the loop
};

struct PackingAllocation {
  uint32_t item = 0;
  uint32_t timespan = 0;
  int occurrences = 0;   // uses and defs inside the timespan
  bool init = false;     // the register is initialized on the loop's entry edge
  int64_t profit = 0;    // net, in the goal's unit
};

// A register pinned at a point by an operand naming `owner` (a value id).
// Clobbers are kept apart, one entry per instruction (PackingProblem::Clobbers).
struct RegisterPin {
  ProgramPoint point;
  uint32_t owner = 0;
};

namespace packing_internal {

// How an operand occurs, for its gain.
enum class OccurrenceKind : uint8_t { kRegUse, kMemoryUse, kStackUse, kDef };

struct Occurrence {
  Value value;
  Block block;
  OccurrenceKind kind;
};

// What BuildPackingProblem keeps between functions (in the problem): the
// analyses and the walk's lists.
struct BuildBuffers {
  CfgAnalyses cfg;
  InstNumbering numbering;
  std::vector<int> first_child, next_sibling, work;  // the loop nest's preorder
  std::vector<int> timespan_of_loop, last_pos, last_item, loop_count, touched;
  std::vector<Interval> entry_jump, whole, busy;
  std::vector<std::vector<Interval>> loop_ranges;  // rows past the loop count are empty
  std::vector<Occurrence> occ;
  std::vector<std::pair<PReg, RegisterPin>> pins;
  CompressedRows<std::pair<PReg, RegisterPin>> pins_by_reg;
  std::vector<RegisterPin> row;
  CompressedRows<Occurrence> by_value;
  std::vector<RegSet> clobber_closure;
  std::vector<uint8_t> is_const;
  std::vector<int64_t> loop_gain, dist, block_gain;
  std::vector<std::pair<int64_t, uint32_t>> queue_items;
  std::vector<uint32_t> seen;
  std::vector<std::vector<PReg>> ranking;
};

}  // namespace packing_internal

class PackingProblem {
 public:
  // The control-flow graph, dominator tree and loop nest of the function the
  // problem was built for (the transform adds no blocks: its lowering of
  // block parameters reads the graph).
  const CfgAnalyses& analyses() const { return analyses_ != nullptr ? *analyses_ : build_.cfg; }
  const std::vector<PackingItem>& items() const { return items_; }
  const std::vector<PackingTimespan>& timespans() const { return timespans_; }
  const std::vector<PackingAllocation>& allocations() const { return allocations_; }
  // Sorted, disjoint, not adjacent.
  absl::Span<const Interval> Busy(uint32_t allocation) const { return busy_.Row(allocation); }
  // Pins of register `r` itself (not its aliases), sorted by point.
  absl::Span<const RegisterPin> Pins(PReg r) const { return pins_.Row(r.index()); }
  // The item of value `v`, or -1.
  int ItemOf(Value v) const { return v.index() < item_of_.size() ? item_of_[v.index()] : -1; }
  // Does timespan `t` contain block `b`?
  // O(1): loops are numbered in preorder of the loop nest, so a loop holds the
  // loops numbered from its own number to the end of its subtree.
  bool Contains(uint32_t t, Block b) const {
    if (timespans_[t].loop < 0) return true;
    const auto [first, end] = PreorderRange(t);
    const uint32_t at = InnermostPreorder(b);
    return at >= first && at < end;
  }
  // Timespan `t` as a range [first, second) of the loop nest's preorder
  // numbers: a block is in a loop's timespan iff its innermost loop's number
  // (InnermostPreorder) is in the range; the whole function's range holds
  // every number. Two timespans overlap iff their ranges intersect.
  std::pair<uint32_t, uint32_t> PreorderRange(uint32_t t) const {
    const int loop = timespans_[t].loop;
    if (loop < 0) return {0, ~0u};
    return {loop_pre_[loop], loop_end_[loop]};
  }
  // The preorder number of `b`'s innermost loop; ~0u outside loops.
  uint32_t InnermostPreorder(Block b) const {
    const int inner = innermost_[b.index()];
    return inner < 0 ? ~0u : loop_pre_[inner];
  }
  // Scratch registers of each class (by class index), in the order the rewrite
  // takes them, and all they alias: the registers the packing never hands out.
  const std::vector<PReg>& Scratch(RegClass c) const { return scratch_[c.index()]; }
  const RegSet& withheld() const { return withheld_; }
  // Loop depth weight of each block (10^depth), for the rewrite's statistics.
  int64_t Weight(Block b) const { return weight_[b.index()]; }
  // The structure's storage: busy ranges, pins and per-value tables.
  size_t MemoryBytes() const;

  // Is `r` (or a register sharing a unit with it) pinned, for allocation `a`, at
  // a point where `a` is busy: by another value's fixed operand, or a clobber?
  bool PinConflicts(uint32_t a, PReg r, const Target& target) const;
  // Is register `x` itself pinned by another value's fixed operand where `a` is
  // busy (clobbers and aliases aside)?
  bool PinnedByOthers(uint32_t a, PReg x) const;
  // Every register a clobber destroys while `a` is busy, closed under aliasing
  // (a clobber at the Late point where `a`'s value is defined Late excepted).
  RegSet ClobberedWhileBusy(uint32_t a) const;

 private:
  friend absl::Status BuildPackingProblem(const Function&, const Target&, const PackingOptions&, PackingProblem&);
  friend absl::Status BuildPackingProblem(const Function&, const Target&, const PackingOptions&, PackingProblem&,
                                          const CfgAnalyses&);
  std::vector<PackingItem> items_;
  std::vector<PackingTimespan> timespans_;
  std::vector<PackingAllocation> allocations_;
  CompressedRows<Interval> busy_;
  CompressedRows<RegisterPin> pins_;
  std::vector<std::pair<ProgramPoint, RegSet>> clobbers_;  // by point, alias-closed
  std::vector<int32_t> item_of_;
  std::vector<int> innermost_;
  std::vector<uint32_t> loop_pre_;  // each loop's preorder number in the loop nest
  std::vector<uint32_t> loop_end_;  // past the preorder numbers of its subtree
  std::vector<int64_t> weight_;
  std::vector<std::vector<PReg>> scratch_;
  RegSet withheld_;
  LiveSets sets_;      // the analyses' buffers, reused by the next function
  LiveRanges ranges_;
  packing_internal::BuildBuffers build_;
  const CfgAnalyses* analyses_ = nullptr;  // the caller's, or null for build_'s
};

// Splits each critical edge that is the only entry of a natural loop, so that
// the loop's initializations have a block of their own. Returns the number split.
int SplitLoopEntries(Function& func);
// The same with `func`'s analyses (a verifier's: FunctionVerifier::Run(func,
// target, analyses)), which it leaves those of `func` as it leaves it
// (computed again where it split an edge), and a buffer kept between calls.
int SplitLoopEntries(Function& func, CfgAnalyses& analyses, std::vector<int>& outside_preds);

// Builds the allocation list of `func` (legalized, verified, SSA, not
// allocated; loop entries split). FailedPrecondition naming the instruction when
// one needs more scratch registers of a class than the target has, or a value's
// type has no register class.
absl::Status BuildPackingProblem(const Function& func, const Target& target, const PackingOptions& options,
                                 PackingProblem& problem);
// The same on the caller's analyses of `func` (SplitLoopEntries's), which the
// problem reads until the transform is done (PackingProblem::analyses).
absl::Status BuildPackingProblem(const Function& func, const Target& target, const PackingOptions& options,
                                 PackingProblem& problem, const CfgAnalyses& analyses);

// Are allocations `a` and `b` rivals (different items, busy at a common point)?
bool AreRivals(const PackingProblem& problem, uint32_t a, uint32_t b);

}  // namespace regalloc

#endif  // REGALLOC_PACKING_ALLOCATIONS_H_
