// The decision half of the packing allocator (the ACK's ra_pack.c): which
// allocations get which register, then the callee-save yield check.
//
//   PackingDecisions decisions;
//   RA_RETURN_IF_ERROR(Pack(problem, target, options, decisions));
//   if (decisions.reg[a].IsValid()) ...   // allocation a holds its item in that register
//
// Each allocation in turn takes a register already given only to allocations
// that are not its rivals (nor pinned where it is busy), else a new register
// while any remain outside the scratch registers; once an item has a register
// over a timespan, its allocations over overlapping timespans leave the list.
// Size goal: greedy by decreasing profit. Time goal: loop timespans first,
// innermost first and by decreasing profit within a depth, an item trying first
// the register it already got in another loop; then whole-function
// allocations. Afterwards an item that got one register in every loop it was
// given one tries that register for the whole function, which it takes when no
// allocation of another item in that register is its rival. Last, per
// callee-saved register, the net profits of its allocations must outweigh the
// target's save/restore cost (targets/packing_costs.h), else they lose it.
// Allocations with no profit are not packed.
#ifndef REGALLOC_PACKING_PACK_H_
#define REGALLOC_PACKING_PACK_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "packing/allocations.h"
#include "targets/target.h"

namespace regalloc {

struct PackingDecisions {
  std::vector<PReg> reg;  // per allocation: its register, or invalid
  int packed = 0;         // allocations holding a register in the end
  int promoted = 0;       // items moved from their loops to the whole function
  int yield_lost = 0;     // allocations that lost their register to the yield check
  int registers = 0;      // distinct registers handed out
  std::string printed;    // with PackingOptions::dump: decisions in order, verdicts
};

absl::Status Pack(const PackingProblem& problem, const Target& target, const PackingOptions& options,
                  PackingDecisions& decisions);

// The allocation list as --print shows it: per allocation its item, timespan,
// busy ranges, rivals count (for up to `max_rival_counts` allocations; the
// count is quadratic) and profit.
std::string PrintPackingProblem(const Function& func, const PackingProblem& problem, int max_rival_counts = 4000);

}  // namespace regalloc

#endif  // REGALLOC_PACKING_PACK_H_
