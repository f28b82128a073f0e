// Builds a `Target` from a description of its registers as bit ranges of physical
// storage. Alias sets, register units, class membership and bank capacities are
// derived, so a new target is a table of names and ranges plus its ABI.
//
//   TargetBuilder b("toy");
//   PReg r0 = b.AddReg("r0", /*container=*/0, 0, 32);
//   int gpr = b.AddBank("gpr");
//   b.AddClass("r", gpr, /*weight=*/1, {r0}, {Type::kI32});
//   absl::StatusOr<Target> t = std::move(b).Build();
#ifndef REGALLOC_TARGETS_TARGET_BUILDER_H_
#define REGALLOC_TARGETS_TARGET_BUILDER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "targets/target.h"

namespace regalloc {

class TargetBuilder {
 public:
  explicit TargetBuilder(std::string name);

  // Adds a register covering bits [lo, hi) of `container`. Names must be unique.
  PReg AddReg(std::string name, int container, int lo, int hi);
  // Adds a pressure bank; its capacity is derived from the classes drawing on it.
  int AddBank(std::string name);
  // Adds a class whose allocatable members, in allocation order, are `order` minus
  // reserved registers; values of `types` are allocated in it.
  RegClass AddClass(std::string name, int bank, int pressure_weight, std::vector<PReg> order,
                    std::vector<Type> types);
  // Members of `cls` that pressure does not count (see RegClassInfo::counted).
  void Uncounted(RegClass cls, std::vector<PReg> regs);
  // Excludes `r` and everything aliasing it from allocation.
  void Reserve(PReg r);
  Abi& abi() { return target_.abi_; }
  void set_has_swap(bool v) { target_.has_swap_ = v; }
  void set_isa(Isa isa) { target_.isa_ = isa; }

  // Validates the description (unique names, at most 256 registers and units,
  // non-empty ranges, at most one class per register and per type) and derives the
  // rest. Consumes the builder.
  absl::StatusOr<Target> Build() &&;

 private:
  Target target_;
  std::vector<PReg> reserved_roots_;
  std::vector<std::vector<PReg>> class_orders_;
  std::vector<std::vector<PReg>> class_uncounted_;
  std::string error_;
};

}  // namespace regalloc

#endif  // REGALLOC_TARGETS_TARGET_BUILDER_H_
