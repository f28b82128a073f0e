#include "check/generator.h"

#include <string>

#include "gtest/gtest.h"
#include "ssa/cfg.h"
#include "ssa/printer.h"
#include "ssa/verifier.h"

namespace regalloc {
namespace {

class EveryTarget : public ::testing::TestWithParam<const char*> {};

TEST_P(EveryTarget, ManySeedsVerifyAndAreDeterministic) {
  const Target& t = *TargetByName(GetParam()).value();
  GeneratorOptions opts;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    absl::StatusOr<Function> f = Generate(seed, opts, t);
    ASSERT_TRUE(f.ok()) << f.status() << "\nreproduce: bazel run //tools:pipeline -- --target=" << GetParam()
                        << " --generate=1 --seed=" << seed << " --size=" << opts.num_insts;
    EXPECT_TRUE(Verify(*f, t).ok());
    if (seed % 50 == 0) {
      absl::StatusOr<Function> again = Generate(seed, opts, t);
      EXPECT_EQ(PrintFunction(*f, t), PrintFunction(*again, t)) << "seed " << seed;
    }
  }
}

TEST_P(EveryTarget, BytePercentAddsI8ValuesAndZeroAddsNone) {
  const Target& t = *TargetByName(GetParam()).value();
  auto bytes = [&](int percent) {
    GeneratorOptions opts;
    opts.byte_percent = percent;
    int n = 0;
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      Function f = Generate(seed, opts, t).value();
      EXPECT_TRUE(Verify(f, t).ok()) << Verify(f, t);
      for (int v = 0; v < f.num_values(); ++v) n += f.ValueExists(Value(v)) && f.value_type(Value(v)) == Type::kI8;
    }
    return n;
  };
  EXPECT_EQ(bytes(0), 0);
  EXPECT_GT(bytes(30), 100);
}

// Each unusual shape shows up in a few dozen functions, and every one verifies.
TEST_P(EveryTarget, UnusualShapesAppear) {
  const Target& t = *TargetByName(GetParam()).value();
  GeneratorOptions opts;
  opts.unusual_percent = 10;
  int wide_joins = 0, wide_calls = 0, rotations = 0, fixed_reuse_sources = 0, early_fixed = 0, saved_clobbers = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    Function f = Generate(seed, opts, t).value();
    ASSERT_TRUE(Verify(f, t).ok()) << Verify(f, t);
    for (Block b : f.layout()) {
      wide_joins += f.block(b).params.size() >= 12;
      for (Inst i : f.block(b).insts) {
        const InstData& d = f.inst(i);
        absl::Span<const Operand> ops = f.operands(i);
        if (d.opcode == Opcode::kCall) wide_calls += ops.size() >= 8;
        if (IsBranch(d.opcode)) {
          // A back edge passing the target's own parameters in another order.
          for (int k = 0; k < d.num_targets(); ++k) {
            const std::vector<Operand>& params = f.block(f.targets(i)[k].block).params;
            absl::Span<const Operand> args = f.BranchArgs(i, k);
            bool own = !args.empty() && args.size() == params.size(), moved = false;
            for (size_t a = 0; a < args.size() && own; ++a) {
              bool is_param = false;
              for (const Operand& p : params) is_param |= p.value() == args[a].value();
              own &= is_param || a == 0;  // the loop counter comes first
              moved |= args[a].value() != params[a].value() && is_param;
            }
            rotations += own && moved;
          }
        }
        for (const Operand& op : ops) {
          if (op.IsDef() && op.constraint() == ConstraintKind::kReuse &&
              f.UseOperand(i, op.reuse_index())->constraint() == ConstraintKind::kFixed) {
            ++fixed_reuse_sources;
          }
          early_fixed += op.IsDef() && op.constraint() == ConstraintKind::kFixed && op.position() == Position::kEarly;
        }
        if (d.opcode != Opcode::kCall) saved_clobbers += f.Clobbers(i).Intersects(t.abi().callee_saved);
      }
    }
  }
  EXPECT_GT(wide_joins, 0);
  EXPECT_GT(wide_calls, 0);
  EXPECT_GT(rotations, 0);
  if (t.isa() == Isa::kX86_64) EXPECT_GT(fixed_reuse_sources, 0);  // the only target with two-address ops
  EXPECT_GT(early_fixed, 0);
  EXPECT_GT(saved_clobbers, 0);
}

TEST_P(EveryTarget, LargeFunctionsHaveTheRequestedShape) {
  const Target& t = *TargetByName(GetParam()).value();
  GeneratorOptions opts;
  opts.num_insts = 5000;
  Function f = Generate(7, opts, t).value();
  int insts = f.CountInstsInLayout();
  EXPECT_GE(insts, 5000);
  EXPECT_LE(insts, 5200);
  ControlFlowGraph cfg(f);
  DominatorTree dom(f, cfg);
  LoopNest loops(f, cfg, dom);
  EXPECT_GT(loops.num_loops(), 5);
  int max_depth = 0;
  for (Block b : f.layout()) max_depth = std::max(max_depth, loops.depth(b));
  EXPECT_GE(max_depth, 2);
  EXPECT_FALSE(cfg.CriticalEdges().empty());
  int calls = 0, params = 0, fixed = 0, reuse = 0, floats = 0;
  for (Block b : f.layout()) {
    params += static_cast<int>(f.block(b).params.size());
    for (Inst i : f.block(b).insts) {
      calls += f.inst(i).opcode == Opcode::kCall;
      for (const Operand& op : f.operands(i)) {
        fixed += op.constraint() == ConstraintKind::kFixed;
        reuse += op.constraint() == ConstraintKind::kReuse;
        floats += IsFloat(f.value_type(op.value()));
      }
    }
  }
  EXPECT_GT(calls, 50);
  EXPECT_GT(params, 100);
  EXPECT_GT(fixed, 100);
  EXPECT_GT(floats, 500);
  if (t.isa() == Isa::kX86_64) {
    EXPECT_GT(reuse, 500);
  } else {
    EXPECT_EQ(reuse, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, EveryTarget, ::testing::Values("x86_64", "aarch64", "armv7"));

TEST(GeneratorTest, SeedsDiffer) {
  const Target& t = *TargetByName("x86_64").value();
  EXPECT_NE(PrintFunction(Generate(1, {}, t).value(), t), PrintFunction(Generate(2, {}, t).value(), t));
}

TEST(GeneratorTest, RejectsBadOptions) {
  GeneratorOptions opts;
  opts.num_insts = 0;
  EXPECT_EQ(Generate(1, opts, *TargetByName("x86_64").value()).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace regalloc
