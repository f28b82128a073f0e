#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "base/bitset.h"
#include "base/chunked_vector.h"
#include "base/compressed_rows.h"
#include "base/id.h"
#include "base/nearly_sorted.h"
#include "base/sorted_lists.h"
#include "base/status_macros.h"
#include "gtest/gtest.h"

namespace regalloc {
namespace {

TEST(BitSet256Test, SetIterateAndCombine) {
  BitSet256 a;
  for (uint32_t i : {0u, 63u, 64u, 130u, 255u}) a.Set(i);
  std::vector<uint32_t> seen;
  for (uint32_t i : a) seen.push_back(i);
  EXPECT_EQ(seen, (std::vector<uint32_t>{0, 63, 64, 130, 255}));
  EXPECT_EQ(a.Count(), 5);
  EXPECT_EQ(a.First(), 0u);

  BitSet256 b;
  b.Set(130);
  b.Set(7);
  EXPECT_TRUE(a.Intersects(b));
  EXPECT_FALSE(a.Contains(b));
  EXPECT_TRUE((a | b).Contains(b));
  BitSet256 both = a & b;
  EXPECT_EQ(both.Count(), 1);
  EXPECT_TRUE(both.Test(130));
  a.Subtract(b);
  EXPECT_FALSE(a.Test(130));
  EXPECT_FALSE(a.Intersects(b));
}

TEST(BitSet256Test, EmptySetIteratesNothing) {
  BitSet256 s;
  EXPECT_TRUE(s.Empty());
  EXPECT_EQ(s.First(), BitSet256::kCapacity);
  int n = 0;
  for (uint32_t i : s) n += static_cast<int>(i) + 1;
  EXPECT_EQ(n, 0);
}

TEST(CompressedRowsTest, GroupsByKeyKeepingOrder) {
  std::vector<int> items = {31, 10, 22, 11, 30, 12};
  CompressedRows<int> rows;
  rows.Build(4, absl::MakeConstSpan(items), [](int x) { return x / 10; });
  EXPECT_EQ(std::vector<int>(rows.Row(1).begin(), rows.Row(1).end()), (std::vector<int>{10, 11, 12}));
  EXPECT_EQ(std::vector<int>(rows.Row(3).begin(), rows.Row(3).end()), (std::vector<int>{31, 30}));
  EXPECT_TRUE(rows.Row(0).empty());
  EXPECT_EQ(rows.all().size(), items.size());
  rows.Clear();
  rows.AppendRow(std::vector<int>{1, 2});
  rows.AppendRow(std::vector<int>{});
  rows.AppendRow(std::vector<int>{3});
  EXPECT_EQ(rows.num_rows(), 3u);
  EXPECT_TRUE(rows.Row(1).empty());
  EXPECT_EQ(rows.Row(2)[0], 3);
}

TEST(CompressedRowsTest, CountedRowsTakeItemsInPlacementOrder) {
  std::vector<int> items = {31, 10, 22, 11, 30, 12};
  CompressedRows<int> built, placed;
  built.Build(4, absl::MakeConstSpan(items), [](int x) { return x / 10; });
  placed.StartCounting(4);
  for (int x : items) placed.Count(x / 10);
  placed.StartFilling();
  for (int x : items) placed.Place(x / 10, x);
  ASSERT_EQ(placed.num_rows(), 4u);
  for (size_t r = 0; r < 4; ++r) {
    EXPECT_EQ(std::vector<int>(placed.Row(r).begin(), placed.Row(r).end()),
              std::vector<int>(built.Row(r).begin(), built.Row(r).end()))
        << r;
  }
  // Again, reusing the storage, with fewer rows.
  placed.StartCounting(2);
  placed.Count(1);
  placed.StartFilling();
  placed.Place(1, 7);
  EXPECT_EQ(placed.num_rows(), 2u);
  EXPECT_TRUE(placed.Row(0).empty());
  EXPECT_EQ(placed.Row(1)[0], 7);
}

struct ATag {};
struct BTag {};
// Sorts (key, serial) pairs by key both ways and compares: the order must be
// stable's, whether the input is nearly sorted or shuffled (the budget's
// fallback).
void ExpectSortedLikeStableSort(std::vector<std::pair<int, int>> xs) {
  std::vector<std::pair<int, int>> want = xs;
  auto by_key = [](const std::pair<int, int>& a, const std::pair<int, int>& b) { return a.first < b.first; };
  std::stable_sort(want.begin(), want.end(), by_key);
  SortNearlySorted(absl::MakeSpan(xs), by_key);
  EXPECT_EQ(xs, want);
}

TEST(ChunkedVectorTest, IndexesAcrossChunksAndKeepsItemsInPlace) {
  ChunkedVector<uint64_t> v;
  const size_t n = 3 * ChunkedVector<uint64_t>::kChunkItems + 5;
  for (size_t i = 0; i < n; ++i) v.push_back(i * 7);
  ASSERT_EQ(v.size(), n);
  const uint64_t* first = &v[0];
  // Appending an item of the list itself, across a chunk boundary: nothing moves.
  for (size_t i = 0; i < ChunkedVector<uint64_t>::kChunkItems; ++i) v.push_back(v[i]);
  EXPECT_EQ(first, &v[0]);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(v[i], i * 7) << i;
  for (size_t i = 0; i < ChunkedVector<uint64_t>::kChunkItems; ++i) ASSERT_EQ(v[n + i], i * 7) << i;
  EXPECT_EQ(v.back(), (ChunkedVector<uint64_t>::kChunkItems - 1) * 7);
  // Five chunks for 4 chunks and 5 items: at most one chunk to spare.
  EXPECT_EQ(v.MemoryBytes(), 5 * (ChunkedVector<uint64_t>::kChunkItems * sizeof(uint64_t) + sizeof(void*)));
  // Cleared, it keeps its chunks and fills them again.
  v.clear();
  EXPECT_TRUE(v.empty());
  for (int i = 0; i < 10; ++i) v.push_back(3);
  EXPECT_EQ(v.size(), 10u);
  EXPECT_EQ(v[9], 3u);
  EXPECT_EQ(v.MemoryBytes(), 5 * (ChunkedVector<uint64_t>::kChunkItems * sizeof(uint64_t) + sizeof(void*)));
  // Moved, the source is left empty.
  ChunkedVector<uint64_t> w = std::move(v);
  EXPECT_EQ(w.size(), 10u);
  EXPECT_EQ(v.size(), 0u);  // NOLINT(bugprone-use-after-move): documented as empty
  v.push_back(1);
  EXPECT_EQ(v[0], 1u);
}

TEST(SortNearlySortedTest, StableOnNearlySortedAndShuffledInput) {
  std::mt19937 rng(7);
  std::vector<std::pair<int, int>> xs;
  for (int i = 0; i < 5000; ++i) xs.push_back({i / 3 + static_cast<int>(rng() % 4), i});  // a few places off, with ties
  ExpectSortedLikeStableSort(xs);
  std::shuffle(xs.begin(), xs.end(), rng);
  ExpectSortedLikeStableSort(xs);
  std::reverse(xs.begin(), xs.end());
  ExpectSortedLikeStableSort(xs);
  ExpectSortedLikeStableSort({});
}

TEST(IdTest, DefaultIsInvalidAndIdsCompare) {
  Id<ATag> none;
  EXPECT_FALSE(none.IsValid());
  EXPECT_LT(Id<ATag>(1), Id<ATag>(2));
  static_assert(!std::is_convertible_v<Id<ATag>, Id<BTag>>, "ids of different kinds must not mix");
}

absl::StatusOr<int> Half(int x) {
  if (x % 2 != 0) return absl::InvalidArgumentError("odd");
  return x / 2;
}
absl::Status Quarter(int x, int* out) {
  RA_ASSIGN_OR_RETURN(int h, Half(x));
  RA_ASSIGN_OR_RETURN(*out, Half(h));
  return absl::OkStatus();
}

TEST(StatusMacrosTest, PropagateErrors) {
  int out = 0;
  EXPECT_TRUE(Quarter(8, &out).ok());
  EXPECT_EQ(out, 2);
  absl::Status s = Quarter(6, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "odd");
}

TEST(SortedLists, CommonItemsAgreeWithTheStandardAlgorithm) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::vector<uint32_t> a, b;
    for (uint32_t x = 0; x < 64; ++x) {
      if (rng() % 3 == 0) a.push_back(x);
      if (rng() % 2 == 0) b.push_back(x);
    }
    std::vector<uint32_t> common, want_common;
    ForEachCommon<uint32_t>(a, b, [&](uint32_t x) { common.push_back(x); });
    std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(want_common));
    EXPECT_EQ(common, want_common);
  }
}

}  // namespace
}  // namespace regalloc
