#include "packing/pack.h"

#include <algorithm>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "targets/packing_costs.h"

namespace regalloc {

using packing_internal::Occupant;
using packing_internal::Occupancy;

namespace {

class Packer {
 public:
  // Every buffer starts empty, as in a new object; only its storage is kept.
  Packer(const PackingProblem& p, const Target& t, const PackingOptions& o, PackingDecisions& d, PackBuffers& b)
      : p_(p), t_(t), o_(o), d_(d), b_(b), held_(b.held), granted_(b.granted), granted_spans_(b.granted_spans),
        first_alloc_(b.first_alloc), handed_order_(b.handed_order) {
    const size_t regs = static_cast<size_t>(t.num_regs()), items = p.items().size();
    for (Occupancy& occ : held_) occ.clear();
    while (held_.size() < regs) held_.emplace_back(PoolAllocator<std::pair<const uint32_t, Occupant>>(&b.pool));
    if (granted_.size() < items) granted_.resize(items);
    if (granted_spans_.size() < items) granted_spans_.resize(items);
    for (size_t i = 0; i < items; ++i) {
      granted_[i].erase(granted_[i].begin(), granted_[i].end());  // keeps a grown list's storage
      granted_spans_[i].erase(granted_spans_[i].begin(), granted_spans_[i].end());
    }
    first_alloc_.assign(items, ~0u);
    handed_order_.clear();
    for (int r = 0; r < t.num_regs(); ++r) {
      if (!p.Pins(PReg(r)).empty()) pinned_.Insert(PReg(r));
    }
    for (uint32_t a = 0; a < p.allocations().size(); ++a) {
      uint32_t& f = first_alloc_[p.allocations()[a].item];
      if (f == ~0u) f = a;
    }
  }

  void Run();

 private:
  bool Overlaps(const Occupancy& occ, uint32_t a) const {
    const uint32_t item = p_.allocations()[a].item;
    for (const Interval& i : p_.Busy(a)) {
      auto it = occ.upper_bound(i.end.bits());
      while (it != occ.begin()) {
        --it;
        if (it->second.end < i.begin.bits()) break;
        if (it->second.item != item) return true;
      }
    }
    return false;
  }
  // May allocation `a` take register `r`? `clobbered`: ClobberedWhileBusy(a).
  bool Fits(uint32_t a, PReg r, const RegSet& clobbered) const {
    const PackingItem& item = p_.items()[p_.allocations()[a].item];
    if (!t_.InClass(r, item.reg_class) || p_.withheld().Contains(r) || clobbered.Contains(r)) {
      return false;
    }
    // Only registers that hold something or are pinned somewhere can object.
    for (PReg x : t_.Aliases(r) & handed_) {
      if (Overlaps(held_[x.index()], a)) return false;
    }
    for (PReg x : t_.Aliases(r) & pinned_) {
      if (p_.PinnedByOthers(a, x)) return false;
    }
    return true;
  }
  bool Fits(uint32_t a, PReg r) const { return Fits(a, r, p_.ClobberedWhileBusy(a)); }
  std::optional<PReg> Choose(uint32_t a, std::optional<PReg> preferred) const {
    const RegSet clobbered = p_.ClobberedWhileBusy(a);
    if (preferred.has_value() && Fits(a, *preferred, clobbered)) return preferred;
    const RegClassInfo& cls = t_.Class(p_.items()[p_.allocations()[a].item].reg_class);
    for (int pass = 0; pass < 2; ++pass) {  // registers already given, then new ones
      for (PReg r : cls.allocation_order) {
        if (handed_aliases_.Contains(r) != (pass == 0)) continue;
        if (Fits(a, r, clobbered)) return r;
      }
    }
    return std::nullopt;
  }
  void Grant(uint32_t a, PReg r) {
    const uint32_t item = p_.allocations()[a].item;
    for (const Interval& i : p_.Busy(a)) held_[r.index()][i.begin.bits()] = Occupant{i.end.bits(), item};
    granted_[item].push_back(a);
    AddSpan(item, p_.allocations()[a].timespan);
    d_.reg[a] = r;
    if (!handed_.Contains(r)) {
      handed_.Insert(r);
      handed_order_.push_back(r);
      handed_aliases_ |= t_.Aliases(r);
    }
  }
  void Revoke(uint32_t a) {
    const uint32_t item = p_.allocations()[a].item;
    PReg r = d_.reg[a];
    for (const Interval& i : p_.Busy(a)) held_[r.index()].erase(i.begin.bits());
    auto& g = granted_[item];
    g.erase(std::find(g.begin(), g.end(), a));
    RemoveSpan(item, p_.allocations()[a].timespan);
    d_.reg[a] = PReg();
  }
  // Does an allocation of a's item hold a register over a timespan that
  // overlaps a's? The item's granted ranges do not overlap each other (this
  // keeps it so), so only the last one starting before a's range ends can.
  bool Removed(uint32_t a) const {
    const PackingAllocation& x = p_.allocations()[a];
    const auto [first, end] = p_.PreorderRange(x.timespan);
    const auto& spans = granted_spans_[x.item];
    auto it = std::lower_bound(spans.begin(), spans.end(), end,
                               [](const std::pair<uint32_t, uint32_t>& s, uint32_t e) { return s.first < e; });
    return it != spans.begin() && (it - 1)->second > first;
  }
  void AddSpan(uint32_t item, uint32_t timespan) {
    auto& spans = granted_spans_[item];
    const std::pair<uint32_t, uint32_t> s = p_.PreorderRange(timespan);
    spans.insert(std::upper_bound(spans.begin(), spans.end(), s), s);
  }
  void RemoveSpan(uint32_t item, uint32_t timespan) {
    auto& spans = granted_spans_[item];
    spans.erase(std::find(spans.begin(), spans.end(), p_.PreorderRange(timespan)));
  }
  // With dumps on, appends the line `make()` makes (built only then).
  template <typename Make>
  void Log(const Make& make) {
    if (o_.dump) absl::StrAppend(&d_.printed, make(), "\n");
  }
  std::string Name(uint32_t a) const {
    const PackingAllocation& x = p_.allocations()[a];
    const PackingTimespan& ts = p_.timespans()[x.timespan];
    return absl::StrCat("a", a, " (v", p_.items()[x.item].value.index(), ", ",
                        ts.loop < 0 ? std::string("function") : absl::StrCat("loop", ts.loop), ")");
  }
  void PackOne(uint32_t a);
  void Promote();
  void Yield();

  const PackingProblem& p_;
  const Target& t_;
  const PackingOptions& o_;
  PackingDecisions& d_;
  PackBuffers& b_;
  std::vector<Occupancy>& held_;  // by register; those past the target's are empty
  std::vector<absl::InlinedVector<uint32_t, 2>>& granted_;  // by item, in grant order
  std::vector<absl::InlinedVector<std::pair<uint32_t, uint32_t>, 2>>& granted_spans_;  // their ranges, sorted
  std::vector<uint32_t>& first_alloc_;
  RegSet handed_, handed_aliases_;
  RegSet pinned_;  // registers with pins
  std::vector<PReg>& handed_order_;
};

void Packer::PackOne(uint32_t a) {
  if (Removed(a)) return;
  const PackingAllocation& x = p_.allocations()[a];
  std::optional<PReg> preferred;
  if (o_.goal == PackingGoal::kTime && p_.timespans()[x.timespan].loop >= 0) {
    if (!granted_[x.item].empty()) preferred = d_.reg[granted_[x.item].back()];  // the latest
  }
  std::optional<PReg> r = Choose(a, preferred);
  if (!r.has_value()) {
    Log([&] { return absl::StrCat("  ", Name(a), " profit ", x.profit, ": no register"); });
    return;
  }
  Grant(a, *r);
  Log([&] {
    return absl::StrCat("  ", Name(a), " profit ", x.profit, ": %", t_.RegName(*r),
                        preferred.has_value() && *preferred == *r ? " (its register in another loop)" : "");
  });
}

void Packer::Promote() {
  for (uint32_t item = 0; item < p_.items().size(); ++item) {
    auto& g = granted_[item];
    if (g.empty() || first_alloc_[item] == ~0u) continue;
    const uint32_t whole = first_alloc_[item];
    if (p_.allocations()[whole].timespan != 0 || d_.reg[whole].IsValid()) continue;
    PReg r = d_.reg[g[0]];
    bool same = true;
    for (uint32_t a : g) same &= d_.reg[a] == r;
    if (!same) continue;
    if (!Fits(whole, r)) {
      Log([&] {
        return absl::StrCat("  v", p_.items()[item].value.index(), ": %", t_.RegName(r),
                            " in every loop, not free for the whole function");
      });
      continue;
    }
    auto loops = g;
    for (uint32_t a : loops) Revoke(a);
    Grant(whole, r);
    ++d_.promoted;
    Log([&] {
      return absl::StrCat("  v", p_.items()[item].value.index(), ": %", t_.RegName(r), " in every loop, promoted to ",
                          Name(whole));
    });
  }
}

void Packer::Yield() {
  const int cost = (o_.goal == PackingGoal::kTime ? PackingCostsFor(t_.isa()).time : PackingCostsFor(t_.isa()).size)
                       .save_restore;
  // Group the registers handed out by the callee-saved registers they touch
  // (a register joins the first group it shares one with).
  std::vector<RegSet>& saved_by_group = b_.group_saved;
  std::vector<std::pair<PReg, int>>& regs = b_.group_regs;
  saved_by_group.clear();
  regs.clear();
  for (PReg r : handed_order_) {
    RegSet saved = t_.CalleeSavedTouched(t_.Aliases(r));
    if (saved.Empty()) continue;
    auto it = std::find_if(saved_by_group.begin(), saved_by_group.end(),
                           [&](const RegSet& g) { return g.Intersects(saved); });
    if (it == saved_by_group.end()) {
      regs.push_back({r, static_cast<int>(saved_by_group.size())});
      saved_by_group.push_back(saved);
    } else {
      *it |= saved;
      regs.push_back({r, static_cast<int>(it - saved_by_group.begin())});
    }
  }
  std::vector<uint32_t>& in_group = b_.in_group;
  for (int g = 0; g < static_cast<int>(saved_by_group.size()); ++g) {
    auto in = [&](PReg r) {
      for (const auto& [x, group] : regs) {
        if (x == r) return group == g;
      }
      return false;
    };
    int64_t total = 0;
    in_group.clear();
    for (uint32_t a = 0; a < d_.reg.size(); ++a) {
      if (d_.reg[a].IsValid() && in(d_.reg[a])) {
        total += p_.allocations()[a].profit;
        in_group.push_back(a);
      }
    }
    const bool keep = total > cost;
    Log([&] {
      std::string names;
      for (const auto& [r, group] : regs) {
        if (group == g) absl::StrAppend(&names, names.empty() ? "%" : ", %", t_.RegName(r));
      }
      return absl::StrCat("  ", names, ": ", in_group.size(), " allocations yield ", total, (keep ? " > " : " <= "),
                          "save/restore ", cost, keep ? ": kept" : ": given up");
    });
    if (keep) continue;
    for (uint32_t a : in_group) Revoke(a);
    d_.yield_lost += static_cast<int>(in_group.size());
  }
}

void Packer::Run() {
  const auto& allocs = p_.allocations();
  // Sorted on keys computed once (a 1M-instruction function has 1.5M
  // allocations: comparing through the allocation list missed the cache at
  // every comparison). Larger keys first; ties in allocation order.
  using Keyed = PackBuffers::Keyed;
  std::vector<Keyed>& order = b_.order;
  order.clear();
  std::vector<uint32_t>& depth = b_.depth;
  depth.assign(p_.timespans().size(), 0);
  const bool loops_first = o_.goal == PackingGoal::kTime;
  if (loops_first) {
    // Loops by weight (10^depth, capped at 10^9: its exponent ranks them),
    // deepest first; the whole function (rank 0) last.
    for (size_t ts = 1; ts < p_.timespans().size(); ++ts) {
      for (int64_t w = p_.Weight(p_.timespans()[ts].header); w >= 10; w /= 10) ++depth[ts];
    }
  }
  for (uint32_t a = 0; a < allocs.size(); ++a) {
    if (allocs[a].profit <= 0) continue;
    // Profits stay below 2^56: an occurrence count times a capped weight.
    const uint64_t profit = static_cast<uint64_t>(std::min<int64_t>(allocs[a].profit, (int64_t{1} << 56) - 1));
    order.push_back({(static_cast<uint64_t>(depth[allocs[a].timespan]) << 56) | profit, a});
  }
  std::sort(order.begin(), order.end(),
            [](const Keyed& x, const Keyed& y) { return x.key != y.key ? x.key > y.key : x.a < y.a; });
  Log([] { return "packing:"; });
  for (const Keyed& k : order) PackOne(k.a);
  if (loops_first) Promote();
  if (o_.yield) {
    Log([] { return "callee-save yield:"; });
    Yield();
  }
  for (PReg r : d_.reg) d_.packed += r.IsValid();
  RegSet used;
  for (PReg r : d_.reg) {
    if (r.IsValid()) used.Insert(r);
  }
  d_.registers = used.Count();
}

}  // namespace

absl::Status Pack(const PackingProblem& problem, const Target& target, const PackingOptions& options,
                  PackingDecisions& decisions) {
  PackBuffers buffers;
  return Pack(problem, target, options, decisions, buffers);
}

absl::Status Pack(const PackingProblem& problem, const Target& target, const PackingOptions& options,
                  PackingDecisions& decisions, PackBuffers& buffers) {
  decisions.reg.assign(problem.allocations().size(), PReg());
  decisions.packed = decisions.promoted = decisions.yield_lost = decisions.registers = 0;
  decisions.printed.clear();
  Packer(problem, target, options, decisions, buffers).Run();
  return absl::OkStatus();
}

std::string PrintPackingProblem(const Function& func, const PackingProblem& p, int max_rival_counts) {
  std::string out = "allocations:\n";
  const auto& allocs = p.allocations();
  const bool count = static_cast<int>(allocs.size()) <= max_rival_counts;
  for (uint32_t a = 0; a < allocs.size(); ++a) {
    const PackingAllocation& x = allocs[a];
    const PackingTimespan& ts = p.timespans()[x.timespan];
    const PackingItem& item = p.items()[x.item];
    absl::StrAppend(&out, "  a", a, " ", func.ValueName(item.value), item.constant ? " (constant)" : "", " ",
                    ts.loop < 0 ? std::string("function")
                                : absl::StrCat("loop", ts.loop, " (", func.BlockName(ts.header), ", entered from ",
                                               func.BlockName(ts.entry), ")"),
                    ": occurrences ", x.occurrences, x.init ? ", init" : "", ", profit ", x.profit);
    if (count) {
      int rivals = 0;
      for (uint32_t b = 0; b < allocs.size(); ++b) rivals += AreRivals(p, a, b);
      absl::StrAppend(&out, ", rivals ", rivals);
    }
    absl::StrAppend(&out, ", busy");
    for (const Interval& i : p.Busy(a)) absl::StrAppend(&out, " [", i.begin.bits(), ",", i.end.bits(), "]");
    absl::StrAppend(&out, "\n");
  }
  return out;
}

}  // namespace regalloc
