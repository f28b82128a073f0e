// Plants bugs in correct allocations and counts how many the checker flags: take
// the reference allocation of 200 generated functions (three targets), then
// either move one operand to another location of its class or delete one
// inserted move. The checker is sound, so every mutation the interpreter shows
// to be wrong must be flagged; mutations it passes must be equivalent (for
// example a use read from another register that holds the same value).
#include <iostream>
#include <vector>

#include "gtest/gtest.h"
#include "ssa/legalize.h"
#include "ssa/lower_params.h"
#include "check/checker.h"
#include "check/generator.h"
#include "check/interpreter.h"
#include "check/stack_allocator.h"

namespace regalloc {
namespace {

uint64_t Next(uint64_t& s) {
  s = s * 6364136223846793005ull + 1442695040888963407ull;
  return s >> 33;
}

struct Site {
  Block block;
  size_t index;
  Inst inst;
};

TEST(CheckerMutationTest, PlantedBugsAreCaught) {
  const char* targets[] = {"x86_64", "aarch64", "armv7"};
  int mutated = 0, flagged = 0, interp_wrong = 0, missed = 0;
  int location_mutations = 0, deletions = 0;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    const Target& t = *TargetByName(targets[seed % 3]).value();
    GeneratorOptions g;
    g.num_insts = 120;
    Function original = Generate(seed, g, t).value();
    Function allocated = original;
    ASSERT_TRUE(AllocateOnStack(allocated, t).ok());
    ASSERT_TRUE(LowerBlockParams(allocated, t).ok());
    ASSERT_TRUE(CheckAllocation(allocated, t).ok()) << "seed " << seed;

    std::vector<Site> sites, moves;
    for (Block b : allocated.layout()) {
      const std::vector<Inst>& insts = allocated.block(b).insts;
      for (size_t k = 0; k < insts.size(); ++k) {
        sites.push_back({b, k, insts[k]});
        if (IsMoveLike(allocated.inst(insts[k]).opcode)) moves.push_back({b, k, insts[k]});
      }
    }
    uint64_t rng = seed * 7 + 3;
    Function m = allocated;
    bool deleted = Next(rng) % 3 == 0 && !moves.empty();
    if (deleted) {
      const Site& s = moves[Next(rng) % moves.size()];
      std::vector<Inst>& insts = m.block(s.block).insts;
      insts.erase(insts.begin() + s.index);
      ++deletions;
    } else {
      // Another location of the operand's class: a register or a stack slot.
      const Site* s = nullptr;
      for (int tries = 0; tries < 50 && s == nullptr; ++tries) {
        const Site& c = sites[Next(rng) % sites.size()];
        if (!m.operands(c.inst).empty()) s = &c;
      }
      ASSERT_NE(s, nullptr);
      std::vector<Operand> ops(m.operands(s->inst).begin(), m.operands(s->inst).end());
      Operand& op = ops[Next(rng) % ops.size()];
      Location old = op.location();
      Location now = old;
      const RegClassInfo& cls = t.Class(*t.ClassFor(m.value_type(op.value())));
      for (int tries = 0; tries < 20 && now == old; ++tries) {
        if (Next(rng) % 4 == 0 && m.num_stack_slots() > 0) {
          StackSlot slot(Next(rng) % m.num_stack_slots());
          if (m.stack_slot(slot).size >= TypeSize(m.value_type(op.value()))) now = Location::Stack(slot);
        } else {
          now = Location::Reg(cls.allocation_order[Next(rng) % cls.allocation_order.size()]);
        }
      }
      if (now == old) continue;
      op.set_location(now);
      m.SetOperands(s->inst, ops);
      ++location_mutations;
    }
    ++mutated;
    bool checker_flags = !CheckAllocation(m, t).ok();
    bool interpreter_flags = false;
    for (uint64_t run = 1; run <= 3 && !interpreter_flags; ++run) {
      interpreter_flags = !CompareExecutions(original, m, t, run).ok();
    }
    flagged += checker_flags;
    interp_wrong += interpreter_flags;
    if (interpreter_flags && !checker_flags) {
      ++missed;
      ADD_FAILURE() << "the checker passed a mutation the interpreter shows to be wrong: seed " << seed;
    }
  }
  std::cout << "mutations: " << mutated << " (" << location_mutations << " locations changed, " << deletions
            << " moves deleted); flagged by the checker: " << flagged << " ("
            << (mutated ? 100.0 * flagged / mutated : 0) << "%); shown wrong by the interpreter: " << interp_wrong
            << "; missed: " << missed << "\n";
  EXPECT_EQ(missed, 0);
  EXPECT_GE(mutated, 190);
  EXPECT_GE(flagged * 100, mutated * 80);  // equivalent mutations are the minority
}

}  // namespace
}  // namespace regalloc
