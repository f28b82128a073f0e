#include "color/ssa_testing.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "liveness/live_sets.h"
#include "ssa/printer.h"
#include "check/checker.h"
#include "check/interpreter.h"

namespace regalloc {
namespace {

absl::Status InPhase(absl::string_view phase, const absl::Status& s) {
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat(phase, ": ", s.message()));
}

}  // namespace

absl::Status CheckRegisterPressure(const Function& f, const Target& t, const ValueLocations& locs) {
  LiveSets sets(f);
  int nc = t.num_classes();
  auto cls = [&](Value v) { return static_cast<int>(t.ClassFor(f.value_type(v))->index()); };
  auto capacity = [&](int c, const RegSet& pinned) {
    RegSet free = t.Class(RegClass(c)).members;
    free.Subtract(pinned);
    return free.Count();
  };
  // Fits `count` per class, and per bank by weight, outside `pinned`?
  auto fits = [&](const std::vector<int>& count, const RegSet& pinned, std::string* why) {
    for (int c = 0; c < nc; ++c) {
      if (count[c] > capacity(c, pinned)) {
        *why = absl::StrCat(count[c], " values of class ", t.Class(RegClass(c)).name, " for ", capacity(c, pinned),
                            " registers");
        return false;
      }
    }
    for (int bank = 0; bank < t.num_banks(); ++bank) {
      int sum = 0, cap = 0;
      for (int c = 0; c < nc; ++c) {
        const RegClassInfo& info = t.Class(RegClass(c));
        if (info.bank != bank) continue;
        sum += info.pressure_weight * count[c];
        cap = std::max(cap, info.pressure_weight * capacity(c, pinned));
      }
      if (sum > cap) {
        *why = absl::StrCat(sum, " slots of bank ", t.Bank(bank).name, " for ", cap);
        return false;
      }
    }
    return true;
  };
  std::vector<uint8_t> live(f.num_values(), 0);
  for (Block b : f.layout()) {
    std::fill(live.begin(), live.end(), 0);
    for (Value v : sets.LiveOut(b)) live[v.index()] = 1;
    const std::vector<Inst>& insts = f.block(b).insts;
    for (size_t k = insts.size(); k-- > 0;) {
      Inst i = insts[k];
      absl::Span<const Operand> ops = f.operands(i);
      bool move_like = IsMoveLike(f.inst(i).opcode);
      RegSet pinned;
      if (f.inst(i).clobbers >= 0) {
        for (PReg r : f.clobber_set(f.inst(i).clobbers)) pinned |= t.Aliases(r);
      }
      for (const Operand& op : ops) {
        if (op.constraint() == ConstraintKind::kFixed) pinned |= t.Aliases(op.fixed_reg());
      }
      std::vector<int> late(nc, 0), across(nc, 0), early(nc, 0);
      std::vector<uint8_t> defined(f.num_values(), 0);
      int di = 0;
      for (const Operand& op : ops) {
        if (!op.IsDef()) continue;
        const Operand* use = f.UseOperand(i, di++);
        bool relocation = move_like && use != nullptr && use->value() == op.value();
        if (!relocation) defined[op.value().index()] = 1;
        bool in_reg = !locs.IsSpilled(op.value()) || (!move_like && op.constraint() != ConstraintKind::kStack);
        if (in_reg && !relocation) ++late[cls(op.value())];
      }
      for (int v = 0; v < f.num_values(); ++v) {
        if (!live[v] || locs.IsSpilled(Value(v)) || defined[v]) continue;
        ++late[cls(Value(v))];
        ++across[cls(Value(v))];
      }
      std::string why;
      auto where = [&] { return absl::StrCat("function %", f.name(), ", ", f.BlockName(b), " `", PrintInst(f, i, t), "`"); };
      if (!fits(late, RegSet(), &why)) return absl::InternalError(absl::StrCat(where(), ": after it, ", why));
      if (!fits(across, pinned, &why)) return absl::InternalError(absl::StrCat(where(), ": across it, ", why));
      for (int v = 0; v < f.num_values(); ++v) {
        if (defined[v]) live[v] = 0;
      }
      for (const Operand& op : ops) {
        if (op.IsUse()) live[op.value().index()] = 1;
      }
      for (int v = 0; v < f.num_values(); ++v) {
        if (live[v] && !locs.IsSpilled(Value(v))) ++early[cls(Value(v))];
      }
      if (!fits(early, RegSet(), &why)) return absl::InternalError(absl::StrCat(where(), ": before it, ", why));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<SsaRun> AllocateSsaAndCheck(Function& func, const Target& target, const SsaCheckOptions& options) {
  Function original = func;
  SsaRun run;
  VirtRegs vregs;
  ValueLocations locs;
  // One liveness computation serves coalesce, spill, reload and color (spill/spill.h).
  LiveSets sets;
  absl::StatusOr<CoalesceStats> coalesced = Coalesce(func, vregs, sets);
  RA_RETURN_IF_ERROR(InPhase("coalesce", coalesced.status()));
  run.coalesce = *coalesced;
  run.vregs = vregs;
  absl::StatusOr<SpillStats> spilled = Spill(target, func, vregs, sets, locs, options.spill);
  RA_RETURN_IF_ERROR(InPhase("spill", spilled.status()));
  run.spill = *spilled;
  run.spilled = locs;
  absl::StatusOr<ReloadStats> reloaded = InsertReloads(target, func, sets, locs);
  RA_RETURN_IF_ERROR(InPhase("reload", reloaded.status()));
  run.reload = *reloaded;
  // The sets Reload hands on are the function's (LiveSets::Shrink where it
  // made constants again): Color reads them.
  {
    LiveSets fresh(func);
    for (Block b : func.layout()) {
      auto same = [](absl::Span<const Value> x, absl::Span<const Value> y) {
        return std::equal(x.begin(), x.end(), y.begin(), y.end());
      };
      if (!same(sets.LiveIn(b), fresh.LiveIn(b)) || !same(sets.LiveOut(b), fresh.LiveOut(b))) {
        return InPhase("reload", absl::InternalError(absl::StrCat("the live sets it left differ from the function's at ",
                                                                  func.BlockName(b))));
      }
    }
  }
  RA_RETURN_IF_ERROR(InPhase("pressure", CheckRegisterPressure(func, target, locs)));
  absl::StatusOr<ColorStats> colored = Color(target, func, vregs, sets, locs);
  RA_RETURN_IF_ERROR(InPhase("color", colored.status()));
  run.color = *colored;
  absl::StatusOr<LowerParamsStats> lowered = LowerBlockParams(func, target);
  RA_RETURN_IF_ERROR(InPhase("lower_params", lowered.status()));
  run.lower = *lowered;
  RA_RETURN_IF_ERROR(InPhase("check", CheckAllocation(func, target)));
  for (uint64_t seed = 1; options.interpret && seed <= 3; ++seed) {
    RA_RETURN_IF_ERROR(InPhase("interpret", CompareExecutions(original, func, target, seed)));
  }
  return run;
}

}  // namespace regalloc
