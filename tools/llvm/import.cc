#include "tools/llvm/import.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineInstr.h"
#include "llvm/CodeGen/MachineRegisterInfo.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"
#include "base/status_macros.h"
#include "ssa/verifier.h"
#include "targets/target.h"

namespace regalloc {
namespace {

// A value before it has an id. `repl` points at the value it turned out to be (a
// trivial block parameter), `group` joins values that must share a type (a
// parameter and its arguments, tied operands, the results of every return).
struct Val {
  int bank = 0;   // the pressure bank of our target its registers come from
  int bits = 0;   // the widest view it is read or written through
  int repl = -1;
  int group = -1;
  const llvm::TargetRegisterClass* rc = nullptr;  // the class of the vreg it defines
  unsigned vreg = 0;
};

struct IOp {
  int val = -1;
  unsigned phys = 0;  // fixed to this LLVM register (its view in the value's class)
  int reuse = -1;     // a def tied to this use
  bool early = false;
  const llvm::MachineInstr* mi = nullptr;  // a virtual register's machine operand
  unsigned mo = 0;
  unsigned vreg = 0;
};

struct IInst {
  Opcode opcode = Opcode::kInst;
  const llvm::MachineInstr* mi = nullptr;
  std::string name;
  std::vector<IOp> defs;
  std::vector<IOp> uses;
  RegSet clobbers;
};

struct IBlock {
  std::vector<unsigned> livein;  // vreg indices, ascending
  std::vector<int> params;       // one val per live-in vreg
  std::vector<IInst> insts;      // the terminator last
  std::vector<int> succs;
  std::vector<std::vector<int>> args;  // per successor, one val per parameter
};

std::string Sanitized(llvm::StringRef name) {
  std::string out;
  for (char c : name) out += absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ? c : '_';
  return out.empty() ? std::string("_") : out;
}

class Importer {
 public:
  explicit Importer(const llvm::MachineFunction& mf)
      : mf_(mf),
        tri_(*mf.getSubtarget().getRegisterInfo()),
        tii_(*mf.getSubtarget().getInstrInfo()),
        mri_(mf.getRegInfo()) {}

  absl::StatusOr<ImportedFunction> Run();

 private:
  absl::Status Error(absl::string_view what) const {
    return absl::UnimplementedError(absl::StrCat("function ", mf_.getName().str(), ": ", what));
  }
  absl::Status InstError(const llvm::MachineInstr& mi, absl::string_view what) const {
    return Error(absl::StrCat("bb.", mi.getParent()->getNumber(), ", ", tii_.getName(mi.getOpcode()).str(), ": ", what));
  }
  std::string RegName(unsigned reg) const {
    if (llvm::Register(reg).isVirtual()) return absl::StrCat("%", llvm::Register::virtReg2Index(reg));
    return absl::StrCat("$", absl::AsciiStrToLower(tri_.getName(reg)));
  }

  absl::Status ChooseTarget();
  absl::Status MapRegisters();
  absl::Status ComputeLiveness();
  absl::Status TranslateBlock(const llvm::MachineBasicBlock& mbb);
  absl::Status TranslateInst(const llvm::MachineInstr& mi, IBlock& ib, const std::string& name, bool terminator,
                             IInst& out);
  absl::Status FoldCopy(const llvm::MachineInstr& mi, bool* folded);
  void RemoveTrivialParams();
  absl::Status AssignTypes();
  absl::StatusOr<Function> Emit();

  int NewVal(int bank, int bits) {
    Val v;
    v.bank = bank;
    v.bits = bits;
    vals_.push_back(v);
    return static_cast<int>(vals_.size()) - 1;
  }
  int Find(int v) {
    while (vals_[v].repl >= 0) v = vals_[v].repl;
    return v;
  }
  int Group(int v) {
    while (vals_[v].group >= 0) v = vals_[v].group;
    return v;
  }
  void Unite(int a, int b) {
    a = Group(a);
    b = Group(b);
    if (a == b) return;
    vals_[b].group = a;
    vals_[a].bits = std::max(vals_[a].bits, vals_[b].bits);
    if (vals_[a].bank != vals_[b].bank) bank_conflict_ = true;
  }
  // Our register for an LLVM register, or nullopt (flags, x87, reserved ones).
  std::optional<PReg> Ours(unsigned reg) const {
    if (reg >= ours_.size() || ours_[reg] < 0) return std::nullopt;
    return PReg(ours_[reg]);
  }
  // The bank and bits of a virtual register's class.
  absl::StatusOr<std::pair<int, int>> ClassShape(const llvm::TargetRegisterClass* rc) const;
  // The type of a value of that bank and width.
  absl::StatusOr<Type> ShapeType(int bank, int bits) const;
  // The registers of our class `cls`, in allocation order, whose view (from bit 0)
  // LLVM's class `rc` holds.
  std::vector<PReg> HeldBy(const llvm::TargetRegisterClass* rc, RegClass cls) const;
  // Does `rc` leave out a register of our class for values of its shape?
  bool Restricted(const llvm::TargetRegisterClass* rc) const;
  bool ComputeRestricted(const llvm::TargetRegisterClass* rc) const;
  mutable absl::flat_hash_map<const llvm::TargetRegisterClass*, bool> restricted_;
  absl::StatusOr<int> VregVal(unsigned reg);
  // A val of an instruction producing an undefined value (IMPLICIT_DEF) for `vreg`.
  absl::StatusOr<int> Undefined(IBlock& ib, unsigned vreg);
  void KillPhys(PReg p);
  std::optional<int> PhysVal(unsigned reg) const;

  const llvm::MachineFunction& mf_;
  const llvm::TargetRegisterInfo& tri_;
  const llvm::TargetInstrInfo& tii_;
  const llvm::MachineRegisterInfo& mri_;
  const Target* target_ = nullptr;
  ImportedFunction result_;
  std::vector<int> ours_;   // LLVM register -> our PReg index, -1 when not ours or reserved
  std::vector<unsigned> llvm_of_;  // our PReg index -> its LLVM register (0: none)
  RegSet skipped_;          // our registers LLVM or we reserve: operands on them are left out
  std::vector<int> block_index_;  // MBB number -> our block index
  std::vector<IBlock> blocks_;
  std::vector<llvm::BitVector> livein_;
  std::vector<Val> vals_;
  std::vector<int> current_;  // vreg index -> val
  std::vector<std::pair<PReg, int>> phys_;  // our register -> the val it holds, this block
  std::vector<std::pair<int, unsigned>> entry_params_;  // val, LLVM register
  std::vector<int> rets_;  // (block, inst) of returns, as block indices
  bool bank_conflict_ = false;
};

absl::Status Importer::ChooseTarget() {
  const llvm::Triple& triple = mf_.getTarget().getTargetTriple();
  std::string name;
  if (triple.getArch() == llvm::Triple::x86_64) {
    name = triple.isOSWindows() ? "x86_64_win" : "x86_64";
  } else if (triple.getArch() == llvm::Triple::aarch64) {
    name = "aarch64";
  } else {
    return Error(absl::StrCat("target ", triple.str(), " is not imported (x86-64 and AArch64 are)"));
  }
  // LLVM's reserved registers stay out of allocation. The frame pointer, when this
  // function needs one, is our target's frame-pointer variant; anything else LLVM
  // reserves that we would allocate is reported.
  absl::StatusOr<const Target*> plain = TargetByName(name);
  if (!plain.ok()) return plain.status();
  const llvm::BitVector& reserved = mri_.getReservedRegs();
  bool frame_pointer = false;
  for (unsigned reg = 1; reg < tri_.getNumRegs(); ++reg) {
    if (!reserved.test(reg)) continue;
    std::optional<PReg> p = (*plain)->FindReg(absl::AsciiStrToLower(tri_.getName(reg)));
    if (!p.has_value() || !(*plain)->allocatable().Contains(*p)) continue;
    if (name != "aarch64" && (*plain)->Reg(*p).container == (*plain)->Reg(*(*plain)->FindReg("rbp")).container) {
      frame_pointer = true;
      continue;
    }
    return Error(absl::StrCat("LLVM reserves ", RegName(reg), ", which ", name, " allocates"));
  }
  TargetOptions options;
  options.frame_pointer = frame_pointer;
  absl::StatusOr<const Target*> t = TargetByName(name, options);
  if (!t.ok()) return t.status();
  target_ = *t;
  result_.target = name;
  result_.frame_pointer = frame_pointer;
  return absl::OkStatus();
}

absl::Status Importer::MapRegisters() {
  ours_.assign(tri_.getNumRegs(), -1);
  llvm_of_.assign(target_->num_regs(), 0);
  const llvm::BitVector& reserved = mri_.getReservedRegs();
  for (unsigned reg = 1; reg < tri_.getNumRegs(); ++reg) {
    std::string name = absl::AsciiStrToLower(tri_.getName(reg));
    if (name == "fp") name = "x29";
    if (name == "lr") name = "x30";
    std::optional<PReg> p = target_->FindReg(name);
    if (!p.has_value()) continue;
    // A register no class of ours holds (x86 ax, a 16-bit view) stands for the
    // narrowest wider view from bit 0 that one does (eax): writing it writes that one.
    if (!target_->Reg(*p).reg_class.has_value() && target_->Reg(*p).lo_bit == 0) {
      std::optional<PReg> best;
      for (int c = 0; c < target_->num_classes(); ++c) {
        std::optional<PReg> v = target_->View(*p, RegClass(c));
        if (!v.has_value() || target_->Reg(*v).hi_bit < target_->Reg(*p).hi_bit) continue;
        if (!best.has_value() || target_->Reg(*v).hi_bit < target_->Reg(*best).hi_bit) best = v;
      }
      if (best.has_value()) p = best;
    }
    if (reserved.test(reg) || !target_->allocatable().Contains(*p) || !target_->Reg(*p).reg_class.has_value()) {
      skipped_.Insert(*p);
      continue;
    }
    ours_[reg] = static_cast<int>(p->index());
    if (absl::AsciiStrToLower(tri_.getName(reg)) == target_->RegName(*p) || llvm_of_[p->index()] == 0) {
      llvm_of_[p->index()] = reg;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::pair<int, int>> Importer::ClassShape(const llvm::TargetRegisterClass* rc) const {
  for (unsigned reg : *rc) {
    std::optional<PReg> p = Ours(reg);
    if (!p.has_value()) continue;
    return std::make_pair(target_->Class(*target_->Reg(*p).reg_class).bank, static_cast<int>(tri_.getRegSizeInBits(*rc)));
  }
  return Error(absl::StrCat("register class ", tri_.getRegClassName(rc), " has no register ", target_->name(),
                            " allocates"));
}

absl::StatusOr<Type> Importer::ShapeType(int bank, int bits) const {
  const std::string& name = target_->Bank(bank).name;
  if (name == "gpr") return bits <= 32 ? Type::kI32 : Type::kI64;
  if (name == "x87") return Type::kF80;  // RFP32, RFP64 and RFP80 share fp0-fp6
  if (bits <= 32) return Type::kF32;
  if (bits <= 64) return Type::kF64;
  if (bits <= 128) return Type::kV128;
  return Error(absl::StrCat("a ", bits, "-bit value"));
}

std::vector<PReg> Importer::HeldBy(const llvm::TargetRegisterClass* rc, RegClass cls) const {
  std::vector<PReg> held;
  for (PReg r : target_->Class(cls).allocation_order) {
    bool found = false;
    if (unsigned reg = llvm_of_[r.index()]) {
      for (llvm::MCSubRegIterator s(reg, &tri_, true); s.isValid() && !found; ++s) {
        unsigned idx = *s == reg ? 0 : tri_.getSubRegIndex(reg, *s);
        found = rc->contains(*s) && (idx == 0 || tri_.getSubRegIdxOffset(idx) == 0);
      }
    }
    if (found) held.push_back(r);
  }
  return held;
}

bool Importer::Restricted(const llvm::TargetRegisterClass* rc) const {
  // Asked at every copy: once per class.
  auto [it, fresh] = restricted_.try_emplace(rc, false);
  if (fresh) it->second = ComputeRestricted(rc);
  return it->second;
}

bool Importer::ComputeRestricted(const llvm::TargetRegisterClass* rc) const {
  absl::StatusOr<std::pair<int, int>> shape = ClassShape(rc);
  if (!shape.ok()) return false;
  absl::StatusOr<Type> t = ShapeType(shape->first, shape->second);
  if (!t.ok() || !target_->ClassFor(*t).has_value()) return false;
  const RegClass cls = *target_->ClassFor(*t);
  return HeldBy(rc, cls).size() < target_->Class(cls).allocation_order.size();
}

absl::Status Importer::ComputeLiveness() {
  const unsigned n = mri_.getNumVirtRegs();
  const size_t nb = blocks_.size();
  std::vector<llvm::BitVector> gen(nb, llvm::BitVector(n)), kill(nb, llvm::BitVector(n));
  for (const llvm::MachineBasicBlock& mbb : mf_) {
    int b = block_index_[mbb.getNumber()];
    for (const llvm::MachineInstr& mi : mbb) {
      if (mi.isDebugInstr()) continue;
      for (const llvm::MachineOperand& mo : mi.operands()) {
        if (!mo.isReg() || !mo.getReg().isVirtual() || !mo.readsReg()) continue;
        unsigned v = llvm::Register::virtReg2Index(mo.getReg());
        if (!kill[b].test(v)) gen[b].set(v);
      }
      for (const llvm::MachineOperand& mo : mi.operands()) {
        if (mo.isReg() && mo.getReg().isVirtual() && mo.isDef()) kill[b].set(llvm::Register::virtReg2Index(mo.getReg()));
      }
    }
  }
  livein_.assign(nb, llvm::BitVector(n));
  bool changed = true;
  while (changed) {
    changed = false;
    for (size_t k = nb; k-- > 0;) {
      llvm::BitVector out(n);
      for (int s : blocks_[k].succs) out |= livein_[s];
      out.reset(kill[k]);
      out |= gen[k];
      if (out != livein_[k]) {
        livein_[k] = std::move(out);
        changed = true;
      }
    }
  }
  for (size_t k = 0; k < nb; ++k) {
    for (unsigned v : livein_[k].set_bits()) blocks_[k].livein.push_back(v);
  }
  return absl::OkStatus();
}

absl::StatusOr<int> Importer::VregVal(unsigned reg) {
  const llvm::TargetRegisterClass* rc = mri_.getRegClass(reg);
  RA_ASSIGN_OR_RETURN(auto shape, ClassShape(rc));
  int v = NewVal(shape.first, shape.second);
  vals_[v].rc = rc;
  vals_[v].vreg = reg;
  return v;
}

absl::StatusOr<int> Importer::Undefined(IBlock& ib, unsigned vreg) {
  RA_ASSIGN_OR_RETURN(int v, VregVal(llvm::Register::index2VirtReg(vreg)));
  IInst inst;
  inst.name = "IMPLICIT_DEF";
  inst.defs.push_back(IOp{v});
  ib.insts.push_back(std::move(inst));
  return v;
}

void Importer::KillPhys(PReg p) {
  phys_.erase(std::remove_if(phys_.begin(), phys_.end(),
                             [&](const std::pair<PReg, int>& e) { return target_->RegsAlias(e.first, p); }),
              phys_.end());
}

std::optional<int> Importer::PhysVal(unsigned reg) const {
  std::optional<PReg> p = Ours(reg);
  if (!p.has_value()) return std::nullopt;
  for (const auto& [q, v] : phys_) {
    // The same register, or another view of it starting at the same bit.
    if (q == *p || (target_->RegsAlias(q, *p) && target_->Reg(q).lo_bit == target_->Reg(*p).lo_bit)) return v;
  }
  return std::nullopt;
}

// A COPY or SUBREG_TO_REG between views of one value: the destination names the
// source's value. Sets *folded when it did.
absl::Status Importer::FoldCopy(const llvm::MachineInstr& mi, bool* folded) {
  *folded = false;
  const llvm::MachineOperand& dst = mi.getOperand(0);
  const llvm::MachineOperand& src = mi.getOperand(mi.isSubregToReg() ? 2 : 1);
  if (!dst.isReg() || !src.isReg() || src.isUndef()) return absl::OkStatus();
  auto offset0 = [&](unsigned sub) { return sub == 0 || tri_.getSubRegIdxOffset(sub) == 0; };
  if (!offset0(dst.getSubReg()) || !offset0(src.getSubReg())) return absl::OkStatus();
  if (mi.isSubregToReg() && !offset0(static_cast<unsigned>(mi.getOperand(3).getImm()))) return absl::OkStatus();
  // A partial write that keeps the rest of the destination reads it: not a view.
  if (dst.getSubReg() != 0 && !dst.isUndef() && !mi.isSubregToReg()) return absl::OkStatus();
  llvm::Register d = dst.getReg(), s = src.getReg();
  // A copy into a class that leaves out some of our registers (LLVM's way into
  // GR64_TC for a tail call) stays an instruction: its value gets pinned.
  if (d.isVirtual() && Restricted(mri_.getRegClass(d))) return absl::OkStatus();
  if (d.isVirtual() && s.isVirtual()) {
    int v = current_[llvm::Register::virtReg2Index(s)];
    if (v < 0) return absl::OkStatus();
    RA_ASSIGN_OR_RETURN(auto shape, ClassShape(mri_.getRegClass(d)));
    if (shape.first != vals_[v].bank) return absl::OkStatus();  // across banks: a real move
    vals_[v].bits = std::max(vals_[v].bits, shape.second);
    current_[llvm::Register::virtReg2Index(d)] = v;
    *folded = true;
  } else if (d.isPhysical() && s.isVirtual() && Ours(d).has_value() && !mi.isSubregToReg()) {
    int v = current_[llvm::Register::virtReg2Index(s)];
    if (v < 0) return absl::OkStatus();
    PReg p = *Ours(d);
    if (target_->Class(*target_->Reg(p).reg_class).bank != vals_[v].bank) return absl::OkStatus();
    KillPhys(p);
    phys_.push_back({p, v});
    *folded = true;
  } else if (d.isVirtual() && s.isPhysical() && Ours(s).has_value()) {
    std::optional<int> v = PhysVal(s);
    if (!v.has_value()) return InstError(mi, absl::StrCat("reads ", RegName(s), ", which this block did not define"));
    RA_ASSIGN_OR_RETURN(auto shape, ClassShape(mri_.getRegClass(d)));
    if (shape.first != vals_[*v].bank) return absl::OkStatus();
    vals_[*v].bits = std::max(vals_[*v].bits, shape.second);
    current_[llvm::Register::virtReg2Index(d)] = *v;
    *folded = true;
  } else if (d.isPhysical() && s.isPhysical() && Ours(d).has_value() && Ours(s).has_value() && !mi.isSubregToReg()) {
    std::optional<int> v = PhysVal(s);
    if (!v.has_value()) return InstError(mi, absl::StrCat("reads ", RegName(s), ", which this block did not define"));
    PReg p = *Ours(d);
    KillPhys(p);
    phys_.push_back({p, *v});
    *folded = true;
  }
  return absl::OkStatus();
}

absl::Status Importer::TranslateInst(const llvm::MachineInstr& mi, IBlock& ib, const std::string& name,
                                     bool terminator, IInst& out) {
  out.name = name;
  out.mi = &mi;
  std::vector<int> use_of(mi.getNumOperands(), -1);  // operand -> index among our uses
  // Uses first: an instruction reads before it writes.
  for (unsigned i = 0; i < mi.getNumOperands(); ++i) {
    const llvm::MachineOperand& mo = mi.getOperand(i);
    if (!mo.isReg() || !mo.readsReg() || !mo.getReg().isValid()) continue;
    if (mo.isDef() && mo.isTied()) continue;  // a partial write tied to a use: that use reads it
    llvm::Register reg = mo.getReg();
    if (reg.isVirtual()) {
      unsigned sub = mo.getSubReg();
      // A read at a bit offset: only where the value's class pins it to a
      // register that has that part (x86 `%v.sub_8bit_hi` of a GR32_ABCD value:
      // pinned to %edx, the operand reads %dh at write-back).
      if (sub != 0 && tri_.getSubRegIdxOffset(sub) != 0 && !Restricted(mri_.getRegClass(reg))) {
        return InstError(mi, absl::StrCat("reads ", RegName(reg), " through sub-register ",
                                          tri_.getSubRegIndexName(sub), " at bit offset ", tri_.getSubRegIdxOffset(sub)));
      }
      unsigned vi = llvm::Register::virtReg2Index(reg);
      int v = current_[vi];
      if (v < 0) {
        RA_ASSIGN_OR_RETURN(v, Undefined(ib, vi));
        current_[vi] = v;
      }
      use_of[i] = static_cast<int>(out.uses.size());
      IOp op{v};
      op.mi = &mi;
      op.mo = i;
      op.vreg = reg;
      out.uses.push_back(op);
      continue;
    }
    std::optional<PReg> p = Ours(reg);
    if (!p.has_value()) {
      // Not ours: fine unless it overlaps a register we allocate (a ymm read).
      for (llvm::MCRegAliasIterator a(reg, &tri_, false); a.isValid(); ++a) {
        if (Ours(*a).has_value()) return InstError(mi, absl::StrCat("reads ", RegName(reg), ", which ", target_->name(), " does not model"));
      }
      continue;
    }
    std::optional<int> v = PhysVal(reg);
    if (!v.has_value()) return InstError(mi, absl::StrCat("reads ", RegName(reg), ", which this block did not define"));
    use_of[i] = static_cast<int>(out.uses.size());
    out.uses.push_back(IOp{*v, reg});
  }
  // Then defs, clobbers and register masks.
  std::vector<std::pair<unsigned, int>> vreg_defs;
  std::vector<std::pair<PReg, int>> phys_defs;
  for (unsigned i = 0; i < mi.getNumOperands(); ++i) {
    const llvm::MachineOperand& mo = mi.getOperand(i);
    if (mo.isRegMask()) {
      for (PReg r : target_->allocatable()) {
        if (llvm_of_[r.index()] != 0 && mo.clobbersPhysReg(llvm_of_[r.index()])) out.clobbers.Insert(r);
      }
      continue;
    }
    if (!mo.isReg() || !mo.isDef() || !mo.getReg().isValid()) continue;
    llvm::Register reg = mo.getReg();
    if (terminator && reg.isVirtual()) return InstError(mi, absl::StrCat("a terminator defines ", RegName(reg)));
    if (reg.isVirtual()) {
      unsigned sub = mo.getSubReg();
      if (sub != 0 && tri_.getSubRegIdxOffset(sub) != 0) {
        return InstError(mi, absl::StrCat("writes ", RegName(reg), " through sub-register ",
                                          tri_.getSubRegIndexName(sub), " at bit offset ", tri_.getSubRegIdxOffset(sub)));
      }
      RA_ASSIGN_OR_RETURN(int v, VregVal(reg));
      IOp op{v};
      op.mi = &mi;
      op.mo = i;
      op.vreg = reg;
      op.early = mo.isEarlyClobber();
      unsigned tied = 0;
      if (mi.isRegTiedToUseOperand(i, &tied) && use_of[tied] >= 0) {
        op.reuse = use_of[tied];
        // A tied def takes its use's register; early-clobber there (AArch64
        // writeback: `ldr w0, [x1], #2`) keeps the other uses out of it, which
        // holds as long as no other use reads the same value.
        if (op.early) {
          for (unsigned u = 0; u < mi.getNumOperands(); ++u) {
            if (u != tied && use_of[u] >= 0 && out.uses[use_of[u]].val == out.uses[op.reuse].val) {
              return InstError(mi, absl::StrCat("an early-clobber def tied to ", RegName(mi.getOperand(tied).getReg()),
                                                ", which another operand reads too"));
            }
          }
          op.early = false;
        }
      } else if (sub != 0 && !mo.isUndef()) {
        // A partial write keeps the rest: it reads the old value (read above),
        // through this very operand, whose register the def then writes.
        if (use_of[i] >= 0) op.reuse = use_of[i];
        for (unsigned u = 0; u < mi.getNumOperands() && op.reuse < 0; ++u) {
          if (use_of[u] >= 0 && mi.getOperand(u).getReg() == reg && !mi.getOperand(u).isDef()) op.reuse = use_of[u];
        }
        if (op.reuse < 0) return InstError(mi, absl::StrCat("writes part of ", RegName(reg), " without reading it"));
      }
      out.defs.push_back(op);
      vreg_defs.push_back({llvm::Register::virtReg2Index(reg), v});
      continue;
    }
    std::optional<PReg> p = Ours(reg);
    if (!p.has_value()) {
      for (llvm::MCRegAliasIterator a(reg, &tri_, false); a.isValid(); ++a) {
        if (std::optional<PReg> q = Ours(*a)) out.clobbers.Insert(*q);
      }
      continue;
    }
    if (mo.isDead() || terminator) {
      out.clobbers.Insert(*p);
      continue;
    }
    int v = NewVal(target_->Class(*target_->Reg(*p).reg_class).bank,
                   target_->Reg(*p).hi_bit - target_->Reg(*p).lo_bit);
    IOp op{v, reg};
    op.early = mo.isEarlyClobber();
    out.defs.push_back(op);
    phys_defs.push_back({*p, v});
  }
  // Clobbers are listed by their widest registers (%rax, not %rax, %eax, %ax, %al, %ah).
  RegSet widest = out.clobbers;
  for (PReg r : out.clobbers) {
    for (PReg s : out.clobbers) {
      if (s != r && target_->Units(s).Contains(target_->Units(r)) && target_->Units(s) != target_->Units(r)) {
        widest.Remove(r);
        break;
      }
    }
  }
  out.clobbers = widest;
  for (PReg r : out.clobbers) KillPhys(r);
  for (const auto& [p, v] : phys_defs) {
    KillPhys(p);
    phys_.push_back({p, v});
  }
  for (const auto& [vi, v] : vreg_defs) current_[vi] = v;
  return absl::OkStatus();
}

absl::Status Importer::TranslateBlock(const llvm::MachineBasicBlock& mbb) {
  const int b = block_index_[mbb.getNumber()];
  IBlock& ib = blocks_[b];
  phys_.clear();
  std::fill(current_.begin(), current_.end(), -1);
  if (mbb.isEHPad()) return Error(absl::StrCat("bb.", mbb.getNumber(), " is an exception landing pad"));
  if (b == 0) {
    for (const auto& li : mbb.liveins()) {
      std::optional<PReg> p = Ours(li.PhysReg);
      if (!p.has_value()) continue;
      int v = NewVal(target_->Class(*target_->Reg(*p).reg_class).bank, target_->Reg(*p).hi_bit - target_->Reg(*p).lo_bit);
      entry_params_.push_back({v, li.PhysReg});
      KillPhys(*p);
      phys_.push_back({*p, v});
    }
    // A vreg live into the entry block is read before any definition: undefined.
    for (unsigned vi : ib.livein) {
      RA_ASSIGN_OR_RETURN(current_[vi], Undefined(ib, vi));
    }
    ib.livein.clear();
  } else {
    for (const auto& li : mbb.liveins()) {
      if (Ours(li.PhysReg).has_value()) {
        return Error(absl::StrCat("bb.", mbb.getNumber(), ": ", RegName(li.PhysReg), " is live into it"));
      }
    }
    for (unsigned vi : ib.livein) {
      RA_ASSIGN_OR_RETURN(int v, VregVal(llvm::Register::index2VirtReg(vi)));
      ib.params.push_back(v);
      current_[vi] = v;
    }
  }
  std::vector<const llvm::MachineInstr*> terms;
  for (const llvm::MachineInstr& mi : mbb) {
    if (mi.isDebugInstr()) continue;
    if (mi.isTerminator()) {
      terms.push_back(&mi);
      continue;
    }
    if (!terms.empty()) return InstError(mi, "follows a terminator");
    if (mi.isPHI()) return InstError(mi, "a PHI in the register-allocation slot");
    if (mi.isCopy() || mi.isSubregToReg()) {
      bool folded = false;
      RA_RETURN_IF_ERROR(FoldCopy(mi, &folded));
      if (folded) {
        result_.origins.folded.push_back(&mi);
        continue;
      }
    }
    IInst inst;
    RA_RETURN_IF_ERROR(TranslateInst(mi, ib, tii_.getName(mi.getOpcode()).str(), false, inst));
    ib.insts.push_back(std::move(inst));
  }
  // The terminator.
  for (const llvm::MachineBasicBlock* s : mbb.successors()) ib.succs.push_back(block_index_[s->getNumber()]);
  if (ib.succs.empty() && terms.size() == 1 && terms[0]->isReturn() && !terms[0]->isCall()) {
    const llvm::MachineInstr& mi = *terms[0];
    IInst ret;
    ret.opcode = Opcode::kRet;
    for (const llvm::MachineOperand& mo : mi.operands()) {
      if (!mo.isReg() || !mo.getReg().isValid()) continue;
      if (mo.isDef() || (mo.getReg().isVirtual() && mo.getSubReg() != 0)) {
        return InstError(mi, absl::StrCat("a return with operand ", RegName(mo.getReg())));
      }
      if (mo.getReg().isVirtual()) {
        // An x87 result: LLVM's stackifier moves it to st0 from wherever it is;
        // legalization fixes it to the result register. Known by register, as
        // a branch's operands are.
        const unsigned vi = llvm::Register::virtReg2Index(mo.getReg());
        if (current_[vi] < 0) {
          RA_ASSIGN_OR_RETURN(current_[vi], Undefined(ib, vi));
        }
        IOp op{current_[vi]};
        op.vreg = mo.getReg();
        ret.uses.push_back(op);
        continue;
      }
      if (!mo.readsReg() || !Ours(mo.getReg()).has_value()) continue;
      std::optional<int> v = PhysVal(mo.getReg());
      if (!v.has_value()) return InstError(mi, absl::StrCat("returns ", RegName(mo.getReg()), ", which this block did not define"));
      ret.uses.push_back(IOp{*v, mo.getReg()});
    }
    rets_.push_back(b);
    ib.insts.push_back(std::move(ret));
    return absl::OkStatus();
  }
  IInst branch;
  branch.opcode = Opcode::kBranch;
  std::vector<std::string> names;
  for (const llvm::MachineInstr* mi : terms) names.push_back(tii_.getName(mi->getOpcode()).str());
  if (names.empty()) names.push_back(ib.succs.empty() ? "NORETURN" : "FALLTHROUGH");
  for (const llvm::MachineInstr* mi : terms) {
    IInst part;
    RA_RETURN_IF_ERROR(TranslateInst(*mi, ib, "", true, part));
    // A tail call clobbers what it likes; a branch that continues in this function may not.
    if (!part.clobbers.Empty() && !ib.succs.empty()) return InstError(*mi, "a branch clobbers registers");
    branch.clobbers |= part.clobbers;
    // Splitting an edge may rebuild the terminators: their operands are known by register.
    for (IOp u : part.uses) {
      u.mi = nullptr;
      branch.uses.push_back(u);
    }
  }
  branch.name = absl::StrJoin(names, ".");
  // Arguments: the value each successor's live-in vregs have here.
  for (int s : ib.succs) {
    std::vector<int> args;
    for (unsigned vi : blocks_[s].livein) {
      if (current_[vi] < 0) {
        RA_ASSIGN_OR_RETURN(current_[vi], Undefined(ib, vi));
      }
      args.push_back(current_[vi]);
    }
    ib.args.push_back(std::move(args));
  }
  ib.insts.push_back(std::move(branch));
  return absl::OkStatus();
}

void Importer::RemoveTrivialParams() {
  // Incoming arguments of each parameter: (pred block, successor slot).
  std::vector<std::vector<std::pair<int, int>>> preds(blocks_.size());
  for (size_t b = 0; b < blocks_.size(); ++b) {
    for (size_t s = 0; s < blocks_[b].succs.size(); ++s) preds[blocks_[b].succs[s]].push_back({static_cast<int>(b), static_cast<int>(s)});
  }
  bool changed = true;
  while (changed) {
    changed = false;
    for (size_t b = 1; b < blocks_.size(); ++b) {
      IBlock& ib = blocks_[b];
      for (size_t k = 0; k < ib.params.size(); ++k) {
        int p = ib.params[k];
        if (vals_[p].repl >= 0) continue;
        int only = -1;
        bool trivial = true;
        for (const auto& [pb, slot] : preds[b]) {
          int a = Find(blocks_[pb].args[slot][k]);
          if (a == p || a == only) continue;
          if (only >= 0) {
            trivial = false;
            break;
          }
          only = a;
        }
        if (trivial && only >= 0) {
          vals_[p].repl = only;
          vals_[only].bits = std::max(vals_[only].bits, vals_[p].bits);
          changed = true;
        }
      }
    }
  }
}

absl::Status Importer::AssignTypes() {
  for (size_t b = 0; b < blocks_.size(); ++b) {
    for (size_t s = 0; s < blocks_[b].succs.size(); ++s) {
      const IBlock& to = blocks_[blocks_[b].succs[s]];
      for (size_t k = 0; k < to.params.size(); ++k) {
        if (vals_[to.params[k]].repl >= 0) continue;
        Unite(to.params[k], Find(blocks_[b].args[s][k]));
      }
    }
    for (IInst& inst : blocks_[b].insts) {
      for (IOp& op : inst.defs) op.val = Find(op.val);
      for (IOp& op : inst.uses) op.val = Find(op.val);
      for (IOp& op : inst.defs) {
        if (op.reuse >= 0) Unite(op.val, inst.uses[op.reuse].val);
      }
    }
  }
  // Every return returns the same types.
  for (size_t r = 1; r < rets_.size(); ++r) {
    const IInst& a = blocks_[rets_[0]].insts.back();
    const IInst& b = blocks_[rets_[r]].insts.back();
    if (a.uses.size() != b.uses.size()) {
      return Error(absl::StrCat("returns ", a.uses.size(), " values in one block and ", b.uses.size(), " in another"));
    }
    for (size_t k = 0; k < a.uses.size(); ++k) Unite(a.uses[k].val, b.uses[k].val);
  }
  if (bank_conflict_) return Error("a value is read through both integer and floating-point registers");
  for (size_t v = 0; v < vals_.size(); ++v) {
    int g = Group(static_cast<int>(v));
    vals_[g].bits = std::max(vals_[g].bits, vals_[v].bits);
  }
  return absl::OkStatus();
}

absl::StatusOr<Function> Importer::Emit() {
  const std::string name = Sanitized(mf_.getName());
  auto type_of = [&](int v) -> absl::StatusOr<Type> {
    const Val& g = vals_[Group(v)];
    return ShapeType(g.bank, g.bits);
  };
  Function f(name, {}, {});
  std::vector<int> value_of(vals_.size(), -1);
  // Per (LLVM class, our class) that leaves out some of our registers: the
  // registers a value may be pinned to, preferred first, taken in turn so that
  // two pinned values of one instruction rarely meet.
  struct Pins {
    bool restricted = false;
    std::vector<PReg> candidates;
    size_t next = 0;
  };
  absl::flat_hash_map<std::pair<const llvm::TargetRegisterClass*, int>, Pins> class_pin;
  std::vector<std::optional<PReg>> pin(vals_.size());  // per value group
  auto value = [&](int v) -> absl::StatusOr<Value> {
    v = Find(v);
    if (value_of[v] >= 0) return Value(value_of[v]);
    RA_ASSIGN_OR_RETURN(Type t, type_of(v));
    value_of[v] = static_cast<int>(f.NewValue(t).index());
    return Value(value_of[v]);
  };
  // Each vreg's class must hold every register our class for its value
  // allocates. One that leaves some out (x86 GR64_TC for a tail call through a
  // register, GR32_NOREX; AArch64 tcGPR64) pins its value, at every operand, to
  // one register it holds: the last of our allocation order, a caller-saved one
  // after the argument registers (%r11, %x17) where the class has it.
  for (size_t v = 0; v < vals_.size(); ++v) {
    const llvm::TargetRegisterClass* rc = vals_[v].rc;
    if (rc == nullptr) continue;
    RA_ASSIGN_OR_RETURN(Type t, type_of(Find(static_cast<int>(v))));
    RegClass cls = *target_->ClassFor(t);
    auto key = std::make_pair(rc, static_cast<int>(cls.index()));
    auto it = class_pin.find(key);
    if (it == class_pin.end()) {
      const std::vector<PReg> held = HeldBy(rc, cls);
      const std::vector<PReg>& order = target_->Class(cls).allocation_order;
      Pins pins;
      pins.restricted = held.size() < order.size();
      // Caller-saved registers after the argument registers first (%r11, %x17),
      // then the rest, from the end of the allocation order.
      const RegSet& caller_saved = target_->abi().caller_saved;
      for (auto r = held.rbegin(); r != held.rend(); ++r) {
        if (caller_saved.Intersects(target_->Aliases(*r))) pins.candidates.push_back(*r);
      }
      for (auto r = held.rbegin(); r != held.rend(); ++r) {
        if (!caller_saved.Intersects(target_->Aliases(*r))) pins.candidates.push_back(*r);
      }
      it = class_pin.emplace(key, std::move(pins)).first;
    }
    Pins& pins = it->second;
    if (!pins.restricted) continue;
    if (pins.candidates.empty()) {
      return Error(absl::StrCat(RegName(vals_[v].vreg), " has class ", tri_.getRegClassName(rc), ", which holds no register ",
                                target_->name(), " allocates to ", TypeName(t), " values"));
    }
    std::optional<PReg>& p = pin[Find(static_cast<int>(v))];
    if (p.has_value()) {
      if (std::find(pins.candidates.begin(), pins.candidates.end(), *p) == pins.candidates.end()) {
        return Error(absl::StrCat(RegName(vals_[v].vreg), " has class ", tri_.getRegClassName(rc), ", and its value is pinned to %",
                                  target_->RegName(*p), " by another"));
      }
      continue;
    }
    p = pins.candidates[pins.next++ % pins.candidates.size()];
  }
  auto fixed = [&](Value v, unsigned reg) -> absl::StatusOr<PReg> {
    PReg p = *Ours(reg);
    std::optional<PReg> view = target_->View(p, *target_->ClassFor(f.value_type(v)));
    if (!view.has_value()) {
      return Error(absl::StrCat(RegName(reg), " holds a ", TypeName(f.value_type(v)), " value, whose class has no view of it"));
    }
    return *view;
  };
  // `tied_use_pinned`: a def tied to a use whose value is pinned itself takes
  // that use's register (tied operands share LLVM's class).
  auto operand = [&](const IOp& op, bool def, bool tied_use_pinned = false) -> absl::StatusOr<Operand> {
    RA_ASSIGN_OR_RETURN(Value v, value(op.val));
    Operand o = def ? Operand::Def(v) : Operand::Use(v);
    const std::optional<PReg>& pinned = pin[Find(op.val)];
    if (op.phys != 0) {
      RA_ASSIGN_OR_RETURN(PReg r, fixed(v, op.phys));
      o = o.WithFixed(r);
    } else if (pinned.has_value() && !(op.reuse >= 0 && tied_use_pinned)) {
      o = o.WithFixed(*pinned);  // a tied def's use is pinned to it below
    } else if (op.reuse >= 0) {
      o = Operand::ReuseDef(v, op.reuse);
    }
    if (op.early) o = o.WithPosition(Position::kEarly);
    return o;
  };
  for (size_t b = 0; b < blocks_.size(); ++b) f.AppendToLayout(f.NewBlock());
  for (const auto& [v, reg] : entry_params_) {
    IOp op{v, reg};
    RA_ASSIGN_OR_RETURN(Operand o, operand(op, true));
    f.block(Block(0)).params.push_back(o);
    f.mutable_param_types().push_back(f.value_type(o.value()));
  }
  for (size_t b = 1; b < blocks_.size(); ++b) {
    for (int p : blocks_[b].params) {
      if (vals_[p].repl >= 0) continue;
      RA_ASSIGN_OR_RETURN(Value v, value(p));
      f.block(Block(b)).params.push_back(Operand::Def(v));
    }
  }
  bool results_set = false;
  for (size_t b = 0; b < blocks_.size(); ++b) {
    const IBlock& ib = blocks_[b];
    for (const IInst& inst : ib.insts) {
      std::vector<Operand> ops;
      for (const IOp& op : inst.defs) {
        const bool tied_use_pinned = op.reuse >= 0 && static_cast<size_t>(op.reuse) < inst.uses.size() &&
                                     pin[Find(inst.uses[op.reuse].val)].has_value();
        RA_ASSIGN_OR_RETURN(Operand o, operand(op, true, tied_use_pinned));
        ops.push_back(o);
      }
      // LLVM's early-clobber def is written before any use is read; ours
      // (Early) before the Late uses only: the instruction's uses become Late,
      // so that no use shares a register with the def (AArch64 JumpTableDest8
      // writes its scratch register before it reads the table index).
      const bool early_clobber = std::any_of(inst.defs.begin(), inst.defs.end(), [](const IOp& d) { return d.early; });
      // A pinned def tied to a use: that use is read in the same register.
      std::vector<std::optional<PReg>> tied_pin(inst.uses.size());
      for (const IOp& op : inst.defs) {
        if (op.reuse >= 0 && static_cast<size_t>(op.reuse) < tied_pin.size() && pin[Find(op.val)].has_value() &&
            !pin[Find(inst.uses[op.reuse].val)].has_value()) {
          tied_pin[op.reuse] = pin[Find(op.val)];
        }
      }
      for (size_t k = 0; k < inst.uses.size(); ++k) {
        const IOp& op = inst.uses[k];
        RA_ASSIGN_OR_RETURN(Operand o, operand(op, false));
        if (tied_pin[k].has_value()) {
          std::optional<PReg> view = target_->View(*tied_pin[k], *target_->ClassFor(f.value_type(o.value())));
          if (!view.has_value() || (o.constraint() == ConstraintKind::kFixed && o.fixed_reg() != *view)) {
            return Error(absl::StrCat("a use tied to a def pinned to %", target_->RegName(*tied_pin[k]), " cannot be read there"));
          }
          o = o.WithFixed(*view);
        }
        if (early_clobber) o = o.WithPosition(Position::kLate);
        ops.push_back(o);
      }
      InstData d;
      d.opcode = inst.opcode;
      std::vector<BranchTarget> targets;
      if (inst.opcode != Opcode::kRet) d.imm = f.InternCallee(inst.name);
      if (!inst.clobbers.Empty()) d.clobbers = f.InternClobbers(inst.clobbers);
      if (inst.opcode == Opcode::kRet && !results_set) {
        for (const Operand& o : ops) f.mutable_result_types().push_back(f.value_type(o.value()));
        results_set = true;
      }
      if (inst.opcode == Opcode::kBranch) {
        targets.resize(ib.succs.size());
        for (size_t s = 0; s < ib.succs.size(); ++s) {
          const IBlock& to = blocks_[ib.succs[s]];
          targets[s].block = Block(ib.succs[s]);
          targets[s].first_arg = static_cast<uint16_t>(ops.size());
          for (size_t k = 0; k < to.params.size(); ++k) {
            if (vals_[to.params[k]].repl >= 0) continue;
            RA_ASSIGN_OR_RETURN(Value a, value(ib.args[s][k]));
            ops.push_back(Operand::Use(a));
          }
          targets[s].num_args = static_cast<uint16_t>(ops.size() - targets[s].first_arg);
        }
      }
      if (ops.size() > 0xffff) return Error("an instruction with more than 65535 operands");
      if (targets.size() > 0xffff) return Error("a branch with more than 65535 successors");
      Inst made = f.NewInst(d, ops, targets);
      f.block(Block(b)).insts.push_back(made);
      ImportOrigins& o = result_.origins;
      if (o.insts.size() <= made.index()) {
        o.insts.resize(made.index() + 1);
        o.operands.resize(made.index() + 1);
      }
      o.insts[made.index()] = inst.opcode == Opcode::kInst ? inst.mi : nullptr;
      std::vector<OperandOrigin>& origin = o.operands[made.index()];
      for (const std::vector<IOp>* list : {&inst.defs, &inst.uses}) {
        for (const IOp& op : *list) origin.push_back(op.phys != 0 ? OperandOrigin{} : OperandOrigin{op.mi, op.mo, op.vreg});
      }
    }
  }
  return f;
}

absl::StatusOr<ImportedFunction> Importer::Run() {
  RA_RETURN_IF_ERROR(ChooseTarget());
  RA_RETURN_IF_ERROR(MapRegisters());
  if (mf_.empty()) return Error("no blocks");
  block_index_.assign(mf_.getNumBlockIDs(), -1);
  int n = 0;
  for (const llvm::MachineBasicBlock& mbb : mf_) block_index_[mbb.getNumber()] = n++;
  blocks_.resize(n);
  result_.origins.blocks.resize(n);
  result_.origins.llvm_reg = llvm_of_;
  for (const llvm::MachineBasicBlock& mbb : mf_) {
    // The write-back changes the function the import only reads.
    result_.origins.blocks[block_index_[mbb.getNumber()]] = const_cast<llvm::MachineBasicBlock*>(&mbb);
    IBlock& ib = blocks_[block_index_[mbb.getNumber()]];
    for (const llvm::MachineBasicBlock* s : mbb.successors()) ib.succs.push_back(block_index_[s->getNumber()]);
    for (const llvm::MachineInstr& mi : mbb) result_.machine_insts += mi.isDebugInstr() ? 0 : 1;
  }
  RA_RETURN_IF_ERROR(ComputeLiveness());
  for (IBlock& ib : blocks_) ib.succs.clear();
  current_.assign(mri_.getNumVirtRegs(), -1);
  for (const llvm::MachineBasicBlock& mbb : mf_) RA_RETURN_IF_ERROR(TranslateBlock(mbb));
  RemoveTrivialParams();
  RA_RETURN_IF_ERROR(AssignTypes());
  RA_ASSIGN_OR_RETURN(result_.func, Emit());
  absl::Status valid = Verify(result_.func, *target_);
  if (!valid.ok()) return absl::InternalError(absl::StrCat("the import of ", mf_.getName().str(), " does not verify: ", valid.message()));
  return std::move(result_);
}

}  // namespace

absl::StatusOr<ImportedFunction> ImportMachineFunction(const llvm::MachineFunction& mf) {
  return Importer(mf).Run();
}

}  // namespace regalloc
