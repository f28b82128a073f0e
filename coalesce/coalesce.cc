#include "coalesce/coalesce.h"

#include <algorithm>
#include <numeric>

#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "liveness/live_ranges.h"
#include "liveness/live_sets.h"
#include "ssa/cfg.h"
#include "ssa/program_point.h"

namespace regalloc {

void VirtRegs::Assign(int num_values, std::vector<std::vector<Value>> sets) {
  of_.assign(num_values, VirtReg());
  members_.clear();
  for (std::vector<Value>& s : sets) {
    if (s.size() < 2) continue;
    VirtReg r(static_cast<uint32_t>(members_.size()));
    for (Value v : s) of_[v.index()] = r;
    members_.push_back(std::move(s));
  }
}

namespace {

// One round: the analyses of the function as it is now, and the union-find.
class Round {
 public:
  // `sets` stay exact across rounds: the copies a round inserts define values
  // local to one block (an argument copy lives before its branch, an isolated
  // parameter's copy at the top of its block), so no live-in or live-out set
  // changes. `ranges` are recomputed (positions move), reusing their buffers.
  // The copies do not change the control flow: `cfg` and `dom` serve every round.
  Round(const Function& f, const ControlFlowGraph& cfg, const DominatorTree& dom, const LiveSets& sets,
        LiveRanges& ranges)
      : f_(f), cfg_(cfg), dom_(dom), num_(f), sets_(sets), ranges_(ranges),
        preorder_(f.num_blocks(), 0), parent_(f.num_values()), members_(f.num_values()),
        def_block_(f.num_values()) {
    ranges_.Compute(f, sets_, num_);
    for (Block b : f.layout()) {
      for (const Operand& p : f.block(b).params) def_block_[p.value().index()] = b;
      for (Inst i : f.block(b).insts) {
        for (const Operand& op : f.operands(i)) {
          if (op.IsDef()) def_block_[op.value().index()] = b;
        }
      }
    }
    for (size_t i = 0; i < dom_.preorder().size(); ++i) preorder_[dom_.preorder()[i].index()] = static_cast<int>(i);
    std::iota(parent_.begin(), parent_.end(), 0u);
  }

  Value Find(Value v) {
    uint32_t r = v.index();
    while (parent_[r] != r) r = parent_[r] = parent_[parent_[r]];
    return Value(r);
  }

  // Dominance order: preorder of the defining block, then the def point.
  bool Before(Value a, Value b) const {
    int pa = preorder_[def_block_[a.index()].index()], pb = preorder_[def_block_[b.index()].index()];
    if (pa != pb) return pa < pb;
    return ranges_.def_interval(a).begin < ranges_.def_interval(b).begin;
  }
  bool DefDominates(Value a, Value b) const {
    Block da = def_block_[a.index()], db = def_block_[b.index()];
    if (da == db) return ranges_.def_interval(a).begin <= ranges_.def_interval(b).begin;
    return dom_.Dominates(da, db);
  }

  // The members of the set whose root is `r`, in dominance order (a value
  // alone has no list: most never join a set).
  absl::Span<const Value> Members(const Value& r) const {
    const std::vector<Value>& m = members_[r.index()];
    return m.empty() ? absl::Span<const Value>(&r, 1) : absl::Span<const Value>(m);
  }

  // The dominance-forest walk over the union of two interference-free sets.
  bool Interferes(Value ra, Value rb) {
    merged_.clear();
    absl::Span<const Value> a = Members(ra), b = Members(rb);
    std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(merged_),
               [&](Value x, Value y) { return Before(x, y); });
    stack_.clear();
    for (Value v : merged_) {
      while (!stack_.empty() && !DefDominates(stack_.back(), v)) stack_.pop_back();
      if (!stack_.empty() && ranges_.Overlaps(stack_.back(), v)) return true;
      stack_.push_back(v);
    }
    return false;
  }

  void Union(Value ra, Value rb) {
    absl::Span<const Value> a = Members(ra), b = Members(rb);
    std::vector<Value> m;
    m.reserve(a.size() + b.size());
    std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(m), [&](Value x, Value y) { return Before(x, y); });
    parent_[rb.index()] = ra.index();
    members_[ra.index()] = std::move(m);
    members_[rb.index()] = std::vector<Value>();
  }

  std::vector<std::vector<Value>> Sets() {
    std::vector<std::vector<Value>> out;
    for (int v = 0; v < f_.num_values(); ++v) {
      if (parent_[v] == static_cast<uint32_t>(v) && members_[v].size() > 1) out.push_back(std::move(members_[v]));
    }
    return out;
  }

  const ControlFlowGraph& cfg() const { return cfg_; }

 private:
  const Function& f_;
  const ControlFlowGraph& cfg_;
  const DominatorTree& dom_;
  InstNumbering num_;
  const LiveSets& sets_;
  LiveRanges& ranges_;
  std::vector<int> preorder_;
  std::vector<uint32_t> parent_;
  std::vector<std::vector<Value>> members_;
  std::vector<Value> merged_, stack_;
  std::vector<Block> def_block_;
};

struct ArgCopy {
  Inst branch;
  int operand;  // index of the argument among the branch's operands
  Block pred;
};

struct ParamCopy {
  Block block;
  int param;
};

}  // namespace

absl::StatusOr<CoalesceStats> Coalesce(Function& f, VirtRegs& vregs) {
  LiveSets sets;
  return Coalesce(f, vregs, sets);
}

absl::StatusOr<CoalesceStats> Coalesce(Function& f, VirtRegs& vregs, LiveSets& sets) {
  CoalesceStats st;
  if (f.IsAllocated()) {
    return absl::FailedPreconditionError(absl::StrCat("function %", f.name(), ": coalescing needs SSA form"));
  }
  // Two edges from one block into one block (both critical) would need two
  // values in one virtual register at once: split critical edges first.
  SplitCriticalEdges(f);
  absl::flat_hash_set<uint32_t> copied_args;     // values made by argument copies
  absl::flat_hash_set<uint32_t> isolated_params;  // parameters made by isolation
  sets.Compute(f);  // once: see Round
  LiveRanges ranges;
  ControlFlowGraph cfg(f);
  DominatorTree dom(f, cfg);
  while (true) {
    ++st.rounds;
    if (st.rounds > 4) {
      return absl::InternalError(absl::StrCat("function %", f.name(), ": coalescing did not converge"));
    }
    Round round(f, cfg, dom, sets, ranges);
    std::vector<ArgCopy> arg_copies;
    std::vector<ParamCopy> param_copies;
    absl::flat_hash_set<std::pair<uint32_t, int>> queued;  // (branch, operand) copies this round
    auto copy_arg = [&](const Edge& e, int operand) {
      if (queued.insert({e.branch.index(), operand}).second) arg_copies.push_back(ArgCopy{e.branch, operand, e.from});
    };
    for (Block b : f.layout()) {
      if (b == f.entry()) continue;
      const std::vector<Operand>& params = f.block(b).params;
      for (size_t i = 0; i < params.size(); ++i) {
        Value p = params[i].value();
        bool isolate_all = false;
        for (const Edge& e : round.cfg().preds(b)) {
          int operand = f.inst(e.branch).targets[e.target].first_arg + static_cast<int>(i);
          Value a = f.operands(e.branch)[operand].value();
          Value ra = round.Find(a), rp = round.Find(p);
          if (ra == rp) continue;
          if (!round.Interferes(ra, rp)) {
            round.Union(rp, ra);
          } else if (!copied_args.contains(a.index())) {
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
        if (isolated_params.contains(p.index())) {
          return absl::InternalError(absl::StrCat("function %", f.name(), ": ", f.BlockName(b), " parameter v",
                                                  p.index(), " interferes even after isolation"));
        }
        param_copies.push_back(ParamCopy{b, static_cast<int>(i)});
        for (const Edge& e : round.cfg().preds(b)) {
          int operand = f.inst(e.branch).targets[e.target].first_arg + static_cast<int>(i);
          if (!copied_args.contains(f.operands(e.branch)[operand].value().index())) copy_arg(e, operand);
        }
      }
    }
    if (arg_copies.empty() && param_copies.empty()) {
      std::vector<std::vector<Value>> sets = round.Sets();
      for (const auto& s : sets) st.values_in_vregs += static_cast<int>(s.size());
      st.vregs = static_cast<int>(sets.size());
      vregs.Assign(f.num_values(), std::move(sets));
      return st;
    }
    // Insert the copies, then recompute everything.
    for (const ArgCopy& c : arg_copies) {
      std::vector<Operand> ops(f.operands(c.branch).begin(), f.operands(c.branch).end());
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
      copied_args.insert(copy.index());
      ++st.arg_copies;
    }
    for (const ParamCopy& c : param_copies) {
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
      isolated_params.insert(fresh.index());
      ++st.param_copies;
    }
  }
}

}  // namespace regalloc
