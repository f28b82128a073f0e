#include "ssa/lower_params.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "ssa/cfg.h"
#include "ssa/parallel_copy.h"

namespace regalloc {

absl::StatusOr<LowerParamsStats> LowerBlockParams(Function& func, const Target& target) {
  return BlockParamLowerer().Run(func, target);
}

absl::StatusOr<LowerParamsStats> BlockParamLowerer::Run(Function& func, const Target& target) {
  return Lower(func, target, nullptr);
}

absl::StatusOr<LowerParamsStats> BlockParamLowerer::Run(Function& func, const Target& target,
                                                        const ControlFlowGraph& cfg) {
  return Lower(func, target, &cfg);
}

absl::StatusOr<LowerParamsStats> BlockParamLowerer::Lower(Function& func, const Target& target,
                                                          const ControlFlowGraph* shared) {
  LowerParamsStats stats;
  for (Block b : func.layout()) {
    for (const Operand& p : func.block(b).params) {
      if (p.location().IsNone()) {
        return absl::FailedPreconditionError(absl::StrCat("function %", func.name(), ", ", func.BlockName(b),
                                                          ": parameter ", func.ValueName(p.value()),
                                                          " has no location; run an allocator before lower_params"));
      }
    }
    Inst term = func.Terminator(b);
    if (!term.IsValid()) continue;
    for (int t = 0; t < func.inst(term).num_targets(); ++t) {
      for (const Operand& a : func.BranchArgs(term, t)) {
        if (a.location().IsNone()) {
          return absl::FailedPreconditionError(absl::StrCat("function %", func.name(), ", ", func.BlockName(b),
                                                            ": branch argument ", func.ValueName(a.value()),
                                                            " has no location; run an allocator before lower_params"));
        }
      }
    }
  }
  // Does the edge move anything?
  auto needs_moves = [&](const Edge& e) {
    absl::Span<const Operand> args = func.BranchArgs(e.branch, e.target);
    const std::vector<Operand>& params = func.block(e.to).params;
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i].location() != params[i].location()) return true;
    }
    return false;
  };
  if (shared == nullptr) {
    cfg_.Compute(func);
    shared = &cfg_;
  }
  for (const Edge& e : shared->all_edges()) {
    if (!shared->IsCritical(e) || !needs_moves(e)) continue;
    stats.edges_split = SplitCriticalEdges(func, needs_moves);
    cfg_.Compute(func);
    shared = &cfg_;
    break;
  }
  const ControlFlowGraph& cfg = *shared;
  std::vector<Block>& layout = layout_;
  layout.assign(func.layout().begin(), func.layout().end());
  std::vector<CopyMove>& moves = moves_;
  std::vector<Inst>& emitted = emitted_;
  for (Block b : layout) {
    for (const Edge& e : cfg.succs(b)) {
      absl::Span<const Operand> args = func.BranchArgs(e.branch, e.target);
      const std::vector<Operand>& params = func.block(e.to).params;
      if (args.empty()) continue;
      moves.clear();
      for (size_t i = 0; i < args.size(); ++i) {
        moves.push_back(CopyMove{args[i].location(), params[i].location(), args[i].value(), params[i].value(),
                                 func.value_type(params[i].value())});
      }
      emitted.clear();
      RA_ASSIGN_OR_RETURN(EmittedCopy copied, EmitParallelCopy(func, target, moves, emitted));
      if (emitted.empty()) continue;
      stats.edges_with_moves += needs_moves(e);
      stats.renames += copied.renames;
      stats.moves += copied.moves;
      stats.swaps += copied.swaps;
      stats.stack_temps += copied.stack_temps;
      // Moving edges are not critical any more (split above); renames may sit
      // before a branch to several successors.
      bool at_source = cfg.succs(e.from).size() == 1 || cfg.preds(e.to).size() > 1;
      if (at_source) {
        std::vector<Inst>& from_insts = func.block(e.from).insts;
        from_insts.insert(from_insts.end() - 1, emitted.begin(), emitted.end());
      } else {
        std::vector<Inst>& to_insts = func.block(e.to).insts;
        to_insts.insert(to_insts.begin(), emitted.begin(), emitted.end());
      }
    }
  }
  DropBlockParams(func);
  return stats;
}

void DropBlockParams(Function& func) {
  for (Block b : func.layout()) {
    if (b != func.entry()) func.block(b).params.clear();
    Inst term = func.Terminator(b);
    if (!term.IsValid() || !IsBranch(func.inst(term).opcode)) continue;
    const size_t kept = func.NumNonArgOperands(term);
    func.TruncateOperands(term, kept);
    for (BranchTarget& bt : func.mutable_targets(term)) bt = BranchTarget{bt.block, static_cast<uint16_t>(kept), 0};
  }
}

}  // namespace regalloc
