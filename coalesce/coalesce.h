// CSSA virtual registers: partitions SSA values into virtual registers so that
// (1) every branch argument and the block parameter it feeds are in one virtual
// register, and (2) no two values of a virtual register interfere. Giving each
// virtual register one location is then a correct way to leave SSA: block
// parameters need no moves.
//
//   VirtRegs vregs;
//   absl::StatusOr<CoalesceStats> s = Coalesce(func, vregs);
//   if (VirtReg r = vregs.Get(v); r.IsValid()) for (Value m : vregs.Members(r)) ...
//
// Algorithm (Cretonne's coalescing; Budimlić et al., "Fast copy coalescing and
// live-range identification", PLDI 2002; Boissinot et al., "Revisiting
// out-of-SSA translation for correctness, code quality, and efficiency", CGO
// 2009): for each parameter and each incoming argument, try to union their
// virtual registers. The union is checked with a walk of the dominance forest of
// both member lists: visit the values in dominance order (dominator-tree preorder
// of the defining block, then program point) with a stack of the values whose
// definitions dominate the current one; a value can only interfere with the set
// if it interferes with the nearest such ancestor, since both sets are already
// interference-free. That is linear in the set sizes after the merge of two sorted
// lists. When a union interferes, the argument is isolated with a copy in the
// predecessor (Cretonne's `%interference` example: v1 passed as an argument and
// also live into the target block); if even the copy interferes (with another
// argument already in the set), the parameter and all its arguments are isolated
// with copies (Sreedhar et al.'s method I), which cannot interfere: each copy
// lives between itself and its branch in its own predecessor (critical edges are
// split first), the new parameter only at the top of its block. Those copies
// define values local to one block, so the live sets are computed once; the live
// ranges are recomputed after each round of copies, until a round inserts none.
//
// Singleton virtual registers are not stored. Precondition: the function
// verifies and is in SSA form.
#ifndef REGALLOC_COALESCE_COALESCE_H_
#define REGALLOC_COALESCE_COALESCE_H_

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "base/compressed_rows.h"
#include "base/id.h"
#include "liveness/live_ranges.h"
#include "liveness/live_sets.h"
#include "ssa/cfg.h"
#include "ssa/ir.h"
#include "ssa/program_point.h"

namespace regalloc {

struct VirtRegTag {};
using VirtReg = Id<VirtRegTag>;

class VirtRegs {
 public:
  // The virtual register of `v`, or an invalid id when v is alone.
  VirtReg Get(Value v) const {
    return v.index() < of_.size() ? of_[v.index()] : VirtReg();
  }
  // Members in dominance order (dominator-tree preorder of the defining block,
  // then program point).
  absl::Span<const Value> Members(VirtReg r) const { return members_.Row(r.index()); }
  int num_vregs() const { return static_cast<int>(members_.num_rows()); }
  // Replaces the contents (used by the dump loader).
  void Assign(int num_values, const std::vector<std::vector<Value>>& sets);
  // Or: Clear, then Add each set (sets of fewer than 2 values are not stored),
  // reusing the storage.
  void Clear(int num_values);
  void Add(absl::Span<const Value> set);

 private:
  std::vector<VirtReg> of_;
  CompressedRows<Value> members_;
};

struct CoalesceStats {
  int vregs = 0;             // stored (non-singleton) virtual registers
  int values_in_vregs = 0;   // their members
  int arg_copies = 0;        // arguments isolated with a copy in the predecessor
  int param_copies = 0;      // parameters isolated with a copy at the block top
  int rounds = 0;            // liveness computations
};

absl::StatusOr<CoalesceStats> Coalesce(Function& func, VirtRegs& vregs);
// The same, also leaving in `sets` the live sets of the result: exact for it,
// and for the allocator's later phases (spill/spill.h), which add only values
// local to one block.
absl::StatusOr<CoalesceStats> Coalesce(Function& func, VirtRegs& vregs, LiveSets& sets);

// The same as a reusable object: it keeps its analyses and buffers between
// functions, so a warm coalescer allocates nothing but the function's growth.
class Coalescer {
 public:
  absl::StatusOr<CoalesceStats> Run(Function& func, VirtRegs& vregs, LiveSets& sets);
  // The same with the caller's `analyses`: on entry the control-flow graph,
  // dominator tree and loop nest of `func` as it is (a verifier's:
  // FunctionVerifier::Run(func, target, analyses)), on return those of `func`
  // as coalescing leaves it (recomputed where it split critical edges; its
  // copies add no blocks), for the phases after it to share.
  absl::StatusOr<CoalesceStats> Run(Function& func, VirtRegs& vregs, LiveSets& sets, CfgAnalyses& analyses);

 private:
  struct ArgCopy {
    Inst branch;
    int operand;  // index of the argument among the branch's operands
    Block pred;
  };
  struct ParamCopy {
    Block block;
    int param;
  };

  // With a_->cfg computed for `func`, and a_->dom too if `dom_current`; sets
  // *split where it split critical edges.
  absl::StatusOr<CoalesceStats> Rounds(Function& func, VirtRegs& vregs, LiveSets& sets, bool dom_current,
                                       bool* split = nullptr);
  // One round: the live ranges and the union-find of the function as it is now.
  void StartRound();
  Value Find(Value v);
  bool Before(Value a, Value b) const;
  bool DefDominates(Value a, Value b) const;
  absl::Span<const Value> Members(const Value& r) const;
  bool Interferes(Value ra, Value rb);
  void Union(Value ra, Value rb);

  const Function* f_ = nullptr;
  const LiveSets* sets_ = nullptr;
  CfgAnalyses own_;             // when the caller keeps none
  CfgAnalyses* a_ = nullptr;    // the analyses in use (own_ or the caller's)
  InstNumbering num_;
  DefPoints defs_;
  std::vector<int> preorder_;
  std::vector<uint32_t> parent_;
  // The members of each set by its root, in dominance order; a value alone has
  // none. Cleared, not freed, so their storage serves the next round.
  std::vector<std::vector<Value>> members_;
  std::vector<uint32_t> member_roots_;  // the roots given a list this round (what to clear)
  std::vector<Value> merged_, stack_;
  std::vector<ArgCopy> arg_copies_;
  std::vector<ParamCopy> param_copies_;
  std::vector<Operand> ops_;
  // A block's incoming edges' arguments, looked up once per block, not once
  // per parameter and edge.
  struct EdgeArgs {
    const Edge* edge;
    const Operand* args;
    int first_arg;  // index of the first among the branch's operands
  };
  std::vector<EdgeArgs> edge_args_;
  absl::flat_hash_set<uint32_t> copied_args_;     // values made by argument copies
  absl::flat_hash_set<uint32_t> isolated_params_;  // parameters made by isolation
  absl::flat_hash_set<std::pair<uint32_t, int>> queued_;  // (branch, operand) copies this round
};

}  // namespace regalloc

#endif  // REGALLOC_COALESCE_COALESCE_H_
