#include "chaitin/ifg.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace regalloc {

void InterferenceGraph::Reset(int num_nodes, bool matrix) {
  num_nodes_ = num_nodes;
  dead_.assign(num_nodes, 0);
  if (static_cast<int>(rows_.size()) < num_nodes) rows_.resize(num_nodes);
  for (int n = 0; n < num_nodes; ++n) rows_[n].clear();
  const size_t words = (static_cast<size_t>(num_nodes) + 63) / 64;
  words_ = matrix && static_cast<int64_t>(words * num_nodes * 8) <= kMatrixMaxBytes ? words : 0;
  matrix_.assign(words_ * num_nodes, 0);
  stale_row_.assign(words_ > 0 ? num_nodes : 0, 0);
  matrix_edges_ = 0;
}

void InterferenceGraph::ReadRow(uint32_t a) const {
  std::vector<uint32_t>& row = rows_[a];
  row.clear();
  const uint64_t* w = &matrix_[a * words_];
  for (size_t k = 0; k < words_; ++k) {
    for (uint64_t bits = w[k]; bits != 0; bits &= bits - 1) {
      row.push_back(static_cast<uint32_t>(k * 64 + __builtin_ctzll(bits)));
    }
  }
  stale_row_[a] = 0;
}

void InterferenceGraph::Finish() {
  if (words_ > 0) {
    std::fill(stale_row_.begin(), stale_row_.end(), 1);
    return;
  }
  for (int n = 0; n < num_nodes_; ++n) {
    std::vector<uint32_t>& row = rows_[n];
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
  }
}

bool InterferenceGraph::Interferes(uint32_t a, uint32_t b) const {
  if (words_ > 0) return Bit(a, b);
  const std::vector<uint32_t>& r = rows_[a].size() <= rows_[b].size() ? rows_[a] : rows_[b];
  uint32_t other = &r == &rows_[a] ? b : a;
  return std::binary_search(r.begin(), r.end(), other);
}

void InterferenceGraph::Merge(uint32_t a, uint32_t b) {
  if (words_ > 0) {
    // As the rows below: each live neighbour n of b gets a; where it had a
    // already, b stays (stale), else b's entry becomes a.
    uint64_t* row_a = &matrix_[a * words_];
    uint64_t* row_b = &matrix_[b * words_];
    for (size_t k = 0; k < words_; ++k) {
      for (uint64_t bits = row_b[k]; bits != 0; bits &= bits - 1) {
        const uint32_t n = static_cast<uint32_t>(k * 64 + __builtin_ctzll(bits));
        if (dead_[n]) continue;
        --matrix_edges_;  // b's edge goes; a's is new unless it was there
        if (Bit(n, a)) continue;
        ++matrix_edges_;
        uint64_t* row_n = &matrix_[n * words_];
        row_n[a >> 6] |= uint64_t{1} << (a & 63);
        row_n[b >> 6] &= ~(uint64_t{1} << (b & 63));
        stale_row_[n] = 1;
      }
      row_a[k] |= row_b[k];
      row_b[k] = 0;
    }
    stale_row_[a] = 1;
    stale_row_[b] = 1;
    dead_[b] = 1;
    return;
  }
  // Each neighbour's row names a instead of b: where a is already there, b's
  // entry stays (stale: callers skip merged nodes), else it becomes a and moves
  // over the entries between the two (a rotation, not an erase and an insert
  // that each move the row's tail).
  for (uint32_t n : rows_[b]) {
    if (dead_[n]) continue;  // a stale entry: n merged into another node
    std::vector<uint32_t>& row = rows_[n];
    auto at_b = std::lower_bound(row.begin(), row.end(), b);
    if (a < b) {
      auto at_a = std::lower_bound(row.begin(), at_b, a);
      if (at_a != at_b && *at_a == a) {
        continue;  // a is there: b's entry stays, stale (erasing it moved the row's tail)
      } else {
        *at_b = a;
        std::rotate(at_a, at_b, at_b + 1);
      }
    } else {
      auto at_a = std::lower_bound(at_b + 1, row.end(), a);
      if (at_a != row.end() && *at_a == a) {
        continue;
      } else {
        *at_b = a;
        std::rotate(at_b, at_b + 1, at_a);
      }
    }
  }
  merged_.clear();
  std::set_union(rows_[a].begin(), rows_[a].end(), rows_[b].begin(), rows_[b].end(), std::back_inserter(merged_));
  rows_[a].assign(merged_.begin(), merged_.end());
  rows_[b].clear();
  dead_[b] = 1;
}

int64_t InterferenceGraph::num_edges() const {
  int64_t ends = 0;
  if (words_ > 0) return matrix_edges_;
  for (int n = 0; n < num_nodes_; ++n) {
    for (uint32_t m : Neighbors(n)) ends += !dead_[m];
  }
  return ends / 2;
}

int64_t InterferenceGraph::MemoryBytes() const {
  int64_t bytes = static_cast<int64_t>(rows_.capacity() * sizeof(std::vector<uint32_t>) +
                                       matrix_.capacity() * sizeof(uint64_t) + stale_row_.capacity());
  for (const std::vector<uint32_t>& r : rows_) bytes += static_cast<int64_t>(r.capacity() * sizeof(uint32_t));
  return bytes;
}

}  // namespace regalloc
