#include "packing/allocations.h"

#include <algorithm>
#include <functional>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "liveness/live_sets.h"
#include "base/nearly_sorted.h"
#include "base/warm_buffers.h"
#include "ssa/cfg.h"
#include "ssa/printer.h"
#include "targets/packing_costs.h"

namespace regalloc {
namespace {

// Numbers the loops of `loops` in preorder of the nest: `pre[l]` is loop l's
// number, `end[l]` one past the largest number in its subtree.
void NumberLoopsInPreorder(const LoopNest& loops, std::vector<uint32_t>& pre, std::vector<uint32_t>& end,
                           packing_internal::BuildBuffers& buf) {
  const int n = loops.num_loops();
  pre.assign(n, 0);
  end.assign(n, 0);
  std::vector<int>& first_child = buf.first_child;
  std::vector<int>& next_sibling = buf.next_sibling;
  std::vector<int>& work = buf.work;
  first_child.assign(n, -1);
  next_sibling.assign(n, -1);
  work.clear();
  for (int l = n - 1; l >= 0; --l) {
    const int parent = loops.parent(l);
    if (parent < 0) {
      work.push_back(l);
    } else {
      next_sibling[l] = first_child[parent];
      first_child[parent] = l;
    }
  }
  // Iterative preorder: a loop is numbered when popped, and its end is known
  // once every child is done (the entry ~loop, pushed below its children).
  uint32_t next = 0;
  while (!work.empty()) {
    const int x = work.back();
    work.pop_back();
    if (x < 0) {
      end[~x] = next;
      continue;
    }
    pre[x] = next++;
    work.push_back(~x);
    for (int c = first_child[x]; c >= 0; c = next_sibling[c]) work.push_back(c);
  }
}

using packing_internal::Occurrence;
using packing_internal::OccurrenceKind;

int Gain(const PackingCostModel& m, bool constant, OccurrenceKind kind) {
  switch (kind) {
    case OccurrenceKind::kRegUse: return constant ? m.constant_use : m.reg_use;
    case OccurrenceKind::kMemoryUse: return constant ? m.constant_use : m.memory_use;
    case OccurrenceKind::kDef: return constant ? 0 : m.def;  // a constant is never stored
    case OccurrenceKind::kStackUse: return 0;
  }
  return 0;
}

bool InLoop(const LoopNest& loops, Block b, int loop) {
  for (int l = loops.innermost(b); l >= 0; l = loops.parent(l)) {
    if (l == loop) return true;
  }
  return false;
}

// Sorts and merges intervals (overlapping or adjacent) in place.
void Normalize(std::vector<Interval>& v) {
  std::sort(v.begin(), v.end(), [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
  size_t n = 0;
  for (const Interval& i : v) {
    if (n > 0 && i.begin.bits() <= v[n - 1].end.bits() + 1) {
      if (v[n - 1].end < i.end) v[n - 1].end = i.end;
    } else {
      v[n++] = i;
    }
  }
  v.resize(n);
}

// Appends a ∩ b (both sorted and disjoint) to `out`, searching the longer list
// for each interval of the shorter.
void Intersect(absl::Span<const Interval> a, absl::Span<const Interval> b, std::vector<Interval>& out) {
  if (a.size() > b.size()) std::swap(a, b);
  for (const Interval& x : a) {
    auto it = std::lower_bound(b.begin(), b.end(), x.begin, [](const Interval& y, ProgramPoint p) { return y.end < p; });
    for (; it != b.end() && it->begin <= x.end; ++it) {
      out.push_back(Interval{std::max(x.begin, it->begin), std::min(x.end, it->end)});
    }
  }
}

}  // namespace

int SplitLoopEntries(Function& func) {
  CfgAnalyses analyses;
  analyses.Compute(func);
  std::vector<int> outside_preds;
  return SplitLoopEntries(func, analyses, outside_preds);
}

int SplitLoopEntries(Function& func, CfgAnalyses& analyses, std::vector<int>& outside_preds) {
  const ControlFlowGraph& cfg = analyses.cfg;
  const LoopNest& loops = analyses.loops;
  outside_preds.assign(func.num_blocks(), 0);
  for (Block b : func.layout()) {
    if (!loops.IsHeader(b)) continue;
    for (const Edge& e : cfg.preds(b)) outside_preds[b.index()] += !InLoop(loops, e.from, loops.innermost(b));
  }
  auto split = [&](const Edge& e) {
    return outside_preds[e.to.index()] == 1 && loops.IsHeader(e.to) && !InLoop(loops, e.from, loops.innermost(e.to));
  };
  bool any = false;
  for (const Edge& e : cfg.all_edges()) any |= cfg.IsCritical(e) && split(e);
  if (!any) return 0;
  const int n = SplitCriticalEdges(func, split);
  analyses.Compute(func);
  return n;
}

size_t PackingProblem::MemoryBytes() const {
  return items_.capacity() * sizeof(PackingItem) + allocations_.capacity() * sizeof(PackingAllocation) +
         busy_.all().size() * sizeof(Interval) + busy_.num_rows() * 4 + pins_.all().size() * sizeof(RegisterPin) +
         clobbers_.capacity() * sizeof(clobbers_[0]) +
         item_of_.capacity() * 4 + innermost_.capacity() * 4 + loop_pre_.capacity() * 8 + weight_.capacity() * 8;
}

bool PackingProblem::PinnedByOthers(uint32_t a, PReg x) const {
  const uint32_t own = items_[allocations_[a].item].value.index();
  absl::Span<const RegisterPin> pins = Pins(x);
  auto it = pins.begin();
  for (const Interval& i : Busy(a)) {  // both sorted: each search starts where the last ended
    it = std::lower_bound(it, pins.end(), i.begin, [](const RegisterPin& p, ProgramPoint q) { return p.point < q; });
    for (; it != pins.end() && it->point <= i.end; ++it) {
      if (it->owner != own) return true;
    }
  }
  return false;
}

bool PackingProblem::PinConflicts(uint32_t a, PReg r, const Target& target) const {
  if (ClobberedWhileBusy(a).Contains(r)) return true;
  for (PReg x : target.Aliases(r)) {
    if (PinnedByOthers(a, x)) return true;
  }
  return false;
}

RegSet PackingProblem::ClobberedWhileBusy(uint32_t a) const {
  RegSet out;
  const PackingItem& item = items_[allocations_[a].item];
  auto it = clobbers_.begin();
  for (const Interval& i : Busy(a)) {  // both sorted: each search starts where the last ended
    it = std::lower_bound(it, clobbers_.end(), i.begin,
                          [](const std::pair<ProgramPoint, RegSet>& c, ProgramPoint x) { return c.first < x; });
    for (; it != clobbers_.end() && it->first <= i.end; ++it) {
      // Clobbers happen before the instruction's Late defs are written.
      if (it->first == item.def_point && it->first.IsLate()) continue;
      out |= it->second;
    }
  }
  return out;
}

bool AreRivals(const PackingProblem& problem, uint32_t a, uint32_t b) {
  if (problem.allocations()[a].item == problem.allocations()[b].item) return false;
  absl::Span<const Interval> x = problem.Busy(a);
  absl::Span<const Interval> y = problem.Busy(b);
  size_t i = 0, j = 0;
  while (i < x.size() && j < y.size()) {
    if (x[i].end < y[j].begin) {
      ++i;
    } else if (y[j].end < x[i].begin) {
      ++j;
    } else {
      return true;
    }
  }
  return false;
}

absl::Status BuildPackingProblem(const Function& func, const Target& target, const PackingOptions& options,
                                 PackingProblem& p) {
  p.build_.cfg.Compute(func);
  return BuildPackingProblem(func, target, options, p, p.build_.cfg);
}

absl::Status BuildPackingProblem(const Function& func, const Target& target, const PackingOptions& options,
                                 PackingProblem& p, const CfgAnalyses& analyses) {
  const PackingCostModel& model =
      options.goal == PackingGoal::kTime ? PackingCostsFor(target.isa()).time : PackingCostsFor(target.isa()).size;
  const bool time = options.goal == PackingGoal::kTime;
  packing_internal::BuildBuffers& buf = p.build_;
  p.analyses_ = &analyses == &p.build_.cfg ? nullptr : &analyses;
  const ControlFlowGraph& cfg = analyses.cfg;
  const LoopNest& loops = analyses.loops;
  InstNumbering& numbering = buf.numbering;
  numbering.Compute(func);
  // Kept in the problem between functions, as the other families keep theirs.
  LiveSets& sets = p.sets_;
  LiveRanges& ranges = p.ranges_;
  sets.Compute(func, cfg);
  ranges.Compute(func, sets, numbering, LiveRanges::Events::kSkip);  // intervals only
  const int num_blocks = func.num_blocks();
  const int num_values = func.num_values();

  p.items_.clear();
  p.timespans_.clear();
  p.allocations_.clear();
  p.innermost_.assign(num_blocks, -1);
  p.weight_.assign(num_blocks, 1);
  NumberLoopsInPreorder(loops, p.loop_pre_, p.loop_end_, buf);
  for (size_t k = 0; k < func.layout().size(); ++k) {
    Block b = func.layout()[k];
    p.innermost_[b.index()] = loops.innermost(b);
    p.weight_[b.index()] = loops.Weight(b);
  }

  // Timespans: the whole function, then each loop with one entry edge whose
  // source has that edge only.
  p.timespans_.push_back(PackingTimespan{});
  std::vector<int>& timespan_of_loop = buf.timespan_of_loop;
  timespan_of_loop.assign(loops.num_loops(), -1);
  if (options.loops) {
    for (int l = 0; l < loops.num_loops(); ++l) {
      Block h = loops.header(l);
      if (!cfg.Reachable(h)) continue;
      int outside = 0;
      Block entry;
      for (const Edge& e : cfg.preds(h)) {
        if (!InLoop(loops, e.from, l)) {
          ++outside;
          entry = e.from;
        }
      }
      if (outside != 1 || cfg.succs(entry).size() != 1) continue;
      timespan_of_loop[l] = static_cast<int>(p.timespans_.size());
      p.timespans_.push_back(PackingTimespan{l, h, entry});
    }
  }
  // Where each loop's initializations go: its entry block's jump (looked up
  // once per loop, not once per allocation initialized there).
  std::vector<Interval>& entry_jump = buf.entry_jump;
  entry_jump.assign(p.timespans_.size(), Interval());
  for (size_t t = 1; t < p.timespans_.size(); ++t) {
    const Inst jump = func.Terminator(p.timespans_[t].entry);
    entry_jump[t] = Interval{numbering.Early(jump), numbering.Late(jump)};
  }

  // Each loop's blocks as runs of layout-adjacent blocks, in points, so that an
  // allocation's busy range is its item's range intersected with them (in time
  // proportional to the two lists, not to the blocks in between).
  std::vector<std::vector<Interval>>& loop_ranges = buf.loop_ranges;
  if (loop_ranges.size() < static_cast<size_t>(loops.num_loops())) loop_ranges.resize(loops.num_loops());
  for (std::vector<Interval>& r : loop_ranges) r.clear();
  std::vector<int>& last_pos = buf.last_pos;
  last_pos.assign(loops.num_loops(), -2);
  for (size_t k = 0; k < func.layout().size(); ++k) {
    Block b = func.layout()[k];
    for (int l = loops.innermost(b); l >= 0; l = loops.parent(l)) {
      if (timespan_of_loop[l] < 0) continue;
      std::vector<Interval>& r = loop_ranges[l];
      if (last_pos[l] == static_cast<int>(k) - 1) {
        r.back().end = numbering.BlockEnd(b);
      } else {
        r.push_back(Interval{numbering.BlockStart(b), numbering.BlockEnd(b)});
      }
      last_pos[l] = static_cast<int>(k);
    }
  }

  // Occurrences, and the pins of registers.
  std::vector<Occurrence>& occ = buf.occ;
  occ.clear();
  std::vector<std::pair<PReg, RegisterPin>>& pins = buf.pins;
  pins.clear();
  // Each interned clobber set closed under aliasing, once per function.
  std::vector<RegSet>& clobber_closure = buf.clobber_closure;
  clobber_closure.assign(func.num_clobber_sets(), RegSet());
  for (int c = 0; c < func.num_clobber_sets(); ++c) {
    for (PReg r : func.clobber_set(c)) clobber_closure[c] |= target.Aliases(r);
  }
  p.clobbers_.clear();
  std::vector<uint8_t>& is_const = buf.is_const;
  is_const.assign(num_values, 0);
  for (Block b : func.layout()) {
    const BlockData& bd = func.block(b);
    for (const Operand& prm : bd.params) {
      if (prm.constraint() != ConstraintKind::kStack) occ.push_back({prm.value(), b, OccurrenceKind::kDef});
      if (prm.constraint() == ConstraintKind::kFixed) {
        pins.push_back({prm.fixed_reg(), RegisterPin{numbering.BlockStart(b), prm.value().index()}});
      }
    }
    for (Inst i : bd.insts) {
      const InstData& d = func.inst(i);
      absl::Span<const Operand> ops = func.operands(i);
      const size_t first_arg = func.NumNonArgOperands(i);
      const ProgramPoint early = numbering.Early(i), late = numbering.Late(i);
      for (size_t k = 0; k < ops.size(); ++k) {
        const Operand& op = ops[k];
        if (op.IsUse()) {
          OccurrenceKind kind = OccurrenceKind::kRegUse;
          if (k < first_arg && op.constraint() == ConstraintKind::kStack) kind = OccurrenceKind::kStackUse;
          if (k < first_arg && op.constraint() == ConstraintKind::kAny) kind = OccurrenceKind::kMemoryUse;
          occ.push_back({op.value(), b, kind});
          if (op.constraint() == ConstraintKind::kFixed) {
            pins.push_back({op.fixed_reg(), RegisterPin{early, op.value().index()}});
            if (op.position() == Position::kLate) pins.push_back({op.fixed_reg(), RegisterPin{late, op.value().index()}});
          }
        } else {
          if (d.opcode == Opcode::kConst) is_const[op.value().index()] = 1;
          if (op.constraint() != ConstraintKind::kStack) occ.push_back({op.value(), b, OccurrenceKind::kDef});
          PReg fixed;
          if (op.constraint() == ConstraintKind::kFixed) fixed = op.fixed_reg();
          if (op.constraint() == ConstraintKind::kReuse) {  // it writes its use's fixed register
            const Operand* use = func.UseOperand(i, op.reuse_index());
            if (use != nullptr && use->constraint() == ConstraintKind::kFixed) fixed = use->fixed_reg();
          }
          if (fixed.IsValid()) {
            if (op.position() == Position::kEarly) {
              pins.push_back({fixed, RegisterPin{early, op.value().index()}});
            }
            pins.push_back({fixed, RegisterPin{late, op.value().index()}});
          }
        }
      }
      if (d.clobbers >= 0) {
        // One entry per call, alias-closed, instead of a pin per register.
        p.clobbers_.push_back({late, clobber_closure[d.clobbers]});
      }
    }
  }
  {
    // Rows keep the walk's order, which is by point except within one instruction.
    CompressedRows<std::pair<PReg, RegisterPin>>& by_reg = buf.pins_by_reg;
    by_reg.Build(target.num_regs(), pins, [](const std::pair<PReg, RegisterPin>& x) { return x.first.index(); });
    std::vector<RegisterPin>& row = buf.row;
    p.pins_.Clear();
    p.pins_.Reserve(target.num_regs(), pins.size());
    for (int r = 0; r < target.num_regs(); ++r) {
      row.clear();
      for (const auto& x : by_reg.Row(r)) row.push_back(x.second);
      SortNearlySorted(absl::MakeSpan(row),
                       [](const RegisterPin& a, const RegisterPin& b) { return a.point < b.point; });
      p.pins_.AppendRow(row);
    }
  }
  CompressedRows<Occurrence>& by_value = buf.by_value;
  by_value.Build(num_values, occ, [](const Occurrence& o) { return o.value.index(); });
  // The walk's lists are in rows now: after a large function they go before
  // the allocations are made (base/warm_buffers.h; at a million instructions
  // the occurrences took 50 MB beside their rows).
  const bool large = func.num_insts() > kWarmBufferInsts;
  if (large) {
    std::vector<Occurrence>().swap(occ);
    std::vector<std::pair<PReg, RegisterPin>>().swap(pins);
    buf.pins_by_reg = CompressedRows<std::pair<PReg, RegisterPin>>();
  }

  // Items.
  p.item_of_.assign(num_values, -1);
  for (int v = 0; v < num_values; ++v) {
    Value value(v);
    absl::Span<const Occurrence> os = by_value.Row(v);
    if (os.empty() || !func.ValueExists(value) || !ranges.HasRange(value)) continue;
    int uses = 0;
    bool in_loop = false;
    for (const Occurrence& o : os) {
      uses += o.kind == OccurrenceKind::kRegUse || o.kind == OccurrenceKind::kMemoryUse;
      in_loop |= loops.depth(o.block) > 0;
    }
    if (uses == 0 || (is_const[v] && uses < 2)) continue;
    std::optional<RegClass> cls = target.ClassFor(func.value_type(value));
    if (!cls.has_value()) continue;
    p.item_of_[v] = static_cast<int32_t>(p.items_.size());
    p.items_.push_back(PackingItem{value, *cls, is_const[v] != 0, in_loop, ranges.def_interval(value).begin});
  }

  // Allocations with their profits and busy ranges: one per item for the
  // whole function and one per loop timespan its occurrences are in.
  // Calls f(l) for each loop l with a timespan around block b.
  auto for_each_timespan_loop = [&](Block b, auto&& f) {
    for (int l = loops.innermost(b); l >= 0; l = loops.parent(l)) {
      if (timespan_of_loop[l] >= 0) f(l);
    }
  };
  std::vector<int>& loop_count = buf.loop_count;
  loop_count.assign(loops.num_loops(), 0);
  if (large) {
    // Counted first, so that the list is made at its size (growing, it took
    // 3.1M places for 1.3M allocations at a million instructions).
    size_t count = p.items_.size();
    std::vector<int>& last_item = buf.last_item;  // per loop: the last item counted there (+1)
    last_item.assign(loops.num_loops(), 0);
    for (uint32_t it = 0; it < p.items_.size(); ++it) {
      for (const Occurrence& o : by_value.Row(p.items_[it].value.index())) {
        for_each_timespan_loop(o.block, [&](int l) {
          if (last_item[l] == static_cast<int>(it) + 1) return;
          last_item[l] = static_cast<int>(it) + 1;
          ++count;
        });
      }
    }
    p.allocations_.reserve(count);
  }
  std::vector<int64_t>& loop_gain = buf.loop_gain;
  loop_gain.assign(loops.num_loops(), 0);
  std::vector<int>& touched = buf.touched;
  std::vector<Interval>& whole = buf.whole;
  std::vector<Interval>& busy = buf.busy;
  std::vector<int64_t>& dist = buf.dist;
  dist.assign(num_blocks, -1);
  std::vector<int64_t>& block_gain = buf.block_gain;
  block_gain.assign(num_blocks, 0);
  using Entry = std::pair<int64_t, uint32_t>;
  std::vector<Entry>& queue_items = buf.queue_items;  // the shortest path's buffers, shared by the items
  std::vector<uint32_t>& seen = buf.seen;
  p.busy_.Clear();
  for (uint32_t it = 0; it < p.items_.size(); ++it) {
    const PackingItem& item = p.items_[it];
    const Value v = item.value;
    absl::Span<const Occurrence> os = by_value.Row(v.index());
    int64_t whole_gain = 0;
    touched.clear();
    for (const Occurrence& o : os) {
      const int g = Gain(model, item.constant, o.kind);
      whole_gain += time ? g * loops.Weight(o.block) : g;
      for_each_timespan_loop(o.block, [&](int l) {
        if (loop_count[l]++ == 0) touched.push_back(l);
        loop_gain[l] += time ? g * loops.Weight(o.block) : g;
      });
    }
    // The item's live range, whole.
    whole.clear();
    whole.push_back(ranges.def_interval(v));
    // An early def holds its register through its instruction, so that no other
    // def of the instruction shares it.
    if (whole[0].begin.IsEarly() && whole[0].end == whole[0].begin) whole[0].end = whole[0].begin.Next();
    for (const Interval& i : ranges.live_ins(v)) whole.push_back(i);
    Normalize(whole);

    // Whole function.
    if (time && !item.in_loop) {
      // The minimal gain along any path from the definition to the exit, over the
      // blocks where the value is live (a path leaving them gains nothing more).
      for (const Occurrence& o : os) block_gain[o.block.index()] += Gain(model, item.constant, o.kind);
      const Block def_block = sets.DefBlock(v);
      // A min-heap on queue_items (kept between items).
      std::vector<Entry>& heap = queue_items;
      heap.clear();
      auto push = [&](Entry e) {
        heap.push_back(e);
        std::push_heap(heap.begin(), heap.end(), std::greater<Entry>());
      };
      seen.clear();
      int64_t best = -1;
      dist[def_block.index()] = block_gain[def_block.index()];
      seen.push_back(def_block.index());
      push({dist[def_block.index()], def_block.index()});
      while (!heap.empty()) {
        std::pop_heap(heap.begin(), heap.end(), std::greater<Entry>());
        auto [d, bi] = heap.back();
        heap.pop_back();
        if (d != dist[bi]) continue;
        if (best >= 0 && d >= best) break;
        Block b(bi);
        if (cfg.succs(b).empty()) best = best < 0 ? d : std::min(best, d);
        for (const Edge& e : cfg.succs(b)) {
          if (!sets.IsLiveIn(v, e.to)) {
            best = best < 0 ? d : std::min(best, d);
            continue;
          }
          int64_t nd = d + block_gain[e.to.index()];
          if (dist[e.to.index()] < 0 || nd < dist[e.to.index()]) {
            if (dist[e.to.index()] < 0) seen.push_back(e.to.index());
            dist[e.to.index()] = nd;
            push({nd, e.to.index()});
          }
        }
      }
      for (uint32_t bi : seen) dist[bi] = -1;
      for (const Occurrence& o : os) block_gain[o.block.index()] = 0;
      whole_gain = std::max<int64_t>(best, 0);
    }
    p.allocations_.push_back(PackingAllocation{it, 0, static_cast<int>(os.size()), false, whole_gain});
    p.busy_.AppendRow(whole);

    // Loops.
    std::sort(touched.begin(), touched.end());
    for (int l : touched) {
      PackingAllocation a;
      a.item = it;
      a.timespan = static_cast<uint32_t>(timespan_of_loop[l]);
      a.occurrences = loop_count[l];
      const PackingTimespan& ts = p.timespans_[a.timespan];
      a.init = sets.IsLiveIn(v, ts.header);
      const int init_cost = item.constant ? model.constant_init : model.load_init;
      a.profit = loop_gain[l] - (a.init ? init_cost * (time ? loops.Weight(ts.entry) : 1) : 0);
      busy.clear();
      Intersect(whole, loop_ranges[l], busy);
      if (a.init) busy.push_back(entry_jump[a.timespan]);
      Normalize(busy);
      p.allocations_.push_back(a);
      p.busy_.AppendRow(busy);
      loop_count[l] = 0;
      loop_gain[l] = 0;
    }
  }

  // Scratch registers: simulate the rewrite's worst case on every instruction.
  if (p.scratch_.size() != static_cast<size_t>(target.num_classes())) p.scratch_.resize(target.num_classes());
  for (std::vector<PReg>& pool : p.scratch_) pool.clear();
  p.withheld_ = RegSet();
  std::vector<std::vector<PReg>>& ranking = buf.ranking;
  if (ranking.size() < static_cast<size_t>(target.num_classes())) ranking.resize(target.num_classes());
  RegSet abi_regs;
  for (const std::vector<PReg>* regs : {&target.abi().int_args, &target.abi().float_args, &target.abi().int_results,
                                        &target.abi().float_results}) {
    for (PReg r : *regs) abi_regs |= target.Aliases(r);
  }
  for (int c = 0; c < target.num_classes(); ++c) {
    std::vector<PReg>& order = ranking[c];
    order.assign(target.Class(RegClass(c)).allocation_order.begin(), target.Class(RegClass(c)).allocation_order.end());
    std::reverse(order.begin(), order.end());
    auto rank = [&](PReg r) {
      if (!target.CalleeSavedTouched(target.Aliases(r)).Empty()) return 2;
      return abi_regs.Contains(r) ? 1 : 0;
    };
    SortNearlySorted(absl::MakeSpan(order), [&](PReg a, PReg b) { return rank(a) < rank(b); });
  }
  for (Block b : func.layout()) {
    for (Inst i : func.block(b).insts) {
      absl::Span<const Operand> ops = func.operands(i);
      const size_t first_arg = func.NumNonArgOperands(i);
      // `taken`: the registers of the instruction so far; `late_taken`: those
      // still in use when its late defs are written (fixed registers, late
      // reads, two-address sources), so a def may take an early read's register.
      RegSet taken, late_taken, clobbered;
      for (const Operand& op : ops) {
        if (op.constraint() == ConstraintKind::kFixed) taken.InsertWithAliases(target, op.fixed_reg());
      }
      late_taken = taken;
      for (PReg r : func.Clobbers(i)) clobbered |= target.Aliases(r);
      absl::InlinedVector<std::pair<Value, PReg>, 8> picked;  // uses' scratch registers, by value
      // The rewrite places uses first, then defs.
      for (const bool defs : {false, true}) {
        for (size_t k = 0; k < ops.size(); ++k) {
          const Operand& op = ops[k];
          if (op.IsDef() != defs) continue;
          const bool is_tied = op.IsUse() && IsReuseSource(ops, k);
          bool needs = op.IsUse() ? (k < first_arg && (op.constraint() == ConstraintKind::kReg ||
                                                       op.constraint() == ConstraintKind::kAny))
                                  : op.constraint() == ConstraintKind::kReg;
          if (!needs) continue;
          // One value read twice early is fetched at most once (the rewrite reads
          // it again from the register it fetched it to, or both reads find it
          // where it is held). A late read keeps its own: the rewrite may read
          // the early one from the value's home or a register a clobber takes.
          const bool late = op.IsUse() && op.position() == Position::kLate;
          bool again = false;
          for (const auto& [v, r] : picked) {
            if (op.IsUse() && !late && v == op.value()) {
              again = true;
              if (is_tied) late_taken.InsertWithAliases(target, r);
            }
          }
          if (again) continue;
          std::optional<RegClass> cls = target.ClassFor(func.value_type(op.value()));
          if (!cls.has_value()) {
            return absl::FailedPreconditionError(absl::StrCat("function %", func.name(), ", ", func.BlockName(b), " `",
                                                              PrintInst(func, i, target), "`: ",
                                                              func.ValueName(op.value()), " has no register class"));
          }
          RegSet avoid = defs && op.position() != Position::kEarly ? late_taken : taken;
          if (late) avoid |= clobbered;
          std::vector<PReg>& pool = p.scratch_[cls->index()];
          std::optional<PReg> pick;
          for (PReg r : pool) {
            if (!avoid.Contains(r)) {
              pick = r;
              break;
            }
          }
          if (!pick.has_value()) {
            for (PReg r : ranking[cls->index()]) {
              if (std::find(pool.begin(), pool.end(), r) != pool.end() || avoid.Contains(r)) continue;
              pool.push_back(r);
              p.withheld_ |= target.Aliases(r);
              pick = r;
              break;
            }
          }
          if (!pick.has_value()) {
            return absl::FailedPreconditionError(absl::StrCat("function %", func.name(), ", ", func.BlockName(b), " `",
                                                              PrintInst(func, i, target), "`: no register left for ",
                                                              func.ValueName(op.value())));
          }
          taken.InsertWithAliases(target, *pick);
          if (defs || late || is_tied) late_taken.InsertWithAliases(target, *pick);
          if (op.IsUse() && !late) picked.push_back({op.value(), *pick});
        }
      }
    }
  }
  // The walk's lists and the analyses are as large as the function: after a
  // large one they go (the problem itself stays for the next steps, which read
  // neither the live sets nor the ranges).
  ReleaseAfterLargeFunction(func.num_insts(), buf);
  ReleaseAfterLargeFunction(func.num_insts(), sets);
  ReleaseAfterLargeFunction(func.num_insts(), ranges);
  return absl::OkStatus();
}

}  // namespace regalloc
