#include "ssa/ir.h"

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "base/grow.h"

#include <algorithm>
#include <functional>

namespace regalloc {

absl::string_view OpcodeName(Opcode op) {
  switch (op) {
    case Opcode::kConst: return "const";
    case Opcode::kAdd: return "add";
    case Opcode::kSub: return "sub";
    case Opcode::kMul: return "mul";
    case Opcode::kDiv: return "div";
    case Opcode::kRem: return "rem";
    case Opcode::kAnd: return "and";
    case Opcode::kOr: return "or";
    case Opcode::kXor: return "xor";
    case Opcode::kShl: return "shl";
    case Opcode::kShr: return "shr";
    case Opcode::kSar: return "sar";
    case Opcode::kCmp: return "cmp";
    case Opcode::kFadd: return "fadd";
    case Opcode::kFsub: return "fsub";
    case Opcode::kFmul: return "fmul";
    case Opcode::kFdiv: return "fdiv";
    case Opcode::kLoad: return "load";
    case Opcode::kStore: return "store";
    case Opcode::kCopy: return "copy";
    case Opcode::kCall: return "call";
    case Opcode::kRet: return "ret";
    case Opcode::kJump: return "jump";
    case Opcode::kBr: return "br";
    case Opcode::kSpill: return "spill";
    case Opcode::kReload: return "reload";
    case Opcode::kMove: return "move";
    case Opcode::kParallelCopy: return "parallel_copy";
    case Opcode::kInst: return "inst";
    case Opcode::kBranch: return "branch";
  }
  return "?";
}

absl::string_view CondCodeName(CondCode cc) {
  switch (cc) {
    case CondCode::kEq: return "eq";
    case CondCode::kNe: return "ne";
    case CondCode::kLt: return "lt";
    case CondCode::kLe: return "le";
    case CondCode::kGt: return "gt";
    case CondCode::kGe: return "ge";
    case CondCode::kUlt: return "ult";
    case CondCode::kUle: return "ule";
    case CondCode::kUgt: return "ugt";
    case CondCode::kUge: return "uge";
  }
  return "?";
}

namespace {

// Room for `extra` more items, growing by half (base/grow.h): the
// instructions and operands are most of the memory `ssa` takes at 1M
// instructions.
template <typename T>
void Grow(std::vector<T>& v, size_t extra) {
  GrowByHalf(v, extra);
}

// Appends `items` to `pool` (growing it by half), returning the first's index.
// The items may be the pool's own (another instruction's), which growing moves.
template <typename T>
uint32_t AppendToPool(std::vector<T>& pool, absl::Span<const T> items) {
  const T* data = items.data();
  const T* begin = pool.data();
  const bool inside = std::less_equal<const T*>()(begin, data) && std::less<const T*>()(data, begin + pool.size());
  const size_t offset = inside ? static_cast<size_t>(data - begin) : 0;
  Grow(pool, items.size());
  if (inside) data = pool.data() + offset;
  const uint32_t first = static_cast<uint32_t>(pool.size());
  pool.insert(pool.end(), data, data + items.size());
  return first;
}

// Replaces the `count` items at `first` in `pool`: in place when they fit (the
// rest stay in the pool, unused), else appended.
template <typename T>
void ReplaceInPool(std::vector<T>& pool, uint32_t& first, uint16_t& count, absl::Span<const T> items) {
  if (items.size() <= count) {
    std::copy(items.begin(), items.end(), pool.begin() + first);
  } else {
    first = AppendToPool(pool, items);
  }
  count = static_cast<uint16_t>(items.size());
}

}  // namespace

Value Function::NewValue(Type type) {
  Grow(value_types_, 1);
  Grow(value_exists_, 1);
  value_types_.push_back(type);
  value_exists_.push_back(1);
  if (!value_names_.empty()) value_names_.push_back(value_source_.Take(value_names_));
  return Value(static_cast<uint32_t>(value_types_.size() - 1));
}

void Function::EnsureValue(Value v, Type type) {
  if (v.index() >= value_types_.size()) {
    value_types_.resize(v.index() + 1, Type::kI64);
    value_exists_.resize(v.index() + 1, 0);
  }
  value_types_[v.index()] = type;
  value_exists_[v.index()] = 1;
}

void Function::GrowValues(int n) {
  if (n > num_values()) {
    value_types_.resize(n, Type::kI64);
    value_exists_.resize(n, 0);
  }
}

Block Function::NewBlock() {
  blocks_.emplace_back();
  if (!block_names_.empty()) block_names_.push_back(block_source_.Take(block_names_));
  return Block(static_cast<uint32_t>(blocks_.size() - 1));
}

void Function::EnsureBlock(Block b) {
  if (b.index() >= blocks_.size()) blocks_.resize(b.index() + 1);
}

void Function::AppendToLayout(Block b) {
  blocks_[b.index()].in_layout = true;
  layout_.push_back(b);
}

void Function::InsertInLayoutAfter(Block b, Block after) {
  blocks_[b.index()].in_layout = true;
  auto it = std::find(layout_.begin(), layout_.end(), after);
  layout_.insert(it == layout_.end() ? it : it + 1, b);
}

void Function::SetLayout(std::vector<Block> layout) {
  for (Block b : layout_) blocks_[b.index()].in_layout = false;
  layout_ = std::move(layout);
  for (Block b : layout_) blocks_[b.index()].in_layout = true;
}

Inst Function::NewInst(const InstData& data, absl::Span<const Operand> operands,
                       absl::Span<const BranchTarget> targets) {
  InstData d = data;
  d.first_operand = AppendToPool(operand_pool_, operands);
  d.num_operands = static_cast<uint16_t>(operands.size());
  d.first_target = AppendToPool(target_pool_, targets);
  d.target_count = static_cast<uint16_t>(targets.size());
  Grow(insts_, 1);
  insts_.push_back(d);
  return Inst(static_cast<uint32_t>(insts_.size() - 1));
}

void Function::SetTargets(Inst i, absl::Span<const BranchTarget> targets) {
  InstData& d = insts_[i.index()];
  ReplaceInPool(target_pool_, d.first_target, d.target_count, targets);
}

int EraseUnreadStores(Function& func, std::vector<uint8_t>& read, absl::FunctionRef<bool(Inst)> eligible,
                      absl::FunctionRef<void(Block, Inst)> erased) {
  auto spill_of = [&](Inst i, Value v) {
    return func.inst(i).opcode == Opcode::kSpill && func.operands(i)[0].value() == v;
  };
  read.assign(func.num_values(), 0);
  bool any = false;
  for (Block b : func.layout()) {
    for (Inst i : func.block(b).insts) {
      const bool store = func.inst(i).opcode == Opcode::kSpill;
      any |= store;
      for (const Operand& op : func.operands(i)) {
        if (op.IsUse() && !(store && spill_of(i, op.value()))) read[op.value().index()] = 1;
      }
    }
  }
  if (!any) return 0;
  int gone = 0;
  for (Block b : func.layout()) {
    std::vector<Inst>& insts = func.block(b).insts;
    insts.erase(std::remove_if(insts.begin(), insts.end(),
                               [&](Inst i) {
                                 if (func.inst(i).opcode != Opcode::kSpill) return false;
                                 if (read[func.operands(i)[0].value().index()] || !eligible(i)) return false;
                                 erased(b, i);
                                 ++gone;
                                 return true;
                               }),
                insts.end());
  }
  return gone;
}

void Function::SpliceBranchArgs(Inst branch, int target, size_t k, size_t count, absl::Span<const Operand> args) {
  absl::Span<const Operand> old = operands(branch);
  const size_t at = targets(branch)[target].first_arg + k;
  absl::InlinedVector<Operand, 16> ops;
  for (size_t i = 0; i < at; ++i) ops.push_back(old[i]);
  for (const Operand& a : args) ops.push_back(a);
  for (size_t i = at + count; i < old.size(); ++i) ops.push_back(old[i]);
  SetOperands(branch, ops);
  absl::Span<BranchTarget> ts = mutable_targets(branch);
  ts[target].num_args = static_cast<uint16_t>(ts[target].num_args - count + args.size());
  for (size_t t = target + 1; t < ts.size(); ++t) {
    ts[t].first_arg = static_cast<uint16_t>(ts[t].first_arg - count + args.size());
  }
}

void Function::SetOperands(Inst i, absl::Span<const Operand> operands) {
  InstData& d = insts_[i.index()];
  ReplaceInPool(operand_pool_, d.first_operand, d.num_operands, operands);
}

void Function::GrowInsts(size_t insts, size_t operands) {
  Grow(insts_, insts);
  Grow(operand_pool_, operands);
}

const Operand* Function::UseOperand(Inst i, int k) const {
  for (const Operand& op : operands(i)) {
    if (op.IsUse() && k-- == 0) return &op;
  }
  return nullptr;
}

Inst Function::Terminator(Block b) const {
  const std::vector<Inst>& insts = blocks_[b.index()].insts;
  if (insts.empty() || !IsTerminator(inst(insts.back()).opcode)) return Inst();
  return insts.back();
}

int Function::CountInstsInLayout() const {
  int n = 0;
  for (Block b : layout_) n += static_cast<int>(blocks_[b.index()].insts.size());
  return n;
}

int Function::InternCallee(absl::string_view name) {
  for (size_t i = 0; i < callees_.size(); ++i) {
    if (callees_[i] == name) return static_cast<int>(i);
  }
  callees_.emplace_back(name);
  return static_cast<int>(callees_.size() - 1);
}

int Function::InternClobbers(const RegSet& set) {
  for (size_t i = 0; i < clobber_sets_.size(); ++i) {
    if (clobber_sets_[i] == set) return static_cast<int>(i);
  }
  clobber_sets_.push_back(set);
  return static_cast<int>(clobber_sets_.size() - 1);
}

RegSet Function::Clobbers(Inst i) const {
  int id = insts_[i.index()].clobbers;
  return id < 0 ? RegSet() : clobber_sets_[id];
}

RegSet Function::ClobberedRegs() const {
  RegSet all;
  for (Block b : layout_) {
    for (Inst i : blocks_[b.index()].insts) {
      if (insts_[i.index()].clobbers >= 0) all |= clobber_sets_[insts_[i.index()].clobbers];
    }
  }
  return all;
}

StackSlot Function::NewStackSlot(int size) {
  stack_slots_.push_back(StackSlotData{size});
  if (!slot_names_.empty()) slot_names_.push_back(slot_source_.Take(slot_names_));
  return StackSlot(static_cast<uint32_t>(stack_slots_.size() - 1));
}

void Function::EnsureStackSlot(StackSlot s, int size) {
  if (s.index() >= stack_slots_.size()) stack_slots_.resize(s.index() + 1);
  stack_slots_[s.index()].size = size;
}

std::string Function::ValueName(Value v) const { return absl::StrCat("v", value_name(v)); }
std::string Function::BlockName(Block b) const { return absl::StrCat("block", block_name(b)); }
std::string Function::SlotName(StackSlot s) const { return absl::StrCat("ss", slot_name(s)); }

void Function::NameSource::Reset(const std::vector<uint32_t>& names) {
  next = 0;
  for (uint32_t n : names) next = std::max<uint64_t>(next, uint64_t{n} + 1);
  used.clear();
  used_pos = 0;
  gap = 0;
}

uint32_t Function::NameSource::Take(const std::vector<uint32_t>& names) {
  if (next <= kMaxName) return static_cast<uint32_t>(next++);
  if (used.empty()) {
    // Names ran past kMaxName: from now on, the gaps from 0 upward. One sort,
    // then a walk, so n new names cost O(n + names) in all.
    used = names;
    std::sort(used.begin(), used.end());
    gap = 0;
  }
  while (used_pos < used.size() && used[used_pos] <= gap) {
    if (used[used_pos] == gap) ++gap;
    ++used_pos;
  }
  return gap++;
}

void Function::SetNames(std::vector<uint32_t> values, std::vector<uint32_t> blocks, std::vector<uint32_t> slots) {
  value_names_ = std::move(values);
  block_names_ = std::move(blocks);
  slot_names_ = std::move(slots);
  value_source_.Reset(value_names_);
  block_source_.Reset(block_names_);
  slot_source_.Reset(slot_names_);
}

void Function::Renumber(absl::Span<const uint32_t> value_map, int num_values, absl::Span<const uint32_t> block_map,
                        int num_blocks, absl::Span<const uint32_t> slot_map, int num_slots) {
  auto remap = [&](Operand& op) {
    op.set_value(Value(value_map[op.value().index()]));
    if (op.location().IsStack()) op.set_location(Location::Stack(StackSlot(slot_map[op.location().slot().index()])));
  };
  std::vector<Type> types(num_values, Type::kI64);
  std::vector<uint8_t> exists(num_values, 0);
  for (size_t v = 0; v < value_types_.size(); ++v) {
    if (v >= value_map.size() || value_map[v] == kUnmapped) continue;
    types[value_map[v]] = value_types_[v];
    exists[value_map[v]] = value_exists_[v];
  }
  value_types_ = std::move(types);
  value_exists_ = std::move(exists);
  for (Operand& op : operand_pool_) remap(op);
  std::vector<BlockData> blocks(num_blocks);
  for (size_t b = 0; b < blocks_.size(); ++b) {
    if (b >= block_map.size() || block_map[b] == kUnmapped) continue;
    BlockData& to = blocks[block_map[b]];
    to = std::move(blocks_[b]);
    for (Operand& p : to.params) remap(p);
  }
  blocks_ = std::move(blocks);
  for (Block& b : layout_) b = Block(block_map[b.index()]);
  for (size_t i = 0; i < insts_.size(); ++i) {
    for (BranchTarget& bt : mutable_targets(Inst(static_cast<uint32_t>(i)))) bt.block = Block(block_map[bt.block.index()]);
  }
  std::vector<StackSlotData> slots(num_slots);
  for (size_t s = 0; s < stack_slots_.size(); ++s) {
    if (s < slot_map.size() && slot_map[s] != kUnmapped) slots[slot_map[s]] = stack_slots_[s];
  }
  stack_slots_ = std::move(slots);
  SetNames({}, {}, {});
}

bool Function::IsAllocated() const {
  bool any = false;
  for (Block b : layout_) {
    for (const Operand& p : blocks_[b.index()].params) {
      if (p.location().IsNone()) return false;
      any = true;
    }
    for (Inst i : blocks_[b.index()].insts) {
      for (const Operand& op : operands(i)) {
        if (op.location().IsNone()) return false;
        any = true;
      }
    }
  }
  return any;
}

std::vector<uint8_t> ComputedValues(const Function& func) {
  std::vector<uint8_t> computed(func.num_values(), 0);
  for (Block b : func.layout()) {
    for (Inst i : func.block(b).insts) {
      if (IsMoveLike(func.inst(i).opcode)) continue;
      for (const Operand& op : func.operands(i)) {
        if (op.IsDef()) computed[op.value().index()] = 1;
      }
    }
  }
  return computed;
}

void ConstDefs(const Function& func, std::vector<Inst>& out, bool with_clobbers) {
  out.assign(func.num_values(), Inst());
  for (Block b : func.layout()) {
    for (Inst i : func.block(b).insts) {
      const InstData& d = func.inst(i);
      if (d.opcode == Opcode::kConst && (with_clobbers || d.clobbers < 0)) out[func.operands(i)[0].value().index()] = i;
    }
  }
}

Inst MakeConstAgain(Function& func, Inst original, const Operand& def) {
  InstData d;
  d.opcode = Opcode::kConst;
  d.type = func.inst(original).type;
  d.imm = func.inst(original).imm;
  return func.NewInst(d, absl::MakeConstSpan(&def, 1));
}

RegSet FrameSaves(const Function& func, const Target& target, const RegSet& used) {
  RegSet touched = used;
  touched |= func.ClobberedRegs();
  return target.CalleeSavedTouched(touched);
}

}  // namespace regalloc
