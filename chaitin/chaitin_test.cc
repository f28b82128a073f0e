// The Chaitin–Briggs allocator on hand-written and generated functions: every
// allocation goes through the checker (and the original's instructions must all
// be there) and the interpreter, and each test asserts what the allocator should
// have done.
#include <algorithm>
#include <initializer_list>
#include <regex>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "chaitin/chaitin.h"
#include "chaitin/ifg.h"
#include "check/checker.h"
#include "check/generator.h"
#include "check/interpreter.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "liveness/live_ranges.h"
#include "liveness/live_sets.h"
#include "ssa/cfg.h"
#include "ssa/program_point.h"
#include "ssa/printer.h"
#include "ssa/ssa_testing.h"

namespace regalloc {
namespace {

using ::testing::HasSubstr;

const Target& T(const char* name) { return *TargetByName(name).value(); }

// Reproducible node ids for the graph tests: a 64-bit linear congruential
// generator's high bits.
class Lcg {
 public:
  explicit Lcg(uint64_t seed) : seed_(seed) {}
  uint32_t operator()() {
    seed_ = seed_ * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(seed_ >> 33);
  }

 private:
  uint64_t seed_;
};

// Each row's entries naming unmerged nodes, counted by the merges
// (LiveDegree), equal a walk's count restricted to those nodes, in every
// graph: the nodes with dead[n] set are the merged ones.
void ExpectLiveDegreesAgree(std::initializer_list<const InterferenceGraph*> graphs, const std::vector<uint8_t>& dead) {
  std::vector<uint64_t> unmerged((dead.size() + 63) / 64, 0);
  for (uint32_t n = 0; n < dead.size(); ++n) {
    if (!dead[n]) unmerged[n / 64] |= uint64_t{1} << (n % 64);
  }
  for (uint32_t n = 0; n < dead.size(); ++n) {
    if (dead[n]) continue;
    for (const InterferenceGraph* g : graphs) {
      ASSERT_EQ(g->LiveDegree(n), g->CountNeighborsIn(n, unmerged.data())) << "node " << n;
    }
  }
}

struct ChaitinRun {
  ChaitinStats stats;
  AllocationCost cost;
  std::string printed;
  bool ok = false;
};

// Allocates a legalized copy of `f`, checks and interprets it (3 seeds).
ChaitinRun Allocate(const Function& f, const Target& target, const ChaitinOptions& options = ChaitinOptions()) {
  ChaitinRun run;
  Function g = f;
  ChaitinOptions o = options;
  o.dump = true;
  ChaitinAllocator allocator(o);
  absl::StatusOr<ChaitinStats> s = allocator.Run(g, target);
  EXPECT_TRUE(s.ok()) << s.status() << "\n" << PrintFunction(f, target);
  if (!s.ok()) return run;
  run.stats = *s;
  run.printed = PrintFunction(g, target);
  run.cost = MeasureAllocation(g);
  absl::Status checked = CheckAllocation(g, target);
  EXPECT_TRUE(checked.ok()) << checked << "\n" << run.printed;
  absl::Status kept = CheckKeepsOriginal(f, g, target);
  EXPECT_TRUE(kept.ok()) << kept << "\n" << run.printed;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    absl::Status same = CompareExecutions(f, g, target, seed);
    EXPECT_TRUE(same.ok()) << same << "\n" << run.printed;
  }
  run.ok = checked.ok() && kept.ok();
  return run;
}

ChaitinRun Allocate(const std::string& text, const Target& target, const ChaitinOptions& options = ChaitinOptions()) {
  return Allocate(ParseLegal(text, target), target, options);
}

TEST(InterferenceGraphTest, RowsAreSquareSortedAndMerge) {
  for (int kind : {0, 1, 2}) {
    SCOPED_TRACE(kind == 0 ? "bit matrix" : kind == 1 ? "sparse rows" : "dense rows");
    InterferenceGraph g;
    g.Reset(4, kind == 0 ? InterferenceGraph::kMatrixMaxBytes : 0,
            kind == 1 ? InterferenceGraph::kNeverDense : 0);
    g.AddEdge(2, 0);
    g.AddEdge(0, 2);  // a duplicate
    g.AddEdge(1, 1);  // a self-edge
    g.AddEdge(3, 0);
    g.AddEdge(1, 3);
    g.Finish();
    EXPECT_EQ(g.num_edges(), 3);
    EXPECT_THAT(g.Neighbors(0), ::testing::ElementsAre(2, 3));
    EXPECT_TRUE(g.Interferes(3, 1));
    EXPECT_FALSE(g.Interferes(0, 1));
    g.Merge(0, 1);  // 1's edge to 3 becomes 0's (which it already has)
    EXPECT_THAT(g.Neighbors(0), ::testing::ElementsAre(2, 3));
    // 3 already listed 0: its entry for 1 stays, stale (callers skip merged nodes).
    EXPECT_THAT(g.Neighbors(3), ::testing::ElementsAre(0, 1));
    EXPECT_TRUE(g.Interferes(3, 0));
    EXPECT_TRUE(g.Neighbors(1).empty());
    EXPECT_EQ(g.Degree(3), 2);  // the stale entry counts
    EXPECT_EQ(g.Degree(1), 0);
    EXPECT_EQ(g.num_edges(), 2);
  }
}

// The representations agree row for row on a random graph through a series
// of merges (where a neighbour gains the survivor, the merged node's entry
// goes; where it had it, the entry stays), and so do degrees, the edge count
// and the union walk: the bit matrix, sparse rows, sparse rows of which the
// fuller turn dense (more than 3 of their 5 words: the first 250 nodes'
// mostly, merged with sparse ones and into them), and rows all dense.
TEST(InterferenceGraphTest, MatrixAndSparseRowsAgreeThroughMerges) {
  constexpr int kNodes = 300;
  InterferenceGraph m, r, one, mixed, dense;  // `one` takes each batch's edges one by one
  m.Reset(kNodes);
  r.Reset(kNodes, 0, InterferenceGraph::kNeverDense);
  one.Reset(kNodes, 0, InterferenceGraph::kNeverDense);
  mixed.Reset(kNodes, 0, 3);
  dense.Reset(kNodes, 0, 0);
  const std::vector<InterferenceGraph*> batched = {&m, &r, &mixed, &dense};
  Lcg next(7);
  // A row's edges in one batch (as a def meets the live nodes): a row takes
  // them a word at a time, appended past its end or merged between its
  // words; the batch may name the node itself and a node to skip.
  NodeSet to;
  auto batch = [&](uint32_t a, uint32_t limit) {
    to.Reset(kNodes);
    std::vector<uint32_t> named = {a};
    for (int k = 0; k < 30; ++k) named.push_back(next() % limit);
    for (uint32_t n : named) to.Insert(n);
    const uint32_t skip = named[next() % named.size()];
    for (InterferenceGraph* g : batched) g->AddEdges(a, to, skip);
    to.ForEach([&](uint32_t b) {
      if (b != skip) one.AddEdge(a, b);
    });
  };
  for (int e = 0; e < 4000; ++e) {  // among the first 250 nodes
    uint32_t a = next() % 250, b = next() % 250;
    for (InterferenceGraph* g : batched) g->AddEdge(a, b);
    one.AddEdge(a, b);
    if (e % 40 == 0) batch(next() % 250, 250);
  }
  for (InterferenceGraph* g : batched) g->Finish();
  one.Finish();
  // Edges may still come after Finish (chaitin adds constants' nodes), here
  // to nodes that had none: their rows must be walked in full.
  for (int e = 0; e < 200; ++e) {
    uint32_t a = 250 + next() % (kNodes - 250), b = next() % kNodes;
    for (InterferenceGraph* g : batched) g->AddEdge(a, b);
    one.AddEdge(a, b);
    if (e % 20 == 0) batch(a, kNodes);
  }
  std::vector<uint8_t> dead(kNodes, 0);
  int merges = 0;
  for (int tries = 0; tries < 2000 && merges < 120; ++tries) {
    uint32_t a = next() % kNodes, b = next() % kNodes;
    if (a == b || dead[a] || dead[b]) continue;
    for (InterferenceGraph* g : batched) ASSERT_EQ(g->Interferes(a, b), m.Interferes(a, b)) << a << " " << b;
    ASSERT_EQ(one.Interferes(a, b), m.Interferes(a, b)) << a << " " << b;
    if (m.Interferes(a, b)) continue;
    for (InterferenceGraph* g : batched) g->Merge(a, b);
    one.Merge(a, b);
    dead[b] = 1;
    ++merges;
  }
  EXPECT_GE(merges, 50);
  int64_t ends = 0;
  for (uint32_t n = 0; n < kNodes; ++n) {
    ASSERT_THAT(m.Neighbors(n), ::testing::ElementsAreArray(r.Neighbors(n))) << "node " << n;
    ASSERT_THAT(r.Neighbors(n), ::testing::ElementsAreArray(one.Neighbors(n))) << "node " << n;
    ASSERT_THAT(mixed.Neighbors(n), ::testing::ElementsAreArray(r.Neighbors(n))) << "node " << n;
    ASSERT_THAT(dense.Neighbors(n), ::testing::ElementsAreArray(r.Neighbors(n))) << "node " << n;
    ASSERT_EQ(r.Degree(n), one.Degree(n)) << "node " << n;
    ASSERT_EQ(mixed.Degree(n), r.Degree(n)) << "node " << n;
    ASSERT_EQ(dense.Degree(n), r.Degree(n)) << "node " << n;
    ASSERT_EQ(m.Degree(n), static_cast<int>(m.Neighbors(n).size())) << "node " << n;
    ASSERT_EQ(r.Degree(n), static_cast<int>(r.Neighbors(n).size())) << "node " << n;
    for (uint32_t x : m.Neighbors(n)) ends += !dead[x];
  }
  ASSERT_NO_FATAL_FAILURE(ExpectLiveDegreesAgree({&m, &r, &one, &mixed, &dense}, dead));
  int stale_rows = 0;
  for (uint32_t n = 0; n < kNodes; ++n) stale_rows += !dead[n] && m.LiveDegree(n) < m.Degree(n);
  EXPECT_GT(stale_rows, 0);  // merges left entries naming merged nodes
  EXPECT_EQ(m.num_edges(), ends / 2);
  EXPECT_EQ(r.num_edges(), ends / 2);
  EXPECT_EQ(one.num_edges(), ends / 2);
  EXPECT_EQ(mixed.num_edges(), ends / 2);
  EXPECT_EQ(dense.num_edges(), ends / 2);
  // The mix had rows of both kinds: more memory than all sparse, less than all dense.
  EXPECT_GT(mixed.MemoryBytes(), r.MemoryBytes());
  EXPECT_LT(mixed.MemoryBytes(), dense.MemoryBytes());
  // Walks restricted to a bit set of nodes (what simplify and select walk)
  // see a row's entries in the set, and count them.
  std::vector<uint64_t> keep((kNodes + 63) / 64, 0);
  for (uint32_t n = 0; n < kNodes; ++n) {
    if (next() % 3 != 0) keep[n / 64] |= uint64_t{1} << (n % 64);
  }
  int kept_entries = 0, all_entries = 0;
  for (uint32_t n = 0; n < kNodes; ++n) {
    all_entries += m.Degree(n);
    std::vector<uint32_t> want;
    for (uint32_t x : m.Neighbors(n)) {
      if ((keep[x / 64] >> (x % 64)) & 1) want.push_back(x);
    }
    kept_entries += static_cast<int>(want.size());
    for (const InterferenceGraph* g : batched) {
      std::vector<uint32_t> walked;
      g->ForEachNeighborIn(n, keep.data(), [&](uint32_t x) { walked.push_back(x); });
      ASSERT_THAT(walked, ::testing::ElementsAreArray(want)) << "node " << n;
      ASSERT_EQ(g->CountNeighborsIn(n, keep.data()), static_cast<int>(want.size())) << "node " << n;
    }
  }
  EXPECT_GT(kept_entries, 0);
  EXPECT_LT(kept_entries, all_entries);  // the set left some out
  for (uint32_t a = 0; a + 1 < kNodes; a += 7) {
    std::set<uint32_t> both;
    for (uint32_t x : m.Neighbors(a)) both.insert(x);
    for (uint32_t x : m.Neighbors(a + 1)) both.insert(x);
    for (const InterferenceGraph* g : batched) {
      std::vector<uint32_t> walked;
      g->ForEachNeighborOfEither(a, a + 1, [&](uint32_t x) { walked.push_back(x); });
      ASSERT_THAT(walked, ::testing::ElementsAreArray(both)) << a;
    }
  }
}

// Sparse rows that grow through several block sizes of the row pool (and
// give blocks back: on growth, on merges, on turning dense) hold what the bit
// matrix holds; a second build of the same graph reuses the pool's chunks.
TEST(InterferenceGraphTest, SparseRowsGrowThroughThePool) {
  constexpr int kNodes = 4096;  // rows of up to 64 words
  InterferenceGraph m, r, mixed;
  int64_t first_bytes = 0;
  for (int build = 0; build < 2; ++build) {
    m.Reset(kNodes, int64_t{kNodes} * kNodes / 8);
    r.Reset(kNodes, 0, InterferenceGraph::kNeverDense);
    mixed.Reset(kNodes, 0, 40);
    ASSERT_TRUE(m.IsMatrix());
    Lcg next(3);
    NodeSet to;
    for (int e = 0; e < 400; ++e) {
      // A def meeting nodes spread over the whole id range: every row it
      // names gets a word somewhere in its middle.
      const uint32_t a = next() % kNodes;
      to.Reset(kNodes);
      for (int k = 0; k < 60; ++k) to.Insert(next() % kNodes);
      for (InterferenceGraph* g : {&m, &r, &mixed}) g->AddEdges(a, to, a);
      for (int k = 0; k < 20; ++k) {
        const uint32_t x = next() % kNodes, y = next() % kNodes;
        for (InterferenceGraph* g : {&m, &r, &mixed}) g->AddEdge(x, y);
      }
    }
    for (InterferenceGraph* g : {&m, &r, &mixed}) g->Finish();
    std::vector<uint8_t> dead(kNodes, 0);
    int merges = 0;
    for (int tries = 0; tries < 5000 && merges < 300; ++tries) {
      const uint32_t a = next() % kNodes, b = next() % kNodes;
      if (a == b || dead[a] || dead[b] || m.Interferes(a, b)) continue;
      for (InterferenceGraph* g : {&m, &r, &mixed}) g->Merge(a, b);
      dead[b] = 1;
      ++merges;
    }
    EXPECT_EQ(merges, 300);
    int longest = 0;
    for (uint32_t n = 0; n < kNodes; ++n) {
      ASSERT_THAT(r.Neighbors(n), ::testing::ElementsAreArray(m.Neighbors(n))) << "node " << n;
      ASSERT_THAT(mixed.Neighbors(n), ::testing::ElementsAreArray(m.Neighbors(n))) << "node " << n;
      ASSERT_EQ(r.Degree(n), m.Degree(n)) << "node " << n;
      ASSERT_EQ(mixed.Degree(n), m.Degree(n)) << "node " << n;
      longest = std::max(longest, m.Degree(n));
    }
    EXPECT_GT(longest, 64);  // some row took more than 16 words (64 spread ids)
    ASSERT_NO_FATAL_FAILURE(ExpectLiveDegreesAgree({&m, &r, &mixed}, dead));
    EXPECT_EQ(r.num_edges(), m.num_edges());
    EXPECT_EQ(mixed.num_edges(), m.num_edges());
    if (build == 0) {
      first_bytes = r.MemoryBytes();
    } else {
      EXPECT_EQ(r.MemoryBytes(), first_bytes);  // the chunks of the first build served the second
    }
  }
}

// A NodeSet holds what a std::set holds through inserts and erases spread
// over many words, walks it in order and names its nonzero words.
TEST(InterferenceGraphTest, NodeSetIsASet) {
  NodeSet s;
  s.Reset(1000);
  std::set<uint32_t> want;
  uint64_t seed = 11;
  for (int k = 0; k < 5000; ++k) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    const uint32_t n = static_cast<uint32_t>(seed >> 33) % 1000;
    const bool insert = (seed >> 20) % 3 != 0;
    ASSERT_EQ(s.Contains(n), want.count(n) == 1) << n;
    ASSERT_EQ(insert ? s.Insert(n) : s.Erase(n), insert ? want.insert(n).second : want.erase(n) == 1) << n;
    if (k % 500 == 499) {
      std::vector<uint32_t> walked;
      s.ForEach([&](uint32_t x) { walked.push_back(x); });
      ASSERT_THAT(walked, ::testing::ElementsAreArray(want));
      std::set<uint32_t> words;
      for (uint32_t x : want) words.insert(x / 64);
      ASSERT_THAT(s.words(), ::testing::ElementsAreArray(words));
    }
  }
  EXPECT_GT(want.size(), 300u);
  s.Clear();
  for (uint32_t n = 0; n < 1000; ++n) ASSERT_FALSE(s.Contains(n)) << n;
  EXPECT_TRUE(s.words().empty());
}

// A graph kept between builds (as the allocator keeps it between rounds and
// functions) starts each build empty, whatever sizes and representations came
// before: Reset clears only the words earlier rows used.
TEST(InterferenceGraphTest, ResetLeavesNoEdgesBehind) {
  InterferenceGraph g;
  constexpr int64_t kMatrix = InterferenceGraph::kMatrixMaxBytes;
  // (Dense rows' blocks are reused: 200 nodes after 64 needs larger ones,
  // 130 after 200 reuses them, cleared.)
  const std::vector<std::pair<int, int64_t>> builds = {{300, kMatrix}, {130, kMatrix}, {700, kMatrix}, {64, 0},
                                                       {500, kMatrix}, {200, 0},       {200, 0},       {130, 0},
                                                       {64, kMatrix}};
  for (size_t k = 0; k < builds.size(); ++k) {
    const auto [nodes, bound] = builds[k];
    // Sparse builds alternate between rows that stay sparse and rows dense
    // from their first word.
    const bool dense = k % 2 == 1;
    SCOPED_TRACE(absl::StrCat(nodes, " nodes, ", bound > 0 ? "bit matrix" : dense ? "dense rows" : "sparse rows"));
    g.Reset(nodes, bound, dense ? 0 : InterferenceGraph::kNeverDense);
    EXPECT_EQ(g.IsMatrix(), bound > 0);
    EXPECT_EQ(g.num_edges(), 0);
    // Each build its own edges, spanning whole rows: node n meets the nodes
    // n + 1 + k and nodes - 1 - n; every row is then walked in full.
    std::vector<std::set<uint32_t>> want(nodes);
    auto edge = [&](uint32_t a, uint32_t b) {
      g.AddEdge(a, b);
      if (a == b) return;
      want[a].insert(b);
      want[b].insert(a);
    };
    const uint32_t n_max = static_cast<uint32_t>(nodes);
    for (uint32_t n = 0; n < n_max; n += 2 + k % 3) {
      edge(n, n_max - 1 - n);
      if (n + 1 + k < n_max) edge(n, static_cast<uint32_t>(n + 1 + k));
    }
    g.Finish();
    for (uint32_t n = 0; n < n_max; ++n) {
      ASSERT_THAT(g.Neighbors(n), ::testing::ElementsAreArray(want[n])) << "node " << n;
      ASSERT_EQ(g.Degree(n), static_cast<int>(want[n].size())) << "node " << n;
    }
    // A merge clears a row on the way to the next build.
    if (!g.Interferes(1, 2)) g.Merge(1, 2);
  }
}

// Both loop parameters coalesce with their arguments on both edges: the loop
// moves nothing, and its body holds no copy that moves.
TEST(ChaitinTest, LoopParametersCoalesceWithTheirArguments) {
  for (const char* target : {"x86_64", "aarch64", "armv7"}) {
    ChaitinRun run = Allocate(kSumLoopText, T(target));
    EXPECT_GE(run.stats.aggressive, 4) << target << "\n" << run.stats.printed;
    EXPECT_EQ(run.stats.lower.moves, 0) << target << "\n" << run.printed;
    EXPECT_EQ(run.stats.spilled, 0) << target;
    EXPECT_EQ(run.stats.rounds, 1) << target;
    // What remains is at most the copies out of the argument registers.
    EXPECT_LE(run.cost.moves, 2) << target << "\n" << run.printed;
  }
}

// Parameters that swap on the back edge interfere (both live into the branch):
// they cannot coalesce with their arguments, and the edge's parallel copy
// exchanges them.
TEST(ChaitinTest, ASwapCycleOfParametersMovesOnTheEdge) {
  const char* text = R"(function %swap(i32, i32, i32) -> i32 {
block0(v0: i32, v1: i32, v2: i32):
    jump block1(v0, v1, v2)
block1(v3: i32, v4: i32, v5: i32):
    v6 = const.i32 1
    v7 = sub v5, v6
    v8 = const.i32 0
    v9 = cmp.ne v7, v8
    br v9, block1(v4, v3, v7), block2
block2:
    v10 = sub v3, v4
    ret v10
}
)";
  for (const char* target : {"x86_64", "aarch64", "armv7"}) {
    ChaitinRun run = Allocate(text, T(target));
    ASSERT_TRUE(run.ok) << target;
    // v3 and v4 trade places every iteration: one swap on x86, a three-move cycle elsewhere.
    EXPECT_GE(run.stats.lower.moves, 1) << target << "\n" << run.printed;
    if (std::string(target) == "x86_64") EXPECT_EQ(run.stats.lower.swaps, 1) << run.printed;
  }
}

// The line `vN@reuse0[%R] = sub vM[%R], ...` with one register R.
bool SubSharesItsSource(const std::string& printed) {
  std::smatch m;
  static const std::regex sub(R"(v\d+@reuse0\[%(\w+)\] = sub v\d+\[%(\w+)\])");
  return std::regex_search(printed, m, sub) && m[1] == m[2];
}

// x86 two-address: the def shares its source's register when the source dies
// there, so `sub` needs no move; when the source lives on, the copy made for it
// is the only move.
TEST(ChaitinTest, TwoAddressDefsShareTheirSourcesRegister) {
  const char* dies = R"(function %dies(i64, i64) -> i64 {
block0(v0: i64, v1: i64):
    v2 = add v0, v1
    v3 = sub v2, v1
    ret v3
}
)";
  ChaitinRun run = Allocate(dies, T("x86_64"));
  ASSERT_TRUE(run.ok);
  EXPECT_TRUE(SubSharesItsSource(run.printed)) << run.printed;
  const char* lives = R"(function %lives(i64, i64) -> i64 {
block0(v0: i64, v1: i64):
    v2 = add v0, v1
    v3 = sub v2, v1
    v4 = mul v3, v2
    ret v4
}
)";
  ChaitinRun live = Allocate(lives, T("x86_64"));
  ASSERT_TRUE(live.ok);
  EXPECT_TRUE(SubSharesItsSource(live.printed)) << live.printed;
  // v2 lives on past the sub: the sub's source is a copy of v2 into another
  // register, and that is the one move of the function (the result must end in
  // %rax either way; the arguments stay where they arrive).
  std::smatch m;
  ASSERT_TRUE(std::regex_search(live.printed, m, std::regex(R"(\[%(\w+)\] = copy v2@any\[%(\w+)\])")))
      << live.printed;
  EXPECT_NE(m[1], m[2]) << live.printed;
  EXPECT_EQ(live.cost.moves, 1) << live.printed;
  EXPECT_EQ(run.cost.moves, 1) << run.printed;
}

// ARMv7: a q register covers two d and four s registers. A v128 value live
// beside float values takes an aligned q whose s registers none of them holds.
TEST(ChaitinTest, Armv7QuadBesideSingles) {
  const char* text = R"(function %quad(i32, f32, f32) -> f32 {
block0(v0: i32, v1: f32, v2: f32):
    v8 = load.v128 v0, 0
    v3 = fadd v1, v2
    v4 = fmul v3, v1
    v5 = fadd v4, v2
    v6 = fsub v5, v3
    store v8, v0, 16
    v7 = fadd v6, v4
    ret v7
}
)";
  const Target& t = T("armv7");
  ChaitinRun run = Allocate(text, t);
  ASSERT_TRUE(run.ok) << run.printed;
  // The q register of v8 shares no unit with the s registers live beside it.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(run.printed, m, std::regex(R"(v8\[%q(\d+)\] = load)"))) << run.printed;
  int q = std::stoi(m[1]);
  for (int s = 4 * q; s < 4 * q + 4; ++s) {
    for (const char* v : {"v3", "v4"}) {
      EXPECT_THAT(run.printed, ::testing::Not(HasSubstr(absl::StrCat(v, "[%s", s, "] ="))))
          << v << " in %s" << s << " inside %q" << q << "\n" << run.printed;
    }
  }
}

// Under pressure the allocator spills, and the rounds end: each spilled live
// range's pieces span one instruction and cannot spill again.
TEST(ChaitinTest, SpillsUnderPressureAndConverges) {
  for (const char* target : {"x86_64", "aarch64", "armv7"}) {
    GeneratorOptions g;
    g.num_insts = 400;
    g.long_lived = 40;
    Function f = Generate(7, g, T(target)).value();
    ChaitinRun run = Allocate(f, T(target));
    ASSERT_TRUE(run.ok) << target;
    EXPECT_GT(run.stats.spilled, 0) << target;
    EXPECT_GT(run.stats.spills + run.stats.reloads, 0) << target;
    EXPECT_GE(run.stats.rounds, 2) << target;
    EXPECT_LE(run.stats.rounds, 4) << target;
    EXPECT_THAT(run.stats.printed, HasSubstr("spilled")) << target;
  }
}

// A parameter made where split pieces meet can spill again in a later round
// (its live range fit the pressure, not the graph's colors): it goes, with its
// arguments and any piece left unread, and its readers reload from the slot.
// These generated functions (AArch64, 150 instructions, seeds 750, 906, 910
// and 934 of the fuzz test's) each drop one.
TEST(ChaitinTest, SplitParametersSpilledAgainGoWithTheirArguments) {
  int dropped = 0;
  for (uint64_t seed : {750, 906, 910, 934}) {
    GeneratorOptions g;
    g.num_insts = 150;
    Function f = Generate(seed, g, T("aarch64")).value();
    ChaitinRun run = Allocate(f, T("aarch64"));
    ASSERT_TRUE(run.ok) << seed;
    EXPECT_GE(run.stats.split_params, run.stats.split_dropped) << seed;
    dropped += run.stats.split_dropped;
    // No parameter is left that nothing reads: lowered, each would have moved.
    ChaitinOptions kept;
    kept.lower_params = false;
    Function h = f;
    ChaitinAllocator allocator(kept);
    ASSERT_TRUE(allocator.Run(h, T("aarch64")).ok()) << seed;
    std::set<uint32_t> read;
    for (Block b : h.layout()) {
      for (Inst i : h.block(b).insts) {
        for (const Operand& op : h.operands(i)) {
          if (op.IsUse()) read.insert(op.value().index());
        }
      }
    }
    for (Block b : h.layout()) {
      for (const Operand& p : h.block(b).params) {
        if (p.value().index() >= static_cast<uint32_t>(f.num_values())) {
          EXPECT_TRUE(read.count(p.value().index())) << seed << ": " << h.ValueName(p.value()) << " in "
                                                     << h.BlockName(b) << "\n" << PrintFunction(h, T("aarch64"));
        }
      }
    }
  }
  EXPECT_EQ(dropped, 4);
}

// Sixteen constants live across a call on AArch64, which preserves ten general
// registers: those spilled are made again before their register uses instead
// of reloaded. (On x86-64 the adds would read the slots: their sources are Any.)
TEST(ChaitinTest, SpilledConstantsAreRematerialized) {
  std::string text = "function %remat(i64) -> i64 {\nblock0(v0: i64):\n";
  for (int k = 1; k <= 16; ++k) absl::StrAppend(&text, "    v", k, " = const.i64 ", 100 + k, "\n");
  absl::StrAppend(&text, "    v17 = call.i64 %f(v0)\n    v18 = add v17, v1\n");
  for (int k = 2; k <= 16; ++k) absl::StrAppend(&text, "    v", 17 + k, " = add v", 16 + k, ", v", k, "\n");
  absl::StrAppend(&text, "    ret v33\n}\n");
  ChaitinRun run = Allocate(text, T("aarch64"));
  ASSERT_TRUE(run.ok);
  EXPECT_GE(run.stats.spilled, 6) << run.printed;
  EXPECT_GE(run.stats.remats, 6) << run.printed;
  EXPECT_EQ(run.stats.reloads, 0) << run.printed;
  EXPECT_EQ(run.cost.reloads, 0) << run.printed;
  // Every read made the constant again: nothing reads the slots, so no store
  // is left (each spilled constant's was taken out).
  EXPECT_GE(run.stats.dead_stores, 6) << run.printed;
  EXPECT_EQ(run.cost.spills, 0) << run.printed;
  EXPECT_EQ(run.printed.find(" = spill "), std::string::npos) << run.printed;
}

// A spilled def kept in its register through its block (split, where the
// block's pressure allows) must not be kept across an instruction that is
// high-pressure for its bank: here x86-64 calls, which leave no xmm register
// to a value living across them. v2 and v3 are read after the call: spilled
// in the first round (no register survives the call), their reads after the
// call reload, and the second round spills nothing. Kept through the block,
// they lived across the call again and spilled a second time, in a third
// round, each def stored twice.
TEST(ChaitinTest, ASpilledDefIsNotKeptAcrossACallThatLeavesItNoRegister) {
  const std::string text = R"(function %across(f64, i64) -> f64 {
block0(v0: f64, v1: i64):
    v2 = fadd v0, v0
    v3 = fmul v2, v0
    v4 = call.i64 %helper(v1)
    v5 = fadd v3, v2
    ret v5
}
)";
  ChaitinRun run = Allocate(text, T("x86_64"));
  ASSERT_TRUE(run.ok);
  EXPECT_EQ(run.stats.rounds, 2) << run.printed;
  EXPECT_EQ(run.stats.spilled, 2) << run.printed;  // v2 and v3, once each
  EXPECT_EQ(run.cost.spills, 2) << run.printed;
  // On AArch64 the callee-saved d8-d15 survive the call: nothing spills.
  ChaitinRun arm = Allocate(text, T("aarch64"));
  ASSERT_TRUE(arm.ok);
  EXPECT_EQ(arm.stats.spilled, 0) << arm.printed;
}

// C2's reg_split: v0 lives across a loop where 40 values live at once, so it
// spills; a second loop, where little lives, reads it. It is reloaded once, at
// the end of the block before the second loop, and stays in its register
// through that loop; spilled everywhere, each iteration reloads it.
TEST(ChaitinTest, ASpilledValueStaysInARegisterThroughALowPressureLoop) {
  // v0 is an address: the second loop's load and store read it from a register.
  auto text_for = [](const char* ptr) {
    std::string text = absl::StrCat("function %split(", ptr, ", i32) -> i32 {\nblock0(v0: ", ptr, R"(, v1: i32):
    v2 = const.i32 7
    v3 = and v1, v2
    jump block1(v3, v1)
block1(v4: i32, v5: i32):
    v10 = add v5, v4
)");
    for (int k = 11; k < 50; ++k) absl::StrAppend(&text, "    v", k, " = add v", k - 1, ", v4\n");
    absl::StrAppend(&text, "    v50 = add v10, v11\n");
    for (int k = 12; k < 50; ++k) absl::StrAppend(&text, "    v", 39 + k, " = add v", 38 + k, ", v", k, "\n");
    absl::StrAppend(&text, R"(    v89 = const.i32 1
    v90 = sub v4, v89
    v91 = const.i32 0
    v92 = cmp.gt v90, v91
    br v92, block1(v90, v88), block2
block2:
    jump block3(v88, v3)
block3(v93: i32, v94: i32):
    v95 = load.i32 v0, 0
    v96 = add v93, v95
    store v96, v0, 8
    v97 = const.i32 1
    v98 = sub v94, v97
    v99 = const.i32 0
    v100 = cmp.gt v98, v99
    br v100, block3(v96, v98), block4
block4:
    ret v96
}
)");
    return text;
  };
  // Reloads in the second loop's block (its parameters are lowered by then).
  auto reloads_in_loop = [](const std::string& printed) {
    const size_t body = printed.find("\nblock3:");
    const size_t after = printed.find("\nblock4:", body);
    int n = 0;
    for (size_t at = printed.find("= reload", body); at < after; at = printed.find("= reload", at + 1)) ++n;
    return n;
  };
  for (const char* target : {"x86_64", "aarch64", "armv7"}) {
    const std::string text = text_for(std::string(target) == "armv7" ? "i32" : "i64");
    // Across joins (the default): the loop's header takes the piece as a
    // parameter, and its entry edge reloads it, at the end of block2.
    ChaitinRun run = Allocate(text, T(target));
    ASSERT_TRUE(run.ok) << target;
    EXPECT_EQ(run.stats.loop_reloads, 0) << target << "\n" << run.printed;
    EXPECT_GE(run.stats.split_params, 1) << target << "\n" << run.printed;
    EXPECT_THAT(run.printed, ::testing::ContainsRegex("block2:\n    v[0-9]+(@any)?\\[%[a-z0-9]+\\] = reload"))
        << target << "\n" << run.printed;
    // Without: one reload at the end of the preheader serves the loop.
    ChaitinOptions in_blocks;
    in_blocks.joins = false;
    ChaitinRun loop = Allocate(text, T(target), in_blocks);
    ASSERT_TRUE(loop.ok) << target;
    EXPECT_EQ(loop.stats.loop_reloads, 1) << target << "\n" << loop.printed;
    EXPECT_EQ(loop.stats.split_params, 0) << target;
    EXPECT_THAT(loop.printed, ::testing::ContainsRegex("block2:\n    v[0-9]+@any\\[%[a-z0-9]+\\] = reload"))
        << target << "\n" << loop.printed;
    ChaitinOptions everywhere;
    everywhere.split = false;
    ChaitinRun plain = Allocate(text, T(target), everywhere);
    ASSERT_TRUE(plain.ok) << target;
    EXPECT_EQ(plain.stats.loop_reloads, 0) << target;
    EXPECT_EQ(plain.stats.split_params, 0) << target;
    for (const ChaitinRun* split : {&run, &loop}) {
      EXPECT_LT(reloads_in_loop(split->printed), reloads_in_loop(plain.printed)) << target << "\n" << split->printed
                                                                                   << "\n" << plain.printed;
      EXPECT_LT(split->cost.weighted, plain.cost.weighted) << target;
    }
  }
}

// C2's reg_split at high-pressure boundaries within a block: v0 (an address)
// lives across two regions where 40 values live at once, so it spills; between
// them, where little lives, a load and a store read it. One reload serves both
// (they read one value), and it ends before the second region: the store after
// that region reloads again. Spilled everywhere, each of the three reloads.
TEST(ChaitinTest, ASplitPieceServesTheUsesBetweenTwoHighPressureRegions) {
  auto text_for = [](const char* ptr) {
    std::string text = absl::StrCat("function %regions(", ptr, ", i32) -> i32 {\nblock0(v0: ", ptr, ", v1: i32):\n");
    // A region: 40 values defined one after the other, all read at its end.
    auto region = [&](int first, int from) {
      absl::StrAppend(&text, "    v", first, " = add v", from, ", v1\n");
      for (int k = first + 1; k < first + 40; ++k) absl::StrAppend(&text, "    v", k, " = add v", k - 1, ", v1\n");
      absl::StrAppend(&text, "    v", first + 40, " = add v", first, ", v", first + 1, "\n");
      for (int k = 2; k < 40; ++k) {
        absl::StrAppend(&text, "    v", first + 39 + k, " = add v", first + 38 + k, ", v", first + k, "\n");
      }
    };
    region(10, 1);  // v10 .. v88
    absl::StrAppend(&text, R"(    v89 = load.i32 v0, 0
    v90 = add v88, v89
    store v90, v0, 8
)");
    region(100, 90);  // v100 .. v178
    absl::StrAppend(&text, R"(    store v178, v0, 16
    ret v178
}
)");
    return text;
  };
  // The value an access reads its address from: the load's only use, a
  // store's second.
  auto address_of = [](const std::string& printed, const std::string& access) {
    const size_t at = printed.find(access);
    if (at == std::string::npos) return std::string("none");
    const std::string line = printed.substr(at, printed.find('\n', at) - at);
    const size_t v = access == "load.i32" ? line.find(" v") + 1 : line.rfind(", v") + 2;
    return line.substr(v, line.find_first_of("@[", v) - v);
  };
  for (const char* target : {"x86_64", "aarch64", "armv7"}) {
    const std::string text = text_for(std::string(target) == "armv7" ? "i32" : "i64");
    ChaitinRun run = Allocate(text, T(target));
    ASSERT_TRUE(run.ok) << target;
    ChaitinOptions everywhere;
    everywhere.split = false;
    ChaitinRun plain = Allocate(text, T(target), everywhere);
    ASSERT_TRUE(plain.ok) << target;
    // Split: the load and the first store read one piece; the last store another.
    EXPECT_EQ(address_of(run.printed, "load.i32"), address_of(run.printed, "store v90")) << target << "\n"
                                                                                          << run.printed;
    EXPECT_NE(address_of(run.printed, "store v90"), address_of(run.printed, "store v178")) << target;
    // Spilled everywhere: a reload for each.
    EXPECT_NE(address_of(plain.printed, "load.i32"), address_of(plain.printed, "store v90")) << target << "\n"
                                                                                              << plain.printed;
    EXPECT_LT(run.stats.reloads, plain.stats.reloads) << target;
  }
}

// C2's reg_split across joins (ChaitinOptions::joins). v0, an address, lives
// across a region where 40 values live at once, so it spills. In %diamond a
// load after the region reads it, then both arms of a diamond (clear of
// high-pressure instructions) pass that piece on, and the store after the
// join reads it too: one reload serves both. In %meet each arm reloads it
// after a region of its own, and the join takes the two pieces as a new
// block parameter: the store after it reloads nothing. Kept within blocks
// (joins=false), the block after the join reloads.
TEST(ChaitinTest, SplitPiecesLiveOnAcrossJoins) {
  auto region = [](std::string& text, int first, int from) {
    absl::StrAppend(&text, "    v", first, " = add v", from, ", v1\n");
    for (int k = first + 1; k < first + 40; ++k) absl::StrAppend(&text, "    v", k, " = add v", k - 1, ", v1\n");
    absl::StrAppend(&text, "    v", first + 40, " = add v", first, ", v", first + 1, "\n");
    for (int k = 2; k < 40; ++k) {
      absl::StrAppend(&text, "    v", first + 39 + k, " = add v", first + 38 + k, ", v", first + k, "\n");
    }
  };
  auto diamond = [&](const std::string& ptr) {
    std::string text = absl::StrCat("function %diamond(", ptr, ", i32) -> i32 {\nblock0(v0: ", ptr, ", v1: i32):\n");
    region(text, 10, 1);  // v10 .. v88
    absl::StrAppend(&text, R"(    v89 = load.i32 v0, 0
    v90 = add v88, v89
    v91 = const.i32 0
    v92 = cmp.gt v90, v91
    br v92, block1, block2
block1:
    v93 = add v90, v1
    jump block3(v93)
block2:
    v94 = sub v90, v1
    jump block3(v94)
block3(v95: i32):
    store v95, v0, 8
    ret v95
}
)");
    return text;
  };
  auto meet = [&](const std::string& ptr) {
    std::string text = absl::StrCat("function %meet(", ptr, ", i32) -> i32 {\nblock0(v0: ", ptr, R"(, v1: i32):
    v2 = const.i32 0
    v3 = cmp.gt v1, v2
    br v3, block1, block2
block1:
)");
    region(text, 10, 1);  // v10 .. v88
    absl::StrAppend(&text, "    v89 = load.i32 v0, 0\n    v90 = add v88, v89\n    jump block3(v90)\nblock2:\n");
    region(text, 100, 1);  // v100 .. v178
    absl::StrAppend(&text, R"(    v179 = load.i32 v0, 4
    v180 = add v178, v179
    jump block3(v180)
block3(v181: i32):
    store v181, v0, 8
    ret v181
}
)");
    return text;
  };
  // The reloads in `block`'s text (up to the next block).
  auto reloads_in = [](const std::string& printed, const std::string& block) {
    const size_t at = printed.find("\n" + block + ":");
    if (at == std::string::npos) return -1;
    const size_t end = printed.find("\nblock", at + 1);
    int n = 0;
    for (size_t r = printed.find("= reload", at); r < end; r = printed.find("= reload", r + 1)) ++n;
    return n;
  };
  ChaitinOptions in_blocks;
  in_blocks.joins = false;
  for (const char* target : {"x86_64", "aarch64", "armv7"}) {
    const std::string ptr = std::string(target) == "armv7" ? "i32" : "i64";
    for (const std::string& text : {diamond(ptr), meet(ptr)}) {
      const bool meets = text.find("%meet") != std::string::npos;
      ChaitinRun run = Allocate(text, T(target));
      ChaitinRun kept = Allocate(text, T(target), in_blocks);
      ASSERT_TRUE(run.ok && kept.ok) << target << "\n" << text;
      EXPECT_EQ(reloads_in(run.printed, "block3"), 0) << target << "\n" << run.printed;
      EXPECT_EQ(reloads_in(kept.printed, "block3"), 1) << target << "\n" << kept.printed;
      EXPECT_GT(run.stats.split_carried, 0) << target << "\n" << run.printed;
      // The diamond's arms pass one piece: the join needs no parameter.
      EXPECT_EQ(run.stats.split_params, meets ? 1 : 0) << target << "\n" << run.printed;
      // --print names the join, its parameter and what each edge passes.
      EXPECT_EQ(run.stats.printed.find("split at block3: ") != std::string::npos, meets) << run.stats.printed;
      EXPECT_EQ(kept.stats.split_params + kept.stats.split_carried, 0) << target;
      EXPECT_LT(run.stats.reloads, kept.stats.reloads) << target;
      EXPECT_LT(run.cost.weighted, kept.cost.weighted) << target << "\n" << run.printed << "\n" << kept.printed;
    }
  }
}

// C2's post_allocate_copy_removal within a block: spilled everywhere, the
// address of three stores after a 40-value region is reloaded for each; the
// second reload lands in the register the first one filled, which nothing
// wrote since, so it becomes a copy of that register into itself (free).
TEST(ChaitinTest, AReloadIntoARegisterHoldingItsValueMovesNothing) {
  for (const char* target : {"x86_64", "aarch64", "armv7"}) {
    const std::string ptr = std::string(target) == "armv7" ? "i32" : "i64";
    std::string text = absl::StrCat("function %twice(", ptr, ", i32) -> i32 {\nblock0(v0: ", ptr, ", v1: i32):\n");
    absl::StrAppend(&text, "    v10 = add v1, v1\n");
    for (int k = 11; k < 50; ++k) absl::StrAppend(&text, "    v", k, " = add v", k - 1, ", v1\n");
    absl::StrAppend(&text, "    v50 = add v10, v11\n");
    for (int k = 2; k < 40; ++k) absl::StrAppend(&text, "    v", 49 + k, " = add v", 48 + k, ", v", 10 + k, "\n");
    absl::StrAppend(&text, "    store v88, v0, 8\n    store v87, v0, 16\n    store v86, v0, 24\n    ret v88\n}\n");
    ChaitinOptions everywhere;
    everywhere.split = false;
    ChaitinRun run = Allocate(text, T(target), everywhere);
    ASSERT_TRUE(run.ok) << target;
    EXPECT_GT(run.stats.elided, 0) << target;
    // The line before the second store: a copy within one register.
    const size_t at = run.printed.find("    store v87");
    ASSERT_NE(at, std::string::npos) << run.printed;
    const size_t begin = run.printed.rfind('\n', at - 2) + 1;
    const std::string before = run.printed.substr(begin, at - begin);
    std::smatch m;
    ASSERT_TRUE(std::regex_search(before, m, std::regex(R"(\[%(\w+)\] = copy v\d+\[%(\w+)\])")))
        << target << ": " << before << run.printed;
    EXPECT_EQ(m[1], m[2]) << target << ": " << before;
  }
}

// C2's insert_copies for a constant: the step (v1) is an argument on the entry
// edge and is read in the loop too, so it interferes with the counter (v3) and
// cannot coalesce with it. Instead of an edge move out of v1's register, the
// constant is made again before the jump, and that coalesces: the entry edge
// moves nothing. Without aggressive coalescing nothing is made again.
TEST(ChaitinTest, AConstantArgumentIsMadeAgainInsteadOfCopied) {
  const char* text = R"(function %count(i32, i32) -> i32 {
block0(v0: i32, v9: i32):
    v1 = const.i32 8
    jump block1(v1, v0)
block1(v3: i32, v4: i32):
    v5 = add v3, v1
    v6 = add v4, v1
    v7 = cmp.ult v5, v9
    br v7, block1(v5, v6), block2
block2:
    v8 = add v5, v6
    ret v8
}
)";
  for (const char* target : {"x86_64", "aarch64", "armv7"}) {
    ChaitinRun run = Allocate(text, T(target));
    ASSERT_TRUE(run.ok) << target;
    EXPECT_EQ(run.stats.remat_args, 1) << target << "\n" << run.printed;
    // Only the constant's argument was replaced; the jump passes a new value.
    EXPECT_THAT(run.printed, ::testing::ContainsRegex("const\\.i32 8[^\n]*\n[^\n]*const\\.i32 8"))
        << target << "\n" << run.printed;
    EXPECT_EQ(run.stats.lower.moves, 0) << target << "\n" << run.printed;
    ChaitinOptions no;
    no.aggressive = false;
    ChaitinRun plain = Allocate(text, T(target), no);
    ASSERT_TRUE(plain.ok) << target;
    EXPECT_EQ(plain.stats.remat_args, 0) << target;
    EXPECT_GT(plain.stats.lower.moves, 0) << target << "\n" << plain.printed;
  }
}

// Briggs's optimistic coloring spills no more than Chaitin's pessimistic
// simplify, and less over a set of functions; coalescing lowers the moves.
TEST(ChaitinTest, OptimisticAndCoalescingPayOff) {
  for (const char* target : {"x86_64", "aarch64", "armv7"}) {
    int64_t optimistic = 0, pessimistic = 0, coalesced = 0, uncoalesced = 0;
    int pushed = 0, spilled_at_once = 0;  // blocked live ranges in the printed simplify stacks
    for (uint64_t seed = 1; seed <= 25; ++seed) {
      GeneratorOptions g;
      g.num_insts = 200;
      g.long_lived = 30;
      Function f = Generate(seed, g, T(target)).value();
      ChaitinRun opt = Allocate(f, T(target));
      ChaitinOptions p;
      p.optimistic = false;
      ChaitinRun pes = Allocate(f, T(target), p);
      ChaitinOptions none;
      none.aggressive = false;
      none.conservative = false;
      ChaitinRun plain = Allocate(f, T(target), none);
      optimistic += opt.stats.spilled;
      pessimistic += pes.stats.spilled;
      coalesced += opt.cost.moves;
      uncoalesced += plain.cost.moves;
      EXPECT_THAT(opt.stats.printed, HasSubstr("  simplify: lrg"));
      EXPECT_THAT(opt.stats.printed, ::testing::Not(HasSubstr("(blocked, spilled)")));
      EXPECT_THAT(pes.stats.printed, ::testing::Not(HasSubstr("(blocked, optimistic)")));
      for (size_t at = 0; (at = opt.stats.printed.find("(blocked, optimistic)", at)) != std::string::npos; ++at) ++pushed;
      for (size_t at = 0; (at = pes.stats.printed.find("(blocked, spilled)", at)) != std::string::npos; ++at) {
        ++spilled_at_once;
      }
    }
    // Chaitin's simplify spills every blocked live range; Briggs's pushes it, and
    // select finds many a register.
    EXPECT_GT(pushed, 0) << target;
    EXPECT_GT(spilled_at_once, 0) << target;
    EXPECT_LT(optimistic, pessimistic) << target;
    EXPECT_LT(coalesced, uncoalesced) << target;
  }
}

// Biased coloring: with copies left apart (no conservative coalescing), select
// gives each copy's destination its source's register where it is free, and a
// value read or written by a constraint copy the fixed register, so the copies
// move nothing. Without the bias each takes the first free register.
TEST(ChaitinTest, BiasedColoringGivesACopyItsPartnersRegister) {
  const char* text = R"(function %bias(i64, i64, i64) -> i64 {
block0(v0: i64, v1: i64, v2: i64):
    v3 = add v0, v1
    v4 = mul v3, v2
    v5 = copy v4
    v6 = add v5, v1
    v7 = mul v6, v3
    ret v7
}
)";
  ChaitinOptions apart;
  apart.conservative = false;
  ChaitinRun biased = Allocate(text, T("x86_64"), apart);
  ASSERT_TRUE(biased.ok);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(biased.printed, m, std::regex(R"(v5\[%(\w+)\] = copy v4\[%(\w+)\])")))
      << biased.printed;
  EXPECT_EQ(m[1], m[2]) << biased.printed;
  // The one move left: v3 lives on past the two-address mul, so its source copy needs another register.
  EXPECT_EQ(biased.cost.moves, 1) << biased.printed;
  apart.bias = false;
  ChaitinRun plain = Allocate(text, T("x86_64"), apart);
  ASSERT_TRUE(plain.ok);
  EXPECT_GT(plain.cost.moves, 3) << plain.printed;
  // On generated functions, on every target, with and without conservative coalescing.
  for (const char* target : {"x86_64", "aarch64", "armv7"}) {
    for (bool conservative : {false, true}) {
      int64_t with = 0, without = 0;
      for (uint64_t seed = 1; seed <= 20; ++seed) {
        GeneratorOptions g;
        g.num_insts = 150;
        Function f = Generate(seed, g, T(target)).value();
        ChaitinOptions o;
        o.conservative = conservative;
        with += Allocate(f, T(target), o).cost.weighted;
        o.bias = false;
        without += Allocate(f, T(target), o).cost.weighted;
      }
      EXPECT_LT(with, without) << target << " conservative " << conservative;
    }
  }
}

// Generated functions with every shape the generator has (calls, divisions,
// i8 values, wide joins, stack arguments, fixed two-address sources): each
// allocation checks and runs like the original.
TEST(ChaitinTest, GeneratedFunctionsCheckOnEveryTarget) {
  for (const char* target : {"x86_64", "aarch64", "armv7"}) {
    for (uint64_t seed = 100; seed < 140; ++seed) {
      GeneratorOptions g;
      g.num_insts = 250;
      g.unusual_percent = seed % 2 == 0 ? 10 : 0;
      g.byte_percent = std::string(target) == "x86_64" && seed % 3 == 0 ? 30 : 0;
      Function f = Generate(seed, g, T(target)).value();
      ChaitinRun run = Allocate(f, T(target));
      EXPECT_TRUE(run.ok) << target << " seed " << seed;
      if (seed % 4 == 0) {
        // The graph's sparse rows (what large functions get), all sparse or
        // all dense, allocate alike.
        for (int64_t dense_after : {InterferenceGraph::kNeverDense, int64_t{0}}) {
          ChaitinOptions sparse;
          sparse.graph_matrix_max_bytes = 0;
          sparse.graph_dense_row_words = dense_after;
          ChaitinRun other = Allocate(f, T(target), sparse);
          EXPECT_EQ(other.printed, run.printed) << target << " seed " << seed << (dense_after == 0 ? " (dense rows)" : "");
        }
      }
    }
  }
}

// The graph each round builds equals interference computed independently, by
// liveness/'s live ranges (one value live at the other's definition), up to the
// graph's documented refinements: a copy's def and its source do not
// interfere; a def and a use of one instruction at one position where the use
// dies there do not (reads come before writes); a block parameter interferes
// with what a single-successor predecessor's branch reads; and values of two
// register banks never interfere (they cannot share a register).
TEST(ChaitinTest, GraphEqualsInterferenceFromLiveRanges) {
  int overlaps_across_banks = 0;  // pairs the bank rule left out
  for (const char* target : {"x86_64", "aarch64", "armv7"}) {
    for (uint64_t seed = 300; seed < 315; ++seed) {
      GeneratorOptions g;
      g.num_insts = 150;
      g.unusual_percent = seed % 2 == 0 ? 10 : 0;
      Function f = Generate(seed, g, T(target)).value();
      int graphs = 0;
      ChaitinOptions o;
      if (seed % 3 != 1) o.graph_matrix_max_bytes = 0;  // sparse rows
      if (seed % 3 == 2) o.graph_dense_row_words = 1;    // those of more than one word dense
      o.observe_graph = [&](const Function& fn, const InterferenceGraph& ifg, const std::vector<uint32_t>& node) {
        ++graphs;
        LiveSets sets(fn);
        InstNumbering num(fn);
        LiveRanges ranges(fn, sets, num);
        ControlFlowGraph cfg(fn);
        // The refinements, as pairs of values.
        std::set<std::pair<uint32_t, uint32_t>> absent_ok, present_ok;
        auto pair = [](Value a, Value b) { return std::make_pair(std::min(a.index(), b.index()), std::max(a.index(), b.index())); };
        for (Block b : fn.layout()) {
          for (Inst i : fn.block(b).insts) {
            const InstData& d = fn.inst(i);
            absl::Span<const Operand> ops = fn.operands(i);
            if ((d.opcode == Opcode::kCopy || IsMoveLike(d.opcode)) && ops.size() == 2) {
              absent_ok.insert(pair(ops[0].value(), ops[1].value()));
            }
            for (const Operand& def : ops) {
              if (!def.IsDef()) continue;
              for (const Operand& use : ops) {
                if (use.IsUse() && use.position() == def.position()) absent_ok.insert(pair(def.value(), use.value()));
              }
            }
          }
          if (b == fn.entry()) continue;
          for (const Edge& e : cfg.preds(b)) {
            if (cfg.succs(e.from).size() != 1) continue;
            absl::Span<const Operand> bops = fn.operands(e.branch);
            for (size_t k = 0; k < fn.NumNonArgOperands(e.branch); ++k) {
              for (const Operand& p : fn.block(b).params) present_ok.insert(pair(p.value(), bops[k].value()));
            }
          }
        }
        // Copies of one value hold its bits: any two of them may share a
        // register (Chaitin's copy rule, transitively).
        std::vector<uint32_t> copy_root(fn.num_values());
        for (int v = 0; v < fn.num_values(); ++v) copy_root[v] = v;
        auto root = [&](uint32_t v) {
          while (copy_root[v] != v) v = copy_root[v];
          return v;
        };
        for (Block b : fn.layout()) {
          for (Inst i : fn.block(b).insts) {
            absl::Span<const Operand> ops = fn.operands(i);
            if ((fn.inst(i).opcode == Opcode::kCopy || IsMoveLike(fn.inst(i).opcode)) && ops.size() == 2) {
              copy_root[root(ops[0].value().index())] = root(ops[1].value().index());
            }
          }
        }
        std::vector<Value> values;
        for (int v = 0; v < fn.num_values(); ++v) {
          if (node[v] != ChaitinOptions::kStackValue && ranges.HasRange(Value(v))) values.push_back(Value(v));
        }
        // By node pairs (a two-address def shares its source copy's node):
        // `must` have an edge, `may` have one.
        std::set<std::pair<uint32_t, uint32_t>> must, may;
        auto npair = [&](Value a, Value b) {
          uint32_t x = node[a.index()], y = node[b.index()];
          return std::make_pair(std::min(x, y), std::max(x, y));
        };
        int across_banks = 0;
        auto bank = [&](Value v) { return T(target).Class(*T(target).ClassFor(fn.value_type(v))).bank; };
        for (size_t x = 0; x < values.size(); ++x) {
          for (size_t y = x + 1; y < values.size(); ++y) {
            Value a = values[x], b = values[y];
            if (node[a.index()] == node[b.index()]) continue;
            bool overlap = ranges.Overlaps(a, b);
            if (bank(a) != bank(b)) {
              across_banks += overlap;
              continue;  // neither must nor may have an edge
            }
            if (overlap || present_ok.count(pair(a, b))) may.insert(npair(a, b));
            if (overlap && !absent_ok.count(pair(a, b)) && root(a.index()) != root(b.index())) must.insert(npair(a, b));
          }
        }
        int checked = 0;
        for (size_t x = 0; x < values.size(); ++x) {
          for (size_t y = x + 1; y < values.size(); ++y) {
            Value a = values[x], b = values[y];
            if (node[a.index()] == node[b.index()]) continue;
            bool edge = ifg.Interferes(node[a.index()], node[b.index()]);
            ++checked;
            if (edge) {
              EXPECT_TRUE(may.count(npair(a, b))) << target << " seed " << seed << ": an edge " << fn.ValueName(a)
                                                  << "-" << fn.ValueName(b) << " without overlap";
            } else {
              EXPECT_FALSE(must.count(npair(a, b))) << target << " seed " << seed << " round " << graphs << ": no edge " << fn.ValueName(a)
                                                    << "-" << fn.ValueName(b) << " though they overlap, nodes " << node[a.index()] << " " << node[b.index()];
            }
          }
        }
        EXPECT_GT(checked, 100);
        overlaps_across_banks += across_banks;
      };
      ChaitinRun run = Allocate(f, T(target), o);
      EXPECT_TRUE(run.ok);
      EXPECT_EQ(graphs, run.stats.rounds) << target << " seed " << seed;
    }
  }
  EXPECT_GT(overlaps_across_banks, 0);
}

TEST(ChaitinTest, RefusesAnAllocatedFunction) {
  absl::StatusOr<Function> f = ParseFunction(R"(function %done(i64) -> i64 {
block0(v0@%rdi[%rdi]: i64):
    v1[%rax] = move v0[%rdi]
    ret v1@%rax[%rax]
}
)", T("x86_64"));
  ASSERT_TRUE(f.ok()) << f.status();
  ChaitinAllocator allocator;
  absl::StatusOr<ChaitinStats> s = allocator.Run(*f, T("x86_64"));
  EXPECT_EQ(s.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.status().message(), "function %done: chaitin needs SSA form");
}

}  // namespace
}  // namespace regalloc
