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

#include "absl/container/btree_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "base/node_pool.h"
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

namespace packing_internal {

// What one register holds: busy intervals by begin point, with their item.
struct Occupant {
  uint32_t end;
  uint32_t item;
};
using Occupancy =
    absl::btree_map<uint32_t, Occupant, std::less<uint32_t>, PoolAllocator<std::pair<const uint32_t, Occupant>>>;

}  // namespace packing_internal

// The same with buffers kept between calls (PackingAllocator holds them): the
// registers' busy maps (their nodes come back to a pool) and the per-item
// lists.
struct PackBuffers {
  NodePool pool;  // before `held`: it outlives the maps
  std::vector<packing_internal::Occupancy> held;  // by register
  std::vector<absl::InlinedVector<uint32_t, 2>> granted;
  std::vector<absl::InlinedVector<std::pair<uint32_t, uint32_t>, 2>> granted_spans;
  std::vector<uint32_t> first_alloc;
  std::vector<PReg> handed_order;
  struct Keyed {
    uint64_t key;
    uint32_t a;
  };
  std::vector<Keyed> order;
  std::vector<uint32_t> depth;
  std::vector<RegSet> group_saved;               // the yield check's groups
  std::vector<std::pair<PReg, int>> group_regs;  // handed registers and their group
  std::vector<uint32_t> in_group;
};
absl::Status Pack(const PackingProblem& problem, const Target& target, const PackingOptions& options,
                  PackingDecisions& decisions, PackBuffers& buffers);

// The allocation list as --print shows it: per allocation its item, timespan,
// busy ranges, rivals count (for up to `max_rival_counts` allocations; the
// count is quadratic) and profit.
std::string PrintPackingProblem(const Function& func, const PackingProblem& problem, int max_rival_counts = 4000);

}  // namespace regalloc

#endif  // REGALLOC_PACKING_PACK_H_
