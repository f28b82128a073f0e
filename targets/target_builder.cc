#include "targets/target_builder.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"

namespace regalloc {

TargetBuilder::TargetBuilder(std::string name) { target_.name_ = std::move(name); }

PReg TargetBuilder::AddReg(std::string name, int container, int lo, int hi) {
  PReg r(static_cast<uint32_t>(target_.regs_.size()));
  if (lo >= hi && error_.empty()) error_ = absl::StrCat("register ", name, " has an empty bit range");
  if (!target_.by_name_.emplace(name, r).second && error_.empty()) {
    error_ = absl::StrCat("register name ", name, " is used twice");
  }
  RegInfo info;
  info.name = std::move(name);
  info.container = static_cast<uint16_t>(container);
  info.lo_bit = static_cast<uint16_t>(lo);
  info.hi_bit = static_cast<uint16_t>(hi);
  target_.regs_.push_back(std::move(info));
  return r;
}

int TargetBuilder::AddBank(std::string name) {
  target_.banks_.push_back(PressureBank{std::move(name), 0});
  return target_.num_banks() - 1;
}

RegClass TargetBuilder::AddClass(std::string name, int bank, int pressure_weight,
                                 std::vector<PReg> order, std::vector<Type> types) {
  RegClass c(static_cast<uint32_t>(target_.classes_.size()));
  RegClassInfo info;
  info.name = std::move(name);
  info.bank = bank;
  info.pressure_weight = pressure_weight;
  target_.classes_.push_back(std::move(info));
  class_orders_.push_back(std::move(order));
  class_uncounted_.emplace_back();
  for (Type t : types) {
    auto& slot = target_.type_classes_[static_cast<int>(t)];
    if (slot.has_value() && error_.empty()) {
      error_ = absl::StrCat("type ", TypeName(t), " is given two classes");
    }
    slot = c;
  }
  return c;
}

void TargetBuilder::Uncounted(RegClass cls, std::vector<PReg> regs) {
  std::vector<PReg>& list = class_uncounted_.at(cls.index());
  list.insert(list.end(), regs.begin(), regs.end());
}

void TargetBuilder::Reserve(PReg r) { reserved_roots_.push_back(r); }

absl::StatusOr<Target> TargetBuilder::Build() && {
  Target& t = target_;
  auto fail = [&](absl::string_view what) {
    return absl::InvalidArgumentError(absl::StrCat("target ", t.name_, ": ", what));
  };
  if (!error_.empty()) return fail(error_);
  if (t.regs_.size() > BitSet256::kCapacity) return fail("more than 256 registers");

  // Register units: per container, the pieces between consecutive range boundaries
  // that some register covers.
  std::map<int, std::vector<int>> boundaries;
  for (const RegInfo& r : t.regs_) {
    boundaries[r.container].push_back(r.lo_bit);
    boundaries[r.container].push_back(r.hi_bit);
  }
  int next_unit = 0;
  std::map<std::pair<int, int>, int> unit_of_piece;  // (container, lo) -> unit
  for (auto& entry : boundaries) {
    const int container = entry.first;
    std::vector<int>& points = entry.second;
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());
    for (size_t i = 0; i + 1 < points.size(); ++i) {
      bool covered = std::any_of(t.regs_.begin(), t.regs_.end(), [&](const RegInfo& r) {
        return r.container == container && r.lo_bit <= points[i] && points[i + 1] <= r.hi_bit;
      });
      if (covered) unit_of_piece[{container, points[i]}] = next_unit++;
    }
  }
  if (next_unit > static_cast<int>(BitSet256::kCapacity)) return fail("more than 256 register units");
  t.num_units_ = next_unit;
  for (RegInfo& r : t.regs_) {
    const std::vector<int>& points = boundaries[r.container];
    for (size_t i = 0; i + 1 < points.size(); ++i) {
      if (r.lo_bit <= points[i] && points[i + 1] <= r.hi_bit) {
        r.units.Set(unit_of_piece.at({r.container, points[i]}));
      }
    }
  }
  for (RegInfo& a : t.regs_) {
    for (size_t j = 0; j < t.regs_.size(); ++j) {
      if (a.units.Intersects(t.regs_[j].units)) a.aliases.Insert(PReg(static_cast<uint32_t>(j)));
    }
  }
  t.alias_start_.assign(1, 0);
  t.unit_start_.assign(1, 0);
  for (const RegInfo& a : t.regs_) {
    for (PReg x : a.aliases) t.alias_list_.push_back(x);
    t.alias_start_.push_back(static_cast<uint32_t>(t.alias_list_.size()));
    for (uint32_t u : a.units) t.unit_list_.push_back(u);
    t.unit_start_.push_back(static_cast<uint32_t>(t.unit_list_.size()));
  }

  for (PReg r : reserved_roots_) t.reserved_ |= t.Aliases(r);

  for (size_t c = 0; c < t.classes_.size(); ++c) {
    RegClassInfo& info = t.classes_[c];
    for (PReg r : class_orders_[c]) {
      if (t.reserved_.Contains(r)) continue;
      RegInfo& reg = t.regs_[r.index()];
      if (reg.reg_class.has_value()) {
        return fail(absl::StrCat("register ", reg.name, " is in two classes"));
      }
      reg.reg_class = RegClass(static_cast<uint32_t>(c));
      info.members.Insert(r);
      info.allocation_order.push_back(r);
    }
    if (info.allocation_order.empty()) return fail(absl::StrCat("class ", info.name, " is empty"));
    t.allocatable_ |= info.members;
    info.counted = info.members;
    for (PReg r : class_uncounted_[c]) {
      if (!t.classes_[c].members.Contains(r) && !t.reserved_.Contains(r)) {
        return fail(absl::StrCat("register ", t.regs_[r.index()].name, " is uncounted in class ", info.name,
                                 ", which it is not a member of"));
      }
      info.counted.Remove(r);
    }
    PressureBank& bank = t.banks_.at(info.bank);
    bank.capacity = std::max(bank.capacity, info.counted.Count() * info.pressure_weight);
  }
  // Views: the member of each class in the same storage at the same bit.
  const size_t nc = t.classes_.size();
  t.views_.assign(t.regs_.size() * nc, -1);
  for (size_t r = 0; r < t.regs_.size(); ++r) {
    for (size_t c = 0; c < nc; ++c) {
      for (PReg m : t.classes_[c].members) {
        const RegInfo& info = t.regs_[m.index()];
        if (info.container == t.regs_[r].container && info.lo_bit == t.regs_[r].lo_bit) {
          t.views_[r * nc + c] = static_cast<int16_t>(m.index());
          break;
        }
      }
    }
  }
  return std::move(target_);
}

}  // namespace regalloc
