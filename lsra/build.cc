#include "lsra/build.h"

#include <algorithm>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/nearly_sorted.h"
#include "base/status_macros.h"
#include "base/warm_buffers.h"
#include "ssa/printer.h"
#include "ssa/verifier.h"

namespace regalloc {
namespace {

const char* NeedName(RefNeed n) {
  switch (n) {
    case RefNeed::kRegister: return "reg";
    case RefNeed::kAny: return "any";
    case RefNeed::kStack: return "stack";
    case RefNeed::kFixed: return "fixed";
    case RefNeed::kReuse: return "reuse";
  }
  return "?";
}

RefNeed NeedOf(const Operand& op) {
  switch (op.constraint()) {
    case ConstraintKind::kReg: return RefNeed::kRegister;
    case ConstraintKind::kAny: return RefNeed::kAny;
    case ConstraintKind::kStack: return RefNeed::kStack;
    case ConstraintKind::kFixed: return RefNeed::kFixed;
    case ConstraintKind::kReuse: return RefNeed::kReuse;
  }
  return RefNeed::kRegister;
}

}  // namespace

absl::Status LsraBuild::InsertReuseCopies(Function& func, const LiveSets& sets, bool remat, LsraBuildStats& stats) {
  // With `remat`, the constants: a source defined by `const` is made again
  // into the def's register instead of copied (ssa's and chaitin's constants
  // made again at their uses), which also ends the constant's own piece
  // sooner where this was its last read in a register. The constants are
  // found when the first source to copy is (most functions on targets
  // without two-address forms have none).
  std::vector<Inst>& const_def = scratch_.const_def;
  const_def.clear();
  scratch_.remade.clear();
  // Per block: the index of each value's last use, stamped by block. Whether
  // a value lives out is asked of the block's live-out set (a binary search)
  // only for a Reuse def's sources, not stamped for every live-out value at
  // every block.
  std::vector<CopyScratch>& info = scratch_.copy;
  info.assign(func.num_values(), CopyScratch());
  uint32_t now = 0;
  std::vector<Operand>& ops = scratch_.ops;
  std::vector<Inst>& out = scratch_.insts;
  for (Block b : func.layout()) {
    ++now;
    std::vector<Inst>& insts = func.block(b).insts;
    bool any_reuse = false;
    for (size_t k = 0; k < insts.size(); ++k) {
      for (const Operand& op : func.operands(insts[k])) {
        if (!op.IsUse()) {
          any_reuse |= op.constraint() == ConstraintKind::kReuse;
          continue;
        }
        CopyScratch& x = info[op.value().index()];
        x.stamp = now;
        x.last_use = static_cast<int>(k);
      }
    }
    if (!any_reuse) continue;
    out.clear();
    for (size_t k = 0; k < insts.size(); ++k) {
      Inst i = insts[k];
      bool changed = false;
      absl::Span<const Operand> span = func.operands(i);
      if (std::none_of(span.begin(), span.end(),
                       [](const Operand& op) { return op.IsDef() && op.constraint() == ConstraintKind::kReuse; })) {
        out.push_back(i);
        continue;
      }
      ops.assign(span.begin(), span.end());
      // Over the local copy: NewInst below grows the operand pool under any span.
      for (size_t di = 0; di < ops.size(); ++di) {
        const Operand def = ops[di];
        if (!def.IsDef() || def.constraint() != ConstraintKind::kReuse) continue;
        int u = def.reuse_index(), o = -1;
        for (size_t x = 0; x < ops.size(); ++x) {
          if (ops[x].IsUse() && u-- == 0) o = static_cast<int>(x);
        }
        if (o < 0) {
          return absl::InvalidArgumentError(absl::StrCat("function %", func.name(), ", ", func.BlockName(b), " `",
                                                         PrintInst(func, i, *target_), "`: reuse of use #",
                                                         def.reuse_index(), ", which does not exist"));
        }
        // Another read of v here in the register the source is fixed to reads
        // what the source reads (and takes the copy with it).
        auto same_fixed_read = [&](size_t x, int except) {
          return ops[except].constraint() == ConstraintKind::kFixed && ops[x].constraint() == ConstraintKind::kFixed &&
                 ops[x].fixed_reg() == ops[except].fixed_reg();
        };
        auto needed_after = [&](Value v, int except) {
          const CopyScratch& x = info[v.index()];
          bool needed = (x.stamp == now && x.last_use > static_cast<int>(k)) || sets.IsLiveOut(v, b);
          for (size_t x = 0; x < ops.size() && !needed; ++x) {
            needed = static_cast<int>(x) != except && ops[x].IsUse() && ops[x].value() == v && !same_fixed_read(x, except);
          }
          return needed;
        };
        Value a = ops[o].value();
        if (!needed_after(a, o)) continue;
        // A commutative integer op whose other source dies here: that one is
        // overwritten instead (the operands trade values, each keeping its
        // constraint), and nothing is copied.
        int other = CommutedOperand(func.inst(i).opcode, ops, o);
        if (other >= 0 && ops[other].value() != a && !needed_after(ops[other].value(), other)) {
          Value b = ops[other].value();
          ops[other].set_value(a);
          ops[o].set_value(b);
          changed = true;
          ++stats.commuted;
          continue;
        }
        if (remat && const_def.empty()) ConstDefs(func, const_def);
        Value t = func.NewValue(func.value_type(a));
        const Inst made_from = a.index() < const_def.size() ? const_def[a.index()] : Inst();
        if (made_from.IsValid()) {
          out.push_back(MakeConstAgain(func, made_from, Operand::Def(t)));
          scratch_.remade.push_back(a);
          ++stats.remats;
        } else {
          InstData d;
          d.opcode = Opcode::kCopy;
          Operand cops[2] = {Operand::Def(t), Operand::Use(a)};
          out.push_back(func.NewInst(d, cops));
          ++stats.reuse_copies;
        }
        for (size_t x = 0; x < ops.size(); ++x) {
          if (static_cast<int>(x) != o && ops[x].IsUse() && ops[x].value() == a && same_fixed_read(x, o)) {
            ops[x].set_value(t);
          }
        }
        ops[o].set_value(t);
        changed = true;
      }
      if (changed) func.SetOperands(i, ops);
      out.push_back(i);
    }
    insts.assign(out.begin(), out.end());
  }
  std::sort(scratch_.remade.begin(), scratch_.remade.end());
  scratch_.remade.erase(std::unique(scratch_.remade.begin(), scratch_.remade.end()), scratch_.remade.end());
  return absl::OkStatus();
}

void LsraBuild::OrderBlocks(const Function& func, const ControlFlowGraph& cfg, const LoopNest& loops) {
  int nb = func.num_blocks();
  order_.clear();
  seed_.assign(nb, Block());
  std::vector<uint8_t>& placed = scratch_.placed;
  placed.assign(nb, 0);
  // Heaviest first; among equals the one made ready last (a successor of the
  // block just placed: falls through), then reverse post-order. A max-heap.
  using Key = std::tuple<int, uint32_t, int, uint32_t>;  // (depth, ready stamp, -rpo, block)
  std::vector<Key>& ready = scratch_.ready;
  ready.clear();
  uint32_t stamp = 0;
  auto place = [&](Block b) {
    placed[b.index()] = 1;
    order_.push_back(b);
    ++stamp;
    for (const Edge& e : cfg.succs(b)) {
      if (placed[e.to.index()]) continue;
      ready.push_back(Key{loops.depth(e.to), stamp, -cfg.rpo_number(e.to), e.to.index()});
      std::push_heap(ready.begin(), ready.end());
    }
  };
  place(func.entry());
  while (!ready.empty()) {
    Block b(std::get<3>(ready.front()));
    std::pop_heap(ready.begin(), ready.end());
    ready.pop_back();
    if (placed[b.index()]) continue;
    // The seed: the heaviest predecessor already placed (the latest on ties).
    int best = -1;
    for (const Edge& e : cfg.preds(b)) {
      if (!placed[e.from.index()]) continue;
      if (loops.depth(e.from) >= best) {
        best = loops.depth(e.from);
        seed_[b.index()] = e.from;
      }
    }
    place(b);
  }
}

absl::StatusOr<LsraBuildStats> LsraBuild::Run(const Target& target, Function& func, const LiveSets& sets,
                                              const LsraBuildOptions& options) {
  if (func.IsAllocated()) {
    return absl::FailedPreconditionError(absl::StrCat("function %", func.name(), ": lsra_build needs SSA form"));
  }
  RA_RETURN_IF_ERROR(scratch_.verifier.Run(func, target, own_analyses_));
  return Run(target, func, sets, options, own_analyses_);
}

absl::StatusOr<LsraBuildStats> LsraBuild::Run(const Target& target, Function& func, const LiveSets& sets,
                                              const LsraBuildOptions& options, const CfgAnalyses& verified,
                                              LiveSets* release) {
  LsraBuildStats stats;
  if (release != nullptr && release != &sets) {
    return absl::InvalidArgumentError(
        absl::StrCat("function %", func.name(), ": lsra_build can give back only the live sets it reads"));
  }
  target_ = &target;
  analyses_ = &verified == &own_analyses_ ? nullptr : &verified;
  if (func.IsAllocated()) {
    return absl::FailedPreconditionError(absl::StrCat("function %", func.name(), ": lsra_build needs SSA form"));
  }
  RA_RETURN_IF_ERROR(CheckRegisterDemand(func, target));
  // Per type: has the target a class for it? (-1: not asked yet.)
  int8_t has_class[kNumTypes];
  std::fill(std::begin(has_class), std::end(has_class), -1);
  for (int v = 0; v < func.num_values(); ++v) {
    if (!func.ValueExists(Value(v))) continue;
    int8_t& ok = has_class[static_cast<int>(func.value_type(Value(v)))];
    if (ok < 0) ok = target.ClassFor(func.value_type(Value(v))).has_value();
    if (!ok) {
      return absl::InvalidArgumentError(absl::StrCat("function %", func.name(), ": ", func.ValueName(Value(v)), " has type ",
                                                     TypeName(func.value_type(Value(v))), ", for which ",
                                                     target.name(), " has no registers"));
    }
  }
  // (The verifier rejected unreachable blocks.)
  const ControlFlowGraph& cfg = verified.cfg;
  RA_RETURN_IF_ERROR(InsertReuseCopies(func, sets, options.remat, stats));
  // A constant made again is not read there: where that read kept it live,
  // it lives no more (LiveSets::Shrink), in the caller's sets when they are
  // given back here (`release`: LsraAllocator's), else in a copy.
  const LiveSets* live = &sets;
  if (!scratch_.remade.empty()) {
    LiveSets* own = release;
    if (own == nullptr) {
      scratch_.sets = sets;
      own = &scratch_.sets;
    }
    own->Shrink(func, cfg, scratch_.remade);
    live = own;
  }
  const LoopNest& loops = verified.loops;
  OrderBlocks(func, cfg, loops);
  depth_.assign(func.num_blocks(), 0);
  for (Block b : func.layout()) depth_[b.index()] = loops.depth(b);
  if (options.reverse_order && order_.size() > 2) std::reverse(order_.begin() + 1, order_.end());
  critical_.clear();
  for (const Edge& e : cfg.all_edges()) {
    if (cfg.IsCritical(e)) critical_.push_back(e);
  }
  stats.critical_edges = static_cast<int>(critical_.size());

  // Numbering, and the rows of the references: one per parameter and
  // operand, placed in their value's row as the walk below makes them (in
  // position order), so the rows are counted first.
  int nv = func.num_values(), nb = func.num_blocks();
  number_.assign(func.num_insts(), 0);
  inst_at_.clear();
  inst_at_.reserve(func.num_insts() + 1);
  inst_at_.push_back(Inst());  // numbers start at 1
  block_from_.assign(nb, 0);
  block_to_.assign(nb, 0);
  refs_.StartCounting(nv);
  param_of_.assign(nv, Block());
  uint32_t k = 1;
  for (Block b : order_) {
    const std::vector<Inst>& insts = func.block(b).insts;
    block_from_[b.index()] = 4 * k - 1;
    for (const Operand& p : func.block(b).params) {
      refs_.Count(p.value().index());
      param_of_[p.value().index()] = b;
    }
    for (Inst i : insts) {
      number_[i.index()] = k++;
      inst_at_.push_back(i);
      for (const Operand& op : func.operands(i)) refs_.Count(op.value().index());
    }
    block_to_[b.index()] = 4 * (k - 1) + 3;
  }

  // Ranges: pieces (a value's run through consecutive blocks of the order), in
  // walk order; references.
  refs_.StartFilling();
  scratch_.pieces.clear();
  scratch_.all_reg_refs.clear();
  std::vector<std::vector<LsraRange>>& blocked = scratch_.blocked;
  blocked.resize(target.num_regs());
  for (std::vector<LsraRange>& b : blocked) b.clear();
  clobbers_.clear();
  std::vector<RangeScratch>& info = scratch_.range;
  std::vector<Value>& touched = scratch_.touched;
  info.assign(nv, RangeScratch());
  touched.clear();
  uint32_t now = 0;
  // A value's piece stays open while the value lives across the boundaries
  // between consecutive blocks of the order (out of the block before, into
  // the block after): the walk compares the two sorted sets at each boundary,
  // opening and closing pieces where they differ, and looks at the values a
  // block refers to. A value living through a block without a reference
  // costs that block nothing (at a million instructions, 170 values live
  // across each block boundary, a few of them referenced in the block).
  absl::Span<const Value> prev_out;  // the live-out set of the block before
  uint32_t prev_to = 0;              // its end
  auto close = [&](Value v, uint32_t to) {
    scratch_.pieces.push_back(ValueRange{v, LsraRange{info[v.index()].start, to}});
  };
  auto block_reg = [&](PReg r, LsraRange range) {
    for (PReg a : target.Aliases(r)) {
      if (target.allocatable().Contains(a)) blocked[a.index()].push_back(range);
    }
  };
  auto reg_ref = [&](PReg r, RefKind kind, uint32_t pos, LsraRange range) {
    RefPosition ref;
    ref.pos = pos;
    ref.set_reg(r);
    ref.kind = kind;
    ref.need = RefNeed::kFixed;
    scratch_.all_reg_refs.push_back(ref);
    block_reg(r, range);
    ++stats.fixed_refs;
  };
  for (Block b : order_) {
    ++now;
    touched.clear();
    uint32_t bf = block_from_[b.index()], bt = block_to_[b.index()];
    // The boundary with the block before (bf is its end): what lived out of
    // it and does not live into b ends there; what lives into b and did not
    // live out of it starts here. Mostly the two are one set (the live sets
    // store a block's live-out set as its successor's live-in set when they
    // are equal) or equal, and nothing changes.
    absl::Span<const Value> in = live->LiveIn(b);
    if (in.size() != prev_out.size() ||
        (in.data() != prev_out.data() && !std::equal(in.begin(), in.end(), prev_out.begin()))) {
      const Value *x = prev_out.begin(), *x_end = prev_out.end(), *y = in.begin(), *y_end = in.end();
      while (x != x_end || y != y_end) {
        if (y == y_end || (x != x_end && x->index() < y->index())) {
          close(*x++, prev_to);
        } else if (x == x_end || y->index() < x->index()) {
          info[(y++)->index()].start = bf;
        } else {
          ++x;
          ++y;
        }
      }
    }
    // A value b refers to: its last reference here (from b's start for a
    // live-in value; a def or parameter opens its piece).
    auto touch = [&](Value v) -> RangeScratch& {
      RangeScratch& x = info[v.index()];
      if (x.seen == now) return x;
      x.seen = now;
      x.last = bf;
      touched.push_back(v);
      return x;
    };
    auto open = [&](Value v, uint32_t start) {
      RangeScratch& x = touch(v);
      x.start = start;
      x.last = start;
    };
    const std::vector<Operand>& params = func.block(b).params;
    for (size_t p = 0; p < params.size(); ++p) {
      const Operand& op = params[p];
      open(op.value(), bf);
      RefPosition ref;
      ref.pos = bf;
      ref.kind = RefKind::kDef;
      ref.need = b == func.entry() ? NeedOf(op) : RefNeed::kAny;
      if (ref.need == RefNeed::kFixed) {
        ref.set_reg(op.fixed_reg());
        reg_ref(op.fixed_reg(), RefKind::kFixedDef, bf, LsraRange{bf, bf + 1});
      }
      refs_.Place(op.value().index(), ref);
    }
    for (Inst i : func.block(b).insts) {
      uint32_t base = 4 * number_[i.index()];
      bool branch = IsBranch(func.inst(i).opcode);
      // A br's condition (operand 0) is read like any other use; the arguments
      // of a branch go to the edge's parallel copy, which reads any location.
      size_t first_arg = func.NumNonArgOperands(i);
      absl::Span<const Operand> ops = func.operands(i);
      for (size_t o = 0; o < ops.size(); ++o) {
        const Operand& op = ops[o];
        uint32_t pos = base + (op.IsUse() ? LsraUseSlot(ops, o)
                                          : op.position() == Position::kEarly ? kLsraEarly : kLsraLate);
        RefPosition ref;
        ref.pos = pos;
        ref.need = branch && o >= first_arg ? RefNeed::kAny : NeedOf(op);
        if (op.IsUse()) {
          ref.kind = RefKind::kUse;
          RangeScratch& x = touch(op.value());
          x.last = std::max(x.last, pos);
          if (ref.need == RefNeed::kFixed) {
            ref.set_reg(op.fixed_reg());
            reg_ref(op.fixed_reg(), RefKind::kFixedUse, pos,
                    LsraRange{base - 1, pos == base + kLsraLate ? base + 3 : pos + 1});
          }
        } else {
          ref.kind = RefKind::kDef;
          open(op.value(), pos);
          // A def reusing a use fixed to R is fixed to R itself.
          const Operand* src = ref.need == RefNeed::kReuse ? func.UseOperand(i, op.reuse_index()) : nullptr;
          if (src != nullptr && src->constraint() == ConstraintKind::kFixed) ref.need = RefNeed::kFixed;
          if (ref.need == RefNeed::kFixed) {
            ref.set_reg(src != nullptr ? src->fixed_reg() : op.fixed_reg());
            reg_ref(ref.reg(), RefKind::kFixedDef, pos, LsraRange{pos, base + 4});
          } else if (ref.need == RefNeed::kReuse) {
            ref.set_reuse_of(op.reuse_index());
          }
        }
        refs_.Place(op.value().index(), ref);
      }
      if (func.inst(i).clobbers >= 0) {
        clobbers_.push_back(base + kLsraClobber);
        for (PReg r : func.clobber_set(func.inst(i).clobbers)) {
          reg_ref(r, RefKind::kKill, base + kLsraClobber, LsraRange{base + 1, base + 2});
        }
      }
    }
    // A value referred to here and not living out ends at its last
    // reference. (A live-in value that does not live out is read here: the
    // live sets' in = ue ∪ (out − defs).)
    for (Value v : touched) {
      if (!live->IsLiveOut(v, b)) close(v, info[v.index()].last + 1);
    }
    prev_out = live->LiveOut(b);
    prev_to = bt;
  }
  for (Value v : prev_out) close(v, prev_to);
  // After a large function each scratch buffer goes as soon as it has been
  // read for the last time (base/warm_buffers.h), not at the end of Run: the
  // rows made from it would sit beside it at the build's peak.
  const int insts = func.num_insts();
  ReleaseAfterLargeFunction(insts, info);
  if (release != nullptr) ReleaseAfterLargeFunction(insts, *release);  // read for the last time above
  if (insts > kWarmBufferInsts) refs_.ReleaseCursors();

  // Group by value (block order keeps each row sorted) and merge adjacent pieces.
  {
    CompressedRows<ValueRange>& by_value = scratch_.pieces_by_value;
    by_value.Build(nv, scratch_.pieces, [](const ValueRange& r) { return r.value.index(); });
    ranges_.Clear();
    ranges_.Reserve(nv, scratch_.pieces.size());
    std::vector<LsraRange>& merged = scratch_.merged;
    for (int v = 0; v < nv; ++v) {
      merged.clear();
      for (const ValueRange& r : by_value.Row(v)) {
        if (!merged.empty() && merged.back().to == r.range.from) {
          merged.back().to = r.range.to;
        } else {
          merged.push_back(r.range);
        }
      }
      ranges_.AppendRow(merged);
    }
    ReleaseAfterLargeFunction(insts, scratch_.pieces);
    ReleaseAfterLargeFunction(insts, by_value);
  }
  // Per register, by position. The walk above produced both lists in position
  // order up to swaps within an instruction, so grouping by register (a stable
  // counting sort) and then a nearly-sorted sort of each row is linear.
  int nr = target.num_regs();
  reg_refs_.Build(nr, scratch_.all_reg_refs, [](const RefPosition& r) { return r.reg().index(); });
  for (int r = 0; r < nr; ++r) {
    SortNearlySorted(reg_refs_.MutableRow(r), [](const RefPosition& a, const RefPosition& b) { return a.pos < b.pos; });
  }
  ReleaseAfterLargeFunction(insts, scratch_.all_reg_refs);
  {
    size_t total = 0;
    for (const std::vector<LsraRange>& row : blocked) total += row.size();
    blocked_.Clear();
    blocked_.Reserve(nr, total);
    std::vector<LsraRange>& merged = scratch_.merged;
    for (int r = 0; r < nr; ++r) {
      absl::Span<LsraRange> row = absl::MakeSpan(blocked[r]);
      SortNearlySorted(row, [](const LsraRange& a, const LsraRange& b) { return a.from < b.from; });
      merged.clear();
      for (const LsraRange& range : row) {
        if (!merged.empty() && merged.back().to >= range.from) {
          merged.back().to = std::max(merged.back().to, range.to);
        } else {
          merged.push_back(range);
        }
      }
      blocked_.AppendRow(merged);
    }
    ReleaseAfterLargeFunction(insts, blocked);
  }

  // Intervals.
  has_.assign(nv, 0);
  intervals_.assign(nv, LsraInterval());
  for (int v = 0; v < nv; ++v) {
    if (ranges_.Row(v).empty()) continue;
    has_[v] = 1;
    LsraInterval& it = intervals_[v];
    it.cls = *target.ClassFor(func.value_type(Value(v)));
    for (const RefPosition& r : refs_.Row(v)) {
      if (r.need == RefNeed::kFixed) {
        it.hint = r.reg();
        break;
      }
    }
    ++stats.intervals;
    stats.ranges += static_cast<int>(ranges_.Row(v).size());
  }
  stats.refs = static_cast<int>(refs_.all().size());
  ReleaseAfterLargeFunction(func.num_insts(), scratch_);
  return stats;
}

void LsraBuild::ReleaseIntervals() {
  std::vector<uint32_t>().swap(clobbers_);
  std::vector<uint8_t>().swap(has_);
  std::vector<Block>().swap(param_of_);
  std::vector<LsraInterval>().swap(intervals_);
  std::vector<Inst>().swap(inst_at_);
  ranges_ = CompressedRows<LsraRange>();
  refs_ = CompressedRows<RefPosition>();
  blocked_ = CompressedRows<LsraRange>();
  reg_refs_ = CompressedRows<RefPosition>();
}

bool LsraBuild::LiveInto(Value v, Block b) const {
  if (!HasInterval(v) || !Covers(v, block_from_[b.index()])) return false;
  return param_of_[v.index()] != b;
}

bool LsraBuild::Covers(Value v, uint32_t p) const {
  absl::Span<const LsraRange> rs = Ranges(v);
  auto it = std::upper_bound(rs.begin(), rs.end(), p, [](uint32_t x, const LsraRange& r) { return x < r.from; });
  return it != rs.begin() && std::prev(it)->Contains(p);
}

std::string LsraBuild::Print(const Function& func, const Target& target) const {
  std::string out = absl::StrCat("lsra build of %", func.name(), " (positions: 4 per instruction; [from, to))\n");
  std::vector<std::string> names;
  for (Block b : order_) names.push_back(absl::StrCat(func.BlockName(b)));
  absl::StrAppend(&out, "  order: ", absl::StrJoin(names, " "), "\n");
  for (Block b : order_) {
    absl::StrAppend(&out, "  ", func.BlockName(b), ": [", BlockFrom(b), ", ", BlockTo(b), ")");
    if (seed(b).IsValid()) absl::StrAppend(&out, " seed block", seed(b).index());
    absl::StrAppend(&out, "\n");
  }
  for (const Edge& e : critical_) absl::StrAppend(&out, "  critical edge ", func.BlockName(e.from), "->", func.BlockName(e.to), "\n");
  // The loop depth at a position: its block's (the blocks of the order
  // cover increasing positions).
  auto depth_at = [&](uint32_t pos) {
    auto it = std::upper_bound(order_.begin(), order_.end(), pos, [&](uint32_t p, Block b) { return p < BlockFrom(b); });
    return it == order_.begin() ? 0 : depth(*std::prev(it));
  };
  for (int v = 0; v < num_values(); ++v) {
    if (!HasInterval(Value(v))) continue;
    const LsraInterval& it = interval(Value(v));
    // The spill weight (RyuJIT's): 10^loop depth summed over the references.
    uint64_t weight = 0;
    for (const RefPosition& r : Refs(Value(v))) {
      uint64_t w = 1;
      for (int d = 0; d < depth_at(r.pos) && d < 9; ++d) w *= 10;
      weight += w;
    }
    absl::StrAppend(&out, "  ", func.ValueName(Value(v)), " (", target.Class(it.cls).name, ", weight ", weight);
    if (it.hint.IsValid()) absl::StrAppend(&out, ", hint %", target.RegName(it.hint));
    absl::StrAppend(&out, "):");
    for (const LsraRange& r : Ranges(Value(v))) absl::StrAppend(&out, " [", r.from, ", ", r.to, ")");
    absl::StrAppend(&out, " refs");
    for (const RefPosition& r : Refs(Value(v))) {
      absl::StrAppend(&out, " ", r.kind == RefKind::kDef ? "def" : "use", "@", r.pos, ":", NeedName(r.need));
      if (r.need == RefNeed::kFixed) absl::StrAppend(&out, "%", target.RegName(r.reg()));
    }
    absl::StrAppend(&out, "\n");
  }
  for (int r = 0; r < target.num_regs(); ++r) {
    if (RegRefs(PReg(r)).empty()) continue;
    absl::StrAppend(&out, "  %", target.RegName(PReg(r)), ":");
    for (const RefPosition& ref : RegRefs(PReg(r))) {
      absl::StrAppend(&out, " ",
                      ref.kind == RefKind::kKill ? "kill" : ref.kind == RefKind::kFixedUse ? "use" : "def", "@",
                      ref.pos);
    }
    absl::StrAppend(&out, "\n");
  }
  return out;
}

}  // namespace regalloc
