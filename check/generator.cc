#include "check/generator.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "ssa/builder.h"
#include "ssa/legalize.h"
#include "ssa/verifier.h"

namespace regalloc {
namespace {

// SplitMix64: tiny, fast, and fully specified, so sequences never change.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 0x1234567ull) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n); n > 0.
  uint32_t Below(uint32_t n) { return static_cast<uint32_t>(Next() % n); }
  bool Percent(int p) { return static_cast<int>(Below(100)) < p; }

 private:
  uint64_t state_;
};

class Generator {
 public:
  Generator(uint64_t seed, const GeneratorOptions& options, const Target& target, Function& func)
      : rng_(seed), opts_(options), target_(target), func_(func), b_(func) {
    for (int t = 0; t < kNumTypes; ++t) type_ok_[t] = target.ClassFor(static_cast<Type>(t)).has_value();
  }

  void Run();

 private:
  Type RandomType() {
    if (rng_.Percent(opts_.vector_percent) && type_ok_[static_cast<int>(Type::kV128)]) return Type::kV128;
    if (rng_.Percent(opts_.float_percent)) return rng_.Percent(50) ? Type::kF64 : Type::kF32;
    return IntType();
  }
  Type IntType() {
    // No draw when i8 is off, so that the functions of each seed stay what they were.
    if (opts_.byte_percent > 0 && type_ok_[static_cast<int>(Type::kI8)] && rng_.Percent(opts_.byte_percent)) {
      return Type::kI8;
    }
    return type_ok_[static_cast<int>(Type::kI64)] && rng_.Percent(50) ? Type::kI64 : Type::kI32;
  }

  // A value of `type` available here: a long-lived one, or a recent one.
  Value Pick(Type type) {
    std::vector<Value>& pool = avail_[static_cast<int>(type)];
    if (pool.empty()) return Fresh(type);
    std::vector<Value>& longs = long_lived_[static_cast<int>(type)];
    if (!longs.empty() && rng_.Percent(35)) return longs[rng_.Below(longs.size())];
    // Recent values, geometrically: mostly the last few.
    size_t back = std::min<size_t>(pool.size() - 1, rng_.Below(4) == 0 ? rng_.Below(32) : rng_.Below(4));
    return pool[pool.size() - 1 - back];
  }
  Value Fresh(Type type) {
    Value v;
    switch (type) {
      case Type::kF64: v = b_.ConstF64(static_cast<double>(rng_.Below(1000)) / 8.0); break;
      case Type::kF32: v = b_.ConstF32(static_cast<float>(rng_.Below(1000)) / 4.0f); break;
      case Type::kI8: v = b_.Const(type, static_cast<int64_t>(rng_.Below(256)) - 128); break;
      default: v = b_.Const(type, static_cast<int64_t>(rng_.Below(2000)) - 1000); break;
    }
    ++emitted_;
    Define(v);
    return v;
  }
  void Define(Value v) { avail_[static_cast<int>(func_.value_type(v))].push_back(v); }

  void EmitInst();
  void Straight(int n) {
    for (int i = 0; i < n && emitted_ < opts_.num_insts; ++i) EmitInst();
  }
  void Region(int depth);
  void Sequence(int depth);

  // Scopes: values defined inside a branch are not available after it.
  struct Scope {
    size_t sizes[kNumTypes];
  };
  Scope Save() const {
    Scope s;
    for (int t = 0; t < kNumTypes; ++t) s.sizes[t] = avail_[t].size();
    return s;
  }
  void Restore(const Scope& s) {
    for (int t = 0; t < kNumTypes; ++t) avail_[t].resize(s.sizes[t]);
  }

  // Random block-parameter types for a join, and arguments for them.
  // An unusual shape here? (No draw when they are off: seeds keep their functions.)
  bool Unusual() { return opts_.unusual_percent > 0 && rng_.Percent(opts_.unusual_percent); }
  std::vector<Type> JoinTypes() {
    std::vector<Type> types;
    int n = Unusual() ? 12 + static_cast<int>(rng_.Below(30)) : static_cast<int>(rng_.Below(4));
    for (int i = 0; i < n; ++i) types.push_back(RandomType());
    return types;
  }
  std::vector<Value> Args(const std::vector<Type>& types) {
    std::vector<Value> args;
    for (Type t : types) args.push_back(Pick(t));
    return args;
  }
  Value Condition() {
    Value a = Pick(Type::kI32);
    Value c = b_.Cmp(static_cast<CondCode>(rng_.Below(kNumCondCodes)), a, Pick(Type::kI32));
    ++emitted_;
    return c;
  }

  Rng rng_;
  const GeneratorOptions& opts_;
  const Target& target_;
  Function& func_;
  FunctionBuilder b_;
  bool type_ok_[kNumTypes];
  std::vector<Value> avail_[kNumTypes];
  std::vector<Value> long_lived_[kNumTypes];
  int emitted_ = 0;
};

void Generator::EmitInst() {
  uint32_t roll = rng_.Below(100);
  int call_cut = opts_.call_percent;
  int div_cut = call_cut + opts_.div_percent;
  int mem_cut = div_cut + opts_.memory_percent;
  Value v;
  if (static_cast<int>(roll) < call_cut) {
    std::vector<Value> args;
    bool unusual = Unusual();
    int n = unusual ? 8 + static_cast<int>(rng_.Below(40)) : static_cast<int>(rng_.Below(4));
    for (int i = 0; i < n; ++i) args.push_back(Pick(RandomType()));
    if (unusual) args[1] = args[0];  // one value in two argument registers (or slots)
    std::vector<Type> results;
    if (rng_.Percent(70)) results.push_back(IntType());
    if (rng_.Percent(30)) results.push_back(rng_.Percent(50) ? Type::kF64 : Type::kF32);
    std::vector<Value> defs = b_.Call(absl::StrCat("fn", rng_.Below(4)), args, results);
    for (Value d : defs) Define(d);
    ++emitted_;
    return;
  }
  if (static_cast<int>(roll) < div_cut) {
    Type t = IntType();
    v = b_.Binary(rng_.Percent(50) ? Opcode::kDiv : Opcode::kRem, Pick(t), Pick(t));
  } else if (static_cast<int>(roll) < mem_cut) {
    Value addr = Pick(IntType());
    int64_t offset = static_cast<int64_t>(rng_.Below(16)) * 8;
    if (rng_.Percent(40)) {
      b_.Store(Pick(RandomType()), addr, offset);
      ++emitted_;
      return;
    }
    v = b_.Load(RandomType(), addr, offset);
  } else {
    Type t = RandomType();
    if (t == Type::kV128) {
      v = rng_.Percent(50) ? b_.Copy(Pick(t)) : b_.Const(t, rng_.Below(1 << 20));
    } else if (IsFloat(t)) {
      static constexpr Opcode kOps[] = {Opcode::kFadd, Opcode::kFsub, Opcode::kFmul, Opcode::kFdiv};
      v = rng_.Percent(10) ? b_.Cmp(static_cast<CondCode>(rng_.Below(6)), Pick(t), Pick(t))
                           : b_.Binary(kOps[rng_.Below(4)], Pick(t), Pick(t));
    } else {
      static constexpr Opcode kOps[] = {Opcode::kAdd, Opcode::kAdd, Opcode::kSub, Opcode::kMul, Opcode::kAnd,
                                        Opcode::kOr,  Opcode::kXor, Opcode::kShl, Opcode::kShr, Opcode::kSar};
      uint32_t k = rng_.Below(12);
      if (k >= 10) {
        v = k == 10 ? b_.Copy(Pick(t)) : b_.Cmp(static_cast<CondCode>(rng_.Below(kNumCondCodes)), Pick(t), Pick(t));
      } else {
        v = b_.Binary(kOps[k], Pick(t), Pick(t));
      }
    }
  }
  ++emitted_;
  Define(v);
}

void Generator::Region(int depth) {
  uint32_t roll = rng_.Below(100);
  int cut_diamond = opts_.diamond_percent;
  int cut_critical = cut_diamond + opts_.critical_percent;
  int cut_loop = cut_critical + opts_.loop_percent;
  int run = 1 + static_cast<int>(rng_.Below(2 * opts_.avg_block_insts));
  if (depth >= opts_.max_nesting || static_cast<int>(roll) >= cut_loop) {
    Straight(run);
    return;
  }
  if (static_cast<int>(roll) < cut_critical) {
    // if/else (or, with a critical edge, if-then joining straight from the branch).
    bool critical = static_cast<int>(roll) >= cut_diamond;
    Value cond = Condition();
    std::vector<Type> types = JoinTypes();
    Block then_b = func_.NewBlock();
    Block else_b = critical ? Block() : func_.NewBlock();
    Block join = func_.NewBlock();
    Block here = b_.current_block();
    Scope scope = Save();
    std::vector<Value> direct_args = Args(types);
    // The branch is emitted last in `here`; remember what it needs.
    func_.AppendToLayout(then_b);
    b_.SwitchToBlock(then_b);
    Sequence(depth + 1);
    b_.Jump(join, Args(types));
    ++emitted_;
    Restore(scope);
    if (!critical) {
      func_.AppendToLayout(else_b);
      b_.SwitchToBlock(else_b);
      Sequence(depth + 1);
      b_.Jump(join, Args(types));
      ++emitted_;
      Restore(scope);
    }
    // Emit the branch at the end of `here`.
    b_.SwitchToBlock(here);
    if (critical) {
      b_.Br(cond, join, direct_args, then_b, {});
    } else {
      b_.Br(cond, then_b, {}, else_b, {});
    }
    ++emitted_;
    func_.AppendToLayout(join);
    b_.SwitchToBlock(join);
    for (Type t : types) Define(b_.AddBlockParam(join, t));
    return;
  }
  // A counted loop: header(counter, carried...) ; body ; latch jumps back.
  std::vector<Type> types = JoinTypes();
  Type ct = Type::kI32;
  Value zero = b_.Const(ct, 0);
  Value one = b_.Const(ct, 1);
  Value trips = b_.Const(ct, opts_.loop_trips);
  emitted_ += 3;
  Block header = func_.NewBlock();
  Block body = func_.NewBlock();
  Block exit = func_.NewBlock();
  std::vector<Value> init = {zero};
  for (Value v : Args(types)) init.push_back(v);
  b_.Jump(header, init);
  ++emitted_;
  func_.AppendToLayout(header);
  b_.SwitchToBlock(header);
  Value counter = b_.AddBlockParam(header, ct);
  std::vector<Value> carried;
  for (Type t : types) {
    carried.push_back(b_.AddBlockParam(header, t));
    Define(carried.back());
  }
  Value more = b_.Cmp(CondCode::kLt, counter, trips);
  ++emitted_;
  b_.Br(more, body, {}, exit, {});
  ++emitted_;
  Scope at_header = Save();
  func_.AppendToLayout(body);
  b_.SwitchToBlock(body);
  Sequence(depth + 1);
  Value next = b_.Binary(Opcode::kAdd, counter, one);
  ++emitted_;
  std::vector<Value> back = {next};
  if (Unusual()) {
    // The carried values rotate: each parameter takes the next one of its type.
    for (size_t k = 0; k < carried.size(); ++k) {
      size_t to = k;
      for (size_t step = 1; step <= carried.size(); ++step) {
        size_t j = (k + step) % carried.size();
        if (types[j] == types[k]) {
          to = j;
          break;
        }
      }
      back.push_back(carried[to]);
    }
  } else {
    for (Value v : Args(types)) back.push_back(v);
  }
  b_.Jump(header, back);
  ++emitted_;
  Restore(at_header);
  func_.AppendToLayout(exit);
  b_.SwitchToBlock(exit);
}

void Generator::Sequence(int depth) {
  int regions = 1 + static_cast<int>(rng_.Below(3));
  for (int i = 0; i < regions && emitted_ < opts_.num_insts; ++i) Region(depth);
}

void Generator::Run() {
  Block entry = b_.CreateEntryBlock();
  for (int i = 0; i < static_cast<int>(func_.param_types().size()); ++i) Define(b_.Param(entry, i));
  for (int i = 0; i < opts_.long_lived; ++i) {
    Type t = RandomType();
    Value v = Fresh(t);
    long_lived_[static_cast<int>(t)].push_back(v);
  }
  // Top level: regions until the budget is spent.
  while (emitted_ < opts_.num_insts) Region(0);
  std::vector<Value> results;
  for (Type t : func_.result_types()) results.push_back(Pick(t));
  b_.Ret(results);
}

// Constraints a hand-written function may carry and the plain generator never
// attaches, each kept only where the function still verifies.
void AddUnusualConstraints(Function& func, const Target& target, Rng& rng, int percent) {
  std::vector<PReg> callee_saved;
  for (PReg r : target.abi().callee_saved) callee_saved.push_back(r);
  std::vector<Operand> ops, saved;
  for (Block b : func.layout()) {
    for (Inst i : func.block(b).insts) {
      if (IsTerminator(func.inst(i).opcode) || IsMoveLike(func.inst(i).opcode) || !rng.Percent(percent)) continue;
      saved.assign(func.operands(i).begin(), func.operands(i).end());
      ops = saved;
      int old_clobbers = func.inst(i).clobbers;
      size_t num_defs = 0;
      while (num_defs < ops.size() && ops[num_defs].IsDef()) ++num_defs;
      auto reg_for = [&](Value v) -> std::optional<PReg> {
        const std::vector<PReg>& order = target.Class(*target.ClassFor(func.value_type(v))).allocation_order;
        if (order.empty()) return std::nullopt;
        return order[rng.Below(order.size())];
      };
      switch (rng.Below(3)) {
        case 0:  // a Reuse source fixed to a register
          for (size_t d = 0; d < num_defs; ++d) {
            if (ops[d].constraint() != ConstraintKind::kReuse) continue;
            Operand& src = ops[num_defs + ops[d].reuse_index()];
            if (std::optional<PReg> r = reg_for(src.value())) src = src.WithFixed(*r);
          }
          break;
        case 1:  // an early def fixed to the register its first use is read from
          if (num_defs == 1 && ops.size() > 1 && ops[0].constraint() != ConstraintKind::kFixed &&
              target.ClassFor(func.value_type(ops[0].value())) == target.ClassFor(func.value_type(ops[1].value()))) {
            if (std::optional<PReg> r = reg_for(ops[0].value())) {
              std::optional<PReg> use_reg = target.View(*r, *target.ClassFor(func.value_type(ops[1].value())));
              if (use_reg.has_value()) {
                ops[0] = Operand::Def(ops[0].value()).WithFixed(*r).WithPosition(Position::kEarly);
                ops[1] = Operand::Use(ops[1].value()).WithFixed(*use_reg);
              }
            }
          }
          break;
        default:  // a hand clobber of a callee-saved register
          if (!callee_saved.empty()) {
            RegSet set = func.Clobbers(i);
            set.Insert(callee_saved[rng.Below(callee_saved.size())]);
            func.inst(i).clobbers = func.InternClobbers(set);
          }
          break;
      }
      func.SetOperands(i, ops);
      if (!Verify(func, target).ok()) {
        func.SetOperands(i, saved);
        func.inst(i).clobbers = old_clobbers;
      }
    }
  }
}

}  // namespace

absl::StatusOr<Function> Generate(uint64_t seed, const GeneratorOptions& options, const Target& target) {
  if (options.num_insts < 1 || options.avg_block_insts < 1 || options.long_lived < 0 || options.max_nesting < 0 ||
      options.loop_trips < 0) {
    return absl::InvalidArgumentError("generator options must be positive (num_insts, avg_block_insts) or "
                                      "non-negative (long_lived, max_nesting, loop_trips)");
  }
  Rng sig(seed ^ 0x5eedull);
  std::vector<Type> params;
  int nparams = 1 + static_cast<int>(sig.Below(4));
  Type int_type = target.ClassFor(Type::kI64).has_value() ? Type::kI64 : Type::kI32;
  for (int i = 0; i < nparams; ++i) params.push_back(i == 0 ? int_type : (sig.Percent(70) ? Type::kI32 : Type::kF64));
  std::vector<Type> results = {sig.Percent(75) ? Type::kI32 : Type::kF64};
  Function func(options.name.empty() ? absl::StrCat("gen", seed) : options.name, params, results);
  Generator(seed, options, target, func).Run();
  if (options.legalize) RA_RETURN_IF_ERROR(Legalize(func, target));
  if (options.legalize && options.unusual_percent > 0) {
    Rng rng(seed ^ 0xc0ffeeull);
    AddUnusualConstraints(func, target, rng, options.unusual_percent);
  }
  absl::Status verified = Verify(func, target);
  if (!verified.ok()) {
    return absl::InternalError(absl::StrCat("generator produced an invalid function (seed ", seed, "): ",
                                            verified.message()));
  }
  return func;
}

}  // namespace regalloc
