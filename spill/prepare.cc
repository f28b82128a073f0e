#include "spill/prepare.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "liveness/live_walker.h"
#include "ssa/printer.h"

namespace regalloc {

absl::StatusOr<PrepareStats> PrepareConstraints(Function& func, const Target& target, const LiveSets& sets) {
  PrepareBuffers buffers;
  return PrepareConstraints(func, target, sets, buffers);
}

absl::StatusOr<PrepareStats> PrepareConstraints(Function& func, const Target& target, const LiveSets& sets,
                                                PrepareBuffers& buffers) {
  PrepareStats stats;
  if (func.IsAllocated()) {
    return absl::FailedPreconditionError(absl::StrCat("function %", func.name(), ": spilling needs SSA form"));
  }
  LiveWalker& live = buffers.live;
  live.Reset(func.num_values());
  std::vector<Operand>& ops = buffers.ops;
  std::vector<Operand>& p_ops_defs = buffers.defs;
  std::vector<Operand>& p_ops_uses = buffers.uses;
  std::vector<int>& use_at = buffers.use_at;  // use operand indices, in use order (Reuse names uses by it)
  std::vector<Inst>& insts = buffers.insts;
  std::vector<Inst>& out = buffers.out;
  for (Block b : func.layout()) {
    live.StartBlock(sets.LiveOut(b));
    insts = func.block(b).insts;
    out.clear();
    bool added = false;  // a copy: the block is rebuilt from `out`
    // Walk backward (the walker gives what is live after each instruction) and
    // build the block reversed.
    for (auto it = insts.rbegin(); it != insts.rend(); ++it) {
      Inst i = *it;
      const InstData& d = func.inst(i);
      // Most instructions read no value in a fixed register and overwrite
      // none in place: nothing to do but walk past them.
      absl::Span<const Operand> span = func.operands(i);
      if (IsMoveLike(d.opcode) || std::none_of(span.begin(), span.end(), [](const Operand& op) {
            return op.IsUse() ? op.constraint() == ConstraintKind::kFixed : op.constraint() == ConstraintKind::kReuse;
          })) {
        out.push_back(i);
        live.StepBack(func, i);
        continue;
      }
      ops.assign(span.begin(), span.end());
      bool commuted = false;
      p_ops_defs.clear();
      p_ops_uses.clear();
      use_at.clear();
      for (size_t o = 0; o < ops.size(); ++o) {
        if (ops[o].IsUse()) use_at.push_back(static_cast<int>(o));
      }
      auto copy_use = [&](int o, const Operand& def_shape) {
        Value v = ops[o].value();
        Value t = func.NewValue(func.value_type(v));
        p_ops_defs.push_back(def_shape.IsDef() ? def_shape : Operand::Def(t));
        p_ops_defs.back().set_value(t);
        p_ops_uses.push_back(Operand::Use(v));
        ops[o].set_value(t);
      };
      for (size_t o = 0; o < ops.size(); ++o) {
        if (ops[o].IsUse() && ops[o].constraint() == ConstraintKind::kFixed) {
          // One value read twice in one register takes one copy.
          bool shared = false;
          for (size_t e = 0; e < o && !shared; ++e) {
            if (ops[e].IsUse() && ops[e].constraint() == ConstraintKind::kFixed &&
                ops[e].fixed_reg() == ops[o].fixed_reg() && p_ops_uses.size() > 0) {
              for (size_t c = 0; c < p_ops_defs.size() && !shared; ++c) {
                if (p_ops_defs[c].value() == ops[e].value() && p_ops_uses[c].value() == ops[o].value()) {
                  ops[o].set_value(ops[e].value());
                  shared = true;
                }
              }
            }
          }
          if (shared) continue;
          copy_use(static_cast<int>(o), Operand::FixedDef(Value(), ops[o].fixed_reg()));
          ++stats.fixed_uses;
        }
      }
      for (const Operand& def : ops) {
        if (!def.IsDef() || def.constraint() != ConstraintKind::kReuse) continue;
        int k = def.reuse_index();
        if (k < 0 || k >= static_cast<int>(use_at.size())) {
          return absl::InvalidArgumentError(absl::StrCat("function %", func.name(), ", ", func.BlockName(b), " `",
                                                         PrintInst(func, i, target), "`: reuse of use #", k,
                                                         ", which does not exist"));
        }
        int o = use_at[k];
        Value src = ops[o].value();
        if (ops[o].constraint() == ConstraintKind::kFixed) continue;  // already a fresh copy
        auto needed_after = [&](Value v, int except) {
          bool needed = live.IsLive(v);
          for (size_t o2 = 0; o2 < ops.size() && !needed; ++o2) {
            needed = static_cast<int>(o2) != except && ops[o2].IsUse() && ops[o2].value() == v;
          }
          return needed;
        };
        if (!needed_after(src, o)) continue;
        // A commutative integer op whose other source dies here: the sources
        // trade places (each operand keeps its constraint) and nothing is copied.
        int other = CommutedOperand(func.inst(i).opcode, ops, o);
        if (other >= 0 && ops[other].constraint() != ConstraintKind::kFixed && ops[other].value() != src &&
            !needed_after(ops[other].value(), other)) {
          ops[o].set_value(ops[other].value());
          ops[other].set_value(src);
          commuted = true;
          ++stats.commuted;
          continue;
        }
        copy_use(o, Operand());
        ++stats.reuse_uses;
      }
      live.StepBack(func, i);
      if (p_ops_defs.empty()) {
        if (commuted) func.SetOperands(i, ops);
        out.push_back(i);
        continue;
      }
      func.SetOperands(i, ops);
      p_ops_defs.insert(p_ops_defs.end(), p_ops_uses.begin(), p_ops_uses.end());
      InstData pd;
      pd.opcode = Opcode::kParallelCopy;
      Inst p = func.NewInst(pd, p_ops_defs);
      out.push_back(i);
      out.push_back(p);
      added = true;
      ++stats.copies;
    }
    if (added) func.block(b).insts.assign(out.rbegin(), out.rend());
  }
  return stats;
}

}  // namespace regalloc
