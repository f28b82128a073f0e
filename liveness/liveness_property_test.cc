// On generated functions for every target, the sets (bit vectors while small,
// sorted lists above: both here) equal the dense reference, after the same
// dataflow visits, and without the values a mask leaves out where it does; live ranges agree with the values live at every program point; the
// queries agree with the sets; Overlaps agrees with a point-by-point check (and
// DefPoints, which asks the sets, with the ranges at every point); and
// register pressure is the sum of the live values' weights at every point.
#include <algorithm>
#include <string>

#include "gtest/gtest.h"
#include "base/warm_buffers.h"
#include "liveness/live_ranges.h"
#include "liveness/live_sets.h"
#include "liveness/liveness_queries.h"
#include "liveness/liveness_testing.h"
#include "ssa/cfg.h"
#include "check/generator.h"

namespace regalloc {
namespace {

class LivenessProperty : public ::testing::TestWithParam<const char*> {};

TEST_P(LivenessProperty, SparseAgreesWithDenseAndPoints) {
  const Target& t = *TargetByName(GetParam()).value();
  int sets_total = 0, stored_total = 0, long_values = 0;
  for (uint64_t seed = 1; seed <= 120; ++seed) {
    GeneratorOptions g;
    g.num_insts = 40 + static_cast<int>(seed % 7) * 40;
    Function f = Generate(seed, g, t).value();
    // Even seeds with their critical edges split: blocks of one jump, whose
    // sets equal their neighbours' (stored once).
    const bool split = seed % 2 == 0;
    if (split) SplitCriticalEdges(f);
    std::string where = std::string("target ") + GetParam() + " seed " + std::to_string(seed) +
                        " (./bazelw run //tools:pipeline -- --target=" + GetParam() +
                        " --generate=1 --seed=" + std::to_string(seed) + " --size=" + std::to_string(g.num_insts) +
                        (split ? " --phases=legalize,split_critical_edges,liveness --print)"
                               : " --phases=legalize,liveness --print)");
    LiveSets sets(f);
    LiveSets lists, mixed;
    lists.set_dense_max_words(0);
    lists.set_long_value_span(LiveSets::kNoLongValues);
    lists.Compute(f);
    // Sorted lists with every value spanning a block or more as bits beside
    // them (up to the bound), from a control-flow graph the caller keeps.
    mixed.set_dense_max_words(0);
    mixed.set_long_value_span(1);
    const ControlFlowGraph callers_cfg(f);
    mixed.Compute(f, callers_cfg);
    EXPECT_EQ(lists.num_long_values(), 0);
    long_values += mixed.num_long_values();
    DenseLiveness dense(f);
    for (const LiveSets* s : {&sets, &lists, &mixed}) {
      for (Block b : f.layout()) {
        std::vector<Value> in(s->LiveIn(b).begin(), s->LiveIn(b).end());
        std::vector<Value> out(s->LiveOut(b).begin(), s->LiveOut(b).end());
        const char* kind = s == &sets    ? " (bit vectors) block"
                           : s == &lists ? " (sorted lists) block"
                                         : " (sorted lists and long-lived bits) block";
        ASSERT_EQ(in, dense.live_in[b.index()].Values()) << where << kind << b.index();
        ASSERT_EQ(out, dense.live_out[b.index()].Values()) << where << kind << b.index();
      }
    }
    // Every third value of the first half left out: the same sets without
    // them, either way (values past the mask's end are kept).
    std::vector<uint8_t> skip(f.num_values() / 2);
    for (size_t v = 0; v < skip.size(); v += 3) skip[v] = 1;
    auto skipped = [&](Value v) { return v.index() < skip.size() && skip[v.index()]; };
    for (size_t max_words : {LiveSets::kDenseMaxWords, size_t{0}}) {
      LiveSets part;
      part.set_dense_max_words(max_words);
      part.set_long_value_span(1);
      part.Compute(f, skip);
      for (Block b : f.layout()) {
        for (const bool out : {false, true}) {
          std::vector<Value> want;
          for (Value v : (out ? dense.live_out : dense.live_in)[b.index()].Values()) {
            if (!skipped(v)) want.push_back(v);
          }
          absl::Span<const Value> got = out ? part.LiveOut(b) : part.LiveIn(b);
          ASSERT_EQ(std::vector<Value>(got.begin(), got.end()), want)
              << where << (max_words == 0 ? " (sorted lists" : " (bit vectors") << ", every third value left out) block"
              << b.index() << (out ? " live-out" : " live-in");
        }
      }
    }
    ASSERT_EQ(sets.block_visits(), lists.block_visits()) << where;
    ASSERT_EQ(sets.stored_sets(), lists.stored_sets()) << where;
    sets_total += 2 * f.num_blocks();
    stored_total += sets.stored_sets();
    InstNumbering num(f);
    LiveRanges ranges(f, sets, num);
    DefPoints defs;
    defs.Compute(f, sets, num);
    std::vector<DenseSet> at = LiveAtEveryPoint(f, dense, num);
    RegisterPressure pressure = RegisterPressure::Compute(f, t, sets, num).value();
    for (size_t p = 0; p < at.size(); ++p) {
      std::vector<int> want(t.num_banks(), 0);
      for (int v = 0; v < f.num_values(); ++v) {
        bool live = at[p].Test(v);
        ASSERT_EQ(ranges.Covers(Value(v), ProgramPoint::FromBits(p)), live) << where << " v" << v << " point " << p;
        ASSERT_EQ(defs.Covers(Value(v), ProgramPoint::FromBits(p), num.BlockAt(ProgramPoint::FromBits(p))), live)
            << where << " DefPoints v" << v << " point " << p;
        if (live) {
          const RegClassInfo& c = t.Class(*t.ClassFor(f.value_type(Value(v))));
          want[c.bank] += c.pressure_weight;
        }
      }
      for (int k = 0; k < t.num_banks(); ++k) {
        ASSERT_EQ(pressure.AtPoint(ProgramPoint::FromBits(p), k), want[k]) << where << " point " << p;
      }
    }
    // One LiveBegin per defined value; every LiveEnd is a last use inside the range.
    size_t begins = 0, with_range = 0;
    for (Block b : f.layout()) {
      begins += ranges.LiveBegin(b).size();
      for (const LiveEvent& e : ranges.LiveEnd(b)) {
        ASSERT_TRUE(ranges.Covers(e.value, num.Early(e.inst)) || ranges.Covers(e.value, num.Late(e.inst))) << where;
        ASSERT_FALSE(sets.IsLiveOut(e.value, b)) << where;
      }
    }
    for (int v = 0; v < f.num_values(); ++v) {
      with_range += ranges.HasRange(Value(v));
      ASSERT_EQ(defs.HasDef(Value(v)), ranges.HasRange(Value(v))) << where << " v" << v;
      if (ranges.HasRange(Value(v))) ASSERT_EQ(defs.DefPoint(Value(v)), ranges.def_interval(Value(v)).begin) << where;
    }
    ASSERT_EQ(begins, with_range) << where;
    // Overlap against the point-by-point truth, on a sample of pairs.
    for (int a = 0; a < f.num_values(); a += 3) {
      for (int b = a + 1; b < f.num_values(); b += 5) {
        bool truth = false;
        for (size_t p = 0; p < at.size() && !truth; ++p) truth = at[p].Test(a) && at[p].Test(b);
        ASSERT_EQ(ranges.Overlaps(Value(a), Value(b)), truth) << where << " v" << a << " v" << b;
        ASSERT_EQ(defs.Overlaps(Value(a), Value(b)), truth) << where << " DefPoints v" << a << " v" << b;
      }
    }
    ControlFlowGraph cfg(f);
    DominatorTree dom(f, cfg);
    LoopNest loops(f, cfg, dom);
    LivenessQueries q(f, cfg, dom, loops);
    for (Block b : f.layout()) {
      for (int v = 0; v < f.num_values(); ++v) {
        ASSERT_EQ(q.IsLiveIn(Value(v), b), dense.live_in[b.index()].Test(v)) << where << " v" << v << " block" << b.index();
        ASSERT_EQ(q.IsLiveOut(Value(v), b), dense.live_out[b.index()].Test(v)) << where << " v" << v << " block" << b.index();
      }
    }
  }
  // Equal sets were shared (the comparisons above read them through the aliases).
  EXPECT_LT(stored_total, sets_total * 3 / 4) << stored_total << " rows for " << sets_total << " sets";
  EXPECT_GT(long_values, 1000);  // the mixed sets held values both ways
}

// Shrink after a rewrite like Reload's constants made again: a use of a
// constant outside its block now reads a new constant made right before it
// (uses of every other constant live across blocks, in two blocks of three),
// and the shrunk sets equal a fresh computation at every block, bit vectors
// and sorted lists alike (equal sets that the shrink leaves different get
// storage of their own).
TEST_P(LivenessProperty, ShrinkAfterUsesGoEqualsAFreshCompute) {
  const Target& t = *TargetByName(GetParam()).value();
  size_t items_before = 0, items_after = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    GeneratorOptions g;
    g.num_insts = 60 + static_cast<int>(seed % 5) * 60;
    Function f = Generate(seed, g, t).value();
    if (seed % 2 == 0) SplitCriticalEdges(f);
    for (size_t dense_words : {LiveSets::kDenseMaxWords, size_t{0}}) {
      Function h = f;
      LiveSets sets;
      sets.set_dense_max_words(dense_words);
      sets.Compute(h);
      std::vector<Inst> const_def(h.num_values());
      for (Block b : h.layout()) {
        for (Inst i : h.block(b).insts) {
          if (h.inst(i).opcode == Opcode::kConst) const_def[h.operands(i)[0].value().index()] = i;
        }
      }
      std::vector<Value> shrunk;
      for (int v = 0; v < h.num_values(); v += 2) {
        if (const_def[v].IsValid() && sets.GlobalIndex(Value(v)) >= 0) shrunk.push_back(Value(v));
      }
      std::vector<uint8_t> is_shrunk(h.num_values(), 0);
      for (Value v : shrunk) is_shrunk[v.index()] = 1;
      for (Block b : h.layout()) {
        std::vector<Inst> out;
        for (Inst i : h.block(b).insts) {
          std::vector<Operand> ops(h.operands(i).begin(), h.operands(i).end());
          bool changed = false;
          for (Operand& op : ops) {
            const Value v = op.value();
            if (!op.IsUse() || v.index() >= is_shrunk.size() || !is_shrunk[v.index()]) continue;
            if (sets.DefBlock(v) == b || (b.index() + v.index()) % 3 == 0) continue;
            const Value r = h.NewValue(h.value_type(v));
            const InstData d = h.inst(const_def[v.index()]);
            const Operand def = Operand::Def(r);
            out.push_back(h.NewInst(d, absl::MakeConstSpan(&def, 1)));
            op.set_value(r);
            changed = true;
          }
          if (changed) h.SetOperands(i, ops);
          out.push_back(i);
        }
        h.block(b).insts = out;
      }
      for (Block b : h.layout()) items_before += sets.LiveIn(b).size() + sets.LiveOut(b).size();
      sets.Shrink(h, ControlFlowGraph(h), shrunk);
      LiveSets fresh(h);
      const std::string where = std::string(GetParam()) + " seed " + std::to_string(seed) +
                                (dense_words == 0 ? " (sorted lists)" : " (bit vectors)") + " block ";
      for (Block b : h.layout()) {
        ASSERT_TRUE(std::equal(sets.LiveIn(b).begin(), sets.LiveIn(b).end(), fresh.LiveIn(b).begin(),
                               fresh.LiveIn(b).end()))
            << where << b.index() << " live-in";
        ASSERT_TRUE(std::equal(sets.LiveOut(b).begin(), sets.LiveOut(b).end(), fresh.LiveOut(b).begin(),
                               fresh.LiveOut(b).end()))
            << where << b.index() << " live-out";
        items_after += sets.LiveIn(b).size() + sets.LiveOut(b).size();
      }
    }
  }
  EXPECT_LT(items_after, items_before * 95 / 100) << "the rewrite no longer shrinks the sets";
}

// Functions whose sorted-list sets overflow the fixpoint's first chunk of
// storage (a quarter million entries): the sorted lists equal the bit vectors
// at every block, also when one object computes a large function, a small one
// and the large one again (chunks reused and refilled), and past
// kWarmBufferInsts instructions, where the sets are copied out of the
// fixpoint's chunks while each chunk is given back after its last set (under
// ASan a chunk given back too early is a read of freed memory).
TEST(LivenessLarge, SortedListsAcrossChunksEqualBitVectors) {
  const Target& t = *TargetByName("x86_64").value();
  GeneratorOptions g;
  g.num_insts = 30000;
  Function large = Generate(3, g, t).value();
  SplitCriticalEdges(large);
  g.num_insts = 200;
  Function small = Generate(4, g, t).value();
  g.num_insts = 70000;
  Function huge = Generate(5, g, t).value();
  ASSERT_GT(huge.num_insts(), kWarmBufferInsts);
  LiveSets lists;
  lists.set_dense_max_words(0);
  size_t entries = 0;
  // The large function first with its long-lived values as bits beside the
  // lists, the second time without.
  const std::vector<std::pair<const Function*, uint32_t>> runs = {{&large, LiveSets::kLongSpanAuto},
                                                                  {&small, LiveSets::kLongSpanAuto},
                                                                  {&large, LiveSets::kNoLongValues},
                                                                  {&huge, LiveSets::kLongSpanAuto},
                                                                  {&small, LiveSets::kLongSpanAuto}};
  for (const auto& [f, span] : runs) {
    LiveSets bits;
    bits.set_dense_max_words(size_t{1} << 30);
    bits.Compute(*f);
    lists.set_long_value_span(span);
    lists.Compute(*f);
    if (f != &small && span == LiveSets::kLongSpanAuto) {
      EXPECT_GT(lists.num_long_values(), 100);  // the generator's long-lived values, at least
    }
    int sets = 0;
    for (Block b : f->layout()) {
      ASSERT_TRUE(std::equal(lists.LiveIn(b).begin(), lists.LiveIn(b).end(), bits.LiveIn(b).begin(),
                             bits.LiveIn(b).end()))
          << "live-in of block " << b.index() << " of a " << f->num_insts() << "-instruction function";
      ASSERT_TRUE(std::equal(lists.LiveOut(b).begin(), lists.LiveOut(b).end(), bits.LiveOut(b).begin(),
                             bits.LiveOut(b).end()))
          << "live-out of block " << b.index() << " of a " << f->num_insts() << "-instruction function";
      if (f == &large) entries += lists.LiveIn(b).size();
      sets += 2;
    }
    EXPECT_EQ(lists.stored_sets(), bits.stored_sets()) << f->num_insts() << " instructions";
    EXPECT_LT(lists.stored_sets(), sets * 3 / 4) << f->num_insts() << " instructions";
  }
  EXPECT_GT(entries, 2u * (size_t{1} << 18)) << "the live-in sets no longer fill more than one chunk";
}

// After a function large enough that the working storage is given back
// (base/warm_buffers.h), the count of long-lived values is still the one
// the sets were computed with.
TEST(LivenessLarge, LongValuesCountedPastTheWarmBuffers) {
  const Target& t = *TargetByName("x86_64").value();
  GeneratorOptions g;
  g.num_insts = 70000;
  Function f = Generate(5, g, t).value();
  ASSERT_GT(f.num_insts(), kWarmBufferInsts);
  LiveSets lists;
  lists.set_dense_max_words(0);
  lists.Compute(f);
  EXPECT_GT(lists.num_long_values(), 100);
}

INSTANTIATE_TEST_SUITE_P(Targets, LivenessProperty, ::testing::Values("x86_64", "aarch64", "armv7"));

}  // namespace
}  // namespace regalloc
