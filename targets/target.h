// The register file of a machine, as every allocator phase sees it: physical
// registers with names, alias sets, register units, register classes in allocation
// order, pressure banks, and the calling convention.
//
// A `Target` is plain data built once by `TargetBuilder` (targets/target_builder.h)
// and shared read-only; the three concrete targets are in targets/targets.h.
//
//   const Target& t = *TargetByName("x86_64").value();
//   PReg rax = *t.FindReg("rax");
//   RegSet busy;  busy.InsertWithAliases(t, rax);    // marks al, ah, ax, eax, rax
//   RegClass gpr = *t.ClassFor(Type::kI64);
//   for (PReg r : t.Class(gpr).allocation_order) { ... }
//
// Registers are modeled as bit ranges of physical storage ("containers"): rax is
// bits [0,64) of GPR container 0, ah is [8,16) of the same container, ARMv7's d1 is
// bits [64,128) of the one VFP container. Two registers alias when their ranges
// overlap; register units are the smallest pieces of that partition, so al and ah
// are distinct units of rax, and d0 is exactly the units of s0 and s1. Aliasing and
// units are derived, never written by hand.
#ifndef REGALLOC_TARGETS_TARGET_H_
#define REGALLOC_TARGETS_TARGET_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "base/bitset.h"
#include "base/id.h"
#include "targets/type.h"

namespace regalloc {

class Target;

struct PRegTag {};
// A physical register: a dense index into its target's register table.
using PReg = Id<PRegTag>;

struct RegClassTag {};
// A register class: a dense index into its target's class table.
using RegClass = Id<RegClassTag>;

// A set of physical registers of one target. Union, intersection and iteration are
// word operations (see BitSet256).
class RegSet {
 public:
  RegSet() = default;

  void Insert(PReg r) { bits_.Set(r.index()); }
  void Remove(PReg r) { bits_.Reset(r.index()); }
  bool Contains(PReg r) const { return bits_.Test(r.index()); }
  // Inserts `r` and every register that shares a unit with it (Subzero's scheme:
  // marking a register busy marks its aliases busy).
  void InsertWithAliases(const Target& target, PReg r);
  void RemoveWithAliases(const Target& target, PReg r);

  bool Empty() const { return bits_.Empty(); }
  int Count() const { return bits_.Count(); }
  bool Intersects(const RegSet& o) const { return bits_.Intersects(o.bits_); }
  bool ContainsAll(const RegSet& o) const { return bits_.Contains(o.bits_); }
  RegSet& operator|=(const RegSet& o) { bits_ |= o.bits_; return *this; }
  RegSet& operator&=(const RegSet& o) { bits_ &= o.bits_; return *this; }
  RegSet& Subtract(const RegSet& o) { bits_.Subtract(o.bits_); return *this; }
  friend RegSet operator|(RegSet a, const RegSet& b) { return a |= b; }
  friend RegSet operator&(RegSet a, const RegSet& b) { return a &= b; }
  friend bool operator==(const RegSet& a, const RegSet& b) { return a.bits_ == b.bits_; }
  friend bool operator!=(const RegSet& a, const RegSet& b) { return a.bits_ != b.bits_; }
  template <typename H>
  friend H AbslHashValue(H h, const RegSet& s) {
    return H::combine(std::move(h), s.bits_);
  }

  // Iterates registers in ascending id order.
  class Iterator {
   public:
    explicit Iterator(BitSet256::Iterator it) : it_(it) {}
    PReg operator*() const { return PReg(*it_); }
    Iterator& operator++() { ++it_; return *this; }
    bool operator!=(const Iterator& o) const { return it_ != o.it_; }

   private:
    BitSet256::Iterator it_;
  };
  Iterator begin() const { return Iterator(bits_.begin()); }
  Iterator end() const { return Iterator(bits_.end()); }

  const BitSet256& bits() const { return bits_; }

 private:
  BitSet256 bits_;
};

// A set of register units (indices < Target::num_units()).
using UnitSet = BitSet256;

// One physical register.
struct RegInfo {
  std::string name;     // without the '%' sigil: "rax", "s1", "v8_hi"
  uint16_t container;   // physical storage it lives in
  uint16_t lo_bit;      // bit range [lo_bit, hi_bit) of that storage
  uint16_t hi_bit;
  RegSet aliases;       // every register sharing a unit with this one, itself included
  UnitSet units;        // the units this register covers
  std::optional<RegClass> reg_class;  // the class it belongs to, if allocatable
};

// One register class: the registers a value of some types may occupy.
struct RegClassInfo {
  std::string name;                 // "gpr64", "xmm", "d"
  RegSet members;                   // allocatable members only
  // The members register pressure counts: all of them but those that only add room
  // for values of this class beside others in storage a wider class counts once
  // (x86 ah-bh: an i8 in ah leaves al free, yet rax is taken either way).
  RegSet counted;
  std::vector<PReg> allocation_order;  // caller-saved first, callee-saved last
  int bank = 0;                     // the pressure bank it draws from
  int pressure_weight = 1;          // bank slots one value of this class takes
};

// A pressure bank: registers of several classes that compete for the same storage
// (x86 gpr32 and gpr64; ARMv7 s, d and q). Pressure is counted in slots: an ARMv7
// f64 takes 2 slots of the 64-slot VFP bank, a v128 takes 4, an f32 takes 1.
struct PressureBank {
  std::string name;
  int capacity = 0;  // slots available to allocation (reserved registers excluded)
};

// How arguments and results are assigned to registers.
enum class ArgAssignment : uint8_t {
  // Integer and float arguments count separately (System V x86-64, AAPCS64).
  kSeparate,
  // The n-th argument takes the n-th register of its kind (Win64).
  kPositional,
  // AAPCS-VFP: floats take the lowest free s / aligned d / aligned q of s0-s15,
  // back-filling holes left by alignment; integers count separately.
  kVfpBackfill,
};

// The calling convention. Argument and return registers are given as the widest
// register of each container ("rdi", "q0"); `Target::View` picks the register of a
// value's class ("edi" for an i32, "d0" for an f64).
struct Abi {
  std::string name;  // "sysv", "win64", "aapcs64", "aapcs-vfp"
  ArgAssignment assignment = ArgAssignment::kSeparate;
  std::vector<PReg> int_args;
  std::vector<PReg> float_args;
  std::vector<PReg> int_results;
  std::vector<PReg> float_results;
  // f80 results (x86-64: st0, st1, which LLVM calls fp0, fp1); f80 arguments go
  // on the stack.
  std::vector<PReg> x87_results;
  // Registers a call destroys (listed at calls as `clobbers`). A value in register r
  // survives a call iff r's units are disjoint from the units of this set; AArch64
  // lists the upper halves v8_hi..v15_hi, so d8 survives a call and q8 does not.
  RegSet caller_saved;
  // Registers a function must preserve for its caller.
  RegSet callee_saved;
};

// Where one argument or result goes: a register, or the stack when registers ran out.
struct ArgLocation {
  std::optional<PReg> reg;  // nullopt: passed on the stack
};

// The instruction-set family: legalization attaches constraints per family.
enum class Isa : uint8_t { kX86_64, kAArch64, kArmv7, kOther };

class Target {
 public:
  absl::string_view name() const { return name_; }
  Isa isa() const { return isa_; }

  // Registers.
  int num_regs() const { return static_cast<int>(regs_.size()); }
  const RegInfo& Reg(PReg r) const { return regs_[r.index()]; }
  absl::string_view RegName(PReg r) const { return regs_[r.index()].name; }
  // Looks a register up by its name without the '%' sigil.
  std::optional<PReg> FindReg(absl::string_view name) const;
  const RegSet& Aliases(PReg r) const { return regs_[r.index()].aliases; }
  // The same registers as a list in increasing order (a hot loop over a few
  // aliases reads them without scanning the set's words).
  absl::Span<const PReg> AliasList(PReg r) const {
    return absl::MakeConstSpan(alias_list_.data() + alias_start_[r.index()],
                               alias_start_[r.index() + 1] - alias_start_[r.index()]);
  }
  bool RegsAlias(PReg a, PReg b) const { return regs_[a.index()].aliases.Contains(b); }
  const UnitSet& Units(PReg r) const { return regs_[r.index()].units; }
  // The same units as a list in increasing order (as AliasList: a register
  // has one to a few, which a hot loop reads without scanning four words).
  absl::Span<const uint32_t> UnitList(PReg r) const {
    return absl::MakeConstSpan(unit_list_.data() + unit_start_[r.index()],
                               unit_start_[r.index() + 1] - unit_start_[r.index()]);
  }
  int num_units() const { return num_units_; }
  // Union of the units of every register in `set`.
  UnitSet UnitsOf(const RegSet& set) const;
  // Registers outside every allocation order (stack pointer, frame pointer, ...).
  const RegSet& reserved() const { return reserved_; }
  const RegSet& allocatable() const { return allocatable_; }

  // Classes.
  int num_classes() const { return static_cast<int>(classes_.size()); }
  const RegClassInfo& Class(RegClass c) const { return classes_[c.index()]; }
  // The class of values of `type`, or nullopt if the target has none (ARMv7 i64).
  std::optional<RegClass> ClassFor(Type type) const { return type_classes_[static_cast<int>(type)]; }
  // The register of class `cls` that lives in the same storage as `r` starting at
  // the same bit ("eax" for rax and gpr32, "d0" for q0 and d); nullopt if none.
  std::optional<PReg> View(PReg r, RegClass cls) const;
  // True when `r` may hold a value of class `cls`.
  bool InClass(PReg r, RegClass cls) const { return classes_[cls.index()].members.Contains(r); }

  // Pressure.
  int num_banks() const { return static_cast<int>(banks_.size()); }
  const PressureBank& Bank(int bank) const { return banks_[bank]; }

  // Calling convention.
  const Abi& abi() const { return abi_; }
  // The callee-saved registers that share a unit with `used`: what a frame must
  // save and restore after its body used the registers of `used`.
  RegSet CalleeSavedTouched(const RegSet& used) const;
  // Whether the target swaps two registers in one instruction (x86 xchg); the
  // parallel-copy resolver breaks cycles with it.
  bool has_swap() const { return has_swap_; }

  // Assigns each value type to an argument register of its class (or the stack),
  // following the ABI. Fails when a type has no class on this target.
  absl::StatusOr<std::vector<ArgLocation>> AssignArguments(absl::Span<const Type> types) const;
  // Same for results, counted per kind on every ABI (Win64 returns an integer in
  // rax and a float in xmm0); results that don't fit in registers are an error.
  absl::StatusOr<std::vector<ArgLocation>> AssignResults(absl::Span<const Type> types) const;

 private:
  friend class TargetBuilder;
  absl::StatusOr<std::vector<ArgLocation>> Assign(absl::Span<const Type> types,
                                                  absl::Span<const PReg> int_regs,
                                                  absl::Span<const PReg> float_regs,
                                                  bool results) const;

  std::string name_;
  Isa isa_ = Isa::kOther;
  std::vector<RegInfo> regs_;
  std::vector<PReg> alias_list_;       // every register's aliases, by register
  std::vector<uint32_t> alias_start_;  // register r's in [alias_start_[r], alias_start_[r + 1])
  std::vector<uint32_t> unit_list_;    // every register's units, by register
  std::vector<uint32_t> unit_start_;   // register r's in [unit_start_[r], unit_start_[r + 1])
  absl::flat_hash_map<std::string, PReg> by_name_;
  int num_units_ = 0;
  RegSet reserved_;
  RegSet allocatable_;
  std::vector<RegClassInfo> classes_;
  // View(r, cls) per register and class (regs × classes), made by the builder:
  // the register's index, or -1.
  std::vector<int16_t> views_;
  std::optional<RegClass> type_classes_[kNumTypes];
  std::vector<PressureBank> banks_;
  Abi abi_;
  bool has_swap_ = false;
};

// Options that change a target's register file.
struct TargetOptions {
  // Reserve the frame pointer (x86-64 rbp, ARMv7 r11; AArch64 always reserves x29).
  bool frame_pointer = false;
};

// The names TargetByName accepts: "x86_64", "x86_64_win", "aarch64", "armv7".
absl::Span<const absl::string_view> TargetNames();

// The target called `name`, built once per (name, options) and kept for the life of
// the process. InvalidArgument, listing the known names, for anything else.
absl::StatusOr<const Target*> TargetByName(absl::string_view name,
                                           const TargetOptions& options = {});

}  // namespace regalloc

#endif  // REGALLOC_TARGETS_TARGET_H_
