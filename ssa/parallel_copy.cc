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

absl::Status Sequentialize(absl::Span<const CopyMove> moves, const Target& target, const ParallelCopyOptions& options,
                           Steps& steps) {
  for (size_t a = 0; a < moves.size(); ++a) {
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
  // Is `loc` read by a pending move other than `except`? With many pending
  // moves (a big edge copy), the answer comes from how many pending sources
  // cover each register unit and stack slot, not from a walk over the other
  // moves, which made the emission loop cubic in the copy's size.
  const bool counted = pending.size() > 8;
  std::array<int, UnitSet::kCapacity> unit_readers;  // zeroed by recount, only when counted (1 KB)
  absl::InlinedVector<std::pair<uint32_t, int>, 8> slot_readers;
  auto count_reader = [&](Location src, int delta) {
    if (src.IsReg()) {
      for (uint32_t u : target.Units(src.reg())) unit_readers[u] += delta;
    } else if (src.IsStack()) {
      for (auto& [slot, n] : slot_readers) {
        if (slot == src.slot().index()) {
          n += delta;
          return;
        }
      }
      slot_readers.push_back({src.slot().index(), delta});
    }
  };
  auto recount = [&]() {
    if (!counted) return;
    unit_readers.fill(0);
    slot_readers.clear();
    for (const CopyMove& m : pending) count_reader(m.src, 1);
  };
  recount();
  auto is_read = [&](Location loc, size_t except) {
    if (!counted) {
      for (size_t n = 0; n < pending.size(); ++n) {
        if (n != except && LocationsOverlap(pending[n].src, loc, target)) return true;
      }
      return false;
    }
    const Location own = pending[except].src;
    if (loc.IsReg()) {
      for (uint32_t u : target.Units(loc.reg())) {
        const int others = unit_readers[u] - (own.IsReg() && target.Units(own.reg()).Test(u) ? 1 : 0);
        if (others > 0) return true;
      }
    } else if (loc.IsStack()) {
      for (const auto& [slot, n] : slot_readers) {
        if (slot == loc.slot().index()) return n - (own == loc ? 1 : 0) > 0;
      }
    }
    return false;
  };

  while (!pending.empty()) {
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
      if (counted) count_reader(m.src, -1);
      pending.erase(pending.begin() + best);
      continue;
    }
    // Only cycles remain. Unblock pending[0].
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
        recount();
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
    recount();
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
