// The packing allocator on hand-written and generated functions: each test
// asserts what the ACK's design says should happen, and every allocation goes
// through the checker (with the original's instructions all kept) and the
// interpreter.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "check/checker.h"
#include "check/generator.h"
#include "check/interpreter.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "liveness/live_ranges.h"
#include "liveness/live_sets.h"
#include "packing/packing.h"
#include "ssa/printer.h"
#include "ssa/program_point.h"
#include "ssa/ssa_testing.h"

namespace regalloc {
namespace {

using ::testing::HasSubstr;

const Target& T(const char* name) { return *TargetByName(name).value(); }

struct PackingRun {
  PackingStats stats;
  Function allocated;
  std::string text;
  PackingProblem problem;
  PackingDecisions decisions;
  bool ok = false;
};

// Allocates a copy of `f`, checks and interprets it (3 seeds).
PackingRun Allocate(const Function& f, const Target& target, const PackingOptions& options = PackingOptions()) {
  PackingRun run;
  run.allocated = f;
  PackingOptions o = options;
  o.dump = true;
  PackingAllocator allocator(o);
  absl::StatusOr<PackingStats> s = allocator.Run(run.allocated, target);
  EXPECT_TRUE(s.ok()) << s.status() << "\n" << PrintFunction(f, target);
  if (!s.ok()) return run;
  run.stats = *s;
  run.problem = allocator.problem();
  run.decisions = allocator.decisions();
  run.text = PrintFunction(run.allocated, target);
  absl::Status checked = CheckAllocation(run.allocated, target);
  EXPECT_TRUE(checked.ok()) << checked << "\n" << run.text << run.stats.printed;
  absl::Status kept = CheckKeepsOriginal(f, run.allocated, target);
  EXPECT_TRUE(kept.ok()) << kept << "\n" << run.text;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    absl::Status same = CompareExecutions(f, run.allocated, target, seed);
    EXPECT_TRUE(same.ok()) << same << "\n" << run.text;
  }
  run.ok = checked.ok() && kept.ok();
  return run;
}

PackingRun Allocate(const std::string& text, const Target& target, const PackingOptions& options = PackingOptions()) {
  return Allocate(ParseLegal(text, target), target, options);
}

PackingOptions Goal(PackingGoal goal) {
  PackingOptions o;
  o.goal = goal;
  return o;
}

// The allocation of value `v` over the whole function (timespan 0) or over the
// loop headed by block `header`; -1 when there is none.
int Find(const PackingRun& run, int v, int header = -1) {
  const auto& allocs = run.problem.allocations();
  for (size_t a = 0; a < allocs.size(); ++a) {
    const PackingTimespan& ts = run.problem.timespans()[allocs[a].timespan];
    if (run.problem.items()[allocs[a].item].value.index() != static_cast<uint32_t>(v)) continue;
    if (header < 0 ? ts.loop < 0 : (ts.loop >= 0 && ts.header.index() == static_cast<uint32_t>(header))) {
      return static_cast<int>(a);
    }
  }
  return -1;
}

bool Packed(const PackingRun& run, int a) { return a >= 0 && run.decisions.reg[a].IsValid(); }

// The document's Fig. 13.1: a constant used on some paths only (four times
// statically, zero to two times dynamically).
constexpr char kSwitch[] = R"(function %switch(i32, i32) -> i32 {
block0(v0: i32, v1: i32):
    v2 = const.i32 1234567
    v3 = cmp.eq v0, v1
    br v3, block1, block2
block1:
    v4 = add v0, v2
    v5 = add v4, v2
    ret v5
block2:
    v6 = cmp.lt v0, v1
    br v6, block3, block4
block3:
    v7 = sub v1, v2
    ret v7
block4:
    v8 = cmp.gt v0, v1
    br v8, block5, block6
block5:
    v9 = mul v1, v2
    ret v9
block6:
    ret v0
}
)";

TEST(PackingTest, AConstantUsedOnSomePathsOnlyWaitsUnderTheTimeGoal) {
  for (const char* target : {"x86_64", "aarch64", "armv7"}) {
    PackingRun time = Allocate(kSwitch, T(target), Goal(PackingGoal::kTime));
    PackingRun size = Allocate(kSwitch, T(target), Goal(PackingGoal::kSize));
    const int a = Find(time, 2);
    ASSERT_GE(a, 0) << target;
    EXPECT_TRUE(time.problem.items()[time.problem.allocations()[a].item].constant);
    EXPECT_EQ(time.problem.allocations()[a].profit, 0) << target << ": the path through block6 uses it never";
    EXPECT_FALSE(Packed(time, a)) << target << "\n" << time.stats.printed;
    EXPECT_EQ(time.stats.transform.remats, 4) << target << ": made again at each use";
    EXPECT_TRUE(Packed(size, Find(size, 2))) << target << "\n" << size.stats.printed;
    EXPECT_EQ(size.stats.transform.remats, 0) << target;
  }
}

TEST(PackingTest, AllocationsThatAreNotRivalsShareARegister) {
  for (const char* target : {"x86_64", "aarch64", "armv7"}) {
    PackingRun run = Allocate(R"(function %share(i32, i32) -> i32 {
block0(v0: i32, v1: i32):
    v2 = add v0, v1
    v3 = mul v2, v2
    v4 = sub v3, v1
    v5 = xor v4, v1
    ret v5
}
)", T(target));
    ASSERT_TRUE(run.ok);
    const int v3 = Find(run, 3);
    ASSERT_TRUE(Packed(run, v3)) << target << "\n" << run.stats.printed;
    int sharing = 0;
    for (size_t b = 0; b < run.decisions.reg.size(); ++b) {
      if (static_cast<int>(b) == v3 || run.decisions.reg[b] != run.decisions.reg[v3]) continue;
      EXPECT_FALSE(AreRivals(run.problem, v3, b));
      ++sharing;
    }
    EXPECT_GE(sharing, 1) << target << ": v3 takes a register already given\n" << run.stats.printed;
    EXPECT_LT(run.stats.registers, run.stats.packed) << target;
  }
}

// v2 is used in the loop and after it across a call: the loop takes a
// caller-saved register for it, which the call rules out for the function.
constexpr char kLoopThenCall[] = R"(function %loop_then_call(i32, i32) -> i32 {
block0(v0: i32, v1: i32):
    v2 = add v0, v1
    v9 = const.i32 0
    jump block1(v9, v1)
block1(v3: i32, v10: i32):
    v4 = add v10, v2
    v5 = mul v4, v2
    v11 = const.i32 1
    v6 = add v3, v11
    v12 = const.i32 4
    v7 = cmp.ult v6, v12
    br v7, block1(v6, v5), block2
block2:
    v13 = call.i32 %f(v10)
    v8 = add v13, v2
    ret v8
}
)";

TEST(PackingTest, ALoopGetsTheItemsRegisterWhileTheRestDoesNot) {
  for (const char* target : {"x86_64", "aarch64", "armv7"}) {
    PackingRun run = Allocate(kLoopThenCall, T(target));
    ASSERT_TRUE(run.ok);
    const int loop = Find(run, 2, 1), whole = Find(run, 2);
    ASSERT_GE(loop, 0);
    EXPECT_TRUE(run.problem.allocations()[loop].init);
    EXPECT_TRUE(Packed(run, loop)) << target << "\n" << run.stats.printed;
    EXPECT_FALSE(Packed(run, whole)) << target << "\n" << run.stats.printed;
    EXPECT_THAT(run.stats.printed, HasSubstr("not free for the whole function")) << target;
    EXPECT_GE(run.stats.transform.inits, 1) << target;
    // Without loop timespans it stays in memory, or takes a callee-saved
    // register for the whole function.
    PackingOptions no_loops;
    no_loops.loops = false;
    PackingRun flat = Allocate(kLoopThenCall, T(target), no_loops);
    EXPECT_EQ(flat.stats.timespans, 1);
    EXPECT_EQ(flat.stats.transform.inits, 0);
  }
}

TEST(PackingTest, TheSameRegisterInTwoLoopsIsPromotedToTheWholeFunction) {
  for (const char* target : {"x86_64", "aarch64", "armv7"}) {
    PackingRun run = Allocate(R"(function %two_loops(i32, i32) -> i32 {
block0(v0: i32, v1: i32):
    v2 = add v0, v1
    v9 = const.i32 0
    jump block1(v9, v1)
block1(v3: i32, v10: i32):
    v4 = add v10, v2
    v11 = const.i32 1
    v6 = add v3, v11
    v12 = const.i32 4
    v7 = cmp.ult v6, v12
    br v7, block1(v6, v4), block2
block2:
    jump block3(v9, v10)
block3(v13: i32, v14: i32):
    v15 = mul v14, v2
    v16 = add v13, v11
    v17 = cmp.ult v16, v12
    br v17, block3(v16, v15), block4
block4:
    ret v14
}
)", T(target));
    ASSERT_TRUE(run.ok);
    EXPECT_GE(run.stats.promoted, 1) << target << "\n" << run.stats.printed;
    EXPECT_TRUE(Packed(run, Find(run, 2))) << target << "\n" << run.stats.printed;
    EXPECT_FALSE(Packed(run, Find(run, 2, 1)));
    EXPECT_FALSE(Packed(run, Find(run, 2, 3)));
    EXPECT_THAT(run.stats.printed, HasSubstr("in every loop, promoted to"));
  }
}

TEST(PackingTest, TheYieldCheckGivesUpACalleeSavedRegisterThatDoesNotPay) {
  // The constant lives across the call, so only a callee-saved register holds
  // it; two uses of a constant gain less than saving that register costs.
  constexpr char kText[] = R"(function %yield(i32) -> i32 {
block0(v0: i32):
    v1 = const.i32 77
    v2 = add v0, v1
    v3 = call.i32 %f(v2)
    v4 = add v3, v1
    ret v4
}
)";
  for (const char* target : {"x86_64", "aarch64", "armv7"}) {
    PackingRun run = Allocate(kText, T(target));
    ASSERT_TRUE(run.ok);
    EXPECT_FALSE(Packed(run, Find(run, 1))) << target << "\n" << run.stats.printed;
    EXPECT_GE(run.stats.yield_lost, 1) << target;
    EXPECT_THAT(run.stats.printed, HasSubstr("given up")) << target;
    PackingOptions no_yield;
    no_yield.yield = false;
    PackingRun kept = Allocate(kText, T(target), no_yield);
    const int a = Find(kept, 1);
    ASSERT_TRUE(Packed(kept, a)) << target << "\n" << kept.stats.printed;
    EXPECT_FALSE(T(target).CalleeSavedTouched(T(target).Aliases(kept.decisions.reg[a])).Empty());
    EXPECT_FALSE(kept.allocated.saved_regs().Empty());
    EXPECT_EQ(kept.stats.yield_lost, 0);
  }
}

TEST(PackingTest, AConstantIsMadeAgainAtTheLoopEntry) {
  // The call before the loop keeps the constant out of caller-saved registers
  // for the whole function; the loop takes one and makes the constant there.
  for (const char* target : {"x86_64", "aarch64", "armv7"}) {
    PackingRun run = Allocate(R"(function %const_loop(i32, i32) -> i32 {
block0(v0: i32, v1: i32):
    v2 = const.i32 1000003
    v20 = call.i32 %g(v2)
    jump block1(v20)
block1(v3: i32):
    v4 = add v3, v2
    v7 = cmp.ult v4, v2
    br v7, block1(v4), block2
block2:
    ret v4
}
)", T(target));
    ASSERT_TRUE(run.ok);
    const int loop = Find(run, 2, 1);
    ASSERT_TRUE(Packed(run, loop)) << target << "\n" << run.stats.printed;
    EXPECT_TRUE(run.problem.allocations()[loop].init);
    // The initialization: a new value made by a const in block0, in the
    // allocation's register, which the loop's uses read.
    const PReg r = run.decisions.reg[loop];
    Value init;
    for (Inst i : run.allocated.block(Block(0)).insts) {
      const InstData& d = run.allocated.inst(i);
      if (d.opcode != Opcode::kConst) continue;
      const Operand& def = run.allocated.operands(i)[0];
      if (d.opcode == Opcode::kConst && d.imm == 1000003 && def.location() == Location::Reg(r)) init = def.value();
    }
    ASSERT_TRUE(init.IsValid()) << target << "\n" << run.text;
    EXPECT_GT(init.index(), 20u);
    int reads = 0;
    for (Inst i : run.allocated.block(Block(1)).insts) {
      for (const Operand& op : run.allocated.operands(i)) reads += op.IsUse() && op.value() == init;
    }
    EXPECT_EQ(reads, 2) << target << "\n" << run.text;
    EXPECT_GE(run.stats.transform.inits, 1);
  }
}

TEST(PackingTest, HardOperandShapesAllocate) {
  // A value read twice in two fixed registers, more call arguments than
  // argument registers, and a join of many parameters.
  std::string params, args_a, args_b, call_args, sum;
  for (int k = 0; k < 20; ++k) {
    absl::StrAppend(&params, k ? ", " : "", "v", 100 + k, ": i32");
    absl::StrAppend(&args_a, k ? ", " : "", k % 2 ? "v0" : "v1");
    absl::StrAppend(&args_b, k ? ", " : "", k % 3 ? "v1" : "v0");
  }
  for (int k = 0; k < 10; ++k) absl::StrAppend(&call_args, k ? ", " : "", "v", 100 + k * 2);
  std::string text = absl::StrCat(R"(function %shapes(i32, i32) -> i32 {
block0(v0: i32, v1: i32):
    v2 = call.i32 %twice(v0, v0)
    v3 = cmp.lt v2, v1
    br v3, block1, block2
block1:
    jump block3()", args_a, R"()
block2:
    jump block3()", args_b, R"()
block3()", params, R"():
    v4 = call.i32 %many()", call_args, R"()
    v5 = add v4, v119
    v6 = add v5, v2
    ret v6
}
)");
  for (const char* target : {"x86_64", "aarch64", "armv7"}) {
    for (PackingGoal goal : {PackingGoal::kTime, PackingGoal::kSize}) {
      PackingRun run = Allocate(text, T(target), Goal(goal));
      EXPECT_TRUE(run.ok) << target;
    }
  }
}

TEST(PackingTest, ATwoAddressSourceReadLateKeepsOutOfTheClobberedRegister) {
  // The sub's def, written after its clobber of %rax, goes to %rax for the
  // ret; its source, read late, must survive the clobber: it is fetched into
  // another register, not into the def's (found by tools/mutation_fuzz.py,
  // seed 82015).
  const char* text = R"(function %late_reuse(i64, i64) -> i64 {
block0(v0: i64, v1: i64):
    v2@reuse0 = sub v0@late, v1@any clobbers %rax
    ret v2
}
)";
  for (PackingGoal goal : {PackingGoal::kTime, PackingGoal::kSize}) {
    PackingRun run = Allocate(text, T("x86_64"), Goal(goal));
    EXPECT_TRUE(run.ok) << run.text;
    EXPECT_THAT(run.text, Not(HasSubstr("v0@late[%rax]"))) << run.text;
  }
}

TEST(PackingTest, StepsRunInOrderOnOneFunction) {
  Function f = ParseLegal(kSwitch, T("x86_64"));
  PackingAllocator allocator;
  absl::StatusOr<PackingStats> s = allocator.Pack(f, T("x86_64"));
  EXPECT_EQ(s.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.status().message(), HasSubstr("function %switch: the packing step pack"));
  ASSERT_TRUE(allocator.Run(f, T("x86_64")).ok());
  s = allocator.Run(f, T("x86_64"));
  EXPECT_EQ(s.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.status().message(), "function %switch is already allocated");
}

// The property test: on generated functions of every target, the busy ranges
// are the item's liveness inside the timespan (point by point), rivals are
// exactly the allocations of other items busy at a common point, no two
// rivals share a register unit, no allocation sits in a register pinned where
// it is busy, and the result passes the checker and the interpreter.
TEST(PackingPropertyTest, RivalsAreOverlapsAndRivalsNeverShareAUnit) {
  for (const char* target : {"x86_64", "aarch64", "armv7"}) {
    const Target& t = T(target);
    for (uint64_t seed = 1; seed <= 12; ++seed) {
      GeneratorOptions g;
      g.num_insts = 120;
      g.unusual_percent = seed % 3 == 0 ? 10 : 0;
      absl::StatusOr<Function> f = Generate(seed, g, t);
      ASSERT_TRUE(f.ok()) << f.status();
      for (PackingGoal goal : {PackingGoal::kTime, PackingGoal::kSize}) {
        Function work = *f;
        PackingAllocator allocator(Goal(goal));
        ASSERT_TRUE(allocator.Allocations(work, t).ok());
        const PackingProblem& p = allocator.problem();
        // Busy ranges by brute force.
        InstNumbering num(work);
        LiveSets sets(work);
        LiveRanges ranges(work, sets, num);
        const uint32_t points = 2 * static_cast<uint32_t>(num.num_insts());
        const size_t n = p.allocations().size();
        std::vector<std::vector<uint8_t>> busy(n, std::vector<uint8_t>(points, 0));
        for (size_t a = 0; a < n; ++a) {
          const PackingAllocation& x = p.allocations()[a];
          const PackingItem& item = p.items()[x.item];
          for (uint32_t q = 0; q < points; ++q) {
            ProgramPoint pt = ProgramPoint::FromBits(q);
            if (!p.Contains(x.timespan, num.BlockAt(pt))) continue;
            bool live = ranges.Covers(item.value, pt);
            // An early def holds its register through its instruction.
            live |= pt.IsLate() && item.def_point.IsEarly() && item.def_point.Next() == pt;
            busy[a][q] = live;
          }
          if (x.init) {
            Inst jump = work.Terminator(p.timespans()[x.timespan].entry);
            busy[a][num.Early(jump).bits()] = busy[a][num.Late(jump).bits()] = 1;
          }
          std::vector<uint8_t> got(points, 0);
          for (const Interval& i : p.Busy(a)) {
            for (uint32_t q = i.begin.bits(); q <= i.end.bits(); ++q) got[q] = 1;
          }
          ASSERT_EQ(got, busy[a]) << target << " seed " << seed << " allocation " << a;
        }
        for (size_t a = 0; a < n; ++a) {
          for (size_t b = a + 1; b < n; ++b) {
            bool overlap = false;
            for (uint32_t q = 0; q < points && !overlap; ++q) overlap = busy[a][q] && busy[b][q];
            overlap &= p.allocations()[a].item != p.allocations()[b].item;
            ASSERT_EQ(AreRivals(p, a, b), overlap) << target << " seed " << seed << " " << a << " " << b;
          }
        }
        ASSERT_TRUE(allocator.Pack(work, t).ok());
        const PackingDecisions& d = allocator.decisions();
        for (size_t a = 0; a < n; ++a) {
          if (!d.reg[a].IsValid()) continue;
          EXPECT_FALSE(p.withheld().Contains(d.reg[a]));
          EXPECT_FALSE(p.PinConflicts(a, d.reg[a], t)) << target << " seed " << seed;
          for (size_t b = a + 1; b < n; ++b) {
            if (!d.reg[b].IsValid() || !t.RegsAlias(d.reg[a], d.reg[b])) continue;
            EXPECT_FALSE(AreRivals(p, a, b)) << target << " seed " << seed << ": rivals a" << a << " and a" << b
                                             << " share %" << t.RegName(d.reg[a]);
          }
        }
        absl::StatusOr<PackingStats> s = allocator.Transform(work, t);
        ASSERT_TRUE(s.ok()) << s.status();
        absl::Status checked = CheckAllocation(work, t);
        EXPECT_TRUE(checked.ok()) << target << " seed " << seed << ": " << checked;
        absl::Status same = CompareExecutions(*f, work, t, seed);
        EXPECT_TRUE(same.ok()) << target << " seed " << seed << ": " << same;
      }
    }
  }
}

}  // namespace
}  // namespace regalloc
