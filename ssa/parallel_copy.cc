#include "ssa/parallel_copy.h"

#include <algorithm>
#include <array>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"

namespace regalloc {

namespace {

// Emission preference among ready moves: stores, register moves, reloads, memory moves.
int Rank(const CopyMove& m) {
  if (m.src.IsReg()) return m.dst.IsStack() ? 0 : 1;
  return m.dst.IsReg() ? 2 : 3;
}

// Most parallel copies move one to a few values: the work lists live inline.
using Moves = absl::InlinedVector<CopyMove, 8>;
using Steps = absl::InlinedVector<CopyStep, 8>;

// Above this many moves, readiness and overlap are tracked through the
// destinations' register units and stack slots instead of by comparing every
// move with every other (quadratic per emitted move: at 10k instructions the
// larger edge copies of lsra's resolution took a seventh of its time).
constexpr size_t kTrackAbove = 8;

// Which move writes each register unit and stack slot of a copy's
// destinations: destinations do not overlap, so at most one each.
class Writers {
 public:
  // False if two destinations overlap.
  bool Build(absl::Span<const CopyMove> moves, const Target& target) {
    has_writer_ = UnitSet();
    slots_.clear();
    for (size_t k = 0; k < moves.size(); ++k) {
      const Location dst = moves[k].dst;
      if (dst.IsReg()) {
        const UnitSet& units = target.Units(dst.reg());
        if (units.Intersects(has_writer_)) return false;
        for (uint32_t u : target.UnitList(dst.reg())) unit_writer_[u] = static_cast<uint32_t>(k);
        has_writer_ |= units;
      } else if (dst.IsStack()) {
        slots_.push_back({dst.slot().index(), static_cast<uint32_t>(k)});
      }
    }
    std::sort(slots_.begin(), slots_.end());
    for (size_t i = 1; i < slots_.size(); ++i) {
      if (slots_[i].first == slots_[i - 1].first) return false;
    }
    return true;
  }
  // Calls f(k) once for each move k whose destination overlaps `loc`.
  template <typename F>
  void ForEachWriterOf(Location loc, const Target& target, F&& f) const {
    if (loc.IsReg()) {
      absl::InlinedVector<uint32_t, 4> seen;  // a register's few units, by one or a few moves
      for (uint32_t u : target.UnitList(loc.reg())) {
        if (!has_writer_.Test(u)) continue;
        const uint32_t k = unit_writer_[u];
        if (std::find(seen.begin(), seen.end(), k) != seen.end()) continue;
        seen.push_back(k);
        f(k);
      }
    } else if (loc.IsStack()) {
      auto it = std::lower_bound(slots_.begin(), slots_.end(), std::pair<uint32_t, uint32_t>{loc.slot().index(), 0});
      if (it != slots_.end() && it->first == loc.slot().index()) f(it->second);
    }
  }

 private:
  UnitSet has_writer_;
  std::array<uint32_t, UnitSet::kCapacity> unit_writer_;  // valid where has_writer_ is set
  absl::InlinedVector<std::pair<uint32_t, uint32_t>, 8> slots_;  // (slot, move), sorted
};

// Emits the ready moves of `pending` (no other pending move reads their
// destination), each time the lowest Rank and then the first in `pending`,
// until none is ready, and erases them, the rest keeping their order. Each
// move counts the other moves reading its destination; emitting a move takes
// one off the count of each destination its source overlaps.
template <typename Emit>
void EmitReadyTracked(Moves& pending, const Target& target, Emit&& emit) {
  const size_t n = pending.size();
  Writers writers;
  (void)writers.Build(pending, target);  // the destinations were checked disjoint
  absl::InlinedVector<uint32_t, 32> blocked(n, 0);
  absl::InlinedVector<uint32_t, 33> reads_start(n + 1, 0);
  absl::InlinedVector<uint32_t, 32> reads;  // by move: the moves whose destination its source overlaps
  for (size_t j = 0; j < n; ++j) {
    reads_start[j] = static_cast<uint32_t>(reads.size());
    writers.ForEachWriterOf(pending[j].src, target, [&](uint32_t k) {
      if (k == j) return;
      reads.push_back(k);
      ++blocked[k];
    });
  }
  reads_start[n] = static_cast<uint32_t>(reads.size());
  // The ready moves by Rank, a bit per move.
  const size_t words = (n + 63) / 64;
  absl::InlinedVector<uint64_t, 4> ready(4 * words, 0);
  auto make_ready = [&](size_t k) { ready[Rank(pending[k]) * words + k / 64] |= uint64_t{1} << (k % 64); };
  for (size_t k = 0; k < n; ++k) {
    if (blocked[k] == 0) make_ready(k);
  }
  absl::InlinedVector<uint8_t, 32> done(n, 0);
  for (;;) {
    size_t k = n;
    for (size_t w = 0; w < 4 * words && k == n; ++w) {
      if (ready[w] != 0) {
        k = (w % words) * 64 + static_cast<size_t>(__builtin_ctzll(ready[w]));
        ready[w] &= ready[w] - 1;
      }
    }
    if (k == n) break;
    done[k] = 1;
    emit(pending[k]);
    for (uint32_t r = reads_start[k]; r < reads_start[k + 1]; ++r) {
      if (--blocked[reads[r]] == 0) make_ready(reads[r]);
    }
  }
  size_t kept = 0;
  for (size_t k = 0; k < n; ++k) {
    if (!done[k]) pending[kept++] = pending[k];
  }
  pending.resize(kept);
}

// When nothing is ready, every pending move's destination is read by another
// pending move. Going from the first move to a reader of its destination,
// again and again, reaches a move twice: the index of a move on a cycle,
// which is where a cycle is broken (a move on a chain ahead of a cycle,
// exchanged or saved, would unblock only the chain).
size_t OnACycle(const Moves& pending, const Target& target) {
  constexpr uint32_t kNone = ~uint32_t{0};
  Writers writers;
  (void)writers.Build(pending, target);  // the destinations were checked disjoint
  absl::InlinedVector<uint32_t, 32> reader(pending.size(), kNone);
  for (size_t j = 0; j < pending.size(); ++j) {
    writers.ForEachWriterOf(pending[j].src, target, [&](uint32_t k) {
      if (k != j && reader[k] == kNone) reader[k] = static_cast<uint32_t>(j);
    });
  }
  absl::InlinedVector<uint8_t, 32> seen(pending.size(), 0);
  size_t at = 0;
  while (!seen[at]) {
    if (reader[at] == kNone) return 0;  // not reached: a move no other reads is ready
    seen[at] = 1;
    at = reader[at];
  }
  return at;
}

absl::Status Sequentialize(absl::Span<const CopyMove> moves, const Target& target, const ParallelCopyOptions& options,
                           Steps& steps) {
  // A large copy is checked through its destinations' units and slots; the
  // pairs are compared where that finds an overlap, to name the first.
  const bool tracked = moves.size() > kTrackAbove;
  bool checked = false;
  if (tracked && std::none_of(moves.begin(), moves.end(),
                              [](const CopyMove& m) { return m.src.IsNone() || m.dst.IsNone(); })) {
    Writers writers;
    checked = writers.Build(moves, target);
  }
  for (size_t a = 0; a < moves.size() && !checked; ++a) {
    if (moves[a].src.IsNone() || moves[a].dst.IsNone()) {
      return absl::InvalidArgumentError(absl::StrCat("parallel copy of v", moves[a].value.index(),
                                                     " has no source or destination location"));
    }
    for (size_t b = a + 1; b < moves.size(); ++b) {
      if (LocationsOverlap(moves[a].dst, moves[b].dst, target)) {
        return absl::InvalidArgumentError(absl::StrCat("parallel copy writes v", moves[a].value.index(), " and v",
                                                       moves[b].value.index(), " to overlapping destinations"));
      }
    }
  }
  // One move cannot form a cycle (the common case: a reload, a relocation).
  if (moves.size() == 1 && !moves[0].src.IsNone() && !moves[0].dst.IsNone()) {
    const CopyMove& m = moves[0];
    Value dst_value = m.dst_value.IsValid() ? m.dst_value : m.value;
    if (m.src != m.dst || dst_value != m.value) {
      CopyStep step;
      step.src = m.src;
      step.dst = m.dst;
      step.use_src = m.value;
      step.def_dst = dst_value;
      step.type = m.type;
      steps.push_back(step);
    }
    return absl::OkStatus();
  }
  Moves pending;
  auto emit_move = [&](Location src, Location dst, Value use, Value def, Type t) {
    CopyStep s;
    s.src = src;
    s.dst = dst;
    s.use_src = use;
    s.def_dst = def;
    s.type = t;
    steps.push_back(s);
  };
  // Same place, new name (a parameter taking over its argument's location): nothing
  // moves, but the record of which value is where changes. Emitted last, when no
  // other move still reads the old name there.
  Moves renames;
  for (CopyMove m : moves) {
    if (!m.dst_value.IsValid()) m.dst_value = m.value;
    if (m.src != m.dst) {
      pending.push_back(m);
    } else if (m.dst_value != m.value) {
      renames.push_back(m);
    }
  }
  // Is `loc` read by a pending move other than `except`? (A small copy's
  // ready moves; a large one's are tracked by EmitReadyTracked.)
  auto is_read = [&](Location loc, size_t except) {
    for (size_t n = 0; n < pending.size(); ++n) {
      if (n != except && LocationsOverlap(pending[n].src, loc, target)) return true;
    }
    return false;
  };

  while (!pending.empty()) {
    if (tracked) {
      EmitReadyTracked(pending, target,
                       [&](const CopyMove& m) { emit_move(m.src, m.dst, m.value, m.dst_value, m.type); });
      if (pending.empty()) break;
    } else {
      // Ready moves: their destination is not read by another pending move.
      size_t best = pending.size();
      for (size_t k = 0; k < pending.size(); ++k) {
        if (is_read(pending[k].dst, k)) continue;
        if (best == pending.size() || Rank(pending[k]) < Rank(pending[best])) best = k;
        if (Rank(pending[best]) == 0) break;
      }
      if (best < pending.size()) {
        const CopyMove& m = pending[best];
        emit_move(m.src, m.dst, m.value, m.dst_value, m.type);
        pending.erase(pending.begin() + best);
        continue;
      }
    }
    // Only cycles remain: unblock a move on one, brought to the front.
    const size_t on_cycle = OnACycle(pending, target);
    std::rotate(pending.begin(), pending.begin() + on_cycle, pending.begin() + on_cycle + 1);
    CopyMove& m = pending[0];
    if (options.use_swap && m.src.IsReg() && m.dst.IsReg()) {
      size_t partner = pending.size();
      int readers = 0;
      // The others reading m.src follow its value to m.dst; one reading only
      // part of it would find a mix, so then no exchange.
      bool src_whole = true;
      for (size_t n = 1; n < pending.size(); ++n) {
        if (LocationsOverlap(pending[n].src, m.dst, target)) {
          ++readers;
          if (pending[n].src == m.dst) partner = n;
        }
        if (pending[n].src != m.src && LocationsOverlap(pending[n].src, m.src, target)) src_whole = false;
      }
      // The exchange writes m.src, where a rename may keep part of a value in
      // place to the end (x86 %bh of an %rbx whose %bl the cycle writes): then
      // no exchange. (None keeps all of m.src: on a cycle, m.src overlaps
      // another move's destination, which the rename's would overlap.)
      for (const CopyMove& r : renames) {
        if (r.src != m.src && LocationsOverlap(r.src, m.src, target)) src_whole = false;
      }
      if (readers == 1 && partner < pending.size() && src_whole &&
          target.Units(m.dst.reg()).Count() == target.Units(m.src.reg()).Count()) {
        // Exchange: m is done; the value that was in m.dst is now in m.src. When
        // the partner writes m.src (a 2-cycle), it is done too.
        CopyMove partner_move = pending[partner];
        bool partner_done = partner_move.dst == m.src;
        CopyStep s;
        s.kind = CopyStep::Kind::kSwap;
        s.src = m.src;
        s.dst = m.dst;
        s.use_src = m.value;
        s.def_dst = m.dst_value;
        s.use_dst = partner_move.value;
        s.def_src = partner_done ? partner_move.dst_value : partner_move.value;
        s.type = m.type;
        s.type2 = partner_move.type;
        steps.push_back(s);
        Location freed = m.src;
        Location taken = m.dst;
        if (partner_done) pending.erase(pending.begin() + partner);
        pending.erase(pending.begin());
        for (CopyMove& n : pending) {
          if (n.src == taken) {
            n.src = freed;
          } else if (n.src == freed) {
            n.src = taken;
          }
        }
        // A move now reading and writing the same place is done (up to renaming).
        for (size_t n = 0; n < pending.size();) {
          if (pending[n].src != pending[n].dst) {
            ++n;
            continue;
          }
          if (pending[n].dst_value != pending[n].value) renames.push_back(pending[n]);
          pending.erase(pending.begin() + n);
        }
        continue;
      }
    }
    // Save every source that overlaps m's destination into a temporary.
    Location blocked = m.dst;
    for (size_t n = 1; n < pending.size(); ++n) {
      if (!LocationsOverlap(pending[n].src, blocked, target)) continue;
      Location from = pending[n].src;
      Type type = pending[n].type;
      Location temp;
      if (options.scratch) {
        std::optional<PReg> r = options.scratch(type);
        if (r.has_value()) {
          Location cand = Location::Reg(*r);
          bool busy = false;
          for (const CopyMove& p : pending) busy |= LocationsOverlap(p.src, cand, target) || LocationsOverlap(p.dst, cand, target);
          if (!busy) temp = cand;
        }
      }
      if (temp.IsNone()) {
        if (!options.new_stack_slot) {
          return absl::FailedPreconditionError(absl::StrCat("parallel copy has a cycle through v", m.value.index(),
                                                            " and no swap, scratch register or stack slot to break it"));
        }
        temp = Location::Stack(options.new_stack_slot(type));
      }
      // The temporary holds the source's value under its own name.
      emit_move(from, temp, pending[n].value, pending[n].value, type);
      for (CopyMove& p : pending) {
        if (p.src == from) p.src = temp;
      }
    }
  }
  for (const CopyMove& m : renames) emit_move(m.src, m.dst, m.value, m.dst_value, m.type);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<CopyStep>> SequentializeParallelCopy(absl::Span<const CopyMove> moves,
                                                                const Target& target,
                                                                const ParallelCopyOptions& options) {
  Steps steps;
  absl::Status s = Sequentialize(moves, target, options, steps);
  if (!s.ok()) return s;
  return std::vector<CopyStep>(steps.begin(), steps.end());
}

Inst EmitCopyStep(Function& func, const CopyStep& step) {
  auto def = [](Value v, Location l) { return Operand::Def(v).WithLocation(l); };
  auto use = [](Value v, Location l) { return Operand::Use(v).WithLocation(l); };
  InstData d;
  if (step.kind == CopyStep::Kind::kSwap) {
    d.opcode = Opcode::kParallelCopy;
    Operand ops[4] = {def(step.def_dst, step.dst), def(step.def_src, step.src), use(step.use_src, step.src),
                      use(step.use_dst, step.dst)};
    return func.NewInst(d, ops);
  }
  d.opcode = step.src.IsReg() && step.dst.IsStack()   ? Opcode::kSpill
             : step.src.IsStack() && step.dst.IsReg() ? Opcode::kReload
                                                      : Opcode::kMove;
  Operand ops[2] = {def(step.def_dst, step.dst), use(step.use_src, step.src)};
  return func.NewInst(d, ops);
}

absl::StatusOr<EmittedCopy> EmitParallelCopy(Function& func, const Target& target, absl::Span<const CopyMove> moves,
                                             std::vector<Inst>& out) {
  EmittedCopy emitted;
  if (moves.empty()) return emitted;
  ParallelCopyOptions options;
  options.use_swap = target.has_swap();
  options.new_stack_slot = [&](Type type) {
    ++emitted.stack_temps;
    return func.NewStackSlot(TypeSize(type));
  };
  Steps steps;
  absl::Status s = Sequentialize(moves, target, options, steps);
  if (!s.ok()) return s;
  for (const CopyStep& step : steps) {
    out.push_back(EmitCopyStep(func, step));
    bool rename = step.kind == CopyStep::Kind::kMove && step.src == step.dst;
    ++(rename ? emitted.renames : emitted.moves);
    emitted.swaps += step.kind == CopyStep::Kind::kSwap;
    for (Location l : {step.src, step.dst}) {
      if (l.IsReg()) emitted.regs |= target.Aliases(l.reg());
    }
  }
  return emitted;
}

}  // namespace regalloc
