// A location per SSA value: what the `ssa` allocator's phases pass to each other
// (spill gives spilled values their stack slots, color the rest their registers)
// before the locations are written into the operands.
//
//   ValueLocations locs(func.num_values());
//   locs.Set(v, Location::Stack(slot));
//   if (locs.Get(v).IsStack()) ...      // v lives in its slot for its whole life
#ifndef REGALLOC_SSA_VALUE_LOCATIONS_H_
#define REGALLOC_SSA_VALUE_LOCATIONS_H_

#include <vector>

#include "ssa/ir.h"

namespace regalloc {

class ValueLocations {
 public:
  ValueLocations() = default;
  explicit ValueLocations(int num_values) : locs_(num_values) {}

  // Grows to cover `num_values` ids (new values have no location).
  void Resize(int num_values) {
    if (static_cast<int>(locs_.size()) < num_values) locs_.resize(num_values);
  }
  // Location::None() for values without one (including ids past the end).
  Location Get(Value v) const { return v.index() < locs_.size() ? locs_[v.index()] : Location(); }
  void Set(Value v, Location l) {
    if (v.index() >= locs_.size()) locs_.resize(v.index() + 1);
    locs_[v.index()] = l;
  }
  bool IsSpilled(Value v) const { return Get(v).IsStack(); }
  int size() const { return static_cast<int>(locs_.size()); }
  const std::vector<Location>& all() const { return locs_; }
  void Assign(std::vector<Location> locs) { locs_ = std::move(locs); }
  // Forgets every location, keeping the capacity (for the next function).
  void Clear() { locs_.clear(); }

 private:
  std::vector<Location> locs_;
};

}  // namespace regalloc

#endif  // REGALLOC_SSA_VALUE_LOCATIONS_H_
