#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "targets/target.h"
#include "targets/target_builder.h"
#include "targets/targets.h"

namespace regalloc {
namespace {

using ::testing::HasSubstr;

const Target& Get(absl::string_view name) { return *TargetByName(name).value(); }
PReg R(const Target& t, absl::string_view name) {
  std::optional<PReg> r = t.FindReg(name);
  EXPECT_TRUE(r.has_value()) << name;
  return r.value_or(PReg(0));
}

class EveryTarget : public ::testing::TestWithParam<absl::string_view> {};

TEST_P(EveryTarget, AliasSetsAreSymmetricAndReflexive) {
  const Target& t = Get(GetParam());
  for (int i = 0; i < t.num_regs(); ++i) {
    PReg a(i);
    EXPECT_TRUE(t.Aliases(a).Contains(a)) << t.RegName(a);
    for (PReg b : t.Aliases(a)) EXPECT_TRUE(t.Aliases(b).Contains(a)) << t.RegName(a) << " " << t.RegName(b);
  }
}

// The alias and unit lists hold the alias and unit sets' members, in
// increasing order.
TEST_P(EveryTarget, AliasAndUnitListsAreTheSets) {
  const Target& t = Get(GetParam());
  for (int i = 0; i < t.num_regs(); ++i) {
    std::vector<PReg> from_set;
    for (PReg a : t.Aliases(PReg(i))) from_set.push_back(a);
    absl::Span<const PReg> list = t.AliasList(PReg(i));
    EXPECT_EQ(std::vector<PReg>(list.begin(), list.end()), from_set) << t.RegName(PReg(i));
    std::vector<uint32_t> units;
    for (uint32_t u : t.Units(PReg(i))) units.push_back(u);
    absl::Span<const uint32_t> unit_list = t.UnitList(PReg(i));
    EXPECT_EQ(std::vector<uint32_t>(unit_list.begin(), unit_list.end()), units) << t.RegName(PReg(i));
  }
}

TEST_P(EveryTarget, AliasingIsExactlySharingAUnit) {
  const Target& t = Get(GetParam());
  for (int i = 0; i < t.num_regs(); ++i) {
    EXPECT_FALSE(t.Units(PReg(i)).Empty());
    for (int j = 0; j < t.num_regs(); ++j) {
      EXPECT_EQ(t.RegsAlias(PReg(i), PReg(j)), t.Units(PReg(i)).Intersects(t.Units(PReg(j))));
    }
  }
}

TEST_P(EveryTarget, NamesRoundTrip) {
  const Target& t = Get(GetParam());
  std::set<std::string> seen;
  for (int i = 0; i < t.num_regs(); ++i) {
    std::string name(t.RegName(PReg(i)));
    EXPECT_TRUE(seen.insert(name).second) << name;
    EXPECT_EQ(t.FindReg(name), PReg(i));
  }
  EXPECT_FALSE(t.FindReg("nosuchreg").has_value());
}

TEST_P(EveryTarget, AllocationOrdersHoldOnlyAllocatableMembers) {
  const Target& t = Get(GetParam());
  for (int c = 0; c < t.num_classes(); ++c) {
    const RegClassInfo& info = t.Class(RegClass(c));
    std::set<uint32_t> seen;
    for (PReg r : info.allocation_order) {
      EXPECT_TRUE(seen.insert(r.index()).second) << info.name << " repeats " << t.RegName(r);
      EXPECT_TRUE(info.members.Contains(r));
      EXPECT_FALSE(t.reserved().Contains(r)) << t.RegName(r);
      EXPECT_EQ(t.Reg(r).reg_class, RegClass(c));
    }
    EXPECT_EQ(static_cast<int>(info.allocation_order.size()), info.members.Count());
  }
}

TEST_P(EveryTarget, CallerAndCalleeSavedPartitionTheAllocatableUnits) {
  const Target& t = Get(GetParam());
  UnitSet caller = t.UnitsOf(t.abi().caller_saved);
  UnitSet callee = t.UnitsOf(t.abi().callee_saved);
  EXPECT_FALSE(caller.Intersects(callee));
  UnitSet allocatable = t.UnitsOf(t.allocatable());
  EXPECT_TRUE((caller | callee).Contains(allocatable));
  EXPECT_FALSE(t.UnitsOf(t.reserved()).Intersects(caller | callee) &&
               t.UnitsOf(t.reserved()).Intersects(allocatable));
}

TEST_P(EveryTarget, CallerSavedRegistersComeFirstInEveryOrder) {
  const Target& t = Get(GetParam());
  UnitSet callee = t.UnitsOf(t.abi().callee_saved);
  for (int c = 0; c < t.num_classes(); ++c) {
    bool seen_callee = false;
    for (PReg r : t.Class(RegClass(c)).allocation_order) {
      bool is_callee = t.Units(r).Intersects(callee) &&
                       !t.Units(r).Intersects(t.UnitsOf(t.abi().caller_saved));
      if (seen_callee) {
        EXPECT_TRUE(is_callee) << t.RegName(r) << " after a callee-saved register";
      }
      seen_callee |= is_callee;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, EveryTarget,
                         ::testing::Values("x86_64", "x86_64_win", "aarch64", "armv7"));

TEST(X86Test, SubRegisterAliasing) {
  const Target& t = Get("x86_64");
  EXPECT_FALSE(t.RegsAlias(R(t, "al"), R(t, "ah")));
  for (const char* wide : {"ax", "eax", "rax"}) {
    EXPECT_TRUE(t.RegsAlias(R(t, "al"), R(t, wide))) << wide;
    EXPECT_TRUE(t.RegsAlias(R(t, "ah"), R(t, wide))) << wide;
  }
  EXPECT_FALSE(t.RegsAlias(R(t, "rax"), R(t, "rcx")));
  EXPECT_FALSE(t.RegsAlias(R(t, "sil"), R(t, "dh")));
  EXPECT_EQ(t.Aliases(R(t, "rax")).Count(), 5);  // rax eax ax al ah
  EXPECT_EQ(t.Aliases(R(t, "r8")).Count(), 4);   // r8 r8d r8w r8b
  // rax = al + ah + bits 16-31 + bits 32-63.
  EXPECT_EQ(t.Units(R(t, "rax")).Count(), 4);
  EXPECT_EQ(t.Units(R(t, "ax")), t.Units(R(t, "al")) | t.Units(R(t, "ah")));
}

TEST(X86Test, MarkingBusyMarksAliases) {
  const Target& t = Get("x86_64");
  RegSet busy;
  busy.InsertWithAliases(t, R(t, "eax"));
  EXPECT_TRUE(busy.Contains(R(t, "al")));
  EXPECT_TRUE(busy.Contains(R(t, "ah")));
  EXPECT_TRUE(busy.Contains(R(t, "rax")));
  EXPECT_FALSE(busy.Contains(R(t, "ecx")));
  busy.RemoveWithAliases(t, R(t, "al"));
  EXPECT_FALSE(busy.Contains(R(t, "rax")));
  EXPECT_TRUE(busy.Contains(R(t, "ah")));
}

TEST(X86Test, ClassesViewsAndBanks) {
  const Target& t = Get("x86_64");
  RegClass gpr32 = *t.ClassFor(Type::kI32);
  RegClass gpr64 = *t.ClassFor(Type::kI64);
  EXPECT_EQ(t.Class(gpr32).name, "gpr32");
  EXPECT_EQ(t.Class(gpr32).bank, t.Class(gpr64).bank);
  EXPECT_EQ(t.ClassFor(Type::kF64), t.ClassFor(Type::kV128));
  EXPECT_EQ(t.View(R(t, "rax"), gpr32), R(t, "eax"));
  EXPECT_EQ(t.View(R(t, "r9d"), gpr64), R(t, "r9"));
  EXPECT_FALSE(t.View(R(t, "rsp"), gpr64).has_value());  // reserved
  EXPECT_EQ(t.Bank(t.Class(gpr64).bank).capacity, 15);
  EXPECT_EQ(t.Class(gpr64).allocation_order.front(), R(t, "rax"));
  EXPECT_EQ(t.Class(gpr64).allocation_order.back(), R(t, "rbp"));
  EXPECT_TRUE(t.has_swap());

  const Target& fp = *TargetByName("x86_64", {.frame_pointer = true}).value();
  EXPECT_TRUE(fp.reserved().Contains(R(fp, "ebp")));
  EXPECT_EQ(fp.Bank(0).capacity, 14);
}

TEST(X86Test, ByteRegistersHighBytesLastAndUncounted) {
  const Target& t = Get("x86_64");
  RegClass gpr8 = *t.ClassFor(Type::kI8);
  const RegClassInfo& c = t.Class(gpr8);
  EXPECT_EQ(c.name, "gpr8");
  EXPECT_EQ(c.bank, t.Class(*t.ClassFor(Type::kI64)).bank);
  EXPECT_EQ(c.members.Count(), 19);  // 16 low bytes but spl, and ah ch dh bh
  EXPECT_FALSE(c.members.Contains(R(t, "spl")));
  EXPECT_EQ(c.allocation_order.front(), R(t, "al"));
  EXPECT_EQ(c.allocation_order.back(), R(t, "bh"));
  // Pressure counts one GPR per i8, so the bank keeps its 15 slots.
  EXPECT_EQ(c.counted.Count(), 15);
  EXPECT_FALSE(c.counted.Contains(R(t, "ah")));
  EXPECT_EQ(t.Bank(c.bank).capacity, 15);
  EXPECT_EQ(t.View(R(t, "rdi"), gpr8), R(t, "dil"));
  EXPECT_EQ(t.View(R(t, "rax"), gpr8), R(t, "al"));  // the low byte, not ah
  auto args = t.AssignArguments({Type::kI8, Type::kI64}).value();
  EXPECT_EQ(args[0].reg, R(t, "dil"));
  EXPECT_EQ(args[1].reg, R(t, "rsi"));

  const Target& fp = *TargetByName("x86_64", {.frame_pointer = true}).value();
  EXPECT_FALSE(fp.Class(*fp.ClassFor(Type::kI8)).members.Contains(R(fp, "bpl")));
}

TEST(TargetBuilderTest, UncountedRegistersMustBeMembers) {
  TargetBuilder b("toy");
  PReg r0 = b.AddReg("r0", 0, 0, 32);
  PReg r1 = b.AddReg("r1", 1, 0, 32);
  RegClass c = b.AddClass("r", b.AddBank("gpr"), 1, {r0}, {Type::kI32});
  b.Uncounted(c, {r1});
  absl::StatusOr<Target> t = std::move(b).Build();
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(std::string(t.status().message()), ::testing::HasSubstr("r1 is uncounted in class r, which it is not a member of"));
}

TEST(X86Test, SystemVAndWin64ArgumentAssignment) {
  const Target& sysv = Get("x86_64");
  auto args = sysv.AssignArguments({Type::kI64, Type::kF64, Type::kI32, Type::kF32}).value();
  EXPECT_EQ(sysv.RegName(*args[0].reg), "rdi");
  EXPECT_EQ(sysv.RegName(*args[1].reg), "xmm0");
  EXPECT_EQ(sysv.RegName(*args[2].reg), "esi");
  EXPECT_EQ(sysv.RegName(*args[3].reg), "xmm1");
  std::vector<Type> seven(7, Type::kI64);
  auto many = sysv.AssignArguments(seven).value();
  EXPECT_EQ(sysv.RegName(*many[5].reg), "r9");
  EXPECT_FALSE(many[6].reg.has_value());  // on the stack

  const Target& win = Get("x86_64_win");
  auto wargs = win.AssignArguments({Type::kI64, Type::kF64, Type::kI32}).value();
  EXPECT_EQ(win.RegName(*wargs[0].reg), "rcx");
  EXPECT_EQ(win.RegName(*wargs[1].reg), "xmm1");  // positional
  EXPECT_EQ(win.RegName(*wargs[2].reg), "r8d");
  EXPECT_TRUE(win.abi().callee_saved.Contains(R(win, "xmm6")));
  EXPECT_TRUE(win.abi().callee_saved.Contains(R(win, "rsi")));

  auto res = sysv.AssignResults({Type::kI64, Type::kI64, Type::kI64});
  EXPECT_EQ(res.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(res.status().message(), HasSubstr("cannot return result #2 of type i64"));
}

TEST(AArch64Test, ViewsAndHalfCalleeSavedVectors) {
  const Target& t = Get("aarch64");
  EXPECT_TRUE(t.RegsAlias(R(t, "w3"), R(t, "x3")));
  EXPECT_TRUE(t.RegsAlias(R(t, "s8"), R(t, "q8")));
  EXPECT_FALSE(t.RegsAlias(R(t, "s8"), R(t, "d9")));
  for (const char* r : {"x18", "x29", "x30", "sp", "w18"}) EXPECT_TRUE(t.reserved().Contains(R(t, r))) << r;
  UnitSet clobbered = t.UnitsOf(t.abi().caller_saved);
  // The low 64 bits of v8-v15 survive a call; the whole q register does not.
  EXPECT_FALSE(t.Units(R(t, "d8")).Intersects(clobbered));
  EXPECT_FALSE(t.Units(R(t, "s15")).Intersects(clobbered));
  EXPECT_TRUE(t.Units(R(t, "q8")).Intersects(clobbered));
  EXPECT_TRUE(t.Units(R(t, "d16")).Intersects(clobbered));
  EXPECT_TRUE(t.Units(R(t, "x17")).Intersects(clobbered));
  EXPECT_FALSE(t.Units(R(t, "x19")).Intersects(clobbered));
  EXPECT_EQ(t.Bank(t.Class(*t.ClassFor(Type::kI64)).bank).capacity, 28);
  auto args = t.AssignArguments({Type::kF32, Type::kI32, Type::kV128}).value();
  EXPECT_EQ(t.RegName(*args[0].reg), "s0");
  EXPECT_EQ(t.RegName(*args[1].reg), "w0");
  EXPECT_EQ(t.RegName(*args[2].reg), "q1");
}

TEST(Armv7Test, VfpPartialOverlap) {
  const Target& t = Get("armv7");
  EXPECT_TRUE(t.RegsAlias(R(t, "s1"), R(t, "d0")));
  EXPECT_TRUE(t.RegsAlias(R(t, "s1"), R(t, "q0")));
  EXPECT_FALSE(t.RegsAlias(R(t, "s1"), R(t, "s0")));
  EXPECT_FALSE(t.RegsAlias(R(t, "s1"), R(t, "d1")));
  EXPECT_TRUE(t.RegsAlias(R(t, "d3"), R(t, "q1")));
  EXPECT_FALSE(t.RegsAlias(R(t, "d3"), R(t, "q2")));
  // Units: one d register is exactly two s registers; q is two d's.
  EXPECT_EQ(t.Units(R(t, "d0")), t.Units(R(t, "s0")) | t.Units(R(t, "s1")));
  EXPECT_EQ(t.Units(R(t, "q0")), t.Units(R(t, "d0")) | t.Units(R(t, "d1")));
  EXPECT_EQ(t.Units(R(t, "q0")).Count(), 4);
  // d16-d31 have no s views, so each is a single unit.
  EXPECT_EQ(t.Units(R(t, "d16")).Count(), 1);
  EXPECT_EQ(t.Units(R(t, "q8")), t.Units(R(t, "d16")) | t.Units(R(t, "d17")));
  EXPECT_FALSE(t.FindReg("s32").has_value());
  EXPECT_EQ(t.num_units(), 16 + 32 + 16);

  RegClass s = *t.ClassFor(Type::kF32);
  RegClass d = *t.ClassFor(Type::kF64);
  RegClass q = *t.ClassFor(Type::kV128);
  EXPECT_EQ(t.Class(s).pressure_weight, 1);
  EXPECT_EQ(t.Class(d).pressure_weight, 2);
  EXPECT_EQ(t.Class(q).pressure_weight, 4);
  EXPECT_EQ(t.Bank(t.Class(d).bank).capacity, 64);
  EXPECT_FALSE(t.ClassFor(Type::kI64).has_value());
  EXPECT_TRUE(t.reserved().Contains(R(t, "sp")));
  EXPECT_TRUE(t.reserved().Contains(R(t, "pc")));
  EXPECT_TRUE(t.allocatable().Contains(R(t, "lr")));
  EXPECT_FALSE(t.has_swap());
}

TEST(Armv7Test, VfpArgumentsBackFill) {
  const Target& t = Get("armv7");
  auto args = t.AssignArguments({Type::kF32, Type::kF64, Type::kF32, Type::kV128, Type::kI32}).value();
  EXPECT_EQ(t.RegName(*args[0].reg), "s0");
  EXPECT_EQ(t.RegName(*args[1].reg), "d1");  // d0 is half taken by s0
  EXPECT_EQ(t.RegName(*args[2].reg), "s1");  // back-fills the hole
  EXPECT_EQ(t.RegName(*args[3].reg), "q1");
  EXPECT_EQ(t.RegName(*args[4].reg), "r0");
  auto bad = t.AssignArguments({Type::kI64});
  EXPECT_THAT(bad.status().message(), HasSubstr("armv7 has no registers for type i64"));
}

TEST(TargetByNameTest, UnknownNameListsKnownOnes) {
  auto t = TargetByName("mips");
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(t.status().message(), HasSubstr("unknown target 'mips'; known targets: x86_64, x86_64_win, aarch64, armv7"));
  EXPECT_EQ(TargetByName("armv7").value(), TargetByName("armv7").value());
}

TEST(TargetBuilderTest, RejectsBadDescriptions) {
  TargetBuilder b("toy");
  PReg r0 = b.AddReg("r0", 0, 0, 32);
  b.AddReg("r0", 1, 0, 32);
  int bank = b.AddBank("gpr");
  b.AddClass("r", bank, 1, {r0}, {Type::kI32});
  auto t = std::move(b).Build();
  EXPECT_THAT(t.status().message(), HasSubstr("target toy: register name r0 is used twice"));

  TargetBuilder e("toy2");
  PReg a = e.AddReg("a", 0, 0, 32);
  e.AddClass("c", e.AddBank("b"), 1, {a}, {Type::kI32});
  e.Reserve(a);
  EXPECT_THAT(std::move(e).Build().status().message(), HasSubstr("class c is empty"));
}

}  // namespace
}  // namespace regalloc
