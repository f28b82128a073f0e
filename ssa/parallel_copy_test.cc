#include "ssa/parallel_copy.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace regalloc {
namespace {

using ::testing::HasSubstr;

const Target& T(absl::string_view name) { return *TargetByName(name).value(); }
Location Reg(const Target& t, absl::string_view name) { return Location::Reg(*t.FindReg(name)); }

// The random tests' numbers: next(n) is in [0, n), the same sequence on
// every machine (a linear congruential generator).
class Lcg {
 public:
  explicit Lcg(uint64_t seed) : state_(seed) {}
  int operator()(uint64_t n) {
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int>((state_ >> 33) % n);
  }

 private:
  uint64_t state_;
};

// Executes steps on a machine whose register units and stack slots hold tokens;
// checks on the way that each step's named source value is really there.
class Machine {
 public:
  explicit Machine(const Target& t) : t_(t) {}
  void Put(Location l, int token) {
    if (l.IsStack()) {
      stack_[l.slot().index()] = {token};
      return;
    }
    for (uint32_t u : t_.Units(l.reg())) units_[u] = token;
  }
  // A location's content: one token per unit (a stack slot counts as one unit).
  std::vector<int> Get(Location l) const {
    if (l.IsStack()) {
      auto it = stack_.find(l.slot().index());
      return it == stack_.end() ? std::vector<int>{-1} : it->second;
    }
    std::vector<int> out;
    for (uint32_t u : t_.Units(l.reg())) {
      auto it = units_.find(u);
      out.push_back(it == units_.end() ? -1 : it->second);
    }
    // A register whose units all hold one token holds that token, like a slot.
    if (std::all_of(out.begin(), out.end(), [&](int x) { return x == out[0]; })) out.resize(1);
    return out;
  }
  void Set(Location l, std::vector<int> content) {
    if (l.IsStack()) {
      stack_[l.slot().index()] = content;
      return;
    }
    size_t k = 0;
    for (uint32_t u : t_.Units(l.reg())) units_[u] = content.size() == 1 ? content[0] : content[k++];
  }
  void Run(const std::vector<CopyStep>& steps, std::map<uint32_t, std::vector<int>>& holds,
           std::string& trace) {
    for (const CopyStep& s : steps) {
      if (s.kind == CopyStep::Kind::kMove) {
        std::vector<int> c = Get(s.src);
        EXPECT_EQ(c, holds[s.use_src.index()]) << "step reads v" << s.use_src.index() << " from the wrong place\n" << trace;
        Set(s.dst, c);
        holds[s.def_dst.index()] = c;
        trace += "move\n";
      } else {
        std::vector<int> a = Get(s.src), b = Get(s.dst);
        EXPECT_EQ(a, holds[s.use_src.index()]) << trace;
        EXPECT_EQ(b, holds[s.use_dst.index()]) << trace;
        Set(s.src, b);
        Set(s.dst, a);
        holds[s.def_dst.index()] = a;
        holds[s.def_src.index()] = b;
        trace += "swap\n";
      }
    }
  }

 private:
  const Target& t_;
  std::map<uint32_t, int> units_;
  std::map<uint32_t, std::vector<int>> stack_;
};

enum class Mode { kSwap, kScratch, kStackOnly };

// Sequentializes the map dst_i <- src_{f(i)} over `locs` (value k lives in
// locs[k]; destination i receives value f(i) under a new name 100+i, as in
// block-parameter lowering), runs the steps on the machine and checks every
// destination. Returns the steps, and in `temps` the stack slots it took.
std::vector<CopyStep> RunMap(const Target& t, const std::vector<Location>& locs, const std::vector<int>& f, Mode mode,
                             int* temps = nullptr) {
  const int n = static_cast<int>(f.size());
  std::vector<CopyMove> moves;
  for (int i = 0; i < n; ++i) moves.push_back(CopyMove{locs[f[i]], locs[i], Value(f[i]), Value(100 + i), Type::kI64});
  int next_slot = 50;
  ParallelCopyOptions opts;
  opts.use_swap = mode == Mode::kSwap;
  if (mode == Mode::kScratch) opts.scratch = [&](Type) { return t.FindReg("r11"); };
  opts.new_stack_slot = [&](Type) { return StackSlot(next_slot++); };
  absl::StatusOr<std::vector<CopyStep>> steps = SequentializeParallelCopy(moves, t, opts);
  EXPECT_TRUE(steps.ok()) << steps.status();
  if (!steps.ok()) return {};
  if (temps != nullptr) *temps = next_slot - 50;
  Machine m(t);
  std::map<uint32_t, std::vector<int>> holds;
  for (int k = 0; k < n; ++k) {
    m.Put(locs[k], k);
    holds[k] = m.Get(locs[k]);
  }
  std::string trace;
  m.Run(*steps, holds, trace);
  for (int i = 0; i < n; ++i) {
    std::vector<int> got = m.Get(locs[i]);
    EXPECT_EQ(got, std::vector<int>(got.size(), f[i])) << "dst " << i << "\n" << trace;
    EXPECT_EQ(holds[100 + i], got) << "v" << 100 + i << " not recorded at its destination";
  }
  return *steps;
}

// Sequentializes `moves` with exchanges (cycles left over through new stack
// slots), runs the steps on the machine, each value a token where the copy
// first reads it, and checks every destination and every new name. Returns
// the steps (none if the copy was refused).
std::vector<CopyStep> ExpectExchangedCopy(const Target& t, const std::vector<CopyMove>& moves,
                                          const std::string& what = "") {
  ParallelCopyOptions opts;
  opts.use_swap = true;
  uint32_t next_slot = 50;
  opts.new_stack_slot = [&](Type) { return StackSlot(next_slot++); };
  absl::StatusOr<std::vector<CopyStep>> steps = SequentializeParallelCopy(moves, t, opts);
  EXPECT_TRUE(steps.ok()) << what << steps.status();
  if (!steps.ok()) return {};
  Machine m(t);
  std::map<uint32_t, std::vector<int>> holds;
  for (const CopyMove& c : moves) {
    if (holds.count(c.value.index())) continue;
    m.Put(c.src, static_cast<int>(c.value.index()));
    holds[c.value.index()] = m.Get(c.src);
  }
  std::string trace = what;
  m.Run(*steps, holds, trace);
  for (const CopyMove& c : moves) {
    EXPECT_EQ(m.Get(c.dst), holds[c.value.index()]) << "v" << c.dst_value.index() << "\n" << trace;
    EXPECT_EQ(holds[c.dst_value.index()], holds[c.value.index()]) << "v" << c.dst_value.index() << "\n" << trace;
  }
  return *steps;
}

// Runs every map dst_i <- src_{f(i)} over n locations, checks the final state.
int Exhaustive(int n, bool mixed, Mode mode) {
  const Target& t = T("x86_64");
  const char* regs[] = {"rax", "rcx", "rdx", "rbx", "rsi", "rdi"};
  std::vector<Location> locs;
  for (int i = 0; i < n; ++i) {
    locs.push_back(mixed && i % 2 == 1 ? Location::Stack(StackSlot(i)) : Reg(t, regs[i]));
  }
  int total = 1;
  for (int i = 0; i < n; ++i) total *= n;
  int checked = 0;
  for (int code = 0; code < total; ++code) {
    std::vector<int> f(n);
    for (int i = 0, c = code; i < n; ++i, c /= n) f[i] = c % n;
    SCOPED_TRACE(testing::Message() << "n=" << n << " code=" << code);
    std::vector<CopyStep> steps = RunMap(t, locs, f, mode);
    if (steps.empty() && testing::Test::HasFailure()) return checked;
    // Without a swap or scratch register, only true cycles may need temporaries;
    // a swap never leaves more moves than n.
    if (mode == Mode::kSwap && !mixed) {
      EXPECT_LE(static_cast<int>(steps.size()), n);
    }
    ++checked;
  }
  return checked;
}

TEST(ParallelCopyTest, AllMapsOfUpToSixRegisters) {
  int total = 0;
  for (int n = 1; n <= 6; ++n) {
    for (Mode mode : {Mode::kSwap, Mode::kScratch, Mode::kStackOnly}) total += Exhaustive(n, false, mode);
  }
  EXPECT_EQ(total, 3 * (1 + 4 + 27 + 256 + 3125 + 46656));
}

TEST(ParallelCopyTest, AllMapsOverRegistersAndStackSlots) {
  int total = 0;
  for (int n = 1; n <= 6; ++n) total += Exhaustive(n, true, n % 2 ? Mode::kSwap : Mode::kStackOnly);
  EXPECT_GT(total, 46656);
}

// Bigger copies (more than 8 pending moves: readiness is counted per register
// unit and stack slot instead of scanned): random maps over 9 to 24 of the 14
// x86 GPRs and 10 stack slots, each mode, checked on the machine.
TEST(ParallelCopyTest, RandomMapsOfManyLocations) {
  const Target& t = T("x86_64");
  const char* gprs[] = {"rax", "rcx", "rdx", "rbx", "rsi", "rdi", "r8", "r9", "r10", "r12", "r13", "r14", "r15", "rbp"};
  std::vector<Location> pool;
  for (const char* r : gprs) pool.push_back(Reg(t, r));
  for (uint32_t s = 0; s < 10; ++s) pool.push_back(Location::Stack(StackSlot(s)));
  Lcg next(12345);
  int checked = 0, cycles = 0;
  for (int round = 0; round < 600; ++round) {
    std::vector<Location> locs = pool;
    for (size_t i = locs.size(); i > 1; --i) std::swap(locs[i - 1], locs[next(i)]);
    const int n = 9 + next(16);
    locs.resize(n);
    // Mostly permutations (cycles), some sources read twice.
    std::vector<int> f(n);
    for (int i = 0; i < n; ++i) f[i] = i;
    for (int i = n; i > 1; --i) std::swap(f[i - 1], f[next(i)]);
    for (int k = next(3); k > 0; --k) f[next(n)] = next(n);
    for (Mode mode : {Mode::kSwap, Mode::kScratch, Mode::kStackOnly}) {
      SCOPED_TRACE(testing::Message() << "round " << round);
      int temps = 0;
      std::vector<CopyStep> steps = RunMap(t, locs, f, mode, &temps);
      ASSERT_FALSE(testing::Test::HasFailure());
      bool swapped = std::any_of(steps.begin(), steps.end(), [](const CopyStep& c) { return c.kind == CopyStep::Kind::kSwap; });
      cycles += temps > 0 || swapped;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 1800);
  EXPECT_GT(cycles, 600);  // the cycle-breaking paths ran, not only ready moves
}

TEST(ParallelCopyTest, SwapBreaksARegisterCycle) {
  const Target& t = T("x86_64");
  std::vector<CopyMove> moves = {{Reg(t, "rax"), Reg(t, "rbx"), Value(1), Value(1), Type::kI64},
                                 {Reg(t, "rbx"), Reg(t, "rcx"), Value(2), Value(2), Type::kI64},
                                 {Reg(t, "rcx"), Reg(t, "rax"), Value(3), Value(3), Type::kI64}};
  ParallelCopyOptions opts;
  opts.use_swap = true;
  std::vector<CopyStep> steps = SequentializeParallelCopy(moves, t, opts).value();
  ASSERT_EQ(steps.size(), 2u);  // a 3-cycle is two exchanges
  EXPECT_EQ(steps[0].kind, CopyStep::Kind::kSwap);
  EXPECT_EQ(steps[1].kind, CopyStep::Kind::kSwap);
}

TEST(ParallelCopyTest, AnExchangeRedirectsEveryReaderOfBothRegisters) {
  // Two cycles that block each other through sub-registers (found by the fuzz
  // test on an x86-64 edge with i8 values). %ah is read twice: v9 goes to %al
  // and, as block parameter v119, to %dh; %dh is part of %edx, which the second
  // cycle reads. Exchanging %al and %r13b, then %ah and %al, moves v9 to %al,
  // so the copy into %dh must then read %al, not %ah (which holds v17).
  const Target& t = T("x86_64");
  std::vector<CopyMove> moves = {{Reg(t, "al"), Reg(t, "r13b"), Value(4), Value(4), Type::kI8},
                                 {Reg(t, "ah"), Reg(t, "al"), Value(9), Value(9), Type::kI8},
                                 {Reg(t, "r13b"), Reg(t, "ah"), Value(17), Value(17), Type::kI8},
                                 {Reg(t, "ah"), Reg(t, "dh"), Value(9), Value(119), Type::kI8},
                                 {Reg(t, "edx"), Reg(t, "r15d"), Value(6), Value(6), Type::kI32},
                                 {Reg(t, "r15d"), Reg(t, "r9d"), Value(20), Value(20), Type::kI32},
                                 {Reg(t, "r9b"), Reg(t, "dl"), Value(10), Value(10), Type::kI8}};
  ExpectExchangedCopy(t, moves);
}

TEST(ParallelCopyTest, OrdersStoresThenMovesThenReloads) {
  const Target& t = T("x86_64");
  // rax -> ss0 must precede rbx -> rax, which must precede ss1 -> rbx.
  std::vector<CopyMove> moves = {{Location::Stack(StackSlot(1)), Reg(t, "rbx"), Value(3), Value(3), Type::kI64},
                                 {Reg(t, "rbx"), Reg(t, "rax"), Value(2), Value(2), Type::kI64},
                                 {Reg(t, "rax"), Location::Stack(StackSlot(0)), Value(1), Value(1), Type::kI64},
                                 {Reg(t, "rdx"), Location::Stack(StackSlot(2)), Value(4), Value(4), Type::kI64}};
  std::vector<CopyStep> steps = SequentializeParallelCopy(moves, t, {}).value();
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_TRUE(steps[0].src.IsReg() && steps[0].dst.IsStack());
  EXPECT_TRUE(steps[1].src.IsReg() && steps[1].dst.IsStack());
  EXPECT_EQ(steps[2].dst, Reg(t, "rax"));
  EXPECT_EQ(steps[3].dst, Reg(t, "rbx"));
}

TEST(ParallelCopyTest, PartialOverlapOnArmv7) {
  // d1 -> d0 and s0 -> s2: s2 lies inside d1, s0 inside d0: a cycle through
  // partially overlapping registers, with no swap on ARM.
  const Target& t = T("armv7");
  std::vector<CopyMove> moves = {{Reg(t, "d1"), Reg(t, "d0"), Value(1), Value(1), Type::kF64},
                                 {Reg(t, "s0"), Reg(t, "s2"), Value(2), Value(2), Type::kF32}};
  for (bool scratch : {false, true}) {
    int next_slot = 0;
    ParallelCopyOptions opts;
    if (scratch) opts.scratch = [&](Type ty) { return t.FindReg(ty == Type::kF32 ? "s9" : "d7"); };
    opts.new_stack_slot = [&](Type) { return StackSlot(next_slot++); };
    std::vector<CopyStep> steps = SequentializeParallelCopy(moves, t, opts).value();
    Machine m(t);
    std::map<uint32_t, std::vector<int>> holds;
    for (const char* r : {"s0", "s1", "s2", "s3"}) m.Put(Reg(t, r), r[1] - '0');
    holds[1] = m.Get(Reg(t, "d1"));
    holds[2] = m.Get(Reg(t, "s0"));
    std::string trace;
    m.Run(steps, holds, trace);
    EXPECT_EQ(m.Get(Reg(t, "d0")), (std::vector<int>{2, 3})) << trace;
    EXPECT_EQ(m.Get(Reg(t, "s2")), (std::vector<int>{0})) << trace;
  }
}

// The ready moves come in the documented order (stores, register moves,
// reloads, memory moves; among equals, as given) whatever the copy's size:
// small copies compare moves pairwise, large ones track units and slots. On
// ARMv7 s, d and q registers overlap partially. The reference below applies
// the rule literally until nothing is ready (a cycle), and the steps must
// begin with what it emits.
TEST(ParallelCopyTest, ReadyMovesComeInTheRulesOrderAtEverySize) {
  const Target& t = T("armv7");
  std::vector<Location> pool;
  for (int k = 0; k < 16; ++k) pool.push_back(Reg(t, "s" + std::to_string(k)));
  for (int k = 8; k < 14; ++k) pool.push_back(Reg(t, "d" + std::to_string(k)));
  for (int k = 7; k < 8; ++k) pool.push_back(Reg(t, "q" + std::to_string(k)));
  for (uint32_t k = 0; k < 12; ++k) pool.push_back(Location::Stack(StackSlot(k)));
  auto rank = [](const CopyMove& m) { return m.src.IsReg() ? (m.dst.IsStack() ? 0 : 1) : (m.dst.IsReg() ? 2 : 3); };
  Lcg next(777);
  int compared = 0, large = 0;
  for (int round = 0; round < 2000; ++round) {
    // Destinations: pool locations that overlap no destination taken before.
    std::vector<Location> order = pool;
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[next(i)]);
    const size_t want = 2 + next(30);
    std::vector<CopyMove> moves;
    for (Location dst : order) {
      if (moves.size() == want) break;
      if (std::any_of(moves.begin(), moves.end(), [&](const CopyMove& m) { return LocationsOverlap(m.dst, dst, t); })) {
        continue;
      }
      Location src = pool[next(pool.size())];
      if (src == dst) continue;
      const uint32_t v = static_cast<uint32_t>(moves.size());
      moves.push_back(CopyMove{src, dst, Value(v), Value(v), Type::kI32});
    }
    large += moves.size() > 8;
    std::vector<CopyMove> pending = moves;
    std::vector<std::pair<Location, Location>> expected;
    for (;;) {
      size_t best = pending.size();
      for (size_t k = 0; k < pending.size(); ++k) {
        bool read = false;
        for (size_t j = 0; j < pending.size(); ++j) read |= j != k && LocationsOverlap(pending[j].src, pending[k].dst, t);
        if (!read && (best == pending.size() || rank(pending[k]) < rank(pending[best]))) best = k;
      }
      if (best == pending.size()) break;
      expected.push_back({pending[best].src, pending[best].dst});
      pending.erase(pending.begin() + best);
    }
    ParallelCopyOptions opts;
    uint32_t next_slot = 100;
    opts.new_stack_slot = [&](Type) { return StackSlot(next_slot++); };
    std::vector<CopyStep> steps = SequentializeParallelCopy(moves, t, opts).value();
    ASSERT_GE(steps.size(), expected.size());
    for (size_t k = 0; k < expected.size(); ++k) {
      ASSERT_EQ(steps[k].src, expected[k].first) << "round " << round << " step " << k;
      ASSERT_EQ(steps[k].dst, expected[k].second) << "round " << round << " step " << k;
    }
    ++compared;
  }
  EXPECT_EQ(compared, 2000);
  EXPECT_GT(large, 1000);  // most took the tracked path
}

TEST(ParallelCopyTest, CyclesAreBrokenOnTheCycle) {
  // Nothing is ready: the first move, %r9b to %r11b, is blocked by a chain
  // into a cycle through sub-registers of %rbx (%ebx to %r12d, %r12b to %bh).
  // Exchanging it with the move reading %r11b would unblock nothing (and once
  // wrote over v1, which a rename keeps in %r9b); the cycle is broken on the
  // cycle, by one temporary, and the chain then follows.
  const Target& t = T("x86_64");
  std::vector<CopyMove> moves = {{Reg(t, "r9b"), Reg(t, "r11b"), Value(1), Value(10), Type::kI8},
                                 {Reg(t, "r9b"), Reg(t, "r9b"), Value(1), Value(11), Type::kI8},
                                 {Reg(t, "r11b"), Reg(t, "bl"), Value(2), Value(12), Type::kI8},
                                 {Reg(t, "ebx"), Reg(t, "r12d"), Value(3), Value(13), Type::kI32},
                                 {Reg(t, "r12b"), Reg(t, "bh"), Value(4), Value(14), Type::kI8}};
  std::vector<CopyStep> steps = ExpectExchangedCopy(t, moves);
  EXPECT_TRUE(std::none_of(steps.begin(), steps.end(), [](const CopyStep& s) { return s.kind == CopyStep::Kind::kSwap; }));
  // Four moves and the rename, and one temporary's store: six steps.
  EXPECT_EQ(steps.size(), 6u);
}

// Random x86-64 copies over registers of three widths (a byte register may
// sit inside a wider one a source holds, so chains meet cycles through
// sub-registers) and stack slots, with exchanges, renames in place and values
// read more than once; each result runs on the machine, which checks every
// read on the way and every destination at the end. (An exchange once wrote
// over a value a rename kept in place: the stack pipeline on an x86-64
// function with i8 values.)
TEST(ParallelCopyTest, RandomSubRegisterCopiesWithExchangesAndRenames) {
  const Target& t = T("x86_64");
  struct Width {
    Type type;
    std::vector<Location> regs;
  };
  std::vector<Width> widths = {{Type::kI64, {}}, {Type::kI32, {}}, {Type::kI8, {}}};
  // Few registers, so that locations overlap often.
  for (const char* r : {"rax", "rbx", "rcx", "rdx", "r8", "r9"}) widths[0].regs.push_back(Reg(t, r));
  for (const char* r : {"eax", "ebx", "ecx", "edx", "r8d", "r9d"}) widths[1].regs.push_back(Reg(t, r));
  for (const char* r : {"al", "bl", "cl", "dl", "ah", "bh", "ch", "dh", "r8b", "r9b"}) widths[2].regs.push_back(Reg(t, r));
  Lcg next(4242);
  int renames = 0, swaps = 0, with_both = 0;
  for (int round = 0; round < 60000; ++round) {
    // Where a location fits among others: overlapping none of them.
    auto fits = [&](Location l, const std::vector<Location>& taken) {
      return std::none_of(taken.begin(), taken.end(), [&](Location x) { return LocationsOverlap(x, l, t); });
    };
    auto pick = [&](size_t w) {
      return next(4) == 0 ? Location::Stack(StackSlot(static_cast<uint32_t>(next(8))))
                          : widths[w].regs[next(widths[w].regs.size())];
    };
    // The sources: disjoint locations, one value each.
    struct Source {
      Location loc;
      size_t width;
    };
    std::vector<Source> sources;
    std::vector<Location> taken;
    const int num_sources = 2 + next(10);
    for (int k = 0; k < 4 * num_sources && static_cast<int>(sources.size()) < num_sources; ++k) {
      const size_t w = next(3);
      Location l = pick(w);
      if (!fits(l, taken)) continue;
      taken.push_back(l);
      sources.push_back({l, w});
    }
    // The destinations: disjoint, each receiving a source's value under a new
    // name; a fifth of them the source's own location (a rename in place),
    // half another source's location of its width (so that cycles form).
    std::vector<CopyMove> moves;
    std::vector<Location> dsts;
    const int num_moves = 1 + next(14);
    for (int k = 0; k < 4 * num_moves && static_cast<int>(moves.size()) < num_moves; ++k) {
      const uint32_t s = static_cast<uint32_t>(next(sources.size()));
      const Source& other = sources[next(sources.size())];
      const int how = next(10);
      Location dst = how < 2                                     ? sources[s].loc
                     : how < 7 && other.width == sources[s].width ? other.loc
                                                                  : pick(sources[s].width);
      if (!fits(dst, dsts)) continue;
      dsts.push_back(dst);
      moves.push_back(CopyMove{sources[s].loc, dst, Value(s), Value(static_cast<uint32_t>(100 + moves.size())),
                               widths[sources[s].width].type});
    }
    std::vector<CopyStep> steps = ExpectExchangedCopy(t, moves, absl::StrCat("round ", round, "\n"));
    bool renamed = false, swapped = false;
    for (const CopyMove& c : moves) renamed |= c.src == c.dst;
    for (const CopyStep& s : steps) swapped |= s.kind == CopyStep::Kind::kSwap;
    if (HasFailure()) return;
    renames += renamed;
    swaps += swapped;
    with_both += renamed && swapped;
  }
  // The shapes the test is for came up.
  EXPECT_GT(renames, 6000);
  EXPECT_GT(swaps, 1200);
  EXPECT_GT(with_both, 600);
}

TEST(ParallelCopyTest, RenamesInPlaceComeLast) {
  const Target& t = T("x86_64");
  // rax holds v1, which goes both to rbx (as v11) and stays in rax (as v10).
  std::vector<CopyMove> moves = {{Reg(t, "rax"), Reg(t, "rax"), Value(1), Value(10), Type::kI64},
                                 {Reg(t, "rax"), Reg(t, "rbx"), Value(1), Value(11), Type::kI64}};
  std::vector<CopyStep> steps = SequentializeParallelCopy(moves, t, {}).value();
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].def_dst, Value(11));
  EXPECT_EQ(steps[1].def_dst, Value(10));
  EXPECT_EQ(steps[1].src, steps[1].dst);
}

TEST(ParallelCopyTest, Errors) {
  const Target& t = T("x86_64");
  std::vector<CopyMove> clash = {{Reg(t, "rax"), Reg(t, "rbx"), Value(1), Value(1), Type::kI64},
                                 {Reg(t, "rcx"), Reg(t, "ebx"), Value(2), Value(2), Type::kI32}};
  EXPECT_THAT(SequentializeParallelCopy(clash, t, {}).status().message(),
              HasSubstr("parallel copy writes v1 and v2 to overlapping destinations"));
  // A large copy names the first overlapping pair too (found through units).
  std::vector<CopyMove> wide;
  const char* gprs[] = {"rax", "rcx", "rdx", "rbx", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12"};
  for (uint32_t k = 0; k < 11; ++k) wide.push_back({Location::Stack(StackSlot(k)), Reg(t, gprs[k]), Value(k), Value(k), Type::kI64});
  wide.push_back({Reg(t, "r13"), Reg(t, "edx"), Value(20), Value(20), Type::kI32});
  wide.push_back({Reg(t, "r14"), Reg(t, "ecx"), Value(21), Value(21), Type::kI32});
  EXPECT_THAT(SequentializeParallelCopy(wide, t, {}).status().message(),
              HasSubstr("parallel copy writes v1 and v21 to overlapping destinations"));
  wide.resize(11);
  wide.push_back({Reg(t, "r13"), Location::Stack(StackSlot(3)), Value(20), Value(20), Type::kI64});
  wide.push_back({Reg(t, "r14"), Location::Stack(StackSlot(3)), Value(21), Value(21), Type::kI64});
  EXPECT_THAT(SequentializeParallelCopy(wide, t, {}).status().message(),
              HasSubstr("parallel copy writes v20 and v21 to overlapping destinations"));
  std::vector<CopyMove> cycle = {{Reg(t, "rax"), Reg(t, "rbx"), Value(1), Value(1), Type::kI64},
                                 {Reg(t, "rbx"), Reg(t, "rax"), Value(2), Value(2), Type::kI64}};
  absl::Status s = SequentializeParallelCopy(cycle, t, {}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("no swap, scratch register or stack slot to break it"));
}

}  // namespace
}  // namespace regalloc
