// The IR every phase works on: a function of blocks in layout order, each block a
// list of instructions, each instruction an opcode and operands. Values are dense
// ids with one definition each: an instruction result or a block parameter (block
// parameters replace phi nodes, as Cretonne's EBB parameters do).
//
// Operands carry the register constraint of their use or def (Reg, Any, Stack,
// Fixed, Reuse), their position (Early or Late) and, after allocation, a Location.
// Allocation rewrites the function in place: every operand gets a location, and the
// inserted `spill` / `reload` / `move` / `parallel_copy` instructions pair each def
// with a use of the same type: the use says which value the source holds, the def
// which value the destination holds afterwards. Spills and reloads name one value on
// both sides (`v1[ss0] = spill v1[%rax]`); block-parameter lowering moves a branch
// argument into the parameter (`v3[%rbx] = move v1[%rax]`). A pair naming one value
// re-locates it and defines nothing; a pair naming two values defines the def's
// value (once in SSA form; once per incoming edge after parameters are lowered).
//
//   Function f("sum", {Type::kI64}, {Type::kI64});
//   FunctionBuilder b(f);   // ssa/builder.h
//
// Ids index flat vectors: `f.value_type(v)`, `f.block(b)`, `f.inst(i)`. Operands of
// all instructions live in one pool (`f.operands(i)` is a span into it), and the
// targets of all branches in another (`f.targets(i)`), so a function of a
// million instructions makes a handful of allocations, and an instruction takes
// 32 bytes and an operand 12.
#ifndef REGALLOC_SSA_IR_H_
#define REGALLOC_SSA_IR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "base/id.h"
#include "targets/target.h"
#include "targets/type.h"

namespace regalloc {

struct ValueTag {};
struct BlockTag {};
struct InstTag {};
struct StackSlotTag {};
using Value = Id<ValueTag>;
using Block = Id<BlockTag>;
using Inst = Id<InstTag>;
using StackSlot = Id<StackSlotTag>;

enum class Opcode : uint8_t {
  kConst,   // vD = const.T imm
  kAdd,     // integer ops: vD = op vA, vB (both of the result type)
  kSub,
  kMul,
  kDiv,     // signed; x / 0 = 0, INT_MIN / -1 = INT_MIN
  kRem,     // signed; x % 0 = x, INT_MIN % -1 = 0
  kAnd,
  kOr,
  kXor,
  kShl,     // shift counts are taken modulo the bit width
  kShr,     // logical
  kSar,     // arithmetic
  kCmp,     // vD:i32 = cmp.cc vA, vB (1 or 0); floats compare ordered
  kFadd,    // float ops on f32 / f64
  kFsub,
  kFmul,
  kFdiv,
  kLoad,    // vD = load.T vAddr, offset   (sandboxed memory; see the interpreter)
  kStore,   // store vVal, vAddr, offset
  kCopy,    // vD = copy vA
  kCall,    // vD... = call.T... %callee(vA...)  (an opaque, deterministic callee)
  kRet,     // ret vA...
  kJump,    // jump blockN(args...)
  kBr,      // br vCond, blockT(args...), blockF(args...)   (taken when vCond != 0)
  // The allocator's own: def k receives the value of use k (see above).
  kSpill,         // v[slot] = spill v[reg]
  kReload,        // v[reg] = reload v[slot]
  kMove,          // v[loc] = move v[loc]
  kParallelCopy,  // vA[..], vB[..] = parallel_copy vA[..], vB[..]  (all read, then all written)
  // Opaque target instructions (imported machine code: tools/llvm/). The name is
  // interned with the callees; the operands say all an allocator needs to know, and
  // the interpreter reports a function holding one as not interpretable.
  kInst,    // vD... = inst.T... %NAME(vA...)
  kBranch,  // branch %NAME(vA...)[, block(args...)]...  (any number of targets: a
            // jump table's block has one per distinct destination)
};
inline constexpr int kNumOpcodes = static_cast<int>(Opcode::kBranch) + 1;

enum class CondCode : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe, kUlt, kUle, kUgt, kUge };
inline constexpr int kNumCondCodes = 10;

absl::string_view OpcodeName(Opcode op);
absl::string_view CondCodeName(CondCode cc);
// Integer ops whose two sources may trade places. Float ones may not: which NaN
// payload comes out depends on the order.
inline bool IsCommutative(Opcode op) {
  return op == Opcode::kAdd || op == Opcode::kMul || op == Opcode::kAnd || op == Opcode::kOr || op == Opcode::kXor;
}
inline bool IsTerminator(Opcode op) {
  return op == Opcode::kRet || op == Opcode::kJump || op == Opcode::kBr || op == Opcode::kBranch;
}
// Terminators that may pass arguments to successors' parameters.
inline bool IsBranch(Opcode op) { return op == Opcode::kJump || op == Opcode::kBr || op == Opcode::kBranch; }
// Opaque target instructions, which only the checker, not the interpreter, can run.
inline bool IsOpaque(Opcode op) { return op == Opcode::kInst || op == Opcode::kBranch; }
// spill, reload, move, parallel_copy: instructions that move values between locations.
inline bool IsMoveLike(Opcode op) {
  return op == Opcode::kSpill || op == Opcode::kReload || op == Opcode::kMove ||
         op == Opcode::kParallelCopy;
}

// Where a value lives after allocation: nothing yet, a physical register, or a
// stack slot. Packed in 32 bits: kind in the top two bits, the index below.
class Location {
 public:
  enum class Kind : uint8_t { kNone = 0, kReg = 1, kStack = 2 };

  constexpr Location() : bits_(0) {}
  static Location Reg(PReg r) { return Location(Kind::kReg, r.index()); }
  static Location Stack(StackSlot s) { return Location(Kind::kStack, s.index()); }

  Kind kind() const { return static_cast<Kind>(bits_ >> 30); }
  bool IsNone() const { return kind() == Kind::kNone; }
  bool IsReg() const { return kind() == Kind::kReg; }
  bool IsStack() const { return kind() == Kind::kStack; }
  // Preconditions: IsReg() / IsStack().
  PReg reg() const { return PReg(bits_ & kIndexMask); }
  StackSlot slot() const { return StackSlot(bits_ & kIndexMask); }

  friend bool operator==(Location a, Location b) { return a.bits_ == b.bits_; }
  friend bool operator!=(Location a, Location b) { return a.bits_ != b.bits_; }
  friend bool operator<(Location a, Location b) { return a.bits_ < b.bits_; }
  template <typename H>
  friend H AbslHashValue(H h, Location l) {
    return H::combine(std::move(h), l.bits_);
  }

 private:
  static constexpr uint32_t kIndexMask = (uint32_t{1} << 30) - 1;
  Location(Kind kind, uint32_t index) : bits_((static_cast<uint32_t>(kind) << 30) | index) {}
  uint32_t bits_;
};

// True when `a` and `b` share storage (alias-aware for registers).
inline bool LocationsOverlap(Location a, Location b, const Target& target) {
  if (a.IsReg() && b.IsReg()) return target.RegsAlias(a.reg(), b.reg());
  if (a.IsStack() && b.IsStack()) return a.slot() == b.slot();
  return false;
}

enum class OperandKind : uint8_t { kUse, kDef };

// When, within its instruction, an operand is read or written. Uses default to
// Early, defs to Late. An Early def is written before Late uses are read (an early
// clobber: it may not share a register with any use still needed). A Late use is
// read after the instruction's Early defs and clobbers (it stays live across them).
enum class Position : uint8_t { kEarly, kLate };

enum class ConstraintKind : uint8_t {
  kReg,    // any register of the value's class (the default)
  kAny,    // a register or a stack slot ("reg-optional": x86 memory operands)
  kStack,  // a stack slot only
  kFixed,  // exactly the register `fixed_reg()`
  kReuse,  // a def that must take the register of use operand `reuse_index()`
           // (x86 two-address forms: `v3@reuse0 = sub v1, v2`)
};

// One use or def of a value by an instruction or block header.
// Layout (12 bytes): value | location | constraint argument (preg or use index) |
// one byte of kind (bit 0), position (bit 1) and constraint kind (bits 2-4). The
// operand pool is the largest array of a function: the three enums in one byte
// take a quarter off it.
class Operand {
 public:
  Operand() = default;
  static Operand Use(Value v) { return Operand(v, OperandKind::kUse, Position::kEarly); }
  static Operand Def(Value v) { return Operand(v, OperandKind::kDef, Position::kLate); }
  static Operand FixedUse(Value v, PReg r) { return Use(v).WithFixed(r); }
  static Operand FixedDef(Value v, PReg r) { return Def(v).WithFixed(r); }
  static Operand AnyUse(Value v) { return Use(v).WithConstraint(ConstraintKind::kAny); }
  static Operand StackUse(Value v) { return Use(v).WithConstraint(ConstraintKind::kStack); }
  // A def tied to the register of the instruction's `use_index`-th use.
  static Operand ReuseDef(Value v, int use_index) {
    Operand o = Def(v).WithConstraint(ConstraintKind::kReuse);
    o.arg_ = static_cast<uint16_t>(use_index);
    return o;
  }

  Value value() const { return value_; }
  OperandKind kind() const { return static_cast<OperandKind>(bits_ & kKindBit); }
  bool IsUse() const { return (bits_ & kKindBit) == 0; }
  bool IsDef() const { return (bits_ & kKindBit) != 0; }
  Position position() const { return static_cast<Position>((bits_ & kPositionBit) >> 1); }
  ConstraintKind constraint() const { return static_cast<ConstraintKind>(bits_ >> kConstraintShift); }
  // Precondition: constraint() == kFixed.
  PReg fixed_reg() const { return PReg(arg_); }
  // Precondition: constraint() == kReuse.
  int reuse_index() const { return arg_; }
  Location location() const { return location_; }
  // The default position for this operand's kind.
  bool HasDefaultPosition() const {
    return position() == (IsUse() ? Position::kEarly : Position::kLate);
  }

  Operand WithConstraint(ConstraintKind c) const {
    Operand o = *this;
    o.bits_ = static_cast<uint8_t>((o.bits_ & (kKindBit | kPositionBit)) | (static_cast<uint8_t>(c) << kConstraintShift));
    o.arg_ = 0;
    return o;
  }
  Operand WithFixed(PReg r) const {
    Operand o = WithConstraint(ConstraintKind::kFixed);
    o.arg_ = static_cast<uint16_t>(r.index());
    return o;
  }
  Operand WithPosition(Position p) const {
    Operand o = *this;
    o.bits_ = static_cast<uint8_t>((o.bits_ & ~kPositionBit) | (static_cast<uint8_t>(p) << 1));
    return o;
  }
  Operand WithLocation(Location l) const {
    Operand o = *this;
    o.location_ = l;
    return o;
  }
  void set_value(Value v) { value_ = v; }
  void set_location(Location l) { location_ = l; }

  friend bool operator==(const Operand& a, const Operand& b) {
    return a.value_ == b.value_ && a.location_ == b.location_ && a.arg_ == b.arg_ && a.bits_ == b.bits_;
  }

 private:
  static constexpr uint8_t kKindBit = 1;
  static constexpr uint8_t kPositionBit = 2;
  static constexpr int kConstraintShift = 2;
  Operand(Value v, OperandKind k, Position p)
      : value_(v), bits_(static_cast<uint8_t>(static_cast<uint8_t>(k) | (static_cast<uint8_t>(p) << 1))) {}

  Value value_;
  Location location_;
  uint16_t arg_ = 0;
  uint8_t bits_ = 0;  // kUse, kEarly, kReg
};

// True when operand `o` of `ops` (one instruction's operands, defs first) is the
// use a Reuse def overwrites in place (its two-address source).
inline bool IsReuseSource(absl::Span<const Operand> ops, size_t o) {
  size_t defs = 0;
  while (defs < ops.size() && ops[defs].IsDef()) ++defs;
  for (size_t d = 0; d < defs; ++d) {
    if (ops[d].constraint() == ConstraintKind::kReuse && defs + ops[d].reuse_index() == o) return true;
  }
  return false;
}
static_assert(sizeof(Operand) == 12, "operands are 12 bytes: see the layout above");

// For a commutative op's operands `ops` and its use operand `o`, the index of
// its other use operand (whose value may trade places with o's); -1 otherwise.
inline int CommutedOperand(Opcode op, absl::Span<const Operand> ops, int o) {
  if (!IsCommutative(op)) return -1;
  int other = -1;
  for (size_t x = 0; x < ops.size(); ++x) {
    if (ops[x].IsUse() && static_cast<int>(x) != o) other = static_cast<int>(x);
  }
  return other;
}

// A branch target: a block and the range of the branch's operands passed to its
// parameters (indices into the instruction's operand list).
struct BranchTarget {
  Block block;
  uint16_t first_arg = 0;
  uint16_t num_args = 0;
};

// 32 bytes: the targets of a branch live in the function's target pool, like
// the operands in its operand pool (Function::targets).
struct InstData {
  Opcode opcode = Opcode::kCopy;
  CondCode cc = CondCode::kEq;   // kCmp
  Type type = Type::kI64;        // kConst, kLoad: the result type
  uint16_t num_operands = 0;
  uint16_t target_count = 0;     // kJump: 1, kBr: 2, kBranch: any number (set by NewInst and SetTargets)
  uint32_t first_operand = 0;    // index into the function's operand pool
  int32_t clobbers = -1;         // index into Function::clobber_sets(), or -1
  uint32_t first_target = 0;     // index into the function's target pool
  int64_t imm = 0;               // kConst: value bits; kLoad/kStore: offset; kCall, kInst, kBranch: name id

  int num_targets() const { return target_count; }
};
static_assert(sizeof(InstData) == 32, "instructions are 32 bytes");

struct BlockData {
  std::vector<Operand> params;  // defs, one per parameter
  std::vector<Inst> insts;      // in order
  bool in_layout = false;
};

struct StackSlotData {
  int size = 8;  // bytes
};

class Function {
 public:
  Function() = default;
  Function(std::string name, std::vector<Type> params, std::vector<Type> results)
      : name_(std::move(name)), param_types_(std::move(params)), result_types_(std::move(results)) {}

  // Signature.
  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  const std::vector<Type>& param_types() const { return param_types_; }
  const std::vector<Type>& result_types() const { return result_types_; }
  std::vector<Type>& mutable_param_types() { return param_types_; }
  std::vector<Type>& mutable_result_types() { return result_types_; }

  // Values. Ids are dense; a value id may be unused ("a hole") after edits or when
  // parsed text skips numbers.
  Value NewValue(Type type);
  // Makes sure value `v` exists with `type` (the parser names values by number).
  void EnsureValue(Value v, Type type);
  // Makes every id below `n` valid; ids not defined yet stay holes.
  void GrowValues(int n);
  int num_values() const { return static_cast<int>(value_types_.size()); }
  bool ValueExists(Value v) const { return v.index() < value_types_.size() && value_exists_[v.index()]; }
  Type value_type(Value v) const { return value_types_[v.index()]; }
  void set_value_type(Value v, Type t) { value_types_[v.index()] = t; }

  // Blocks. `layout()` is the order blocks are printed and numbered in; the first
  // is the entry block.
  Block NewBlock();
  // Makes sure block id `b` exists (the parser names blocks by number).
  void EnsureBlock(Block b);
  int num_blocks() const { return static_cast<int>(blocks_.size()); }
  bool BlockExists(Block b) const { return b.index() < blocks_.size(); }
  BlockData& block(Block b) { return blocks_[b.index()]; }
  const BlockData& block(Block b) const { return blocks_[b.index()]; }
  const std::vector<Block>& layout() const { return layout_; }
  void AppendToLayout(Block b);
  // Inserts `b` into the layout right after `after` (linear in the layout: for many
  // insertions build the new order and call SetLayout).
  void InsertInLayoutAfter(Block b, Block after);
  // Replaces the layout; blocks left out are no longer part of the function.
  void SetLayout(std::vector<Block> layout);
  Block entry() const { return layout_.empty() ? Block() : layout_.front(); }

  // Instructions. `NewInst` creates an instruction not yet placed in a block;
  // a branch takes its targets here (`data`'s target fields are ignored).
  Inst NewInst(const InstData& data, absl::Span<const Operand> operands,
               absl::Span<const BranchTarget> targets = {});
  // Room for `insts` more instructions with `operands` more operands in all, so
  // that a phase adding many grows the arrays once, not by repeated doubling.
  void ReserveInsts(size_t insts, size_t operands) {
    insts_.reserve(insts_.size() + insts);
    operand_pool_.reserve(operand_pool_.size() + operands);
  }
  // Room for `insts` more instructions with `operands` more operands, growing
  // the arrays (when they lack it) as adding them one by one would: by at least
  // half. A phase calls it before taking its own buffers, so that the old and
  // the new arrays, held at once while they are moved, are not at its peak.
  void GrowInsts(size_t insts, size_t operands);
  int num_insts() const { return static_cast<int>(insts_.size()); }
  InstData& inst(Inst i) { return insts_[i.index()]; }
  const InstData& inst(Inst i) const { return insts_[i.index()]; }
  absl::Span<Operand> operands(Inst i) {
    const InstData& d = insts_[i.index()];
    return absl::MakeSpan(operand_pool_.data() + d.first_operand, d.num_operands);
  }
  absl::Span<const Operand> operands(Inst i) const {
    const InstData& d = insts_[i.index()];
    return absl::MakeConstSpan(operand_pool_.data() + d.first_operand, d.num_operands);
  }
  // Replaces an instruction's operands (the old ones stay in the pool, unused).
  void SetOperands(Inst i, absl::Span<const Operand> operands);
  // Keeps only an instruction's first `n` operands.
  void TruncateOperands(Inst i, size_t n) {
    InstData& d = insts_[i.index()];
    if (n < d.num_operands) d.num_operands = static_cast<uint16_t>(n);
  }
  // The k-th use operand of `i` (0-based among uses); nullptr if there is none.
  const Operand* UseOperand(Inst i, int k) const;
  // A branch's targets, in order (empty for other instructions).
  absl::Span<const BranchTarget> targets(Inst i) const {
    const InstData& d = insts_[i.index()];
    return absl::MakeConstSpan(target_pool_.data() + d.first_target, d.target_count);
  }
  absl::Span<BranchTarget> mutable_targets(Inst i) {
    const InstData& d = insts_[i.index()];
    return absl::MakeSpan(target_pool_.data() + d.first_target, d.target_count);
  }
  // Replaces a branch's targets (the old ones stay in the pool, unused).
  void SetTargets(Inst i, absl::Span<const BranchTarget> targets);
  // Replaces `count` of the arguments `branch` passes to its `target`-th
  // target, from its `k`-th on, with `args` (count 0: an insertion; no args:
  // an erasure); the later targets' arguments move along.
  void SpliceBranchArgs(Inst branch, int target, size_t k, size_t count, absl::Span<const Operand> args);
  // The args a branch passes to its `t`-th target.
  absl::Span<const Operand> BranchArgs(Inst i, int t) const {
    const BranchTarget& bt = targets(i)[t];
    return operands(i).subspan(bt.first_arg, bt.num_args);
  }
  // The number of a branch's leading operands that are not arguments to
  // targets (a br's condition, an opaque branch's uses); all operands of other
  // instructions.
  size_t NumNonArgOperands(Inst i) const {
    const InstData& d = insts_[i.index()];
    return d.target_count > 0 ? target_pool_[d.first_target].first_arg : d.num_operands;
  }
  // The block's terminator, or an invalid id if it doesn't end in one.
  Inst Terminator(Block b) const;
  // Total instructions placed in blocks of the layout.
  int CountInstsInLayout() const;

  // Calls name their callee through an interned table.
  int InternCallee(absl::string_view name);
  const std::string& callee(int id) const { return callees_[id]; }
  int num_callees() const { return static_cast<int>(callees_.size()); }

  // Clobber sets are interned: most calls of a function share one.
  int InternClobbers(const RegSet& set);
  const RegSet& clobber_set(int id) const { return clobber_sets_[id]; }
  int num_clobber_sets() const { return static_cast<int>(clobber_sets_.size()); }
  // The clobbers of `i` (empty when it has none).
  RegSet Clobbers(Inst i) const;
  // Every register some instruction in the layout clobbers.
  RegSet ClobberedRegs() const;

  // Stack slots of the frame.
  StackSlot NewStackSlot(int size);
  int num_stack_slots() const { return static_cast<int>(stack_slots_.size()); }
  const StackSlotData& stack_slot(StackSlot s) const { return stack_slots_[s.index()]; }
  void EnsureStackSlot(StackSlot s, int size);

  // Written names. Ids are dense; where a text numbered its values, blocks or
  // slots sparsely (`v16777215`), the parser numbers them densely and keeps the
  // written numbers here, so that printing gives the text back and errors name
  // what the text named. With no names (the usual case) a name is the id. Values,
  // blocks and slots made later get names past every name there is, or, once
  // those would pass kMaxName, the lowest names not in use.
  static constexpr uint32_t kMaxName = (1u << 31) - 1;
  uint32_t value_name(Value v) const { return value_names_.empty() ? v.index() : value_names_[v.index()]; }
  uint32_t block_name(Block b) const { return block_names_.empty() ? b.index() : block_names_[b.index()]; }
  uint32_t slot_name(StackSlot s) const { return slot_names_.empty() ? s.index() : slot_names_[s.index()]; }
  // "v12", "block3", "ss2" by written name.
  std::string ValueName(Value v) const;
  std::string BlockName(Block b) const;
  std::string SlotName(StackSlot s) const;
  bool HasNames() const { return !value_names_.empty() || !block_names_.empty() || !slot_names_.empty(); }
  const std::vector<uint32_t>& value_names() const { return value_names_; }
  const std::vector<uint32_t>& block_names() const { return block_names_; }
  const std::vector<uint32_t>& slot_names() const { return slot_names_; }
  // Sets the names (each empty, or one per id, distinct). Precondition: sizes match
  // num_values(), num_blocks(), num_stack_slots().
  void SetNames(std::vector<uint32_t> values, std::vector<uint32_t> blocks, std::vector<uint32_t> slots);
  // Gives every value, block and slot a new id: `value_map[old]` (below
  // `num_values`), likewise for blocks and slots. Every operand, parameter, branch
  // target, layout entry and stack location follows. Ids not mapped
  // (kUnmapped) must be unused. Names are dropped (set them after).
  static constexpr uint32_t kUnmapped = ~uint32_t{0};
  void Renumber(absl::Span<const uint32_t> value_map, int num_values, absl::Span<const uint32_t> block_map,
                int num_blocks, absl::Span<const uint32_t> slot_map, int num_slots);

  // The frame summary's callee-saved registers: the prologue saves them and the
  // epilogue restores them, so the body may use them freely. Text: `saves %rbx, %r12`.
  const RegSet& saved_regs() const { return saved_regs_; }
  void set_saved_regs(const RegSet& regs) { saved_regs_ = regs; }

  // True when every operand of the layout carries a location (the function is an
  // allocation result).
  bool IsAllocated() const;

 private:
  std::string name_;
  std::vector<Type> param_types_;
  std::vector<Type> result_types_;
  std::vector<Type> value_types_;
  std::vector<uint8_t> value_exists_;
  std::vector<BlockData> blocks_;
  std::vector<Block> layout_;
  std::vector<InstData> insts_;
  std::vector<Operand> operand_pool_;
  std::vector<BranchTarget> target_pool_;
  std::vector<std::string> callees_;
  std::vector<RegSet> clobber_sets_;
  std::vector<StackSlotData> stack_slots_;
  RegSet saved_regs_;
  std::vector<uint32_t> value_names_;
  std::vector<uint32_t> block_names_;
  std::vector<uint32_t> slot_names_;
  // Where the next new value (block, slot) gets its name when names are kept.
  struct NameSource {
    uint64_t next = 0;            // past every name, while it stays within kMaxName
    std::vector<uint32_t> used;   // then: the names in use, sorted, and the
    size_t used_pos = 0;          // lowest name not in use is found from here
    uint32_t gap = 0;             // (at or past `gap`)
    uint32_t Take(const std::vector<uint32_t>& names);
    void Reset(const std::vector<uint32_t>& names);
  };
  NameSource value_source_;
  NameSource block_source_;
  NameSource slot_source_;
};

// Per value id: 1 when an instruction of the layout that is not move-like
// defines it (what the function computes, as opposed to parameters and the
// moves, spills and reloads an allocator adds).
std::vector<uint8_t> ComputedValues(const Function& func);

// Rematerialization, for the allocators that make a constant again where
// they would reload or copy it. ConstDefs fills `out`, per value id, with
// the layout's `const` instruction defining it (invalid for others; a const
// with clobbers too, unless `with_clobbers`: made again elsewhere it would
// clobber nothing). MakeConstAgain appends nothing: it returns a new `const`
// of `original`'s type and bits defining `def` (with its location, if any),
// without the original's clobbers.
void ConstDefs(const Function& func, std::vector<Inst>& out, bool with_clobbers = false);
Inst MakeConstAgain(Function& func, Inst original, const Operand& def);

// Erases from the layout's blocks each `spill` that `eligible` accepts and
// whose defined value no instruction reads (a spill reading the value it
// defines, a move-like pair relocating one value, is no read of it): the
// stores of slot values an allocator's later steps left unread. `erased(b, i)`
// is told of each before it goes; `read` is a buffer, by value id. Returns
// how many went.
int EraseUnreadStores(Function& func, std::vector<uint8_t>& read, absl::FunctionRef<bool(Inst)> eligible,
                      absl::FunctionRef<void(Block, Inst)> erased);

// The callee-saved registers an allocation's frame must save: those it `used`
// and those an instruction clobbers (a hand-written `clobbers %rbx`).
RegSet FrameSaves(const Function& func, const Target& target, const RegSet& used);

}  // namespace regalloc

#endif  // REGALLOC_SSA_IR_H_
