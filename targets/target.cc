#include "targets/target.h"

#include "absl/strings/str_cat.h"

namespace regalloc {

void RegSet::InsertWithAliases(const Target& target, PReg r) { *this |= target.Aliases(r); }

void RegSet::RemoveWithAliases(const Target& target, PReg r) { Subtract(target.Aliases(r)); }

std::optional<PReg> Target::FindReg(absl::string_view name) const {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) return std::nullopt;
  return it->second;
}

UnitSet Target::UnitsOf(const RegSet& set) const {
  UnitSet units;
  for (PReg r : set) units |= Units(r);
  return units;
}

std::optional<PReg> Target::View(PReg r, RegClass cls) const {
  int16_t v = views_[r.index() * classes_.size() + cls.index()];
  if (v < 0) return std::nullopt;
  return PReg(static_cast<uint32_t>(v));
}

absl::StatusOr<std::vector<ArgLocation>> Target::AssignArguments(
    absl::Span<const Type> types) const {
  return Assign(types, abi_.int_args, abi_.float_args, /*results=*/false);
}

absl::StatusOr<std::vector<ArgLocation>> Target::AssignResults(absl::Span<const Type> types) const {
  return Assign(types, abi_.int_results, abi_.float_results, /*results=*/true);
}

absl::StatusOr<std::vector<ArgLocation>> Target::Assign(absl::Span<const Type> types,
                                                        absl::Span<const PReg> int_regs,
                                                        absl::Span<const PReg> float_regs,
                                                        bool results) const {
  std::vector<ArgLocation> out(types.size());
  size_t next_int = 0;
  size_t next_float = 0;
  size_t next_x87 = 0;
  uint32_t vfp_used = 0;  // kVfpBackfill: one bit per s-sized slot of float_regs
  for (size_t i = 0; i < types.size(); ++i) {
    std::optional<RegClass> cls = ClassFor(types[i]);
    if (!cls.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat("target ", name_, " has no registers for type ",
                                                     TypeName(types[i])));
    }
    std::optional<PReg> root;
    // Positional counting is for arguments; results count per kind everywhere.
    bool positional = abi_.assignment == ArgAssignment::kPositional && !results;
    if (types[i] == Type::kF80) {
      if (results && next_x87 < abi_.x87_results.size()) root = abi_.x87_results[next_x87++];
    } else if (IsInteger(types[i])) {
      size_t k = positional ? i : next_int++;
      if (k < int_regs.size()) root = int_regs[k];
    } else if (abi_.assignment == ArgAssignment::kVfpBackfill) {
      // AAPCS §6.1.2.1: the lowest free, naturally aligned run of s-slots.
      int width = Class(*cls).pressure_weight;
      for (size_t k = 0; k + width <= float_regs.size() && k < 32; k += width) {
        uint32_t mask = ((uint32_t{1} << width) - 1) << k;
        if ((vfp_used & mask) == 0) {
          vfp_used |= mask;
          root = float_regs[k];
          break;
        }
      }
    } else {
      size_t k = positional ? i : next_float++;
      if (k < float_regs.size()) root = float_regs[k];
    }
    if (root.has_value()) out[i].reg = View(*root, *cls);
    if (!out[i].reg.has_value() && results) {
      return absl::InvalidArgumentError(absl::StrCat("target ", name_, " (", abi_.name,
                                                     ") cannot return result #", i, " of type ",
                                                     TypeName(types[i]), " in registers"));
    }
  }
  return out;
}

RegSet Target::CalleeSavedTouched(const RegSet& used) const {
  RegSet saves;
  for (PReg r : abi_.callee_saved) {
    if (used.Intersects(Aliases(r))) saves.Insert(r);
  }
  return saves;
}

}  // namespace regalloc
