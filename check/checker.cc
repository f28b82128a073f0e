#include "check/checker.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "ssa/cfg.h"
#include "ssa/printer.h"

namespace regalloc {
namespace {

// A set of value ids, sorted. Ids from the function's num_values() up stand for
// "the entry value of register unit (id - num_values())".
using ValueSet = absl::InlinedVector<uint32_t, 2>;

bool Contains(const ValueSet& s, uint32_t v) { return std::binary_search(s.begin(), s.end(), v); }

void Insert(ValueSet& s, uint32_t v) {
  auto it = std::lower_bound(s.begin(), s.end(), v);
  if (it == s.end() || *it != v) s.insert(it, v);
}

void Erase(ValueSet& s, uint32_t v) {
  auto it = std::lower_bound(s.begin(), s.end(), v);
  if (it != s.end() && *it == v) s.erase(it);
}

uint64_t Pair(uint32_t value, uint32_t loc) { return (uint64_t{value} << 32) | loc; }
uint32_t PairValue(uint64_t p) { return static_cast<uint32_t>(p >> 32); }
uint32_t PairLoc(uint64_t p) { return static_cast<uint32_t>(p); }

// A sorted list of (value, location) pairs, packed: per pair, the value's
// distance from the previous pair's value and the location, as LEB128 varints
// (about 3 bytes a pair instead of 8). Block entry states are kept this way.
class PackedPairs {
 public:
  // Encodes in `scratch`, then copies: the list takes what it needs, not a
  // growing vector's slack.
  void Assign(absl::Span<const uint64_t> pairs, std::vector<uint8_t>& scratch) {
    scratch.clear();
    uint32_t prev = 0;
    for (uint64_t p : pairs) {
      Put(scratch, PairValue(p) - prev);
      Put(scratch, PairLoc(p));
      prev = PairValue(p);
    }
    bytes_.assign(scratch.begin(), scratch.end());
    size_ = pairs.size();
  }
  void Unpack(std::vector<uint64_t>* out) const {
    out->clear();
    out->reserve(size_);
    uint32_t value = 0;
    for (size_t at = 0; at < bytes_.size();) {
      value += Get(at);
      out->push_back(Pair(value, Get(at)));
    }
  }
  size_t size() const { return size_; }
  size_t bytes() const { return bytes_.size(); }
  void clear() {
    bytes_.clear();
    size_ = 0;
  }
  void Release() {
    std::vector<uint8_t>().swap(bytes_);
    size_ = 0;
  }

 private:
  static void Put(std::vector<uint8_t>& out, uint32_t x) {
    while (x >= 0x80) {
      out.push_back(static_cast<uint8_t>(x | 0x80));
      x >>= 7;
    }
    out.push_back(static_cast<uint8_t>(x));
  }
  uint32_t Get(size_t& at) const {
    uint32_t x = 0;
    for (int shift = 0;; shift += 7) {
      uint8_t b = bytes_[at++];
      x |= static_cast<uint32_t>(b & 0x7f) << shift;
      if (b < 0x80) return x;
    }
  }
  std::vector<uint8_t> bytes_;
  size_t size_ = 0;
};

}  // namespace

namespace checker_internal {

struct Buffers {
  // Liveness of the allocated function, per block id (reachable blocks only).
  std::vector<std::vector<uint32_t>> live_in;
  std::vector<std::vector<uint32_t>> gen;
  std::vector<std::vector<uint32_t>> kill;
  std::vector<uint32_t> mark;  // per value: == epoch when in the set being built
  std::vector<Location> pending_at;  // per value: where a read waits (liveness)
  uint32_t epoch = 0;
  std::vector<uint32_t> scratch;

  // Block entry states, packed; `unpacked` holds one while it is used.
  std::vector<PackedPairs> in;
  std::vector<uint64_t> unpacked;
  std::vector<uint8_t> packing;
  std::vector<uint8_t> reached;

  // The dense state of the block being walked. Locations: register units, then
  // stack slots. `where[v]` inverts `contents`, with stale entries (see SetLoc).
  std::vector<ValueSet> contents;
  std::vector<absl::InlinedVector<uint32_t, 2>> where;
  std::vector<uint32_t> touched_locs;
  std::vector<uint8_t> loc_touched;
  std::vector<uint32_t> loc_mark;  // per location: == loc_stamp when seen (Locations)
  uint32_t loc_stamp = 0;
  std::vector<uint32_t> touched_values;
  std::vector<uint8_t> value_touched;
  // Undo log of an edge's parameter writes: (location, its earlier contents).
  std::vector<std::pair<uint32_t, ValueSet>> undo;
  bool logging = false;

  std::vector<ValueSet> sources;
  std::vector<uint32_t> markers;  // the callee-saved units' entry markers, ascending
  std::vector<uint32_t> extract_values;
  std::vector<uint64_t> out;
  std::vector<uint8_t> pass;       // by RPO number: queued for this pass
  std::vector<uint8_t> next_pass;  // behind a back edge: for the next one
};

}  // namespace checker_internal

namespace {

using checker_internal::Buffers;

class Checker {
 public:
  Checker(const Function& func, const Target& target, Buffers& b, CheckStats& stats)
      : f_(func), t_(target), b_(b), stats_(stats), cfg_(func) {}
  absl::Status Run();

 private:
  std::string Where(Block b, int index, Inst i) const {
    return absl::StrCat("function %", f_.name(), ", ", f_.BlockName(b), ", inst ", index, " `",
                        PrintInst(f_, i, t_), "`");
  }
  std::string Loc(Location l) const { return PrintLocation(l, t_); }
  std::string Describe(const ValueSet& s) const {
    if (s.empty()) return "nothing";
    std::vector<std::string> names;
    for (uint32_t v : s) names.push_back(v >= num_values_ ? "an entry value" : absl::StrCat(f_.ValueName(Value(v))));
    return absl::StrJoin(names, ", ");
  }
  bool LocationExists(Location l) const {
    return (l.IsReg() && l.reg().index() < static_cast<uint32_t>(t_.num_regs())) ||
           (l.IsStack() && l.slot().index() < static_cast<uint32_t>(f_.num_stack_slots()));
  }
  // `where` names the instruction or block; built only for an error message.
  absl::Status CheckOperandStatic(const Operand& op, absl::Span<const Operand> ops,
                                  absl::FunctionRef<std::string()> where, int index, bool move_like = false);

  void ComputeLiveness();

  // The dense state.
  void Reset();
  void SetLoc(uint32_t l, const ValueSet& s);
  void TakeOutOf(uint32_t l, uint32_t v);
  void KillInstance(uint32_t v);
  // The locations holding `v` now (drops stale entries of `where[v]`).
  const absl::InlinedVector<uint32_t, 2>& Locations(uint32_t v);
  ValueSet Read(Location loc) const;
  void Write(Location loc, const ValueSet& s);
  void Load(const std::vector<uint64_t>& pairs);
  // The pairs of `values` (sorted, unique) in the dense state, into b_.out.
  void Extract(const std::vector<uint32_t>& values);
  void TouchValue(uint32_t v) {
    if (!b_.value_touched[v]) {
      b_.value_touched[v] = 1;
      b_.touched_values.push_back(v);
    }
  }

  // Applies one instruction; with `check`, reports the first violation.
  absl::Status Transfer(Block b, int index, Inst i, bool check);
  // The entry state `e` brings to its target, into b_.out.
  void TransferEdge(const Edge& e);
  // Meets b_.out into the entry state of `to`; true when it changed.
  bool Meet(Block to);
  absl::Status CheckReturn(Block b, int index, Inst i);

  const Function& f_;
  const Target& t_;
  Buffers& b_;
  CheckStats& stats_;
  ControlFlowGraph cfg_;
  uint32_t num_values_ = 0;
  uint32_t num_units_ = 0;
};

absl::Status Checker::CheckOperandStatic(const Operand& op, absl::Span<const Operand> ops,
                                         absl::FunctionRef<std::string()> where, int index, bool move_like) {
  auto name = [&] {
    return absl::StrCat(where(), ": ", op.IsDef() ? "def" : "use", " #", index, " (", f_.ValueName(op.value()), ")");
  };
  Location loc = op.location();
  Type type = f_.value_type(op.value());
  if (loc.IsNone()) return absl::InvalidArgumentError(absl::StrCat(name(), " has no location"));
  if (loc.IsReg()) {
    std::optional<RegClass> cls = t_.ClassFor(type);
    if (loc.reg().index() >= static_cast<uint32_t>(t_.num_regs()) || !cls.has_value() || !t_.InClass(loc.reg(), *cls)) {
      return absl::InvalidArgumentError(absl::StrCat(name(), " of type ", TypeName(type), " is in ", Loc(loc),
                                                     ", which is not an allocatable register of its class",
                                                     cls.has_value() ? absl::StrCat(" (", t_.Class(*cls).name, ")") : ""));
    }
  } else {
    if (loc.slot().index() >= static_cast<uint32_t>(f_.num_stack_slots())) {
      return absl::InvalidArgumentError(absl::StrCat(name(), " is in undeclared stack slot ", Loc(loc)));
    }
    if (f_.stack_slot(loc.slot()).size < TypeSize(type)) {
      return absl::InvalidArgumentError(absl::StrCat(name(), " of type ", TypeName(type), " is in ", Loc(loc), " of ",
                                                     f_.stack_slot(loc.slot()).size, " bytes, too small"));
    }
  }
  // Spills, reloads and moves are the allocator's own: where they read and write is
  // what the allocator chose, so only class and size above apply to them.
  if (move_like) return absl::OkStatus();
  switch (op.constraint()) {
    case ConstraintKind::kReg:
      if (!loc.IsReg()) return absl::InvalidArgumentError(absl::StrCat(name(), " needs a register, is in ", Loc(loc)));
      break;
    case ConstraintKind::kStack:
      if (!loc.IsStack()) return absl::InvalidArgumentError(absl::StrCat(name(), " needs a stack slot, is in ", Loc(loc)));
      break;
    case ConstraintKind::kFixed:
      if (loc != Location::Reg(op.fixed_reg())) {
        return absl::InvalidArgumentError(absl::StrCat(name(), " is fixed to %", t_.RegName(op.fixed_reg()), ", is in ",
                                                       Loc(loc)));
      }
      break;
    case ConstraintKind::kReuse: {
      const Operand* use = nullptr;
      int k = op.reuse_index();
      for (const Operand& o : ops) {
        if (o.IsUse() && k-- == 0) use = &o;
      }
      if (use == nullptr || !loc.IsReg() || use->location() != loc) {
        return absl::InvalidArgumentError(absl::StrCat(name(), " must reuse the register of use #", op.reuse_index(),
                                                       use != nullptr ? absl::StrCat(" (", Loc(use->location()), ")") : "",
                                                       ", is in ", Loc(loc)));
      }
      break;
    }
    case ConstraintKind::kAny:
      break;
  }
  return absl::OkStatus();
}

// Backward liveness over the allocated function as it is: a value is live where
// some path reads it before any def of it. Within a block a move-like def of v
// into L hides only the later reads of v at L (they read what it wrote); a read
// of v elsewhere still wants the instance the block started with (a
// sequentialized parallel copy reads a rotated parameter's old instance after
// writing its new one). Uses of an instruction are read before its defs (so an
// early def of a value a late use reads keeps it live). Where in doubt (reads at
// several locations) the value stays live: more state is kept, never less. Only
// the reachable blocks take part.
void Checker::ComputeLiveness() {
  const int nb = f_.num_blocks();
  b_.live_in.resize(nb);
  b_.gen.resize(nb);
  b_.kill.resize(nb);
  b_.mark.assign(num_values_, 0);
  b_.pending_at.resize(num_values_);
  b_.epoch = 0;
  auto next_epoch = [&] {
    if (++b_.epoch == 0) {
      std::fill(b_.mark.begin(), b_.mark.end(), 0);
      b_.epoch = 1;
    }
  };
  for (Block b : cfg_.rpo()) {
    std::vector<uint32_t>& gen = b_.gen[b.index()];
    std::vector<uint32_t>& kill = b_.kill[b.index()];
    gen.clear();
    kill.clear();
    b_.live_in[b.index()].clear();
    next_epoch();
    // mark[v] == epoch: a read of v below waits for v's entry instance, at
    // pending_at[v] (no location: at several).
    const std::vector<Inst>& insts = f_.block(b).insts;
    for (size_t k = insts.size(); k-- > 0;) {
      const bool move_like = IsMoveLike(f_.inst(insts[k]).opcode);
      for (const Operand& op : f_.operands(insts[k])) {
        if (!op.IsDef()) continue;
        uint32_t v = op.value().index();
        if (b_.mark[v] == b_.epoch && (!move_like || (!op.location().IsNone() && b_.pending_at[v] == op.location()))) {
          b_.mark[v] = 0;
        }
        kill.push_back(v);
      }
      for (const Operand& op : f_.operands(insts[k])) {
        if (!op.IsUse()) continue;
        uint32_t v = op.value().index();
        if (b_.mark[v] != b_.epoch) {
          b_.mark[v] = b_.epoch;
          b_.pending_at[v] = op.location();
          gen.push_back(v);
        } else if (b_.pending_at[v] != op.location()) {
          b_.pending_at[v] = Location();
        }
      }
    }
    for (const Operand& p : f_.block(b).params) {
      b_.mark[p.value().index()] = 0;
      kill.push_back(p.value().index());
    }
    gen.erase(std::remove_if(gen.begin(), gen.end(), [&](uint32_t v) { return b_.mark[v] != b_.epoch; }), gen.end());
    std::sort(gen.begin(), gen.end());
    gen.erase(std::unique(gen.begin(), gen.end()), gen.end());
    std::sort(kill.begin(), kill.end());
    kill.erase(std::unique(kill.begin(), kill.end()), kill.end());
    stats_.state_ops += static_cast<int64_t>(gen.size() + kill.size());
  }
  // Passes over the post-order: a block is revisited when a successor's live-in
  // grew, later in the same pass or, behind a back edge, in the next one.
  const int n = static_cast<int>(cfg_.rpo().size());
  std::vector<uint8_t>& pass = b_.pass;
  std::vector<uint8_t>& next_pass = b_.next_pass;
  pass.assign(n, 1);
  next_pass.assign(n, 0);
  bool more = false;
  for (int number = n - 1;; --number) {
    if (number < 0) {
      if (!more) break;
      pass.swap(next_pass);
      more = false;
      number = n;
      continue;
    }
    if (!pass[number]) continue;
    pass[number] = 0;
    Block b = cfg_.rpo()[number];
    next_epoch();
    for (uint32_t v : b_.kill[b.index()]) b_.mark[v] = b_.epoch;
    std::vector<uint32_t>& live = b_.scratch;
    live.clear();
    for (uint32_t v : b_.gen[b.index()]) live.push_back(v);
    uint32_t kill_epoch = b_.epoch;
    next_epoch();
    for (uint32_t v : b_.gen[b.index()]) b_.mark[v] = b_.epoch;
    for (const Edge& e : cfg_.succs(b)) {
      for (uint32_t v : b_.live_in[e.to.index()]) {
        // Marked with the kill epoch: defined here; with this epoch: already in.
        if (b_.mark[v] == b_.epoch) continue;
        if (b_.mark[v] == kill_epoch) continue;
        b_.mark[v] = b_.epoch;
        live.push_back(v);
      }
    }
    stats_.state_ops += static_cast<int64_t>(live.size());
    if (live.size() == b_.live_in[b.index()].size()) continue;  // live-in only grows
    std::sort(live.begin(), live.end());
    b_.live_in[b.index()].assign(live.begin(), live.end());
    for (const Edge& e : cfg_.preds(b)) {
      int from = cfg_.rpo_number(e.from);
      if (from < 0) continue;
      if (from < number) {
        pass[from] = 1;
      } else {
        next_pass[from] = 1;
        more = true;
      }
    }
  }
}

void Checker::Reset() {
  for (uint32_t l : b_.touched_locs) {
    b_.contents[l].clear();
    b_.loc_touched[l] = 0;
  }
  b_.touched_locs.clear();
  for (uint32_t v : b_.touched_values) {
    b_.where[v].clear();
    b_.value_touched[v] = 0;
  }
  b_.touched_values.clear();
}

void Checker::SetLoc(uint32_t l, const ValueSet& s) {
  ValueSet& cur = b_.contents[l];
  if (b_.logging) b_.undo.emplace_back(l, cur);
  // `where` entries of the values leaving `l` go stale here and are dropped when
  // next read (Locations): removing them now would search lists that a value
  // copied to many places makes long.
  stats_.state_ops += static_cast<int64_t>(cur.size() + s.size()) + 1;
  cur = s;
  if (!b_.loc_touched[l]) {
    b_.loc_touched[l] = 1;
    b_.touched_locs.push_back(l);
  }
  for (uint32_t w : s) {
    b_.where[w].push_back(l);
    TouchValue(w);
  }
}

void Checker::TakeOutOf(uint32_t l, uint32_t v) {
  ValueSet s = b_.contents[l];
  Erase(s, v);
  SetLoc(l, s);
}

const absl::InlinedVector<uint32_t, 2>& Checker::Locations(uint32_t v) {
  auto& locs = b_.where[v];
  if (++b_.loc_stamp == 0) {
    std::fill(b_.loc_mark.begin(), b_.loc_mark.end(), 0);
    b_.loc_stamp = 1;
  }
  size_t keep = 0;
  for (size_t k = 0; k < locs.size(); ++k) {
    uint32_t l = locs[k];
    // Stale (the value left `l`) or a repeat (it left and came back).
    if (b_.loc_mark[l] == b_.loc_stamp || !Contains(b_.contents[l], v)) continue;
    b_.loc_mark[l] = b_.loc_stamp;
    locs[keep++] = l;
  }
  stats_.state_ops += static_cast<int64_t>(locs.size());
  locs.resize(keep);
  return locs;
}

void Checker::KillInstance(uint32_t v) {
  absl::InlinedVector<uint32_t, 4> locs(Locations(v).begin(), Locations(v).end());
  for (uint32_t l : locs) TakeOutOf(l, v);
}

ValueSet Checker::Read(Location loc) const {
  if (!LocationExists(loc)) return ValueSet();
  if (loc.IsStack()) return b_.contents[num_units_ + loc.slot().index()];
  bool first = true;
  ValueSet out;
  for (uint32_t u : t_.UnitList(loc.reg())) {
    if (first) {
      out = b_.contents[u];
      first = false;
      continue;
    }
    const ValueSet& other = b_.contents[u];
    out.erase(std::remove_if(out.begin(), out.end(), [&](uint32_t v) { return !Contains(other, v); }), out.end());
  }
  return out;
}

void Checker::Write(Location loc, const ValueSet& s) {
  if (!LocationExists(loc)) return;  // reported by the check pass
  if (loc.IsStack()) return SetLoc(num_units_ + loc.slot().index(), s);
  for (uint32_t u : t_.UnitList(loc.reg())) SetLoc(u, s);
}

void Checker::Load(const std::vector<uint64_t>& pairs) {
  // Sorted by value, so each location's set is built in ascending order.
  for (uint64_t p : pairs) {
    uint32_t v = PairValue(p), l = PairLoc(p);
    b_.contents[l].push_back(v);
    if (!b_.loc_touched[l]) {
      b_.loc_touched[l] = 1;
      b_.touched_locs.push_back(l);
    }
    b_.where[v].push_back(l);
    TouchValue(v);
  }
  stats_.state_ops += static_cast<int64_t>(pairs.size());
}

void Checker::Extract(const std::vector<uint32_t>& values) {
  b_.out.clear();
  for (uint32_t v : values) {
    size_t first = b_.out.size();
    for (uint32_t l : Locations(v)) b_.out.push_back(Pair(v, l));
    std::sort(b_.out.begin() + first, b_.out.end());
  }
  stats_.state_ops += static_cast<int64_t>(values.size() + b_.out.size());
}

void Checker::TransferEdge(const Edge& e) {
  absl::Span<const Operand> args = f_.BranchArgs(e.branch, e.target);
  const std::vector<Operand>& params = f_.block(e.to).params;
  const std::vector<uint32_t>& live = b_.live_in[e.to.index()];
  std::vector<uint32_t>& values = b_.extract_values;
  values.assign(live.begin(), live.end());
  for (const Operand& p : params) values.push_back(p.value().index());
  if (!params.empty()) {
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
  }
  values.insert(values.end(), b_.markers.begin(), b_.markers.end());
  if (params.empty()) return Extract(values);

  // All arguments are read, then every parameter written; a parameter whose
  // argument does not already hold it is a new instance (see the header).
  size_t n = std::min(params.size(), args.size());
  b_.sources.resize(n);
  for (size_t i = 0; i < n; ++i) b_.sources[i] = Read(args[i].location());
  b_.logging = true;
  for (size_t i = 0; i < n; ++i) {
    uint32_t p = params[i].value().index();
    if (Contains(b_.sources[i], p)) continue;
    for (size_t j = 0; j < n; ++j) Erase(b_.sources[j], p);
    KillInstance(p);
  }
  for (size_t i = 0; i < n; ++i) {
    Insert(b_.sources[i], params[i].value().index());
    Write(params[i].location(), b_.sources[i]);
  }
  b_.logging = false;
  Extract(values);
  for (size_t k = b_.undo.size(); k-- > 0;) SetLoc(b_.undo[k].first, b_.undo[k].second);
  b_.undo.clear();
}

bool Checker::Meet(Block to) {
  if (!b_.reached[to.index()]) {
    b_.reached[to.index()] = 1;
    b_.in[to.index()].Assign(b_.out, b_.packing);
    stats_.state_ops += static_cast<int64_t>(b_.out.size());
    return true;
  }
  std::vector<uint64_t>& in = b_.unpacked;
  b_.in[to.index()].Unpack(&in);
  size_t before = in.size();
  auto keep = in.begin();
  auto o = b_.out.begin();
  for (auto it = in.begin(); it != in.end(); ++it) {
    while (o != b_.out.end() && *o < *it) ++o;
    if (o != b_.out.end() && *o == *it) *keep++ = *it;
  }
  in.erase(keep, in.end());
  stats_.state_ops += static_cast<int64_t>(before + b_.out.size());
  if (in.size() == before) return false;
  b_.in[to.index()].Assign(in, b_.packing);
  return true;
}

absl::Status Checker::Transfer(Block b, int index, Inst i, bool check) {
  const InstData& d = f_.inst(i);
  absl::Span<const Operand> ops = f_.operands(i);
  auto where = [&] { return Where(b, index, i); };
  auto check_use = [&](const Operand& op, int k) -> absl::Status {
    if (!check) return absl::OkStatus();
    ValueSet held = Read(op.location());
    if (!Contains(held, op.value().index())) {
      return absl::InvalidArgumentError(absl::StrCat(where(), ": use #", k, " expects ", f_.ValueName(op.value()), " in ",
                                                     Loc(op.location()), ", which holds ", Describe(held)));
    }
    return absl::OkStatus();
  };
  if (check) {
    int defs = 0, uses = 0;
    for (const Operand& op : ops) {
      RA_RETURN_IF_ERROR(CheckOperandStatic(op, ops, where, op.IsDef() ? defs++ : uses++, IsMoveLike(d.opcode)));
    }
    for (size_t a = 0; a < ops.size(); ++a) {
      for (size_t c = a + 1; c < ops.size(); ++c) {
        if (ops[a].IsDef() && ops[c].IsDef() && LocationsOverlap(ops[a].location(), ops[c].location(), t_)) {
          return absl::InvalidArgumentError(absl::StrCat(where(), ": defs ", f_.ValueName(ops[a].value()), " and ",
                                                         f_.ValueName(ops[c].value()), " overlap in ",
                                                         Loc(ops[a].location()), " / ", Loc(ops[c].location())));
        }
      }
    }
  }
  bool move_like = IsMoveLike(d.opcode);
  // A copy's def equals its source, so its location holds the source's values too
  // (a read-only copy may share its source's register: Subzero's overlap).
  bool preserves = move_like || d.opcode == Opcode::kCopy;
  std::vector<ValueSet>& sources = b_.sources;
  sources.clear();
  int k = 0;
  for (const Operand& op : ops) {
    if (!op.IsUse()) continue;
    if (op.position() == Position::kEarly) RA_RETURN_IF_ERROR(check_use(op, k));
    if (preserves) sources.push_back(Read(op.location()));
    ++k;
  }
  // The set a def writes. Other locations that held an earlier instance of the
  // value keep it: a sequentialized parallel copy reads a rotated parameter's old
  // instance after writing its new one (`v9 = move v10; v10 = move v9`).
  auto write_def = [&](const Operand& op, int def_index) {
    ValueSet set;
    if (preserves && def_index < static_cast<int>(sources.size())) set = sources[def_index];
    Insert(set, op.value().index());
    Write(op.location(), set);
  };
  int def_index = 0;
  for (const Operand& op : ops) {
    if (!op.IsDef()) continue;
    if (op.position() == Position::kEarly) write_def(op, def_index);
    ++def_index;
  }
  if (d.clobbers >= 0) {
    for (uint32_t u : t_.UnitsOf(f_.clobber_set(d.clobbers))) SetLoc(u, ValueSet());
  }
  k = 0;
  for (const Operand& op : ops) {
    if (!op.IsUse()) continue;
    if (op.position() == Position::kLate) RA_RETURN_IF_ERROR(check_use(op, k));
    ++k;
  }
  def_index = 0;
  for (const Operand& op : ops) {
    if (!op.IsDef()) continue;
    if (op.position() == Position::kLate) write_def(op, def_index);
    ++def_index;
  }
  return absl::OkStatus();
}

absl::Status Checker::CheckReturn(Block b, int index, Inst i) {
  UnitSet saved = t_.UnitsOf(f_.saved_regs());
  for (PReg r : t_.abi().callee_saved) {
    UnitSet units = t_.Units(r);
    if (saved.Contains(units)) continue;
    for (uint32_t u : units) {
      if (saved.Test(u)) continue;
      if (!Contains(b_.contents[u], num_values_ + u)) {
        return absl::InvalidArgumentError(absl::StrCat(
            Where(b, index, i), ": callee-saved %", t_.RegName(r), " does not hold its entry value at ret (holds ",
            Describe(Read(Location::Reg(r))), "); restore it or list it in the frame's saves"));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status Checker::Run() {
  if (f_.layout().empty()) return absl::InvalidArgumentError(absl::StrCat("function %", f_.name(), ": has no blocks"));
  num_values_ = static_cast<uint32_t>(f_.num_values());
  num_units_ = static_cast<uint32_t>(t_.num_units());
  const size_t num_locs = num_units_ + static_cast<size_t>(f_.num_stack_slots());
  const size_t num_ids = num_values_ + static_cast<size_t>(num_units_);
  // The dense state is left reset by the previous run; grow it to this function.
  if (b_.contents.size() < num_locs) {
    b_.contents.resize(num_locs);
    b_.loc_touched.resize(num_locs, 0);
    b_.loc_mark.resize(num_locs, 0);
  }
  if (b_.where.size() < num_ids) {
    b_.where.resize(num_ids);
    b_.value_touched.resize(num_ids, 0);
  }
  Reset();
  b_.markers.clear();
  for (uint32_t u : t_.UnitsOf(t_.abi().callee_saved)) b_.markers.push_back(num_values_ + u);

  stats_.blocks = static_cast<int>(cfg_.rpo().size());
  ComputeLiveness();

  const Block entry = f_.entry();
  for (uint32_t u : t_.UnitsOf(t_.abi().callee_saved)) SetLoc(u, ValueSet{num_values_ + u});
  std::vector<uint32_t>& entry_values = b_.extract_values;
  entry_values.assign(b_.live_in[entry.index()].begin(), b_.live_in[entry.index()].end());
  for (const Operand& p : f_.block(entry).params) {
    if (p.location().IsNone()) {
      Reset();
      return absl::InvalidArgumentError(absl::StrCat("function %", f_.name(), ", ", f_.BlockName(entry),
                                                     ": parameter ", f_.ValueName(p.value()), " has no location"));
    }
    // Class, slot size and constraint are checked with every parameter in the
    // final pass; a location that doesn't exist can't even be written, so it is
    // reported (by the same check) now.
    if (!LocationExists(p.location())) {
      Reset();
      RA_RETURN_IF_ERROR(CheckOperandStatic(
          p, {}, [&] { return absl::StrCat("function %", f_.name(), ", ", f_.BlockName(entry), ", parameter"); }, 0));
    }
    Write(p.location(), ValueSet{p.value().index()});
    entry_values.push_back(p.value().index());
  }
  std::sort(entry_values.begin(), entry_values.end());
  entry_values.erase(std::unique(entry_values.begin(), entry_values.end()), entry_values.end());
  entry_values.insert(entry_values.end(), b_.markers.begin(), b_.markers.end());
  Extract(entry_values);
  Reset();
  const int nb = f_.num_blocks();
  b_.in.resize(nb);
  b_.reached.assign(nb, 0);
  for (Block b : cfg_.rpo()) b_.in[b.index()].clear();
  Meet(entry);

  // Forward dataflow to a fixpoint without checks, in passes over the RPO: a block
  // whose entry state changed is walked later in the same pass, or, behind a back
  // edge, in the next one. (Taking the lowest queued RPO number first instead
  // iterates each inner loop to convergence every time an outer header changes:
  // the visits multiply over a loop nest.)
  // Queued blocks by RPO number: in this pass, or in the next.
  const int n = static_cast<int>(cfg_.rpo().size());
  std::vector<uint8_t>& pass = b_.pass;
  std::vector<uint8_t>& next_pass = b_.next_pass;
  pass.assign(n, 0);
  next_pass.assign(n, 0);
  pass[0] = 1;
  bool more = false;
  absl::Status status = absl::OkStatus();
  for (int number = 0; status.ok(); ++number) {
    if (number == n) {
      if (!more) break;
      pass.swap(next_pass);
      more = false;
      number = -1;
      continue;
    }
    if (!pass[number]) continue;
    pass[number] = 0;
    Block b = cfg_.rpo()[number];
    ++stats_.block_visits;
    Reset();
    b_.in[b.index()].Unpack(&b_.unpacked);
    Load(b_.unpacked);
    const std::vector<Inst>& insts = f_.block(b).insts;
    for (size_t k = 0; k < insts.size() && status.ok(); ++k) status = Transfer(b, static_cast<int>(k), insts[k], false);
    if (!status.ok()) break;
    for (const Edge& e : cfg_.succs(b)) {
      TransferEdge(e);
      if (Meet(e.to)) {
        int to = cfg_.rpo_number(e.to);
        if (to > number) {
          pass[to] = 1;
        } else {
          next_pass[to] = 1;
          more = true;
        }
      }
    }
  }
  // Check every reachable block against its fixpoint state.
  for (Block b : cfg_.rpo()) {
    if (!status.ok()) break;
    stats_.entry_pairs += static_cast<int64_t>(b_.in[b.index()].size());
    stats_.entry_bytes += static_cast<int64_t>(b_.in[b.index()].bytes());
    stats_.live_in += static_cast<int64_t>(b_.live_in[b.index()].size());
    for (const Operand& p : f_.block(b).params) {
      status = CheckOperandStatic(
          p, {}, [&] { return absl::StrCat("function %", f_.name(), ", ", f_.BlockName(b), ", parameter"); }, 0);
      if (!status.ok()) break;
    }
    if (!status.ok()) break;
    Reset();
    b_.in[b.index()].Unpack(&b_.unpacked);
    Load(b_.unpacked);
    b_.in[b.index()].Release();  // checked: no longer needed
    const std::vector<Inst>& insts = f_.block(b).insts;
    for (size_t k = 0; k < insts.size() && status.ok(); ++k) {
      status = Transfer(b, static_cast<int>(k), insts[k], true);
      if (status.ok() && f_.inst(insts[k]).opcode == Opcode::kRet) {
        status = CheckReturn(b, static_cast<int>(k), insts[k]);
      }
    }
  }
  Reset();  // leave the dense state empty for the next run
  b_.undo.clear();
  b_.logging = false;
  return status;
}

}  // namespace

AllocationChecker::AllocationChecker() : buffers_(std::make_unique<Buffers>()) {}
AllocationChecker::~AllocationChecker() = default;

absl::Status AllocationChecker::Run(const Function& func, const Target& target) {
  stats_ = CheckStats();
  return Checker(func, target, *buffers_, stats_).Run();
}

absl::Status CheckAllocation(const Function& func, const Target& target) { return AllocationChecker().Run(func, target); }

MoveKind ClassifyMove(const Function& func, Inst i) {
  const InstData& d = func.inst(i);
  if (!IsMoveLike(d.opcode) && d.opcode != Opcode::kCopy) return MoveKind::kNone;
  absl::Span<const Operand> ops = func.operands(i);
  bool moving = false;
  for (size_t k = 0; k < ops.size() / 2; ++k) moving |= ops[k].location() != ops[ops.size() / 2 + k].location();
  if (!moving) return MoveKind::kNone;
  if (d.opcode == Opcode::kSpill) return MoveKind::kSpill;
  if (d.opcode == Opcode::kReload) return MoveKind::kReload;
  if (d.opcode == Opcode::kCopy && ops[1].location().IsStack() != ops[0].location().IsStack()) {
    // A copy between the stack and a register is a store or a load.
    return ops[0].location().IsStack() ? MoveKind::kSpill : MoveKind::kReload;
  }
  return MoveKind::kMove;
}

AllocationCost MeasureAllocation(const Function& func) {
  AllocationCost cost;
  ControlFlowGraph cfg(func);
  DominatorTree dom(func, cfg);
  LoopNest loops(func, cfg, dom);
  for (Block b : func.layout()) {
    int64_t weight = loops.Weight(b);
    for (Inst i : func.block(b).insts) {
      switch (ClassifyMove(func, i)) {
        case MoveKind::kNone: continue;
        case MoveKind::kSpill: ++cost.spills; break;
        case MoveKind::kReload: ++cost.reloads; break;
        case MoveKind::kMove: ++cost.moves; break;
      }
      cost.weighted += weight;
    }
  }
  cost.saves = func.saved_regs().Count();
  return cost;
}

namespace {

// An instruction the allocation may add: move-like, or a copy into a value no
// instruction of the original computes (a new value, or a block parameter that
// coalescing now defines by a copy at the top of its block), or a constant
// rematerialized into a new value (it computes nothing the program did not).
bool Added(const std::vector<uint8_t>& computed, const Function& allocated, Inst i) {
  const InstData& d = allocated.inst(i);
  if (IsMoveLike(d.opcode)) return true;
  if (d.opcode != Opcode::kCopy && d.opcode != Opcode::kConst) return false;
  Value v = allocated.operands(i)[0].value();
  return v.index() >= computed.size() || !computed[v.index()];
}

bool SameComputation(const Function& original, Inst a, const Function& allocated, Inst b) {
  const InstData& x = original.inst(a);
  const InstData& y = allocated.inst(b);
  if (x.opcode != y.opcode || x.imm != y.imm || x.cc != y.cc || x.type != y.type) return false;
  if (IsBranch(x.opcode)) {  // targets may be split edges, arguments lowered
    return !IsOpaque(x.opcode) || original.callee(static_cast<int>(x.imm)) == allocated.callee(static_cast<int>(y.imm));
  }
  absl::Span<const Operand> xo = original.operands(a);
  absl::Span<const Operand> yo = allocated.operands(b);
  if (xo.size() != yo.size()) return false;
  for (size_t k = 0; k < xo.size(); ++k) {
    if (xo[k].IsDef() != yo[k].IsDef()) return false;
    if (xo[k].IsDef() && xo[k].value() != yo[k].value()) return false;
  }
  if ((x.opcode == Opcode::kCall || IsOpaque(x.opcode)) && original.callee(static_cast<int>(x.imm)) != allocated.callee(static_cast<int>(y.imm))) {
    return false;
  }
  return true;
}

}  // namespace

std::vector<Inst> MatchOriginal(const Function& original, const Function& allocated) {
  std::vector<Inst> match(allocated.num_insts());
  const std::vector<uint8_t> computed = ComputedValues(original);
  for (Block b : original.layout()) {
    if (!allocated.BlockExists(b) || !allocated.block(b).in_layout) continue;
    const std::vector<Inst>& got = allocated.block(b).insts;
    size_t g = 0;
    for (Inst want : original.block(b).insts) {
      if (IsMoveLike(original.inst(want).opcode)) continue;
      size_t h = g;
      while (h < got.size() && Added(computed, allocated, got[h]) && !SameComputation(original, want, allocated, got[h])) ++h;
      if (h == got.size() || !SameComputation(original, want, allocated, got[h])) continue;
      match[got[h].index()] = want;
      g = h + 1;
    }
  }
  return match;
}

absl::Status CheckKeepsOriginal(const Function& original, const Function& allocated, const Target& target) {
  auto where = [&](Block b, size_t k, const Function& f, Inst i) {
    return absl::StrCat("function %", allocated.name(), ", ", f.BlockName(b), ", inst ", k, " `", PrintInst(f, i, target),
                        "`");
  };
  const std::vector<uint8_t> computed = ComputedValues(original);
  std::vector<uint8_t> in_original(allocated.num_blocks(), 0);
  for (Block b : original.layout()) {
    if (b.index() < in_original.size()) in_original[b.index()] = 1;
    if (!allocated.BlockExists(b) || !allocated.block(b).in_layout) {
      return absl::InvalidArgumentError(absl::StrCat("function %", allocated.name(), ": ", original.BlockName(b),
                                                     " of the original is gone"));
    }
    const std::vector<Inst>& want = original.block(b).insts;
    const std::vector<Inst>& got = allocated.block(b).insts;
    size_t g = 0;
    for (size_t k = 0; k < want.size(); ++k) {
      if (IsMoveLike(original.inst(want[k]).opcode)) continue;  // an input already partly allocated
      while (g < got.size() && Added(computed, allocated, got[g]) && !SameComputation(original, want[k], allocated, got[g])) {
        ++g;
      }
      if (g == got.size()) {
        return absl::InvalidArgumentError(absl::StrCat(where(b, k, original, want[k]),
                                                       " of the original is missing from the allocation"));
      }
      if (!SameComputation(original, want[k], allocated, got[g])) {
        return absl::InvalidArgumentError(absl::StrCat(where(b, g, allocated, got[g]), " stands where the original has `",
                                                       PrintInst(original, want[k], target), "`"));
      }
      ++g;
    }
    for (; g < got.size(); ++g) {
      if (!Added(computed, allocated, got[g])) {
        return absl::InvalidArgumentError(absl::StrCat(where(b, g, allocated, got[g]), " is not in the original"));
      }
    }
  }
  for (Block b : allocated.layout()) {
    if (b.index() < in_original.size() && in_original[b.index()]) continue;
    const std::vector<Inst>& got = allocated.block(b).insts;
    for (size_t k = 0; k < got.size(); ++k) {
      Opcode op = allocated.inst(got[k]).opcode;
      if (Added(computed, allocated, got[k]) || (op == Opcode::kJump && k + 1 == got.size())) continue;
      return absl::InvalidArgumentError(absl::StrCat(where(b, k, allocated, got[k]),
                                                     " is in a block the allocation added, which may only move values"));
    }
  }
  return absl::OkStatus();
}

}  // namespace regalloc
