#include "lsra/resolve.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "base/warm_buffers.h"
#include "ssa/cfg.h"
#include "ssa/lower_params.h"
#include "ssa/parallel_copy.h"
#include "ssa/printer.h"

namespace regalloc {

// What an LsraResolver keeps between functions.
struct LsraResolver::Buffers {
  struct Holder {
    uint32_t boundary;  // the row
    Value value;
    PReg reg;
  };
  struct EdgeValue {
    Value value;
    Location src, dst;
  };
  struct RegOwner {
    uint32_t stamp = 0;
    uint32_t index = 0;  // in edge_values
  };
  // An edge's copy: its moves, moves[first, first + count) of a flat array.
  // An edge's moves in `edge_moves`: [first, first + count), of which the last
  // `params` move its arguments into the target's parameters.
  struct EdgeCopy {
    Edge edge;
    uint32_t first = 0, count = 0, params = 0;
  };
  CompressedRows<Holder> holders;
  std::vector<uint32_t> order_index, query;
  // IndexHolders' spans: a value held in a register over boundaries
  // [first, last) of `query`.
  struct HeldSpan {
    uint32_t first, last;
    Value value;
    PReg reg;
  };
  std::vector<HeldSpan> held;
  std::vector<EdgeValue> edge_values;
  std::vector<RegOwner> reg_owner;
  std::vector<uint8_t> stored, block_start;
  std::vector<uint32_t> piece_hint;  // Resolver::At's, per value
  std::vector<std::pair<uint32_t, uint32_t>> splits;
  // Rematerialization (LsraResolveOptions::remat): per value, the const
  // defining it; per split, where the register piece it starts is made
  // again instead of reloaded, the end of that piece's reads (0: reloaded).
  std::vector<Inst> const_def;
  std::vector<uint32_t> remat_until;
  std::vector<uint8_t> slot_read;  // per value: its slot read (EraseUnreadConstantStores)
  // The twins (remat): per constant, the block of its const and, where it may
  // have one, its twin (invalid until made; kNoTwin where it may not).
  std::vector<Block> const_block;
  std::vector<Value> twin;
  std::vector<uint8_t> edge_reloaded;    // per value: reloaded on some edge (it gets a twin)
  std::vector<uint8_t> edge_made_again;  // per edge move: a reload made again instead
  std::vector<CopyMove> kept;            // an edge's moves but those made again
  std::vector<EdgeCopy> edges;
  std::vector<CopyMove> edge_moves, moves;
  std::vector<Inst> insts, out, emitted;
  std::vector<std::pair<Value, Location>> fixed_after;
  std::vector<Operand> ops;
  std::vector<Value> defined;
  absl::flat_hash_set<std::pair<uint32_t, int>> to_split;  // (branch, target)
};

LsraResolver::LsraResolver() : buf_(std::make_unique<Buffers>()) {}
LsraResolver::~LsraResolver() = default;

namespace {

class Resolver {
 public:
  Resolver(const Target& t, Function& f, const LsraBuild& b, LsraAllocation& a, const LsraResolveOptions& options,
           LsraResolver::Buffers& buf, LsraBuild* release)
      : holders_(buf.holders), order_index_(buf.order_index), edge_values_(buf.edge_values),
        reg_owner_(buf.reg_owner), t_(t), f_(f), b_(b), a_(a), options_(options), buf_(buf), stored_(buf.stored),
        splits_(buf.splits), remat_until_(buf.remat_until), const_def_(buf.const_def), piece_hint_(buf.piece_hint),
        release_(release) {}
  absl::StatusOr<LsraResolveStats> Run();

 private:
  // LsraAllocation::At from the piece the last query of v found: resolution
  // asks about a value at increasing positions, mostly (a stack value's
  // pieces at a million instructions number dozens, and a search per live
  // value and edge cost a few percent there).
  Location At(Value v, uint32_t pos) {
    return v.index() < piece_hint_.size() ? a_.At(v, pos, piece_hint_[v.index()]) : a_.At(v, pos);
  }
  absl::Status Bug(Block b, Inst i, absl::string_view what) const {
    return absl::InternalError(absl::StrCat("function %", f_.name(), ", ", f_.BlockName(b), " `", PrintInst(f_, i, t_),
                                            "`: ", what, " (an lsra_allocate bug)"));
  }
  // Adds `src -> dst` for `v` (named `dst_value` afterwards) unless it is a
  // no-op: the same place, or a store of a value to its slot, which the store
  // right after its definition keeps valid (`def_store` is that store). Moves
  // before `first` belong to other copies.
  void Add(std::vector<CopyMove>& moves, Location src, Location dst, Value v, Value dst_value, Type type,
           bool def_store = false, size_t first = 0) {
    if (src == dst && !dst_value.IsValid()) return;
    if (!def_store && !dst_value.IsValid() && dst.IsStack() && v.index() < stored_.size() && stored_[v.index()] &&
        dst == Location::Stack(a_.SlotOf(v, f_))) {
      return;
    }
    for (size_t k = first; k < moves.size(); ++k) {
      const CopyMove& m = moves[k];
      if (m.dst == dst && m.value == v && m.dst_value == dst_value) return;
    }
    moves.push_back(CopyMove{src, dst, v, dst_value, type});
  }
  absl::Status Emit(absl::Span<const CopyMove> moves, std::vector<Inst>& out, int& counter);
  // Does `w` share `v`'s register as its copy (Subzero's overlap)? Then w's
  // every location holds v too: the copy wrote both, and moves keep both.
  bool CopyOf(Value w, Value v) const {
    absl::Span<const RefPosition> refs = b_.Refs(w);
    if (refs.empty() || refs.front().kind != RefKind::kDef) return false;
    const Inst i = b_.InstAt(refs.front().pos);
    if (!i.IsValid()) return false;
    const Operand* src = f_.UseOperand(i, 0);
    return f_.inst(i).opcode == Opcode::kCopy && src != nullptr && src->value() == v;
  }
  // The register contents at every block boundary, from the pieces in
  // registers: row 2k holds the values in registers at the start of the k-th
  // block in order, row 2k + 1 those at its end, sorted by value. A register
  // holds one value at a time (two for a copy sharing its source's), so this
  // costs a register's worth per boundary, where looking up every live value
  // costs as many as are live (at a million instructions, 44 per instruction).
  using Holder = LsraResolver::Buffers::Holder;
  void IndexHolders();
  CompressedRows<Holder>& holders_;
  std::vector<uint32_t>& order_index_;  // per block, its index in b_.order()
  // The moves of the values live into `e.to` whose location differs at the two
  // ends. Only a value in a register at one end or the other can move: on the
  // stack at both, it is in its one slot. Where two of them start in one
  // register (a copy and its source), only the copy moves, since its location
  // holds both.
  // Appends them to `moves`.
  absl::Status EdgeMoves(const Edge& e, std::vector<CopyMove>& moves);
  using EdgeValue = LsraResolver::Buffers::EdgeValue;
  using RegOwner = LsraResolver::Buffers::RegOwner;
  std::vector<EdgeValue>& edge_values_;
  std::vector<RegOwner>& reg_owner_;
  uint32_t edge_stamp_ = 0;
  absl::Status ResolveBlock(Block b);
  // After rematerialization: the stores of constants whose slots nothing
  // reads any more (an operand or a move-like reading the slot) go; their
  // slots stay unused.
  void EraseUnreadConstantStores();
  // Rematerialization. A reload of a constant at a split inside a block
  // becomes the constant made again (`v40 = const.i32 5`) into a new value
  // that the piece's reads in the block then name, where nothing else reads
  // the register for the constant: the piece ends in the block and goes to
  // the stack or dies (not to another register), or reaches the block's end
  // where the value is dead or expected in its slot by every successor it
  // lives into. Likewise a Fixed use read from the slot. (A reload on an
  // edge is made again only as a twin, below: the successor's reads name
  // the value.)
  // RematUntil answers for split (gap, v) in `block`: the position before
  // which the piece's reads name the new value, or 0.
  uint32_t RematUntil(Value v, uint32_t gap, Block block);
  bool Remat(Value v) const { return v.index() < const_def_.size() && const_def_[v.index()].IsValid(); }
  // A constant some edge would reload has a twin: outside the block of its
  // const, the constant in a register is a value of its own that the
  // constant made again defines (where the constant would be reloaded),
  // that moves as the constant would, and that the reads of those registers
  // name: so a reload on an edge is made again too, into a join as well,
  // where every predecessor defines or moves the twin there. The constant
  // keeps its name in its block and in its slot; where it leaves its block
  // in a register, the edge's copy names the twin there (free where the
  // register stays). A constant some `copy` reads has none (an overlapping
  // copy's register holds the copy and its source); nor has one no edge
  // reloads (its reloads are made again in their blocks, and the renames
  // would be instructions for nothing).
  // TwinIn is the twin of `v` for reads of registers in block `b`, or none.
  bool HasTwinIn(Value v, Block b) const {
    return Remat(v) && buf_.const_block[v.index()] != b && buf_.twin[v.index()] != kNoTwin;
  }
  Value TwinIn(Value v, Block b) {
    if (!HasTwinIn(v, b)) return Value();
    Value& w = buf_.twin[v.index()];
    if (!w.IsValid()) w = f_.NewValue(f_.value_type(v));
    return w;
  }
  static constexpr Value kNoTwin = Value(0x7ffffffe);
  // `w` (v's twin or a value made again for v) made again into `reg` after
  // the current gap's copy, once.
  void MakeTwinAgain(Value v, Value w, PReg reg) {
    for (const Renamed& r : made_again_) {
      if (r.reg == reg && r.to == w) return;
    }
    made_again_.push_back(Renamed{reg, v, w, 0});
  }
  // The value made again in place of `v` that a read at `pos` of `l` names,
  // or none.
  Value RenamedAt(Location l, Value v, uint32_t pos) const {
    if (!l.IsReg()) return Value();
    for (const Renamed& r : renamed_) {
      if (r.reg == l.reg() && r.from == v && pos < r.until) return r.to;
    }
    return Value();
  }
  // A new value for the constant `v` made again into `reg` before the
  // instruction being resolved, read up to `until`.
  Value MakeAgain(Value v, PReg reg, uint32_t until) {
    const Value w = f_.NewValue(f_.value_type(v));
    renamed_.push_back(Renamed{reg, v, w, until});
    made_again_.push_back(renamed_.back());
    return w;
  }
  struct Renamed {
    PReg reg;
    Value from, to;
    uint32_t until;
  };
  // `to[at] = const`, the constant `from` made again (at a register), appended.
  void EmitMadeAgain(Value from, Value to, Location at, std::vector<Inst>& out) {
    out.push_back(MakeConstAgain(f_, const_def_[from.index()], Operand::Def(to).WithLocation(at)));
    used_ |= t_.Aliases(at.reg());
    ++stats_.remats;
  }
  std::vector<Renamed> renamed_;     // this block's, so far
  std::vector<Renamed> made_again_;  // the current gap's, emitted after its parallel copy

  const Target& t_;
  Function& f_;
  const LsraBuild& b_;
  LsraAllocation& a_;
  const LsraResolveOptions& options_;
  LsraResolver::Buffers& buf_;
  LsraResolveStats stats_;
  RegSet used_;
  // Values with a stack slot: stored once, right after their definition (SSA:
  // the slot then holds the value wherever it is live; Wimmer's spill at def).
  std::vector<uint8_t>& stored_;
  // (gap, value): a piece of the value starts at a gap inside a block, sorted.
  std::vector<std::pair<uint32_t, uint32_t>>& splits_;
  std::vector<uint32_t>& remat_until_;  // per split
  std::vector<Inst>& const_def_;        // per value
  std::vector<uint32_t>& piece_hint_;  // per value: the piece At found last
  // The first split at or after the gap last asked about: blocks are resolved
  // in position order, so the gaps only grow.
  size_t next_split_ = 0;
  LsraBuild* release_;  // b_, given back before a large function grows (LsraResolver::Run)
};

absl::Status Resolver::Emit(absl::Span<const CopyMove> moves, std::vector<Inst>& out, int& counter) {
  RA_ASSIGN_OR_RETURN(EmittedCopy e, EmitParallelCopy(f_, t_, moves, out));
  counter += e.moves;
  stats_.stack_temps += e.stack_temps;
  used_ |= e.regs;
  return absl::OkStatus();
}

void Resolver::IndexHolders() {
  const std::vector<Block>& order = b_.order();
  order_index_.assign(f_.num_blocks(), 0);
  std::vector<uint32_t>& query = buf_.query;
  query.assign(2 * order.size(), 0);
  for (size_t k = 0; k < order.size(); ++k) {
    order_index_[order[k].index()] = static_cast<uint32_t>(k);
    query[2 * k] = b_.BlockFrom(order[k]);
    query[2 * k + 1] = b_.BlockTo(order[k]) - 1;
  }
  // Where the value is live in a piece in a register, it is held at the
  // boundaries in between (only where it is live: a piece's span also has
  // holes, where the register holds others). Value by value, so that each
  // boundary's row is sorted by value; the rows are counted from the spans
  // first, then filled (a span covers many boundaries: the spans take far
  // less room than a list of every holder to group).
  std::vector<LsraResolver::Buffers::HeldSpan>& held = buf_.held;
  held.clear();
  holders_.StartCounting(query.size());
  for (int v = 0; v < b_.num_values(); ++v) {
    absl::Span<const LsraRange> rs = b_.Ranges(Value(v));
    auto r = rs.begin();
    for (const LsraChild& c : a_.PiecesOf(Value(v))) {
      while (r != rs.end() && r->to <= c.from) ++r;
      if (!c.loc.IsReg()) continue;
      for (auto x = r; x != rs.end() && x->from < c.to; ++x) {
        auto lo = std::lower_bound(query.begin(), query.end(), std::max(x->from, c.from));
        auto hi = std::lower_bound(lo, query.end(), std::min(x->to, c.to));
        if (lo == hi) continue;
        const uint32_t first = static_cast<uint32_t>(lo - query.begin()), last = static_cast<uint32_t>(hi - query.begin());
        held.push_back({first, last, Value(v), c.loc.reg()});
        for (uint32_t q = first; q < last; ++q) holders_.Count(q);
      }
    }
  }
  holders_.StartFilling();
  for (const LsraResolver::Buffers::HeldSpan& s : held) {
    for (uint32_t q = s.first; q < s.last; ++q) holders_.Place(q, Holder{q, s.value, s.reg});
  }
}

absl::Status Resolver::EdgeMoves(const Edge& e, std::vector<CopyMove>& moves) {
  const uint32_t end = b_.BlockTo(e.from) - 1, start = b_.BlockFrom(e.to);
  absl::Span<const Holder> at_end = holders_.Row(2 * order_index_[e.from.index()] + 1);
  absl::Span<const Holder> at_start = holders_.Row(2 * order_index_[e.to.index()]);
  edge_values_.clear();
  ++edge_stamp_;
  // Both lists by value, merged; of those, the values live into e.to.
  size_t i = 0, j = 0;
  while (i < at_end.size() || j < at_start.size()) {
    Value v = j == at_start.size() || (i < at_end.size() && at_end[i].value < at_start[j].value) ? at_end[i].value
                                                                                                  : at_start[j].value;
    bool in_end = i < at_end.size() && at_end[i].value == v, in_start = j < at_start.size() && at_start[j].value == v;
    Location src = in_end ? Location::Reg(at_end[i].reg) : Location(), dst = in_start ? Location::Reg(at_start[j].reg) : Location();
    i += in_end;
    j += in_start;
    if (!b_.LiveInto(v, e.to)) continue;
    if (src.IsNone()) src = At(v, end);
    if (dst.IsNone()) dst = At(v, start);
    if (dst.IsReg()) {
      RegOwner& o = reg_owner_[dst.reg().index()];
      if (o.stamp == edge_stamp_) {
        EdgeValue& other = edge_values_[o.index];
        if (CopyOf(v, other.value)) {
          other = EdgeValue{v, src, dst};
        } else if (!CopyOf(other.value, v)) {
          return absl::InternalError(absl::StrCat("function %", f_.name(), ", edge ", f_.BlockName(e.from), " -> ",
                                                  f_.BlockName(e.to), ": ", f_.ValueName(other.value), " and ", f_.ValueName(v),
                                                  " both start in %", t_.RegName(dst.reg()),
                                                  " (an lsra_allocate bug)"));
        }
        continue;
      }
      o = RegOwner{edge_stamp_, static_cast<uint32_t>(edge_values_.size())};
    }
    edge_values_.push_back(EdgeValue{v, src, dst});
  }
  // One move per value: none repeats another (Add looks at none). A constant
  // leaving its block in a register it keeps may become its twin there: a
  // rename in place, kept as a move that moves nothing until Run knows
  // whether the constant has a twin.
  for (const EdgeValue& x : edge_values_) {
    if (x.src == x.dst && x.dst.IsReg() && HasTwinIn(x.value, e.to) && buf_.const_block[x.value.index()] == e.from) {
      moves.push_back(CopyMove{x.src, x.dst, x.value, Value(), f_.value_type(x.value)});
      continue;
    }
    Add(moves, x.src, x.dst, x.value, Value(), f_.value_type(x.value), /*def_store=*/false, moves.size());
  }
  return absl::OkStatus();
}

uint32_t Resolver::RematUntil(Value v, uint32_t gap, Block block) {
  const uint32_t block_to = b_.BlockTo(block);
  if (!Remat(v) || !At(v, gap - 1).IsStack() || !At(v, gap).IsReg()) return 0;
  absl::Span<const LsraChild> pieces = a_.PiecesOf(v);
  auto c = std::upper_bound(pieces.begin(), pieces.end(), gap, [](uint32_t p, const LsraChild& x) { return p < x.from; });
  if (c == pieces.begin()) return 0;
  const uint32_t end = std::prev(c)->to;
  if (end >= block_to) {
    // Live on past the block: each successor it lives into must expect it in
    // its slot (the edge then moves nothing: the slot holds it already).
    if (b_.Covers(v, block_to - 1)) {
      const ControlFlowGraph& cfg = b_.analyses().cfg;
      for (const Edge& e : cfg.succs(block)) {
        if (b_.LiveInto(v, e.to) && !At(v, b_.BlockFrom(e.to)).IsStack()) return 0;
      }
    }
    return block_to;
  }
  // Where the value lives on past the piece, it goes to its slot (the
  // store after its definition already did that: nothing reads the register).
  if (b_.Covers(v, end) && b_.Covers(v, end - 1) && !At(v, end).IsStack()) return 0;
  return end;
}

void Resolver::EraseUnreadConstantStores() {
  std::vector<uint8_t>& read = buf_.slot_read;
  read.assign(f_.num_values(), 0);
  for (Block b : f_.layout()) {
    for (Inst i : f_.block(b).insts) {
      if (f_.inst(i).opcode == Opcode::kSpill) continue;  // reads its register
      for (const Operand& op : f_.operands(i)) {
        if (op.IsUse() && op.location().IsStack()) read[op.value().index()] = 1;
      }
    }
  }
  for (Block b : f_.layout()) {
    std::vector<Inst>& insts = f_.block(b).insts;
    insts.erase(std::remove_if(insts.begin(), insts.end(),
                               [&](Inst i) {
                                 if (f_.inst(i).opcode != Opcode::kSpill) return false;
                                 const Value v = f_.operands(i)[0].value();
                                 if (!Remat(v) || read[v.index()]) return false;
                                 ++stats_.dead_stores;
                                 return true;
                               }),
                insts.end());
  }
}

absl::Status Resolver::ResolveBlock(Block b) {
  std::vector<Inst>& insts = buf_.insts;
  insts = f_.block(b).insts;
  std::vector<Inst>& out = buf_.out;
  out.clear();
  renamed_.clear();
  uint32_t from = b_.BlockFrom(b);
  // Where each value is right before the gap copy: after the previous
  // instruction's defs (its Fixed defs still in their registers).
  std::vector<std::pair<Value, Location>>& fixed_after = buf_.fixed_after;  // defs of the previous instruction
  fixed_after.clear();
  auto before = [&](Value v, uint32_t gap) -> Location {
    for (const auto& [fv, fl] : fixed_after) {
      if (fv == v) return fl;
    }
    return gap == from ? At(v, gap) : At(v, gap - 1);
  };
  // Parameters: the entry's arrive where the ABI puts them; the others are
  // wherever their pieces start.
  for (Operand& p : f_.block(b).params) {
    Location l = At(p.value(), from);
    if (b == f_.entry() && p.constraint() == ConstraintKind::kFixed) {
      fixed_after.push_back({p.value(), Location::Reg(p.fixed_reg())});
      l = Location::Reg(p.fixed_reg());
    } else if (b == f_.entry() && p.constraint() == ConstraintKind::kStack) {
      l = Location::Stack(a_.SlotOf(p.value(), f_));
      fixed_after.push_back({p.value(), l});
    }
    if (l.IsNone()) l = Location::Stack(a_.SlotOf(p.value(), f_));  // a dead parameter
    p.set_location(l);
    // A parameter arriving in a callee-saved register takes it from its entry
    // value: the frame saves it, as every register an operand names (a fixed
    // parameter is the entry's, in its register: the verifier refuses others).
    if (l.IsReg()) used_ |= t_.Aliases(l.reg());
  }
  std::vector<Operand>& ops = buf_.ops;
  std::vector<CopyMove>& moves = buf_.moves;
  // What the previous instruction defined (at the block's start: its parameters
  // that are not already in their slots).
  std::vector<Value>& defined = buf_.defined;
  defined.clear();
  for (const Operand& p : f_.block(b).params) {
    if (!p.location().IsStack()) defined.push_back(p.value());
  }
  for (size_t j = 0; j < insts.size(); ++j) {
    Inst i = insts[j];
    uint32_t early = b_.Pos(i, kLsraEarly), gap = early - 1;
    moves.clear();
    made_again_.clear();
    // Pieces meeting at the gap, and the previous instruction's fixed defs.
    for (const auto& [v, l] : fixed_after) {
      Location dst = At(v, gap);
      if (!dst.IsNone()) Add(moves, l, dst, v, Value(), f_.value_type(v));  // none: dead
    }
    for (Value v : defined) {
      if (stored_[v.index()] && !At(v, gap).IsNone()) {
        Add(moves, before(v, gap), Location::Stack(a_.SlotOf(v, f_)), v, Value(), f_.value_type(v),
            /*def_store=*/true);
      }
    }
    ops.assign(f_.operands(i).begin(), f_.operands(i).end());
    // Values whose pieces change at this gap.
    if (j > 0) {
      while (next_split_ < splits_.size() && splits_[next_split_].first < gap) ++next_split_;
      for (size_t k = next_split_; k < splits_.size() && splits_[k].first == gap; ++k) {
        Value v(splits_[k].second);
        if (Value w = TwinIn(v, b); w.IsValid()) {
          const Location src = before(v, gap), dst = At(v, gap);
          if (dst.IsReg() && src.IsStack()) {
            MakeTwinAgain(v, w, dst.reg());
          } else if (dst.IsReg()) {
            Add(moves, src, dst, w, Value(), f_.value_type(v));
          }  // (into its slot: the slot holds the constant already)
          continue;
        }
        if (remat_until_[k] != 0) {
          MakeAgain(v, At(v, gap).reg(), remat_until_[k]);
        } else {
          Add(moves, before(v, gap), At(v, gap), v, Value(), f_.value_type(v));
        }
      }
    }
    // Uses: where their pieces are, or a copy into the fixed register / slot.
    for (Operand& op : ops) {
      if (!op.IsUse()) continue;
      Value v = op.value();
      uint32_t p = early + LsraUseSlot(ops, static_cast<size_t>(&op - ops.data()));
      Location l = At(v, p);
      if (l.IsNone()) return Bug(b, i, absl::StrCat(f_.ValueName(v), " has no location"));
      switch (op.constraint()) {
        case ConstraintKind::kFixed: {
          const Location fixed = Location::Reg(op.fixed_reg()), src = before(v, gap);
          l = fixed;
          if (Value w = TwinIn(v, b); w.IsValid()) {
            if (src.IsStack()) {
              MakeTwinAgain(v, w, op.fixed_reg());
            } else {
              Add(moves, src, fixed, w, Value(), f_.value_type(v));
            }
            op.set_value(w);
          } else if (Value w = RenamedAt(fixed, v, p); w.IsValid()) {
            op.set_value(w);  // made again there already
          } else if (Value w = RenamedAt(src, v, gap - 1); w.IsValid()) {  // read before the gap
            Add(moves, src, fixed, w, Value(), f_.value_type(v));
            op.set_value(w);
          } else if (options_.remat && src.IsStack() && Remat(v)) {
            op.set_value(MakeAgain(v, op.fixed_reg(), early + kLsraGap));  // for this instruction's reads
          } else {
            Add(moves, src, fixed, v, Value(), f_.value_type(v));
          }
          break;
        }
        case ConstraintKind::kStack:
          if (!l.IsStack()) {
            Location slot = Location::Stack(a_.SlotOf(v, f_));
            Add(moves, before(v, gap), slot, v, Value(), f_.value_type(v));
            l = slot;
          }
          break;
        case ConstraintKind::kReg:
        case ConstraintKind::kReuse:
          // Branch arguments may be anywhere (the edge's parallel copy reads them);
          // a br's condition may not.
          if (static_cast<size_t>(&op - ops.data()) < f_.NumNonArgOperands(i) && !l.IsReg()) {
            return Bug(b, i, absl::StrCat(f_.ValueName(v), " needs a register, is in ", PrintLocation(l, t_)));
          }
          break;
        case ConstraintKind::kAny:
          break;
      }
      if (op.constraint() != ConstraintKind::kFixed && l.IsReg()) {
        if (Value w = TwinIn(v, b); w.IsValid()) {
          op.set_value(w);
        } else if (Value w = RenamedAt(l, v, p); w.IsValid()) {
          op.set_value(w);
        }
      }
      op.set_location(l);
    }
    RA_RETURN_IF_ERROR(Emit(moves, out, stats_.gap_moves));
    // After the copy, as a reload would be (the last of it): its reads of
    // these registers are done.
    for (const Renamed& r : made_again_) EmitMadeAgain(r.from, r.to, Location::Reg(r.reg), out);
    // Defs.
    fixed_after.clear();
    defined.clear();
    for (Operand& op : ops) {
      if (!op.IsDef()) continue;
      Value v = op.value();
      defined.push_back(v);
      uint32_t p = op.position() == Position::kEarly ? early : early + kLsraLate;
      Location l = At(v, p);
      // A def reusing a use fixed to R is fixed to R (as lsra_build counts it).
      const Operand* fixed_src =
          op.constraint() == ConstraintKind::kReuse ? f_.UseOperand(i, op.reuse_index()) : nullptr;
      if (fixed_src != nullptr && fixed_src->constraint() != ConstraintKind::kFixed) fixed_src = nullptr;
      if (op.constraint() == ConstraintKind::kFixed || fixed_src != nullptr) {
        l = Location::Reg(fixed_src != nullptr ? fixed_src->fixed_reg() : op.fixed_reg());
        fixed_after.push_back({v, l});
      } else if (op.constraint() == ConstraintKind::kReuse) {
        const Operand* src = nullptr;
        int k = op.reuse_index();
        for (const Operand& o : ops) {
          if (o.IsUse() && k-- == 0) src = &o;
        }
        if (src == nullptr || src->location() != l) {
          return Bug(b, i, absl::StrCat(f_.ValueName(v), " is not in its reuse source's register"));
        }
      } else if (op.constraint() == ConstraintKind::kStack) {
        // Written to its slot; the gap after takes it to its piece if that
        // is a register (as an entry parameter passed on the stack).
        l = Location::Stack(a_.SlotOf(v, f_));
        fixed_after.push_back({v, l});
      } else if (op.constraint() == ConstraintKind::kReg && !l.IsReg()) {
        return Bug(b, i, absl::StrCat("def ", f_.ValueName(v), " needs a register"));
      }
      if (l.IsNone()) return Bug(b, i, absl::StrCat("def ", f_.ValueName(v), " has no location"));
      op.set_location(l);
    }
    for (const Operand& op : ops) {
      if (op.location().IsReg()) used_ |= t_.Aliases(op.location().reg());
    }
    f_.SetOperands(i, ops);
    out.push_back(i);
  }
  f_.block(b).insts.assign(out.begin(), out.end());
  return absl::OkStatus();
}

absl::StatusOr<LsraResolveStats> Resolver::Run() {
  const ControlFlowGraph& cfg = b_.analyses().cfg;  // the function's blocks are the build's
  stored_.assign(f_.num_values(), 0);
  piece_hint_.assign(b_.num_values(), 0);
  splits_.clear();
  reg_owner_.assign(t_.num_regs(), RegOwner());  // stamps count from 0 again
  for (int v = 0; v < b_.num_values(); ++v) {
    if (!b_.HasInterval(Value(v))) continue;
    for (const LsraChild& c : a_.PiecesOf(Value(v))) stored_[v] |= c.loc.IsStack();
    for (const RefPosition& r : b_.Refs(Value(v))) stored_[v] |= r.need == RefNeed::kStack;
  }
  const_def_.clear();
  buf_.const_block.clear();
  buf_.twin.clear();
  if (options_.remat) {
    ConstDefs(f_, const_def_);
    buf_.const_block.assign(f_.num_values(), Block());
    buf_.twin.assign(f_.num_values(), Value());
    for (Block b : f_.layout()) {
      for (Inst i : f_.block(b).insts) {
        const InstData& d = f_.inst(i);
        absl::Span<const Operand> ops = f_.operands(i);
        if (d.opcode == Opcode::kConst && const_def_[ops[0].value().index()] == i) {
          buf_.const_block[ops[0].value().index()] = b;
        } else if (d.opcode == Opcode::kCopy && ops.size() == 2 && ops[1].IsUse()) {
          buf_.twin[ops[1].value().index()] = kNoTwin;
        }
      }
    }
  }
  // Edge copies are computed on the positions before any block changes.
  using EdgeCopy = LsraResolver::Buffers::EdgeCopy;
  std::vector<EdgeCopy>& edges = buf_.edges;
  edges.clear();
  std::vector<CopyMove>& edge_moves = buf_.edge_moves;
  edge_moves.clear();
  IndexHolders();
  size_t param_moves = 0;
  for (Block b : b_.order()) {
    for (const Edge& e : cfg.succs(b)) {
      EdgeCopy ec{e, static_cast<uint32_t>(edge_moves.size()), 0, 0};
      RA_RETURN_IF_ERROR(EdgeMoves(e, edge_moves));
      // Room for the parameters' moves, filled once the operands have their
      // locations (below).
      ec.params = static_cast<uint32_t>(
          std::min(f_.BranchArgs(e.branch, e.target).size(), f_.block(e.to).params.size()));
      edge_moves.resize(edge_moves.size() + ec.params);
      param_moves += ec.params;
      ec.count = static_cast<uint32_t>(edge_moves.size() - ec.first);
      edges.push_back(ec);
    }
  }
  // The holders serve the edges only: after a large function they go before
  // the function grows (base/warm_buffers.h).
  if (f_.num_insts() > kWarmBufferInsts) {
    holders_ = CompressedRows<LsraResolver::Buffers::Holder>();
    std::vector<LsraResolver::Buffers::HeldSpan>().swap(buf_.held);
    std::vector<uint32_t>().swap(buf_.query);
  }
  std::vector<uint8_t>& block_start = buf_.block_start;
  block_start.assign(b_.BlockTo(b_.order().back()) + 1, 0);
  for (Block b : b_.order()) block_start[b_.BlockFrom(b)] = 1;
  for (int v = 0; v < b_.num_values(); ++v) {
    if (!b_.HasInterval(Value(v))) continue;
    for (const LsraChild& c : a_.PiecesOf(Value(v))) {
      uint32_t g = c.from;
      // Only where the value is live across the gap: a piece may start in a hole.
      if (g % 4 == 3 && g > b_.Ranges(Value(v)).front().from && !block_start[g] && b_.Covers(Value(v), g) &&
          b_.Covers(Value(v), g - 1)) {
        splits_.push_back({g, v});
      }
    }
  }
  std::sort(splits_.begin(), splits_.end());
  next_split_ = 0;
  // A twin only for the constants some edge reloads (elsewhere a reload of
  // a constant is made again under a new name of its own, in its block).
  if (options_.remat) {
    std::vector<uint8_t>& wanted = buf_.edge_reloaded;
    wanted.assign(f_.num_values(), 0);
    for (const CopyMove& m : edge_moves) {
      if (m.src.IsStack() && m.dst.IsReg() && !m.dst_value.IsValid() && Remat(m.value)) wanted[m.value.index()] = 1;
    }
    for (size_t v = 0; v < buf_.twin.size(); ++v) {
      if (!wanted[v]) buf_.twin[v] = kNoTwin;
    }
  }
  remat_until_.assign(splits_.size(), 0);
  if (options_.remat) {
    // Blocks are numbered in order: the split's block is found walking both.
    const std::vector<Block>& order = b_.order();
    size_t k = 0;
    for (size_t s = 0; s < splits_.size(); ++s) {
      const auto [gap, v] = splits_[s];
      while (b_.BlockTo(order[k]) <= gap) ++k;
      if (!HasTwinIn(Value(v), order[k])) remat_until_[s] = RematUntil(Value(v), gap, order[k]);
    }
  }
  // The instructions resolution will add, about: a move per split, a store per
  // spilled value, a move per fixed reference (not per clobber: a call kills
  // some 25 registers and moves nothing), the edges' moves (and parameters).
  {
    size_t extra = splits_.size() + static_cast<size_t>(std::count(stored_.begin(), stored_.end(), 1));
    for (int r = 0; r < t_.num_regs(); ++r) {
      for (const RefPosition& ref : b_.RegRefs(PReg(r))) extra += ref.kind != RefKind::kKill;
    }
    extra += edge_moves.size() - param_moves + edges.size();
    // The intervals were read for the last time above.
    if (release_ != nullptr && f_.num_insts() > kWarmBufferInsts) release_->ReleaseIntervals();
    f_.ReserveInsts(extra, 2 * extra);
  }

  for (Block b : b_.order()) RA_RETURN_IF_ERROR(ResolveBlock(b));
  // Parameters: from their arguments' locations (now written) to theirs, after
  // each edge's live values.
  for (const EdgeCopy& ec : edges) {
    absl::Span<const Operand> args = f_.BranchArgs(ec.edge.branch, ec.edge.target);
    const std::vector<Operand>& params = f_.block(ec.edge.to).params;
    CopyMove* m = edge_moves.data() + ec.first + ec.count - ec.params;
    for (size_t k = 0; k < ec.params; ++k) {
      m[k] = CopyMove{args[k].location(), params[k].location(), args[k].value(), params[k].value(),
                      f_.value_type(params[k].value())};
    }
  }
  // The constants' twins on the edges (none into a constant's own block,
  // which it never lives into): a reload is made again when the copy is
  // emitted (kept here for the split decision below, flag 1); out of the
  // constant's block its register becomes the twin's (where it stays, the
  // rename in place EdgeMoves kept; flag 2: dropped, for a constant with no
  // twin).
  std::vector<uint8_t>& edge_made_again = buf_.edge_made_again;
  edge_made_again.assign(edge_moves.size(), 0);
  for (const EdgeCopy& ec : edges) {
    for (uint32_t k = ec.first; k < ec.first + ec.count - ec.params; ++k) {
      CopyMove& m = edge_moves[k];
      if (m.dst_value.IsValid() || !m.dst.IsReg()) continue;
      const Value w = TwinIn(m.value, ec.edge.to);
      if (!w.IsValid()) {
        if (m.src == m.dst) edge_made_again[k] = 2;  // a rename in place for no twin
        continue;
      }
      if (m.src.IsStack()) {
        edge_made_again[k] = 1;
      } else if (buf_.const_block[m.value.index()] == ec.edge.from) {
        m.dst_value = w;
      } else {
        m.value = w;
      }
    }
  }
  auto moves_of = [&](const EdgeCopy& ec) { return absl::MakeConstSpan(edge_moves.data() + ec.first, ec.count); };
  // Critical edges with moves get a block of their own.
  auto moving = [&](const EdgeCopy& ec) {
    for (const CopyMove& m : moves_of(ec)) {
      if (m.src != m.dst) return true;
    }
    return false;
  };
  absl::flat_hash_set<std::pair<uint32_t, int>>& to_split = buf_.to_split;
  to_split.clear();
  for (const EdgeCopy& ec : edges) {
    if (cfg.IsCritical(ec.edge) && moving(ec)) to_split.insert({ec.edge.branch.index(), ec.edge.target});
  }
  if (!to_split.empty()) {
    stats_.edges_split =
        SplitCriticalEdges(f_, [&](const Edge& e) { return to_split.contains({e.branch.index(), e.target}); });
  }
  if (options_.dump) stats_.printed = absl::StrCat("lsra resolution of %", f_.name(), " (moves per edge)\n");
  for (const EdgeCopy& ec : options_.dump ? absl::MakeConstSpan(edges) : absl::Span<const EdgeCopy>()) {
    std::vector<std::string> parts;
    for (const CopyMove& m : moves_of(ec)) {
      if (m.src == m.dst) continue;
      parts.push_back(absl::StrCat(f_.ValueName(m.value), m.dst_value.IsValid() ? absl::StrCat("->", f_.ValueName(m.dst_value)) : "",
                                   " ", PrintLocation(m.src, t_), " -> ", PrintLocation(m.dst, t_)));
    }
    if (parts.empty()) continue;
    absl::StrAppend(&stats_.printed, "  ", f_.BlockName(ec.edge.from), " -> ", f_.BlockName(ec.edge.to),
                    cfg.IsCritical(ec.edge) ? " (critical, split)" : "", ": ", absl::StrJoin(parts, ", "), "\n");
  }
  for (const EdgeCopy& ec : edges) {
    if (ec.count == 0) continue;
    Block from = ec.edge.from;
    bool split = to_split.contains({ec.edge.branch.index(), ec.edge.target});
    if (split) from = f_.targets(ec.edge.branch)[ec.edge.target].block;
    std::vector<Inst>& emitted = buf_.emitted;
    emitted.clear();
    absl::Span<const CopyMove> moves = moves_of(ec);
    const auto first_made = edge_made_again.begin() + ec.first, end_made = first_made + ec.count;
    if (std::any_of(first_made, end_made, [](uint8_t x) { return x != 0; })) {
      std::vector<CopyMove>& kept = buf_.kept;
      kept.clear();
      for (uint32_t k = ec.first; k < ec.first + ec.count; ++k) {
        if (!edge_made_again[k]) kept.push_back(edge_moves[k]);
      }
      moves = kept;
    }
    RA_RETURN_IF_ERROR(Emit(moves, emitted, stats_.edge_moves));
    // After the copy, as reloads would be.
    for (uint32_t k = ec.first; k < ec.first + ec.count; ++k) {
      if (edge_made_again[k] != 1) continue;
      const CopyMove& m = edge_moves[k];
      EmitMadeAgain(m.value, buf_.twin[m.value.index()], m.dst, emitted);
    }
    if (emitted.empty()) continue;
    // Before the branch when the source has one successor (or on the split
    // block); else at the top of the target, which then has one predecessor. A
    // critical edge that only renames (no split) renames before the branch,
    // where it is harmless to the other successor.
    bool at_source = split || cfg.succs(ec.edge.from).size() == 1 || cfg.preds(ec.edge.to).size() > 1;
    if (at_source) {
      std::vector<Inst>& insts = f_.block(from).insts;
      insts.insert(insts.end() - 1, emitted.begin(), emitted.end());
    } else {
      std::vector<Inst>& insts = f_.block(ec.edge.to).insts;
      insts.insert(insts.begin(), emitted.begin(), emitted.end());
    }
  }
  if (stats_.remats > 0) EraseUnreadConstantStores();
  DropBlockParams(f_);
  f_.set_saved_regs(FrameSaves(f_, t_, used_));
  return stats_;
}

}  // namespace

absl::StatusOr<LsraResolveStats> ResolveLsra(const Target& target, Function& func, const LsraBuild& build,
                                             LsraAllocation& alloc, const LsraResolveOptions& options) {
  return LsraResolver().Run(target, func, build, alloc, options);
}

absl::StatusOr<LsraResolveStats> LsraResolver::Run(const Target& target, Function& func, const LsraBuild& build,
                                                   LsraAllocation& alloc, const LsraResolveOptions& options,
                                                   LsraBuild* release) {
  if (func.IsAllocated()) {
    return absl::FailedPreconditionError(absl::StrCat("function %", func.name(), ": lsra_resolve needs SSA form"));
  }
  if (release != nullptr && release != &build) {
    return absl::InvalidArgumentError(
        absl::StrCat("function %", func.name(), ": lsra_resolve can give back only the build it resolves"));
  }
  absl::StatusOr<LsraResolveStats> s = Resolver(target, func, build, alloc, options, *buf_, release).Run();
  ReleaseAfterLargeFunction(func.num_insts(), buf_);
  return s;
}

}  // namespace regalloc
