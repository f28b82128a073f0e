#include "check/interpreter.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/bit_cast.h"
#include "base/status_macros.h"
#include "ssa/printer.h"

namespace regalloc {
namespace {

uint64_t Mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// The low TypeSize(t) bytes of v, for integers narrower than 64 bits (and f32).
uint64_t Mask(Type t, uint64_t v) {
  switch (TypeSize(t)) {
    case 1: return v & 0xffu;
    case 4: return v & 0xffffffffull;
    default: return v;
  }
}

// v as a signed integer of type t.
int64_t Signed(Type t, uint64_t v) {
  switch (t) {
    case Type::kI8: return static_cast<int8_t>(v);
    case Type::kI32: return static_cast<int32_t>(v);
    default: return static_cast<int64_t>(v);
  }
}

float F32(uint64_t v) { return BitCast<float>(static_cast<uint32_t>(v)); }
double F64(uint64_t v) { return BitCast<double>(v); }
uint64_t FromF32(float f) { return BitCast<uint32_t>(f); }
uint64_t FromF64(double d) { return BitCast<uint64_t>(d); }

// A finite float result for a call, from hash bits.
Bits FiniteFloat(Type t, uint64_t h) {
  double v = static_cast<double>(h % (1u << 20)) / 16.0 - 32768.0;
  return Bits{t == Type::kF32 ? FromF32(static_cast<float>(v)) : FromF64(v), 0};
}

// The value an arithmetic instruction computes from its inputs.
Bits Compute(const InstData& d, Type type, absl::Span<const Bits> in) {
  uint64_t a = in.size() > 0 ? in[0].lo : 0;
  uint64_t b = in.size() > 1 ? in[1].lo : 0;
  int bits = TypeSize(type) * 8;
  switch (d.opcode) {
    case Opcode::kConst: return Bits{Mask(type, static_cast<uint64_t>(d.imm)), 0};
    case Opcode::kAdd: return Bits{Mask(type, a + b), 0};
    case Opcode::kSub: return Bits{Mask(type, a - b), 0};
    case Opcode::kMul: return Bits{Mask(type, a * b), 0};
    case Opcode::kAnd: return Bits{a & b, 0};
    case Opcode::kOr: return Bits{a | b, 0};
    case Opcode::kXor: return Bits{a ^ b, 0};
    case Opcode::kShl: return Bits{Mask(type, a << (b & (bits - 1))), 0};
    case Opcode::kShr: return Bits{Mask(type, Mask(type, a) >> (b & (bits - 1))), 0};
    case Opcode::kSar: return Bits{Mask(type, static_cast<uint64_t>(Signed(type, a) >> (b & (bits - 1)))), 0};
    case Opcode::kDiv:
    case Opcode::kRem: {
      int64_t x = Signed(type, a), y = Signed(type, b);
      int64_t min = type == Type::kI8 ? INT8_MIN : type == Type::kI32 ? INT32_MIN : INT64_MIN;
      int64_t r;
      if (y == 0) {
        r = d.opcode == Opcode::kDiv ? 0 : x;
      } else if (x == min && y == -1) {
        r = d.opcode == Opcode::kDiv ? min : 0;
      } else {
        r = d.opcode == Opcode::kDiv ? x / y : x % y;
      }
      return Bits{Mask(type, static_cast<uint64_t>(r)), 0};
    }
    case Opcode::kFadd: case Opcode::kFsub: case Opcode::kFmul: case Opcode::kFdiv: {
      if (type == Type::kF32) {
        float x = F32(a), y = F32(b);
        float r = d.opcode == Opcode::kFadd ? x + y : d.opcode == Opcode::kFsub ? x - y
                  : d.opcode == Opcode::kFmul ? x * y : x / y;
        return Bits{FromF32(r), 0};
      }
      double x = F64(a), y = F64(b);
      double r = d.opcode == Opcode::kFadd ? x + y : d.opcode == Opcode::kFsub ? x - y
                 : d.opcode == Opcode::kFmul ? x * y : x / y;
      return Bits{FromF64(r), 0};
    }
    default: break;
  }
  return Bits{};
}

bool Compare(CondCode cc, Type t, uint64_t a, uint64_t b) {
  if (IsFloat(t)) {
    double x = t == Type::kF32 ? F32(a) : F64(a);
    double y = t == Type::kF32 ? F32(b) : F64(b);
    switch (cc) {
      case CondCode::kEq: return x == y;
      case CondCode::kNe: return x != y;
      case CondCode::kLt: return x < y;
      case CondCode::kLe: return x <= y;
      case CondCode::kGt: return x > y;
      case CondCode::kGe: return x >= y;
      default: return false;
    }
  }
  int64_t x = Signed(t, a), y = Signed(t, b);
  uint64_t ux = Mask(t, a), uy = Mask(t, b);
  switch (cc) {
    case CondCode::kEq: return ux == uy;
    case CondCode::kNe: return ux != uy;
    case CondCode::kLt: return x < y;
    case CondCode::kLe: return x <= y;
    case CondCode::kGt: return x > y;
    case CondCode::kGe: return x >= y;
    case CondCode::kUlt: return ux < uy;
    case CondCode::kUle: return ux <= uy;
    case CondCode::kUgt: return ux > uy;
    case CondCode::kUge: return ux >= uy;
  }
  return false;
}

std::vector<uint8_t> InitialMemory(uint64_t seed) {
  std::vector<uint8_t> mem(kMemorySize + 16, 0);
  uint64_t x = seed * 31 + 7;
  for (int i = 0; i < kMemorySize; i += 8) {
    x = Mix(x);
    std::memcpy(&mem[i], &x, 8);
  }
  return mem;
}

size_t Address(Type addr_type, uint64_t addr, int64_t offset) {
  uint64_t ea = static_cast<uint64_t>(Signed(addr_type, addr) + offset);
  return static_cast<size_t>(ea % kMemorySize);
}

// One executed instruction with results (not move-like): what a run shows of
// itself to the comparison. Valid until the next step.
struct Event {
  Inst inst;
  absl::Span<const Operand> defs;
  absl::Span<const Bits> bits;
};

// The interpreter loop shared by both runs, one event at a time; `Machine`
// supplies operand reads and writes (values or locations). Buffers are reused:
// a step allocates nothing.
template <typename Machine>
class Runner {
 public:
  Runner(const Function& f, Machine& m, const InterpOptions& o) : f_(f), m_(m), o_(o), block_(f.entry()) {
    ex_.memory = InitialMemory(o.seed);
  }

  // Runs up to the next event; false once the function has returned (then
  // execution() holds the results and memory).
  absl::StatusOr<bool> Next(Event* event) {
    while (!done_) {
      const std::vector<Inst>& insts = f_.block(block_).insts;
      if (k_ >= insts.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("function %", f_.name(), ": ", f_.BlockName(block_), " ends without a terminator"));
      }
      Inst i = insts[k_++];
      RA_ASSIGN_OR_RETURN(bool shown, Step(i));
      if (shown) {
        *event = Event{i, f_.operands(i).subspan(0, out_.size()), out_};
        return true;
      }
    }
    return false;
  }
  Execution& execution() { return ex_; }

 private:
  // Executes `i`; true when it is an event.
  absl::StatusOr<bool> Step(Inst i) {
    if (++ex_.steps > o_.step_limit) {
      return absl::ResourceExhaustedError(absl::StrCat("function %", f_.name(), ": step limit of ", o_.step_limit,
                                                       " instructions exceeded in ", f_.BlockName(block_),
                                                       " (a runaway loop?)"));
    }
    const InstData& d = f_.inst(i);
    absl::Span<const Operand> ops = f_.operands(i);
    size_t num_defs = 0;
    while (num_defs < ops.size() && ops[num_defs].IsDef()) ++num_defs;
    absl::Span<const Operand> uses = ops.subspan(num_defs);
    // Early uses, then early defs and clobbers turn to garbage, then late uses.
    in_.assign(uses.size(), Bits{});
    for (size_t u = 0; u < uses.size(); ++u) {
      if (uses[u].position() == Position::kEarly) {
        RA_ASSIGN_OR_RETURN(in_[u], m_.Read(uses[u]));
      }
    }
    m_.Clobber(d.clobbers >= 0 ? f_.clobber_set(d.clobbers) : RegSet(), ops.subspan(0, num_defs));
    for (size_t u = 0; u < uses.size(); ++u) {
      if (uses[u].position() == Position::kLate) {
        RA_ASSIGN_OR_RETURN(in_[u], m_.Read(uses[u]));
      }
    }
    out_.assign(num_defs, Bits{});
    Type type = num_defs > 0 ? f_.value_type(ops[0].value()) : Type::kI64;
    std::vector<uint8_t>& memory = ex_.memory;
    switch (d.opcode) {
      case Opcode::kCmp:
        out_[0] = Bits{Compare(d.cc, f_.value_type(uses[0].value()), in_[0].lo, in_[1].lo) ? 1u : 0u, 0};
        break;
      case Opcode::kLoad: {
        size_t at = Address(f_.value_type(uses[0].value()), in_[0].lo, d.imm);
        std::memcpy(&out_[0], &memory[at], TypeSize(type));
        break;
      }
      case Opcode::kStore: {
        size_t at = Address(f_.value_type(uses[1].value()), in_[1].lo, d.imm);
        std::memcpy(&memory[at], &in_[0], TypeSize(f_.value_type(uses[0].value())));
        break;
      }
      case Opcode::kCopy: case Opcode::kSpill: case Opcode::kReload: case Opcode::kMove:
      case Opcode::kParallelCopy:
        for (size_t k = 0; k < num_defs; ++k) out_[k] = in_[k];
        break;
      case Opcode::kCall: {
        uint64_t h = Mix(std::hash<std::string>()(f_.callee(static_cast<int>(d.imm))));
        for (const Bits& a : in_) h = Mix(h ^ Mix(a.lo) ^ (a.hi * 3));
        for (size_t r = 0; r < num_defs; ++r) {
          Type rt = f_.value_type(ops[r].value());
          uint64_t hr = Mix(h + r);
          out_[r] = IsFloat(rt) ? FiniteFloat(rt, hr) : Bits{Mask(rt, hr), TypeSize(rt) == 16 ? Mix(hr) : 0};
        }
        break;
      }
      case Opcode::kRet:
        RA_RETURN_IF_ERROR(m_.AtReturn());
        ex_.results = in_;
        done_ = true;
        return false;
      case Opcode::kJump:
      case Opcode::kBr: {
        int t = d.opcode == Opcode::kBr && Mask(f_.value_type(uses[0].value()), in_[0].lo) == 0 ? 1 : 0;
        const BranchTarget& bt = f_.targets(i)[t];
        const std::vector<Operand>& params = f_.block(bt.block).params;
        // Every argument is read before any parameter is written.
        for (size_t p = 0; p < params.size() && p < bt.num_args; ++p) m_.Write(params[p], in_[bt.first_arg + p]);
        block_ = bt.block;
        k_ = 0;
        return false;
      }
      default:
        out_[0] = Compute(d, type, in_);
        break;
    }
    for (size_t r = 0; r < num_defs; ++r) m_.Write(ops[r], out_[r]);
    if (num_defs == 0 || IsMoveLike(d.opcode)) return false;
    ++ex_.events;
    return true;
  }

  const Function& f_;
  Machine& m_;
  const InterpOptions& o_;
  Block block_;
  size_t k_ = 0;  // next instruction of block_
  bool done_ = false;
  std::vector<Bits> in_, out_;
  Execution ex_;
};

// Runs to the end, calling `on_event` for each event.
template <typename Machine, typename F>
absl::StatusOr<Execution> RunToEnd(const Function& f, Machine& m, const InterpOptions& o, F on_event) {
  Runner<Machine> run(f, m, o);
  Event e;
  while (true) {
    RA_ASSIGN_OR_RETURN(bool more, run.Next(&e));
    if (!more) break;
    on_event(e);
  }
  return std::move(run.execution());
}

// Values: one slot per value id.
class ValueMachine {
 public:
  explicit ValueMachine(const Function& f) : vals_(f.num_values()) {}
  absl::StatusOr<Bits> Read(const Operand& op) { return vals_[op.value().index()]; }
  void Write(const Operand& op, const Bits& v) { vals_[op.value().index()] = v; }
  void Clobber(const RegSet&, absl::Span<const Operand>) {}
  absl::Status AtReturn() { return absl::OkStatus(); }

 private:
  std::vector<Bits> vals_;
};

// Registers by byte (each container is an array; a register is a byte range of
// it), stack slots by byte. A value in a slot lives at its start, so a slot holds
// at most kSlotBytes bytes that can ever be read or written, whatever size it
// declares: the frame costs 16 bytes per slot, not the declared sizes.
class RegisterMachine {
 public:
  static constexpr size_t kSlotBytes = 16;  // the widest type

  RegisterMachine(const Function& f, const Target& t, uint64_t seed) : f_(f), t_(t), garbage_(seed * 977 + 13) {
    for (int r = 0; r < t.num_regs(); ++r) {
      const RegInfo& info = t.Reg(PReg(r));
      if (info.container >= containers_.size()) containers_.resize(info.container + 1);
      if (containers_[info.container].size() < info.hi_bit / 8u) containers_[info.container].resize(info.hi_bit / 8u);
    }
    for (auto& c : containers_) Fill(c.data(), c.size());
    entry_ = containers_;
    slots_.resize(static_cast<size_t>(f.num_stack_slots()) * kSlotBytes);
    Fill(slots_.data(), slots_.size());
  }

  absl::StatusOr<Bits> Read(const Operand& op) {
    Bits v;
    RA_ASSIGN_OR_RETURN(uint8_t* p, Bytes(op));
    std::memcpy(&v, p, TypeSize(f_.value_type(op.value())));
    return v;
  }
  void Write(const Operand& op, const Bits& v) {
    absl::StatusOr<uint8_t*> p = Bytes(op);
    if (!p.ok()) {
      if (error_.ok()) error_ = p.status();  // the first error is the one to report
      return;
    }
    int size = TypeSize(f_.value_type(op.value()));
    size_t width = op.location().IsReg() ? (t_.Reg(op.location().reg()).hi_bit - t_.Reg(op.location().reg()).lo_bit) / 8
                                         : static_cast<size_t>(size);
    std::memset(*p, 0, width);
    std::memcpy(*p, &v, size);
  }
  // Clobbered registers and early-def locations hold garbage until written.
  void Clobber(const RegSet& clobbers, absl::Span<const Operand> defs) {
    for (PReg r : clobbers) FillReg(r);
    for (const Operand& d : defs) {
      if (d.position() != Position::kEarly) continue;
      if (d.location().IsReg()) FillReg(d.location().reg());
      if (d.location().IsStack() && d.location().slot().index() < static_cast<uint32_t>(f_.num_stack_slots())) {
        Fill(&slots_[d.location().slot().index() * kSlotBytes], kSlotBytes);
      }
    }
  }
  absl::Status AtReturn() {
    RA_RETURN_IF_ERROR(error_);
    for (PReg r : t_.abi().callee_saved) {
      if (f_.saved_regs().Contains(r)) continue;
      const RegInfo& info = t_.Reg(r);
      if (std::memcmp(&containers_[info.container][info.lo_bit / 8], &entry_[info.container][info.lo_bit / 8],
                      (info.hi_bit - info.lo_bit) / 8) != 0) {
        return absl::InvalidArgumentError(absl::StrCat("function %", f_.name(), ": callee-saved %", t_.RegName(r),
                                                       " does not hold its entry value at ret"));
      }
    }
    return absl::OkStatus();
  }
  absl::Status error() const { return error_; }

 private:
  absl::StatusOr<uint8_t*> Bytes(const Operand& op) {
    Location l = op.location();
    if (l.IsReg() && l.reg().index() < static_cast<uint32_t>(t_.num_regs())) {
      const RegInfo& info = t_.Reg(l.reg());
      if ((info.hi_bit - info.lo_bit) / 8 < TypeSize(f_.value_type(op.value()))) {
        return absl::InvalidArgumentError(
            absl::StrCat("function %", f_.name(), ": ", f_.ValueName(op.value()), " does not fit in %", info.name));
      }
      return &containers_[info.container][info.lo_bit / 8];
    }
    if (l.IsStack() && l.slot().index() < static_cast<uint32_t>(f_.num_stack_slots()) &&
        f_.stack_slot(l.slot()).size >= TypeSize(f_.value_type(op.value()))) {
      return &slots_[l.slot().index() * kSlotBytes];
    }
    return absl::FailedPreconditionError(absl::StrCat("function %", f_.name(), ": ", f_.ValueName(op.value()),
                                                      " has no usable location (", PrintLocation(f_, l, t_), ")"));
  }
  void FillReg(PReg r) {
    const RegInfo& info = t_.Reg(r);
    Fill(&containers_[info.container][info.lo_bit / 8], (info.hi_bit - info.lo_bit) / 8);
  }
  void Fill(uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      garbage_ = Mix(garbage_);
      p[i] = static_cast<uint8_t>(garbage_);
    }
  }

  const Function& f_;
  const Target& t_;
  uint64_t garbage_;
  std::vector<std::vector<uint8_t>> containers_;
  std::vector<std::vector<uint8_t>> entry_;
  std::vector<uint8_t> slots_;  // kSlotBytes per slot
  absl::Status error_;
};

std::string Show(Type t, const Bits& b) {
  switch (t) {
    case Type::kI8: return absl::StrCat(static_cast<int8_t>(b.lo));
    case Type::kI32: return absl::StrCat(static_cast<int32_t>(b.lo));
    case Type::kI64: return absl::StrCat(static_cast<int64_t>(b.lo));
    case Type::kF32: return absl::StrFormat("%g", F32(b.lo));
    case Type::kF64: return absl::StrFormat("%g", F64(b.lo));
    case Type::kV128: case Type::kF80: return absl::StrFormat("0x%016x%016x", b.hi, b.lo);
  }
  return "?";
}

}  // namespace

std::vector<Bits> ArgumentsForSeed(const Function& func, uint64_t seed) {
  std::vector<Bits> args;
  uint64_t x = Mix(seed * 7919 + 1);
  for (Type t : func.param_types()) {
    x = Mix(x);
    if (IsFloat(t)) {
      args.push_back(FiniteFloat(t, x));
    } else {
      // Small non-negative integers: loops bounded by arguments stay short.
      args.push_back(Bits{x % 100, TypeSize(t) == 16 ? Mix(x) : 0});
    }
  }
  return args;
}

namespace {

// Both runs start the same way: a function with blocks and one argument per
// entry parameter.
absl::Status CheckArguments(const Function& func, absl::Span<const Bits> args) {
  if (func.layout().empty()) return absl::InvalidArgumentError(absl::StrCat("function %", func.name(), " has no blocks"));
  RA_RETURN_IF_ERROR(CheckInterpretable(func));
  size_t params = func.block(func.entry()).params.size();
  if (params != args.size()) {
    return absl::InvalidArgumentError(absl::StrCat("function %", func.name(), " takes ", params, " arguments, got ",
                                                   args.size()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckInterpretable(const Function& func) {
  for (Block b : func.layout()) {
    const std::vector<Inst>& insts = func.block(b).insts;
    for (size_t k = 0; k < insts.size(); ++k) {
      const InstData& d = func.inst(insts[k]);
      if (!IsOpaque(d.opcode)) continue;
      return absl::UnimplementedError(absl::StrCat("function %", func.name(), " is not interpretable: ", func.BlockName(b),
                                                   ", inst ", k, " is the opaque target instruction ", OpcodeName(d.opcode),
                                                   " %", func.callee(static_cast<int>(d.imm))));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Execution> RunOnValues(const Function& func, absl::Span<const Bits> args, const InterpOptions& options) {
  RA_RETURN_IF_ERROR(CheckArguments(func, args));
  const std::vector<Operand>& params = func.block(func.entry()).params;
  ValueMachine m(func);
  for (size_t i = 0; i < args.size(); ++i) m.Write(params[i], args[i]);
  return RunToEnd(func, m, options, [](const Event&) {});
}

absl::StatusOr<Execution> RunOnMachine(const Function& func, const Target& target, absl::Span<const Bits> args,
                                       const InterpOptions& options) {
  RA_RETURN_IF_ERROR(CheckArguments(func, args));
  const std::vector<Operand>& params = func.block(func.entry()).params;
  RegisterMachine m(func, target, options.seed);
  for (size_t i = 0; i < args.size(); ++i) m.Write(params[i], args[i]);
  RA_RETURN_IF_ERROR(m.error());
  absl::StatusOr<Execution> ex = RunToEnd(func, m, options, [](const Event&) {});
  RA_RETURN_IF_ERROR(m.error());
  return ex;
}

absl::Status CompareExecutions(const Function& original, const Function& allocated, const Target& target,
                               uint64_t seed, const InterpOptions& options) {
  std::vector<Bits> args = ArgumentsForSeed(original, seed);
  InterpOptions o = options;
  o.seed = seed;
  RA_RETURN_IF_ERROR(CheckArguments(original, args));
  RA_RETURN_IF_ERROR(CheckArguments(allocated, args));
  // The values the original computes with instructions (events). Phases may
  // add copies (coalescing's new values, or a parameter now defined by a copy at
  // the top of its block): those events have no counterpart in the original.
  const std::vector<uint8_t> traced = ComputedValues(original);
  auto counts = [&](const Event& e) {
    uint32_t v = e.defs.front().value().index();
    return v < traced.size() && traced[v];
  };

  // Both runs in lockstep, event by event.
  ValueMachine values(original);
  for (size_t i = 0; i < args.size(); ++i) values.Write(original.block(original.entry()).params[i], args[i]);
  RegisterMachine machine(allocated, target, o.seed);
  for (size_t i = 0; i < args.size(); ++i) machine.Write(allocated.block(allocated.entry()).params[i], args[i]);
  RA_RETURN_IF_ERROR(machine.error());
  Runner<ValueMachine> a_run(original, values, o);
  // The allocation runs the original's steps and the moves, spills and reloads
  // among them: its limit stops a runaway, not an allocation that moves a lot.
  InterpOptions machine_options = o;
  machine_options.step_limit = 17 * o.step_limit;
  Runner<RegisterMachine> b_run(allocated, machine, machine_options);
  std::string prefix = absl::StrCat("function %", allocated.name(), " (seed ", seed, "): ");
  auto where = [&](Inst i) {
    for (Block b : allocated.layout()) {
      const std::vector<Inst>& insts = allocated.block(b).insts;
      for (size_t k = 0; k < insts.size(); ++k) {
        if (insts[k] == i) {
          return absl::StrCat(allocated.BlockName(b), ", inst ", k, " `", PrintInst(allocated, i, target), "`");
        }
      }
    }
    return absl::StrCat("inst #", i.index());
  };
  // The allocation's next event that counts; false at its end.
  auto next_counted = [&](Event* e) -> absl::StatusOr<bool> {
    while (true) {
      absl::StatusOr<bool> more = b_run.Next(e);
      RA_RETURN_IF_ERROR(machine.error());
      if (!more.ok() || !*more || counts(*e)) return more;
    }
  };
  Event a, b;
  int64_t step = 0, b_count = 0;
  while (true) {
    RA_ASSIGN_OR_RETURN(bool a_more, a_run.Next(&a));
    RA_ASSIGN_OR_RETURN(bool b_more, next_counted(&b));
    if (!a_more || !b_more) {
      if (a_more == b_more) break;
      // One run ended first: count the other's events for the message.
      int64_t a_count = step + (a_more ? 1 : 0), extra = b_more ? 1 : 0;
      while (a_more) {
        RA_ASSIGN_OR_RETURN(a_more, a_run.Next(&a));
        a_count += a_more ? 1 : 0;
      }
      while (b_more) {
        RA_ASSIGN_OR_RETURN(b_more, next_counted(&b));
        extra += b_more ? 1 : 0;
      }
      b_count = step + extra;
      return absl::InvalidArgumentError(absl::StrCat(prefix, "the original executes ", a_count,
                                                     " instructions with results, the allocation ", b_count));
    }
    bool same_values = a.defs.size() == b.defs.size();
    for (size_t r = 0; same_values && r < a.defs.size(); ++r) same_values = a.defs[r].value() == b.defs[r].value();
    if (!same_values) {
      return absl::InvalidArgumentError(absl::StrCat(prefix, "executions part at step ", step, ": the original runs `",
                                                     PrintInst(original, a.inst, target), "`, the allocation ",
                                                     where(b.inst)));
    }
    for (size_t r = 0; r < a.bits.size(); ++r) {
      if (a.bits[r] != b.bits[r]) {
        Value v = b.defs[r].value();
        Type t = allocated.value_type(v);
        return absl::InvalidArgumentError(absl::StrCat(prefix, "first diverging instruction ", where(b.inst), ": ",
                                                       allocated.ValueName(v), " is ", Show(t, a.bits[r]),
                                                       " on values, ", Show(t, b.bits[r]), " on the machine"));
      }
    }
    ++step;
  }
  const Execution& want = a_run.execution();
  const Execution& got = b_run.execution();
  for (size_t r = 0; r < want.results.size() && r < got.results.size(); ++r) {
    if (want.results[r] != got.results[r]) {
      Type t = original.result_types()[r];
      return absl::InvalidArgumentError(absl::StrCat(prefix, "result #", r, " is ", Show(t, want.results[r]),
                                                     " on values, ", Show(t, got.results[r]), " on the machine"));
    }
  }
  for (size_t i = 0; i < want.memory.size(); ++i) {
    if (want.memory[i] != got.memory[i]) {
      return absl::InvalidArgumentError(absl::StrCat(prefix, "memory differs at byte ", i));
    }
  }
  return absl::OkStatus();
}

}  // namespace regalloc
