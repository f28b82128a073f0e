#include "coalesce/coalesce.h"

#include <algorithm>
#include <numeric>

#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "base/warm_buffers.h"
#include "liveness/live_ranges.h"
#include "liveness/live_sets.h"
#include "ssa/cfg.h"
#include "ssa/program_point.h"

namespace regalloc {

void VirtRegs::Clear(int num_values) {
  of_.assign(num_values, VirtReg());
  members_.Clear();
}

void VirtRegs::Add(absl::Span<const Value> set) {
  if (set.size() < 2) return;
  VirtReg r(static_cast<uint32_t>(members_.num_rows()));
  for (Value v : set) of_[v.index()] = r;
  members_.AppendRow(set);
}

void VirtRegs::Assign(int num_values, const std::vector<std::vector<Value>>& sets) {
  Clear(num_values);
  for (const std::vector<Value>& s : sets) Add(s);
}

// A round's analyses: `sets` stay exact across rounds: the copies a round
// inserts define values local to one block (an argument copy lives before its
// branch, an isolated parameter's copy at the top of its block), so no live-in
// or live-out set changes. The def points are recomputed (positions move),
// reusing their buffers. The copies do not change the control flow: the analyses
// serve every round.
void Coalescer::StartRound() {
  const Function& f = *f_;
  const size_t n = f.num_values();
  num_.Compute(f);
  defs_.Compute(f, *sets_, num_);  // only Overlaps is asked: no ranges built
  preorder_.assign(f.num_blocks(), 0);
  parent_.resize(n);
  if (members_.size() < n) members_.resize(n);
  for (uint32_t r : member_roots_) members_[r].clear();  // not every value's: most never join a set
  member_roots_.clear();
  for (size_t i = 0; i < a_->dom.preorder().size(); ++i) preorder_[a_->dom.preorder()[i].index()] = static_cast<int>(i);
  std::iota(parent_.begin(), parent_.end(), 0u);
}

Value Coalescer::Find(Value v) {
  uint32_t r = v.index();
  while (parent_[r] != r) r = parent_[r] = parent_[parent_[r]];
  return Value(r);
}

// Dominance order: preorder of the defining block, then the def point.
bool Coalescer::Before(Value a, Value b) const {
  int pa = preorder_[defs_.DefBlock(a).index()], pb = preorder_[defs_.DefBlock(b).index()];
  if (pa != pb) return pa < pb;
  return defs_.DefPoint(a) < defs_.DefPoint(b);
}

bool Coalescer::DefDominates(Value a, Value b) const {
  Block da = defs_.DefBlock(a), db = defs_.DefBlock(b);
  if (da == db) return defs_.DefPoint(a) <= defs_.DefPoint(b);
  return a_->dom.Dominates(da, db);
}

// The members of the set whose root is `r`, in dominance order (a value alone
// has no list: most never join a set).
absl::Span<const Value> Coalescer::Members(const Value& r) const {
  const std::vector<Value>& m = members_[r.index()];
  return m.empty() ? absl::Span<const Value>(&r, 1) : absl::Span<const Value>(m);
}

// The dominance-forest walk over the union of two interference-free sets.
bool Coalescer::Interferes(Value ra, Value rb) {
  merged_.clear();
  absl::Span<const Value> a = Members(ra), b = Members(rb);
  std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(merged_),
             [&](Value x, Value y) { return Before(x, y); });
  stack_.clear();
  for (Value v : merged_) {
    while (!stack_.empty() && !DefDominates(stack_.back(), v)) stack_.pop_back();
    if (!stack_.empty() && defs_.Overlaps(stack_.back(), v)) return true;
    stack_.push_back(v);
  }
  return false;
}

void Coalescer::Union(Value ra, Value rb) {
  absl::Span<const Value> a = Members(ra), b = Members(rb);
  merged_.clear();
  std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(merged_),
             [&](Value x, Value y) { return Before(x, y); });
  parent_[rb.index()] = ra.index();
  if (members_[ra.index()].empty()) member_roots_.push_back(ra.index());
  members_[ra.index()].assign(merged_.begin(), merged_.end());
  members_[rb.index()].clear();
}

absl::StatusOr<CoalesceStats> Coalesce(Function& f, VirtRegs& vregs) {
  LiveSets sets;
  return Coalesce(f, vregs, sets);
}

absl::StatusOr<CoalesceStats> Coalesce(Function& f, VirtRegs& vregs, LiveSets& sets) {
  return Coalescer().Run(f, vregs, sets);
}

absl::StatusOr<CoalesceStats> Coalescer::Run(Function& f, VirtRegs& vregs, LiveSets& sets) {
  a_ = &own_;
  own_.cfg.Compute(f);
  absl::StatusOr<CoalesceStats> st = Rounds(f, vregs, sets, /*dom_current=*/false);
  ReleaseAfterLargeFunction(f.num_insts(), *this);
  return st;
}

absl::StatusOr<CoalesceStats> Coalescer::Run(Function& f, VirtRegs& vregs, LiveSets& sets, CfgAnalyses& analyses) {
  a_ = &analyses;
  bool split = false;
  absl::StatusOr<CoalesceStats> st = Rounds(f, vregs, sets, /*dom_current=*/true, &split);
  if (st.ok() && split) analyses.loops.Compute(f, analyses.cfg, analyses.dom);
  a_ = nullptr;
  ReleaseAfterLargeFunction(f.num_insts(), *this);
  return st;
}

absl::StatusOr<CoalesceStats> Coalescer::Rounds(Function& f, VirtRegs& vregs, LiveSets& sets, bool dom_current,
                                                bool* split) {
  CoalesceStats st;
  if (f.IsAllocated()) {
    return absl::FailedPreconditionError(absl::StrCat("function %", f.name(), ": coalescing needs SSA form"));
  }
  // Two edges from one block into one block (both critical) would need two
  // values in one virtual register at once: split critical edges first.
  // (a_->cfg is f's: the caller's, or computed by Run.)
  for (const Edge& e : a_->cfg.all_edges()) {
    if (!a_->cfg.IsCritical(e)) continue;
    SplitCriticalEdges(f);
    a_->cfg.Compute(f);
    dom_current = false;
    if (split != nullptr) *split = true;
    break;
  }
  f_ = &f;
  sets_ = &sets;
  copied_args_.clear();
  isolated_params_.clear();
  sets.Compute(f, a_->cfg);  // once: see StartRound
  if (!dom_current) a_->dom.Compute(f, a_->cfg);
  while (true) {
    ++st.rounds;
    if (st.rounds > 4) {
      return absl::InternalError(absl::StrCat("function %", f.name(), ": coalescing did not converge"));
    }
    StartRound();
    arg_copies_.clear();
    param_copies_.clear();
    queued_.clear();
    auto copy_arg = [&](const Edge& e, int operand) {
      if (queued_.insert({e.branch.index(), operand}).second) arg_copies_.push_back(ArgCopy{e.branch, operand, e.from});
    };
    for (Block b : f.layout()) {
      if (b == f.entry()) continue;
      const std::vector<Operand>& params = f.block(b).params;
      if (params.empty()) continue;
      edge_args_.clear();
      for (const Edge& e : a_->cfg.preds(b)) {
        const int first_arg = f.targets(e.branch)[e.target].first_arg;
        edge_args_.push_back(EdgeArgs{&e, f.operands(e.branch).data() + first_arg, first_arg});
      }
      for (size_t i = 0; i < params.size(); ++i) {
        Value p = params[i].value();
        bool isolate_all = false;
        for (const EdgeArgs& ea : edge_args_) {
          const Edge& e = *ea.edge;
          int operand = ea.first_arg + static_cast<int>(i);
          Value a = ea.args[i].value();
          Value ra = Find(a), rp = Find(p);
          if (ra == rp) continue;
          if (!Interferes(ra, rp)) {
            Union(rp, ra);
          } else if (!copied_args_.contains(a.index())) {
            copy_arg(e, operand);
          } else {
            isolate_all = true;
          }
        }
        if (!isolate_all) continue;
        // Even a copy interferes (with another argument already in the set):
        // isolate the parameter and every argument (Sreedhar's method I). Each
        // copy then lives only between itself and its branch, in its own
        // predecessor, and the parameter only at the top of its block.
        if (isolated_params_.contains(p.index())) {
          return absl::InternalError(absl::StrCat("function %", f.name(), ": ", f.BlockName(b), " parameter v",
                                                  p.index(), " interferes even after isolation"));
        }
        param_copies_.push_back(ParamCopy{b, static_cast<int>(i)});
        for (const EdgeArgs& ea : edge_args_) {
          if (!copied_args_.contains(ea.args[i].value().index())) copy_arg(*ea.edge, ea.first_arg + static_cast<int>(i));
        }
      }
    }
    if (arg_copies_.empty() && param_copies_.empty()) {
      vregs.Clear(f.num_values());
      for (int v = 0; v < f.num_values(); ++v) {
        const std::vector<Value>& m = members_[v];
        if (parent_[v] != static_cast<uint32_t>(v) || m.size() < 2) continue;
        vregs.Add(m);
        st.values_in_vregs += static_cast<int>(m.size());
        ++st.vregs;
      }
      return st;
    }
    // Insert the copies, then recompute everything.
    for (const ArgCopy& c : arg_copies_) {
      std::vector<Operand>& ops = ops_;
      ops.assign(f.operands(c.branch).begin(), f.operands(c.branch).end());
      Value a = ops[c.operand].value();
      Value copy = f.NewValue(f.value_type(a));
      InstData d;
      d.opcode = Opcode::kCopy;
      Operand cops[2] = {Operand::Def(copy), Operand::Use(a)};
      Inst ci = f.NewInst(d, cops);
      std::vector<Inst>& insts = f.block(c.pred).insts;
      insts.insert(insts.end() - 1, ci);
      ops[c.operand].set_value(copy);
      f.SetOperands(c.branch, ops);
      copied_args_.insert(copy.index());
      ++st.arg_copies;
    }
    for (const ParamCopy& c : param_copies_) {
      Operand& param = f.block(c.block).params[c.param];
      Value old = param.value();
      Value fresh = f.NewValue(f.value_type(old));
      param.set_value(fresh);
      InstData d;
      d.opcode = Opcode::kCopy;
      Operand cops[2] = {Operand::Def(old), Operand::Use(fresh)};
      Inst ci = f.NewInst(d, cops);
      std::vector<Inst>& insts = f.block(c.block).insts;
      insts.insert(insts.begin(), ci);
      isolated_params_.insert(fresh.index());
      ++st.param_copies;
    }
  }
}

}  // namespace regalloc
