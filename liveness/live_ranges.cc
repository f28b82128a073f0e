#include "liveness/live_ranges.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/sorted_lists.h"

namespace regalloc {
namespace {

constexpr uint32_t kNone = UINT32_MAX;

ProgramPoint PointOf(const InstNumbering& num, Inst i, const Operand& op) {
  return op.position() == Position::kEarly ? num.Early(i) : num.Late(i);
}

}  // namespace

void LiveRanges::Compute(const Function& func, const LiveSets& sets, const InstNumbering& num, Events events) {
  const bool with_events = events == Events::kBuild;
  def_.assign(func.num_values(), Interval());
  has_def_.assign(func.num_values(), 0);
  live_in_start_.assign(func.num_values() + 1, 0);
  live_in_count_.assign(func.num_values(), 0);
  // Room for each value's live-in intervals after coalescing: an interval in b
  // continues the value's interval in the previous layout block p exactly when the
  // value is live into and out of p (that one ends at p's last point, and b's
  // first point follows it).
  // through[v] = 1 + index of the last layout position where v was live in and out.
  std::vector<uint32_t>& through = end_;
  through.assign(func.num_values(), 0);
  const std::vector<Block>& layout = func.layout();
  for (size_t k = 0; k < layout.size(); ++k) {
    for (Value v : sets.LiveIn(layout[k])) {
      if (through[v.index()] != k) ++live_in_start_[v.index() + 1];  // not continuing from position k-1
    }
    // Mark values live in and out of this block (both lists are sorted).
    absl::Span<const Value> in = sets.LiveIn(layout[k]);
    absl::Span<const Value> out = sets.LiveOut(layout[k]);
    ForEachCommon(in, out, [&](Value v) { through[v.index()] = static_cast<uint32_t>(k + 1); });
  }
  for (size_t v = 1; v < live_in_start_.size(); ++v) live_in_start_[v] += live_in_start_[v - 1];
  live_in_items_.resize(live_in_start_.back());

  // Walk each block backward; end[v] is the last point where v is live in the
  // block so far (kNone: not live below here).
  std::vector<uint32_t>& end = end_;
  end.assign(func.num_values(), kNone);
  begins_.clear();
  ends_.clear();
  Block block;
  Inst inst;
  auto def = [&](Value v, ProgramPoint p) {
    uint32_t e = end[v.index()];
    def_[v.index()] = Interval{p, e == kNone ? p : ProgramPoint::FromBits(e)};
    has_def_[v.index()] = 1;
    end[v.index()] = kNone;
    if (with_events) begins_.push_back(LiveEvent{v, inst, block});
  };
  auto use = [&](Value v, ProgramPoint p) {
    if (end[v.index()] == kNone) {
      end[v.index()] = p.bits();
      if (with_events) ends_.push_back(LiveEvent{v, inst, block});
    }
  };
  for (Block b : func.layout()) {
    block = b;
    const std::vector<Inst>& insts = func.block(b).insts;
    if (insts.empty()) continue;
    for (Value v : sets.LiveOut(b)) end[v.index()] = num.BlockEnd(b).bits();
    for (auto it = insts.rbegin(); it != insts.rend(); ++it) {
      inst = *it;
      absl::Span<const Operand> ops = func.operands(*it);
      for (Position pos : {Position::kLate, Position::kEarly}) {
        for (const Operand& op : ops) {
          if (op.IsDef() && op.position() == pos) def(op.value(), PointOf(num, *it, op));
        }
        for (const Operand& op : ops) {
          if (op.IsUse() && op.position() == pos) use(op.value(), PointOf(num, *it, op));
        }
      }
    }
    inst = Inst();
    for (const Operand& p : func.block(b).params) def(p.value(), num.BlockStart(b));
    // Live-in intervals arrive in layout order; one that starts where the value's
    // previous one ended (at the previous block's end) extends it.
    for (Value v : sets.LiveIn(b)) {
      uint32_t e = end[v.index()];
      Interval in{num.BlockStart(b), ProgramPoint::FromBits(e == kNone ? num.BlockEnd(b).bits() : e)};
      end[v.index()] = kNone;
      uint32_t& count = live_in_count_[v.index()];
      Interval* row = live_in_items_.data() + live_in_start_[v.index()];
      if (count > 0 && row[count - 1].end.bits() + 1 == in.begin.bits()) {
        row[count - 1].end = in.end;
      } else {
        row[count++] = in;
      }
    }
  }
  auto by_block = [](const LiveEvent& e) { return e.block.index(); };
  live_begin_.Build(func.num_blocks(), begins_, by_block);
  live_end_.Build(func.num_blocks(), ends_, by_block);
}

bool LiveRanges::Covers(Value v, ProgramPoint p) const {
  if (!HasRange(v)) return false;
  if (def_[v.index()].Contains(p)) return true;
  absl::Span<const Interval> ins = live_ins(v);
  auto it = std::upper_bound(ins.begin(), ins.end(), p, [](ProgramPoint x, const Interval& i) { return x < i.begin; });
  return it != ins.begin() && std::prev(it)->Contains(p);
}

bool LiveRanges::Overlaps(Value a, Value b) const {
  if (!HasRange(a) || !HasRange(b)) return false;
  return Covers(a, def_[b.index()].begin) || Covers(b, def_[a.index()].begin);
}

size_t LiveRanges::MemoryBytes() const {
  return def_.capacity() * sizeof(Interval) + has_def_.capacity() + live_in_items_.capacity() * sizeof(Interval) +
         (live_in_start_.capacity() + live_in_count_.capacity()) * sizeof(uint32_t);
}

void DefPoints::Compute(const Function& func, const LiveSets& sets, const InstNumbering& num) {
  func_ = &func;
  sets_ = &sets;
  num_ = &num;
  def_point_.assign(func.num_values(), ProgramPoint());
  def_block_.assign(func.num_values(), Block());
  has_def_.assign(func.num_values(), 0);
  for (Block b : func.layout()) {
    const std::vector<Inst>& insts = func.block(b).insts;
    const bool has_points = !insts.empty();  // as LiveRanges: an empty block has none
    for (const Operand& p : func.block(b).params) {
      def_block_[p.value().index()] = b;
      if (!has_points) continue;
      def_point_[p.value().index()] = num.BlockStart(b);
      has_def_[p.value().index()] = 1;
    }
    for (Inst i : insts) {
      for (const Operand& op : func.operands(i)) {
        if (!op.IsDef()) continue;
        def_point_[op.value().index()] = PointOf(num, i, op);
        def_block_[op.value().index()] = b;
        has_def_[op.value().index()] = 1;
      }
    }
  }
}

bool DefPoints::Covers(Value v, ProgramPoint p, Block b) const {
  if (!HasDef(v)) return false;
  const bool defined_here = def_block_[v.index()] == b;
  if (defined_here) {
    if (p < def_point_[v.index()]) return false;
  } else if (!sets_->IsLiveIn(v, b)) {
    return false;
  }
  if (sets_->IsLiveOut(v, b)) return true;
  // Up to v's last use in b; with none, a dead def covers its def point only
  // (a value live in and not out has a use: LiveRanges would take the block).
  const std::vector<Inst>& insts = func_->block(b).insts;
  for (auto it = insts.rbegin(); it != insts.rend(); ++it) {
    bool used = false;
    ProgramPoint last;
    for (const Operand& op : func_->operands(*it)) {
      if (!op.IsUse() || op.value() != v) continue;
      ProgramPoint at = PointOf(*num_, *it, op);
      if (!used || last < at) last = at;
      used = true;
    }
    if (used) return p <= last;
  }
  return !defined_here || p == def_point_[v.index()];
}

bool DefPoints::Overlaps(Value a, Value b) const {
  if (!HasDef(a) || !HasDef(b)) return false;
  return Covers(a, def_point_[b.index()], def_block_[b.index()]) ||
         Covers(b, def_point_[a.index()], def_block_[a.index()]);
}

UsePositions::UsePositions(const Function& func, const InstNumbering& num, const LoopNest& loops) {
  struct Entry {
    Value value;
    UsePosition pos;
  };
  std::vector<Entry> all;
  auto add = [&](const Operand& op, ProgramPoint p, int depth) {
    UsePosition u;
    u.point = p;
    u.is_def = op.IsDef();
    u.constraint = op.constraint();
    u.constraint_arg = op.constraint() == ConstraintKind::kFixed   ? static_cast<uint16_t>(op.fixed_reg().index())
                       : op.constraint() == ConstraintKind::kReuse ? static_cast<uint16_t>(op.reuse_index())
                                                                    : 0;
    u.loop_depth = static_cast<uint8_t>(std::min(depth, 255));
    all.push_back(Entry{op.value(), u});
  };
  for (Block b : func.layout()) {
    if (func.block(b).insts.empty()) continue;
    int depth = loops.depth(b);
    for (const Operand& p : func.block(b).params) add(p, num.BlockStart(b), depth);
    for (Inst i : func.block(b).insts) {
      // Defs first at each point, then uses: Early then Late.
      for (Position pos : {Position::kEarly, Position::kLate}) {
        for (const Operand& op : func.operands(i)) {
          if (op.IsDef() && op.position() == pos) add(op, PointOf(num, i, op), depth);
        }
        for (const Operand& op : func.operands(i)) {
          if (op.IsUse() && op.position() == pos) add(op, PointOf(num, i, op), depth);
        }
      }
    }
  }
  // Layout order is point order, and the counting sort keeps it within a value.
  CompressedRows<Entry> grouped;
  grouped.Build(func.num_values(), all, [](const Entry& e) { return e.value.index(); });
  positions_.Clear();
  std::vector<UsePosition> row;
  for (int v = 0; v < func.num_values(); ++v) {
    row.clear();
    for (const Entry& e : grouped.Row(v)) row.push_back(e.pos);
    positions_.AppendRow(row);
  }
}

absl::StatusOr<RegisterPressure> RegisterPressure::Compute(const Function& func, const Target& target,
                                                           const LiveSets& sets, const InstNumbering& num) {
  RegisterPressure rp;
  int nb = target.num_banks();
  rp.num_banks_ = nb;
  rp.at_.assign(static_cast<size_t>(num.num_insts()) * 2 * nb, 0);
  rp.block_max_.assign(static_cast<size_t>(func.num_blocks()) * nb, 0);
  rp.max_.assign(nb, 0);
  // Bank and weight per value.
  std::vector<int8_t> bank(func.num_values(), -1);
  std::vector<uint8_t> weight(func.num_values(), 0);
  for (int v = 0; v < func.num_values(); ++v) {
    if (!func.ValueExists(Value(v))) continue;
    std::optional<RegClass> cls = target.ClassFor(func.value_type(Value(v)));
    if (!cls.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat("function %", func.name(), ": ", func.ValueName(Value(v)), " has type ",
                                                     TypeName(func.value_type(Value(v))), ", for which ",
                                                     target.name(), " has no registers"));
    }
    bank[v] = static_cast<int8_t>(target.Class(*cls).bank);
    weight[v] = static_cast<uint8_t>(target.Class(*cls).pressure_weight);
  }
  std::vector<uint8_t> live(func.num_values(), 0);
  std::vector<int> now(nb, 0);
  auto add = [&](Value v) {
    if (!live[v.index()]) {
      live[v.index()] = 1;
      now[bank[v.index()]] += weight[v.index()];
    }
  };
  auto remove = [&](Value v) {
    if (live[v.index()]) {
      live[v.index()] = 0;
      now[bank[v.index()]] -= weight[v.index()];
    }
  };
  auto record = [&](ProgramPoint p, Block b) {
    for (int k = 0; k < nb; ++k) {
      rp.at_[p.bits() * nb + k] = static_cast<uint16_t>(now[k]);
      uint16_t& bm = rp.block_max_[b.index() * nb + k];
      bm = std::max<uint16_t>(bm, static_cast<uint16_t>(now[k]));
      rp.max_[k] = std::max(rp.max_[k], now[k]);
    }
  };
  for (Block b : func.layout()) {
    const std::vector<Inst>& insts = func.block(b).insts;
    if (insts.empty()) continue;
    for (Value v : sets.LiveOut(b)) add(v);
    for (size_t k = insts.size(); k-- > 0;) {
      Inst i = insts[k];
      absl::Span<const Operand> ops = func.operands(i);
      // Late point: what lives after, plus late uses and late defs.
      for (const Operand& op : ops) {
        if (op.position() == Position::kLate) add(op.value());
      }
      record(num.Late(i), b);
      for (const Operand& op : ops) {
        if (op.IsDef() && op.position() == Position::kLate) remove(op.value());
      }
      // Early point: plus early uses and early defs (and the block's parameters,
      // defined at its start).
      for (const Operand& op : ops) {
        if (op.position() == Position::kEarly) add(op.value());
      }
      if (k == 0) {
        for (const Operand& p : func.block(b).params) add(p.value());
      }
      record(num.Early(i), b);
      for (const Operand& op : ops) {
        if (op.IsDef() && op.position() == Position::kEarly) remove(op.value());
      }
      if (k == 0) {
        for (const Operand& p : func.block(b).params) remove(p.value());
      }
    }
    // What is left is the live-in set; clear it for the next block.
    for (Value v : sets.LiveIn(b)) remove(v);
  }
  return rp;
}

}  // namespace regalloc
