#include "tools/llvm/writeback.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "llvm/CodeGen/LiveIntervals.h"
#include "llvm/CodeGen/LivePhysRegs.h"
#include "llvm/CodeGen/MachineBasicBlock.h"
#include "llvm/CodeGen/MachineBlockFrequencyInfo.h"
#include "llvm/CodeGen/MachineBranchProbabilityInfo.h"
#include "llvm/CodeGen/MachineDominators.h"
#include "llvm/CodeGen/MachineFrameInfo.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineInstr.h"
#include "llvm/CodeGen/MachineInstrBuilder.h"
#include "llvm/CodeGen/MachineJumpTableInfo.h"
#include "llvm/CodeGen/MachineLoopInfo.h"
#include "llvm/CodeGen/MachineRegisterInfo.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetOpcodes.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include "llvm/CodeGenTypes/MachineValueType.h"
#include "llvm/Pass.h"
#include "llvm/Support/ErrorHandling.h"
#include "base/status_macros.h"
#include "ssa/parallel_copy.h"

namespace regalloc {
namespace {

// One thing to put into a machine block, in order.
struct Step {
  enum class Kind : uint8_t { kPlace, kCopy, kStore, kLoad, kImplicitDef, kStackMove };
  Kind kind = Kind::kPlace;
  llvm::MachineInstr* mi = nullptr;  // kPlace
  unsigned dst = 0;                  // kCopy, kLoad, kImplicitDef; kStackMove: the register it goes through
  unsigned src = 0;                  // kCopy, kStore; kStackMove: the whole register, saved around it
  int slot = -1;                     // kStore, kLoad; kStackMove: the destination
  int from_slot = -1;                // kStackMove: the source
  const llvm::TargetRegisterClass* rc = nullptr;
  const llvm::TargetRegisterClass* save_rc = nullptr;  // kStackMove: the class `src` is saved in
  bool plain_copy = false;                              // kCopy: a COPY, not copyPhysReg
};

// A machine operand's new register. `whole` is the register a sub-register def
// writes part of (0: not a sub-register def); `reads_whole` when that def keeps
// the rest.
struct OperandWrite {
  llvm::MachineInstr* mi = nullptr;
  unsigned index = 0;
  unsigned reg = 0;
  unsigned whole = 0;
  bool reads_whole = false;
};

struct Split {
  int block;  // our block on the edge
  llvm::MachineBasicBlock* from;
  llvm::MachineBasicBlock* to;
  int jump_table = -1;  // the jump table `from` dispatches through (LLVM cannot split such an edge itself)
};

llvm::MVT MachineType(Type t) {
  switch (t) {
    case Type::kI8: return llvm::MVT::i8;
    case Type::kI32: return llvm::MVT::i32;
    case Type::kI64: return llvm::MVT::i64;
    case Type::kF32: return llvm::MVT::f32;
    case Type::kF64: return llvm::MVT::f64;
    case Type::kV128: return llvm::MVT::v2i64;
    case Type::kF80: return llvm::MVT::f80;
  }
  return llvm::MVT::Other;
}

class Writer {
 public:
  Writer(const Function& f, const ImportedFunction& imported, const Target& target, llvm::MachineFunction& mf,
         llvm::Pass& pass)
      : f_(f),
        origins_(imported.origins),
        target_(target),
        mf_(mf),
        pass_(pass),
        tri_(*mf.getSubtarget().getRegisterInfo()),
        tii_(*mf.getSubtarget().getInstrInfo()),
        mri_(mf.getRegInfo()) {
    if (auto* w = pass.getAnalysisIfAvailable<llvm::LiveIntervalsWrapperPass>()) lis_ = &w->getLIS();
  }

  absl::StatusOr<WriteBackStats> Run() {
    RA_RETURN_IF_ERROR(Plan());
    Apply();
    return stats_;
  }

 private:
  absl::Status Error(absl::string_view what) const {
    return absl::UnimplementedError(absl::StrCat("function ", mf_.getName().str(), ": write-back: ", what));
  }
  std::string InstName(const llvm::MachineInstr& mi) const {
    return absl::StrCat("bb.", mi.getParent()->getNumber(), " ", tii_.getName(mi.getOpcode()).str());
  }
  absl::StatusOr<unsigned> Llvm(PReg r) const {
    if (r.index() >= origins_.llvm_reg.size() || origins_.llvm_reg[r.index()] == 0) {
      return Error(absl::StrCat("%", target_.RegName(r), " has no LLVM register"));
    }
    return origins_.llvm_reg[r.index()];
  }
  // The register of `rc` that is `reg` or its part from bit 0.
  std::optional<unsigned> ViewIn(unsigned reg, const llvm::TargetRegisterClass* rc) const {
    if (rc->contains(reg)) return reg;
    for (llvm::MCSubRegIterator s(reg, &tri_, false); s.isValid(); ++s) {
      unsigned idx = tri_.getSubRegIndex(reg, *s);
      if (rc->contains(*s) && tri_.getSubRegIdxOffset(idx) == 0) return static_cast<unsigned>(*s);
    }
    return std::nullopt;
  }
  // The physical register for machine operand `mo` (a virtual register) whose
  // value is in `reg`: the view of its class, then its sub-register.
  absl::StatusOr<OperandWrite> Rewrite(llvm::MachineInstr& mi, unsigned index, unsigned reg) const {
    const llvm::MachineOperand& mo = mi.getOperand(index);
    const llvm::TargetRegisterClass* rc = mri_.getRegClass(mo.getReg());
    std::optional<unsigned> view = ViewIn(reg, rc);
    if (!view.has_value()) {
      return Error(absl::StrCat(InstName(mi), ": operand ", index, " has class ", tri_.getRegClassName(rc),
                                ", which has no view of ", tri_.getName(reg)));
    }
    OperandWrite w{&mi, index, *view};
    if (unsigned sub = mo.getSubReg()) {
      w.reg = tri_.getSubReg(*view, sub);
      if (w.reg == 0) {
        return Error(absl::StrCat(InstName(mi), ": ", tri_.getName(*view), " has no sub-register ",
                                  tri_.getSubRegIndexName(sub)));
      }
      if (mo.isDef()) {
        w.whole = *view;
        w.reads_whole = !mo.isUndef();
      }
    }
    return w;
  }
  absl::StatusOr<const llvm::TargetRegisterClass*> ClassOf(unsigned reg, Type type) const {
    const llvm::TargetRegisterClass* rc = tri_.getMinimalPhysRegClass(reg, MachineType(type));
    if (rc == nullptr) return Error(absl::StrCat("no register class holds a ", TypeName(type), " in ", tri_.getName(reg)));
    return rc;
  }
  int SlotSize(int slot) const {
    return slot < f_.num_stack_slots() ? f_.stack_slot(StackSlot(slot)).size : extra_slot_size_[slot - f_.num_stack_slots()];
  }

  absl::Status Plan();
  absl::Status PlanMove(Location dst, Location src, Type type, std::vector<Step>& steps);
  absl::Status PlanBlock(Block b, std::vector<Step>& steps);
  void Apply();
  int FrameIndex(int slot, const llvm::TargetRegisterClass* rc);
  // Runs `emit`, which inserts instructions before `pos`, and gives them slot indexes.
  template <typename F>
  void Insert(llvm::MachineBasicBlock& mbb, llvm::MachineBasicBlock::iterator pos, F emit);

  const Function& f_;
  const ImportOrigins& origins_;
  const Target& target_;
  llvm::MachineFunction& mf_;
  llvm::Pass& pass_;
  const llvm::TargetRegisterInfo& tri_;
  const llvm::TargetInstrInfo& tii_;
  llvm::MachineRegisterInfo& mri_;
  llvm::LiveIntervals* lis_ = nullptr;

  // An edge LLVM will not split because `from` ends in an indirect branch: the
  // jump table behind it, when one can be redirected (error otherwise).
  absl::StatusOr<int> JumpTableOf(const llvm::MachineBasicBlock& from, const llvm::MachineBasicBlock& to) const;
  llvm::MachineBasicBlock* SplitJumpTableEdge(llvm::MachineBasicBlock& from, llvm::MachineBasicBlock& to, int table);

  std::vector<Split> splits_;
  std::vector<std::pair<int, std::vector<Step>>> blocks_;  // our block (layout order), its steps
  std::vector<OperandWrite> writes_;
  absl::flat_hash_map<std::pair<const llvm::MachineInstr*, unsigned>, unsigned> written_;  // -> writes_ index
  // Per original block: the register of each virtual register its terminators read.
  std::vector<std::vector<std::pair<unsigned, unsigned>>> branch_regs_;
  std::vector<int> extra_slot_size_;  // slots the sequentializer made
  std::vector<int> frame_index_;      // our slot -> frame index (-1: none yet)
  int emergency_slot_ = -1;           // where a stack-to-stack move saves its register
  WriteBackStats stats_;
};

absl::Status Writer::PlanMove(Location dst, Location src, Type type, std::vector<Step>& steps) {
  if (dst.IsNone() || src.IsNone()) return Error("a move without a location");
  Step s;
  if (dst.IsReg() && src.IsReg()) {
    RA_ASSIGN_OR_RETURN(s.dst, Llvm(dst.reg()));
    RA_ASSIGN_OR_RETURN(s.src, Llvm(src.reg()));
    if (s.dst == s.src) return absl::OkStatus();
    s.kind = Step::Kind::kCopy;
    // x87 registers have no copy instruction before LLVM's stackifier, which
    // turns a COPY between them into stack operations.
    s.plain_copy = type == Type::kF80;
  } else if (dst.IsStack() && src.IsReg()) {
    s.kind = Step::Kind::kStore;
    RA_ASSIGN_OR_RETURN(s.src, Llvm(src.reg()));
    RA_ASSIGN_OR_RETURN(s.rc, ClassOf(s.src, type));
    s.slot = static_cast<int>(dst.slot().index());
  } else if (dst.IsReg() && src.IsStack()) {
    s.kind = Step::Kind::kLoad;
    RA_ASSIGN_OR_RETURN(s.dst, Llvm(dst.reg()));
    RA_ASSIGN_OR_RETURN(s.rc, ClassOf(s.dst, type));
    s.slot = static_cast<int>(src.slot().index());
  } else {
    if (dst == src) return absl::OkStatus();
    // Through the first register of the bank, saved and restored whole around
    // the move (it may hold a wider value than the one moved). An f80 moves as
    // the 16 bytes of its slot through an XMM register: an x87 register that
    // holds nothing cannot be saved.
    const Type moved = type == Type::kF80 ? Type::kV128 : type;
    const Type wide_type = IsInteger(moved) ? Type::kI64 : Type::kV128;
    std::optional<RegClass> cls = target_.ClassFor(moved);
    std::optional<RegClass> wide_cls = target_.ClassFor(wide_type);
    if (!cls.has_value() || !wide_cls.has_value() || target_.Class(*wide_cls).allocation_order.empty()) {
      return Error(absl::StrCat("no register for a ", TypeName(type), " stack-to-stack move"));
    }
    const PReg wide = target_.Class(*wide_cls).allocation_order.front();
    std::optional<PReg> view = target_.View(wide, *cls);
    if (!view.has_value()) return Error(absl::StrCat("no view of %", target_.RegName(wide), " for a ", TypeName(type), " stack-to-stack move"));
    s.kind = Step::Kind::kStackMove;
    RA_ASSIGN_OR_RETURN(s.dst, Llvm(*view));
    RA_ASSIGN_OR_RETURN(s.rc, ClassOf(s.dst, moved));
    RA_ASSIGN_OR_RETURN(s.src, Llvm(wide));
    RA_ASSIGN_OR_RETURN(s.save_rc, ClassOf(s.src, wide_type));
    s.slot = static_cast<int>(dst.slot().index());
    s.from_slot = static_cast<int>(src.slot().index());
  }
  steps.push_back(s);
  return absl::OkStatus();
}

absl::Status Writer::PlanBlock(Block b, std::vector<Step>& steps) {
  const bool original = b.index() < origins_.blocks.size();
  for (Inst i : f_.block(b).insts) {
    const InstData& d = f_.inst(i);
    absl::Span<const Operand> ops = f_.operands(i);
    switch (d.opcode) {
      case Opcode::kInst: {
        const llvm::MachineInstr* cmi = i.index() < origins_.insts.size() ? origins_.insts[i.index()] : nullptr;
        if (cmi == nullptr) {
          // An undefined value the import made: IMPLICIT_DEF of its register.
          for (const Operand& o : ops) {
            if (!o.IsDef() || !o.location().IsReg()) continue;
            Step s;
            s.kind = Step::Kind::kImplicitDef;
            RA_ASSIGN_OR_RETURN(s.dst, Llvm(o.location().reg()));
            steps.push_back(s);
          }
          break;
        }
        llvm::MachineInstr& mi = const_cast<llvm::MachineInstr&>(*cmi);
        if (!original || mi.getParent() != origins_.blocks[b.index()]) {
          return Error(absl::StrCat(InstName(mi), " moved to another block"));
        }
        const std::vector<OperandOrigin>& from = origins_.operands[i.index()];
        if (ops.size() != from.size()) {
          return Error(absl::StrCat(InstName(mi), ": ", ops.size(), " operands after allocation, ", from.size(), " imported"));
        }
        for (size_t k = 0; k < ops.size(); ++k) {
          if (from[k].mi == nullptr) continue;
          Location l = ops[k].location();
          if (!l.IsReg()) return Error(absl::StrCat(InstName(mi), ": operand ", from[k].index, " is not in a register"));
          RA_ASSIGN_OR_RETURN(unsigned reg, Llvm(l.reg()));
          RA_ASSIGN_OR_RETURN(OperandWrite w, Rewrite(mi, from[k].index, reg));
          auto [it, fresh] = written_.try_emplace(std::pair<const llvm::MachineInstr*, unsigned>(&mi, from[k].index),
                                                  writes_.size());
          if (fresh) {
            writes_.push_back(w);
          } else if (writes_[it->second].reg != w.reg) {
            return Error(absl::StrCat(InstName(mi), ": operand ", from[k].index, " in two registers"));
          }
        }
        Step s;
        s.kind = Step::Kind::kPlace;
        s.mi = &mi;
        steps.push_back(s);
        break;
      }
      case Opcode::kBranch:
      case Opcode::kRet: {
        // A return's operands are fixed registers the machine instruction
        // already names, or (x87 results) virtual registers known by register.
        if (!original) return Error(absl::StrCat("a ", OpcodeName(d.opcode), " in block ", b.index(), ", which the allocation added"));
        const std::vector<OperandOrigin>& from = origins_.operands[i.index()];
        std::vector<std::pair<unsigned, unsigned>>& regs = branch_regs_[b.index()];
        for (size_t k = 0; k < from.size() && k < ops.size(); ++k) {
          if (from[k].vreg == 0) continue;
          if (!ops[k].location().IsReg()) return Error(absl::StrCat("bb.", b.index(), ": a branch operand is not in a register"));
          RA_ASSIGN_OR_RETURN(unsigned reg, Llvm(ops[k].location().reg()));
          regs.push_back({from[k].vreg, reg});
        }
        // Every virtual register the terminators read has a register, viewable in its class.
        llvm::MachineBasicBlock& mbb = *origins_.blocks[b.index()];
        for (auto t = mbb.getFirstTerminator(); t != mbb.end(); ++t) {
          for (unsigned k = 0; k < t->getNumOperands(); ++k) {
            const llvm::MachineOperand& mo = t->getOperand(k);
            if (!mo.isReg() || !mo.getReg().isVirtual() || (mo.isUse() && mo.isUndef())) continue;
            auto found = std::find_if(regs.begin(), regs.end(), [&](const auto& e) { return e.first == mo.getReg(); });
            if (found == regs.end()) return Error(absl::StrCat(InstName(*t), ": reads a register the allocation does not place"));
            RA_RETURN_IF_ERROR(Rewrite(*t, k, found->second).status());
          }
        }
        break;
      }
      case Opcode::kJump:
        break;
      case Opcode::kMove:
      case Opcode::kCopy:
      case Opcode::kSpill:
      case Opcode::kReload:
        if (ops.size() != 2) return Error(absl::StrCat("a move with ", ops.size(), " operands"));
        RA_RETURN_IF_ERROR(PlanMove(ops[0].location(), ops[1].location(), f_.value_type(ops[0].value()), steps));
        break;
      case Opcode::kParallelCopy: {
        const size_t n = ops.size() / 2;
        std::vector<CopyMove> moves;
        for (size_t k = 0; k < n; ++k) {
          moves.push_back(CopyMove{ops[n + k].location(), ops[k].location(), ops[n + k].value(), ops[k].value(),
                                   f_.value_type(ops[k].value())});
        }
        ParallelCopyOptions options;
        options.new_stack_slot = [&](Type t) {
          extra_slot_size_.push_back(TypeSize(t));
          return StackSlot(f_.num_stack_slots() + extra_slot_size_.size() - 1);
        };
        absl::StatusOr<std::vector<CopyStep>> seq = SequentializeParallelCopy(moves, target_, options);
        if (!seq.ok()) return Error(seq.status().message());
        for (const CopyStep& step : *seq) {
          if (step.kind != CopyStep::Kind::kMove) return Error("a swap in a parallel copy");
          RA_RETURN_IF_ERROR(PlanMove(step.dst, step.src, step.type, steps));
        }
        break;
      }
      default:
        return Error(absl::StrCat("block ", b.index(), ": cannot write back a ", OpcodeName(d.opcode), " instruction"));
    }
  }
  return absl::OkStatus();
}

absl::Status Writer::Plan() {
  const size_t n = origins_.blocks.size();
  branch_regs_.assign(n, {});
  // The blocks the allocation added: one predecessor, a jump to an original block.
  std::vector<int> preds(f_.num_blocks(), 0), pred(f_.num_blocks(), -1);
  std::vector<bool> laid_out(f_.num_blocks(), false);
  for (Block b : f_.layout()) {
    laid_out[b.index()] = true;
    if (f_.block(b).insts.empty()) return Error(absl::StrCat("block ", b.index(), " is empty"));
    for (const BranchTarget& t : f_.targets(f_.block(b).insts.back())) {
      ++preds[t.block.index()];
      pred[t.block.index()] = static_cast<int>(b.index());
    }
  }
  for (size_t b = 0; b < n; ++b) {
    if (b >= laid_out.size() || !laid_out[b]) return Error(absl::StrCat("block ", b, " is gone"));
  }
  for (Block b : f_.layout()) {
    if (b.index() < n) continue;
    const Inst jump = f_.block(b).insts.back();
    if (preds[b.index()] != 1 || pred[b.index()] >= static_cast<int>(n) || f_.inst(jump).opcode != Opcode::kJump ||
        f_.targets(jump)[0].block.index() >= n) {
      return Error(absl::StrCat("block ", b.index(), " is not on an edge between imported blocks"));
    }
    llvm::MachineBasicBlock* from = origins_.blocks[pred[b.index()]];
    llvm::MachineBasicBlock* to = origins_.blocks[f_.targets(jump)[0].block.index()];
    if (!from->isSuccessor(to)) {
      return Error(absl::StrCat("block ", b.index(), " is on no edge: bb.", to->getNumber(), " does not follow bb.", from->getNumber()));
    }
    int jump_table = -1;
    if (!from->canSplitCriticalEdge(to)) {
      RA_ASSIGN_OR_RETURN(jump_table, JumpTableOf(*from, *to));
    }
    for (const Split& s : splits_) {
      if (s.from == from && s.to == to) return Error(absl::StrCat("two blocks on the edge bb.", from->getNumber(), " -> bb.", to->getNumber()));
    }
    splits_.push_back(Split{static_cast<int>(b.index()), from, to, jump_table});
  }
  for (Block b : f_.layout()) {
    blocks_.emplace_back(static_cast<int>(b.index()), std::vector<Step>());
    RA_RETURN_IF_ERROR(PlanBlock(b, blocks_.back().second));
  }
  // Every machine instruction is placed, folded or a terminator; every virtual
  // register operand is written, an undef read, a debug operand or a terminator's.
  absl::flat_hash_set<const llvm::MachineInstr*> placed, folded(origins_.folded.begin(), origins_.folded.end());
  for (const auto& [b, steps] : blocks_) {
    for (const Step& s : steps) {
      if (s.kind == Step::Kind::kPlace && !placed.insert(s.mi).second) return Error(absl::StrCat(InstName(*s.mi), " placed twice"));
    }
  }
  for (size_t b = 0; b < n; ++b) {
    for (const llvm::MachineInstr& mi : *origins_.blocks[b]) {
      if (mi.isDebugInstr() || folded.contains(&mi)) continue;
      if (!mi.isTerminator() && !placed.contains(&mi)) return Error(absl::StrCat(InstName(mi), " is not in the allocation"));
      if (mi.isTerminator()) continue;
      for (unsigned k = 0; k < mi.getNumOperands(); ++k) {
        const llvm::MachineOperand& mo = mi.getOperand(k);
        if (!mo.isReg() || !mo.getReg().isVirtual() || written_.contains(std::make_pair(&mi, k))) continue;
        if (mo.isUse() && mo.isUndef()) continue;
        return Error(absl::StrCat(InstName(mi), ": operand ", k, " is not in the allocation"));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<int> Writer::JumpTableOf(const llvm::MachineBasicBlock& from, const llvm::MachineBasicBlock& to) const {
  const std::string edge = absl::StrCat("bb.", from.getNumber(), " -> bb.", to.getNumber());
  const llvm::MachineJumpTableInfo* jti = mf_.getJumpTableInfo();
  if (from.empty() || !from.back().isIndirectBranch() || to.isEHPad()) {
    return Error(absl::StrCat("LLVM cannot split the edge ", edge));
  }
  // The jump table is found by its destinations, not by an operand: the address
  // of the table may have been computed in another block (hoisted out of a loop).
  // It must be the only table with from's successors, and from the only block
  // that jumps through such a table, so that redirecting its entry for `to`
  // changes this edge and no other.
  absl::flat_hash_set<const llvm::MachineBasicBlock*> succs(from.succ_begin(), from.succ_end());
  auto same_destinations = [&](const std::vector<llvm::MachineBasicBlock*>& dests) {
    absl::flat_hash_set<const llvm::MachineBasicBlock*> d(dests.begin(), dests.end());
    return d == succs;
  };
  int table = -1;
  static const std::vector<llvm::MachineJumpTableEntry> kNoTables;
  const std::vector<llvm::MachineJumpTableEntry>& tables = jti != nullptr ? jti->getJumpTables() : kNoTables;
  for (size_t t = 0; t < tables.size(); ++t) {
    if (!same_destinations(tables[t].MBBs)) continue;
    if (table >= 0) return Error(absl::StrCat("two jump tables could be behind the edge ", edge));
    table = static_cast<int>(t);
  }
  if (table < 0) return Error(absl::StrCat("the indirect branch of bb.", from.getNumber(), " uses no jump table (computed goto): cannot split the edge ", edge));
  for (const llvm::MachineBasicBlock& mbb : mf_) {
    if (&mbb == &from || mbb.empty() || !mbb.back().isIndirectBranch()) continue;
    absl::flat_hash_set<const llvm::MachineBasicBlock*> other(mbb.succ_begin(), mbb.succ_end());
    if (other == succs) return Error(absl::StrCat("bb.", mbb.getNumber(), " may share the jump table of bb.", from.getNumber(), ": cannot split the edge ", edge));
  }
  return table;
}

llvm::MachineBasicBlock* Writer::SplitJumpTableEdge(llvm::MachineBasicBlock& from, llvm::MachineBasicBlock& to, int table) {
  llvm::MachineBasicBlock* mid = mf_.CreateMachineBasicBlock();
  // `from` ends in an indirect branch: nothing falls through from it into its layout successor.
  mf_.insert(std::next(from.getIterator()), mid);
  from.replaceSuccessor(&to, mid);
  mid->addSuccessor(&to);
  mf_.getJumpTableInfo()->ReplaceMBBInJumpTable(static_cast<unsigned>(table), &to, mid);
  if (lis_ != nullptr) lis_->insertMBBInMaps(mid);  // while empty
  tii_.insertBranch(*mid, &to, nullptr, {}, llvm::DebugLoc());
  if (lis_ != nullptr) {
    for (llvm::MachineInstr& mi : *mid) lis_->InsertMachineInstrInMaps(mi);
  }
  if (auto* w = pass_.getAnalysisIfAvailable<llvm::MachineDominatorTreeWrapperPass>()) {
    w->getDomTree().recordSplitCriticalEdge(&from, &to, mid);
  }
  // The new block belongs to the innermost loop holding both ends (as
  // MachineBasicBlock::SplitCriticalEdge decides).
  if (auto* w = pass_.getAnalysisIfAvailable<llvm::MachineLoopInfoWrapperPass>()) {
    llvm::MachineLoopInfo& loops = w->getLI();
    llvm::MachineLoop* from_loop = loops.getLoopFor(&from);
    llvm::MachineLoop* to_loop = loops.getLoopFor(&to);
    if (from_loop != nullptr && to_loop != nullptr) {
      if (from_loop == to_loop || from_loop->contains(to_loop)) {
        from_loop->addBasicBlockToLoop(mid, loops);
      } else if (to_loop->contains(from_loop)) {
        to_loop->addBasicBlockToLoop(mid, loops);
      } else if (llvm::MachineLoop* parent = to_loop->getParentLoop()) {
        parent->addBasicBlockToLoop(mid, loops);
      }
    }
  }
  return mid;
}

int Writer::FrameIndex(int slot, const llvm::TargetRegisterClass* rc) {
  if (static_cast<size_t>(slot) >= frame_index_.size()) frame_index_.resize(slot + 1, -1);
  if (frame_index_[slot] < 0) {
    int size = std::max<int>(SlotSize(slot), static_cast<int>(tri_.getSpillSize(*rc)));
    llvm::Align align(std::min<int>(size, 16));
    align = std::max(align, tri_.getSpillAlign(*rc));
    frame_index_[slot] = mf_.getFrameInfo().CreateSpillStackObject(size, align);
    ++stats_.frame_indices;
  }
  return frame_index_[slot];
}

template <typename F>
void Writer::Insert(llvm::MachineBasicBlock& mbb, llvm::MachineBasicBlock::iterator pos, F emit) {
  const bool at_begin = pos == mbb.begin();
  llvm::MachineBasicBlock::iterator before = at_begin ? mbb.end() : std::prev(pos);
  emit();
  if (lis_ == nullptr) return;
  for (auto it = at_begin ? mbb.begin() : std::next(before); it != pos; ++it) lis_->InsertMachineInstrInMaps(*it);
}

void Writer::Apply() {
  // Blocks on edges first, while the terminators and live intervals are LLVM's own.
  std::vector<llvm::MachineBasicBlock*> mbb_of(f_.num_blocks(), nullptr);
  for (size_t b = 0; b < origins_.blocks.size(); ++b) mbb_of[b] = origins_.blocks[b];
  auto* mbfi = pass_.getAnalysisIfAvailable<llvm::MachineBlockFrequencyInfoWrapperPass>();
  auto* mbpi = pass_.getAnalysisIfAvailable<llvm::MachineBranchProbabilityInfoWrapperPass>();
  for (const Split& s : splits_) {
    llvm::MachineBasicBlock* mid =
        s.jump_table >= 0 ? SplitJumpTableEdge(*s.from, *s.to, s.jump_table) : s.from->SplitCriticalEdge(s.to, pass_);
    if (mid == nullptr) llvm::report_fatal_error("regalloc write-back: an edge LLVM said it could split did not split");
    if (mbfi != nullptr && mbpi != nullptr) mbfi->getMBFI().onEdgeSplit(*s.from, *mid, mbpi->getMBPI());
    mbb_of[s.block] = mid;
    ++stats_.split_edges;
    if (s.jump_table >= 0) ++stats_.jump_table_edges;
  }
  const llvm::DebugLoc dl;
  for (const auto& [b, steps] : blocks_) {
    llvm::MachineBasicBlock& mbb = *mbb_of[b];
    llvm::MachineBasicBlock::iterator pos = mbb.begin();
    for (const Step& s : steps) {
      switch (s.kind) {
        case Step::Kind::kPlace:
          if (pos != mbb.end() && &*pos == s.mi) {
            ++pos;
          } else {
            if (lis_ != nullptr) lis_->RemoveMachineInstrFromMaps(*s.mi);
            mbb.splice(pos, &mbb, s.mi->getIterator());
            if (lis_ != nullptr) lis_->InsertMachineInstrInMaps(*s.mi);
          }
          break;
        case Step::Kind::kCopy:
          Insert(mbb, pos, [&] {
            if (s.plain_copy) {
              llvm::BuildMI(mbb, pos, dl, tii_.get(llvm::TargetOpcode::COPY), s.dst).addReg(s.src);
            } else {
              tii_.copyPhysReg(mbb, pos, dl, s.dst, s.src, false);
            }
          });
          ++stats_.copies;
          break;
        case Step::Kind::kStore:
          Insert(mbb, pos, [&] { tii_.storeRegToStackSlot(mbb, pos, s.src, false, FrameIndex(s.slot, s.rc), s.rc, &tri_, llvm::Register()); });
          ++stats_.stores;
          break;
        case Step::Kind::kLoad:
          Insert(mbb, pos, [&] { tii_.loadRegFromStackSlot(mbb, pos, s.dst, FrameIndex(s.slot, s.rc), s.rc, &tri_, llvm::Register()); });
          ++stats_.loads;
          break;
        case Step::Kind::kImplicitDef:
          Insert(mbb, pos, [&] { llvm::BuildMI(mbb, pos, dl, tii_.get(llvm::TargetOpcode::IMPLICIT_DEF), s.dst); });
          break;
        case Step::Kind::kStackMove: {
          if (emergency_slot_ < 0) {
            extra_slot_size_.push_back(16);
            emergency_slot_ = f_.num_stack_slots() + static_cast<int>(extra_slot_size_.size()) - 1;
          }
          const int save = FrameIndex(emergency_slot_, s.save_rc);
          Insert(mbb, pos, [&] {
            // Whatever the whole register holds (maybe nothing: an undef read) is kept.
            tii_.storeRegToStackSlot(mbb, pos, s.src, false, save, s.save_rc, &tri_, llvm::Register());
            for (llvm::MachineOperand& mo : std::prev(pos)->operands()) {
              if (mo.isReg() && mo.isUse() && mo.getReg() == s.src) mo.setIsUndef(true);
            }
            tii_.loadRegFromStackSlot(mbb, pos, s.dst, FrameIndex(s.from_slot, s.rc), s.rc, &tri_, llvm::Register());
            tii_.storeRegToStackSlot(mbb, pos, s.dst, false, FrameIndex(s.slot, s.rc), s.rc, &tri_, llvm::Register());
            tii_.loadRegFromStackSlot(mbb, pos, s.src, save, s.save_rc, &tri_, llvm::Register());
          });
          ++stats_.stack_moves;
          stats_.stores += 2;
          stats_.loads += 2;
          break;
        }
      }
    }
  }
  // Operands. Implicit operands for sub-register defs go on after all of an
  // instruction's operands are rewritten (adding one may move implicit operands).
  std::vector<std::pair<llvm::MachineInstr*, llvm::MachineOperand>> extra;
  for (const OperandWrite& w : writes_) {
    llvm::MachineOperand& mo = w.mi->getOperand(w.index);
    if (mo.isDef() && mo.getSubReg() != 0) {
      mo.setIsUndef(false);
      mo.setIsInternalRead(false);
    }
    mo.setReg(w.reg);
    mo.setSubReg(0);
    ++stats_.operands;
    if (w.whole != 0) {
      extra.push_back({w.mi, llvm::MachineOperand::CreateReg(w.whole, /*isDef=*/true, /*isImp=*/true)});
      if (w.reads_whole) extra.push_back({w.mi, llvm::MachineOperand::CreateReg(w.whole, /*isDef=*/false, /*isImp=*/true)});
    }
  }
  for (auto& [mi, mo] : extra) mi->addOperand(mf_, mo);
  // Terminators (maybe rebuilt by the edge splits) by register.
  for (size_t b = 0; b < branch_regs_.size(); ++b) {
    llvm::MachineBasicBlock& mbb = *origins_.blocks[b];
    for (auto t = mbb.getFirstTerminator(); t != mbb.end(); ++t) {
      for (unsigned k = 0; k < t->getNumOperands(); ++k) {
        llvm::MachineOperand& mo = t->getOperand(k);
        if (!mo.isReg() || !mo.getReg().isVirtual() || (mo.isUse() && mo.isUndef())) continue;
        for (const auto& [vreg, reg] : branch_regs_[b]) {
          if (vreg != mo.getReg()) continue;
          absl::StatusOr<OperandWrite> w = Rewrite(*t, k, reg);
          if (!w.ok()) llvm::report_fatal_error(llvm::Twine(std::string(w.status().message())));
          mo.setReg(w->reg);
          mo.setSubReg(0);
          ++stats_.operands;
          break;
        }
      }
    }
  }
  // What the import left out: undef reads (a tied one takes its def's register)
  // and debug operands.
  for (llvm::MachineBasicBlock& mbb : mf_) {
    for (llvm::MachineInstr& mi : mbb) {
      for (unsigned k = 0; k < mi.getNumOperands(); ++k) {
        llvm::MachineOperand& mo = mi.getOperand(k);
        if (!mo.isReg() || !mo.getReg().isVirtual()) continue;
        if (mo.isDebug() || mi.isDebugInstr()) {
          mo.setReg(llvm::Register());
          mo.setSubReg(0);
          continue;
        }
        unsigned def = 0;
        unsigned reg = 0;
        if (mi.isRegTiedToDefOperand(k, &def) && mi.getOperand(def).getReg().isPhysical()) {
          reg = mi.getOperand(def).getReg();
        } else {
          const llvm::TargetRegisterClass* rc = mri_.getRegClass(mo.getReg());
          llvm::ArrayRef<llvm::MCPhysReg> order = rc->getRawAllocationOrder(mf_);
          reg = order.empty() ? *rc->begin() : order.front();
          if (mo.getSubReg() != 0) reg = tri_.getSubReg(reg, mo.getSubReg());
        }
        mo.setReg(reg);
        mo.setSubReg(0);
        mo.setIsUndef(true);
      }
    }
  }
  for (const llvm::MachineInstr* cmi : origins_.folded) {
    llvm::MachineInstr* mi = const_cast<llvm::MachineInstr*>(cmi);
    if (lis_ != nullptr) lis_->RemoveMachineInstrFromMaps(*mi);
    mi->eraseFromParent();
    ++stats_.deleted;
  }
  // Kill flags would have to be recomputed; none is as good.
  for (llvm::MachineBasicBlock& mbb : mf_) {
    for (llvm::MachineInstr& mi : mbb) {
      for (llvm::MachineOperand& mo : mi.operands()) {
        if (mo.isReg() && mo.isUse()) mo.setIsKill(false);
      }
    }
  }
  if (lis_ != nullptr) {
    for (unsigned v = 0; v < mri_.getNumVirtRegs(); ++v) {
      llvm::Register reg = llvm::Register::index2VirtReg(v);
      if (lis_->hasInterval(reg)) lis_->removeInterval(reg);
    }
    for (unsigned u = 0; u < tri_.getNumRegUnits(); ++u) lis_->removeRegUnit(u);
  }
  std::vector<llvm::MachineBasicBlock*> order;
  for (llvm::MachineBasicBlock& mbb : mf_) order.push_back(&mbb);
  std::reverse(order.begin(), order.end());
  llvm::fullyRecomputeLiveIns(order);
  // LLVM's x87 stackifier pops a register at its last use, and needs kill and
  // dead flags to know where that is: recomputed from the live-ins just made.
  bool x87 = false;
  for (int v = 0; v < f_.num_values() && !x87; ++v) x87 = f_.ValueExists(Value(v)) && f_.value_type(Value(v)) == Type::kF80;
  if (x87) {
    for (llvm::MachineBasicBlock* mbb : order) llvm::recomputeLivenessFlags(*mbb);
  }
}

}  // namespace

absl::StatusOr<WriteBackStats> WriteBack(const Function& allocated, const ImportedFunction& imported,
                                         const Target& target, llvm::MachineFunction& mf, llvm::Pass& pass) {
  return Writer(allocated, imported, target, mf, pass).Run();
}

}  // namespace regalloc
