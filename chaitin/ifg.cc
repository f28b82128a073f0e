#include "chaitin/ifg.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace regalloc {

void InterferenceGraph::Reset(int num_nodes) {
  num_nodes_ = num_nodes;
  dead_.assign(num_nodes, 0);
  if (static_cast<int>(rows_.size()) < num_nodes) rows_.resize(num_nodes);
  for (int n = 0; n < num_nodes; ++n) rows_[n].clear();
}

void InterferenceGraph::Finish() {
  for (int n = 0; n < num_nodes_; ++n) {
    std::vector<uint32_t>& row = rows_[n];
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
  }
}

bool InterferenceGraph::Interferes(uint32_t a, uint32_t b) const {
  const std::vector<uint32_t>& r = rows_[a].size() <= rows_[b].size() ? rows_[a] : rows_[b];
  uint32_t other = &r == &rows_[a] ? b : a;
  return std::binary_search(r.begin(), r.end(), other);
}

void InterferenceGraph::Merge(uint32_t a, uint32_t b) {
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
  for (int n = 0; n < num_nodes_; ++n) {
    for (uint32_t m : rows_[n]) ends += !dead_[m];
  }
  return ends / 2;
}

int64_t InterferenceGraph::MemoryBytes() const {
  int64_t bytes = static_cast<int64_t>(rows_.capacity() * sizeof(std::vector<uint32_t>));
  for (const std::vector<uint32_t>& r : rows_) bytes += static_cast<int64_t>(r.capacity() * sizeof(uint32_t));
  return bytes;
}

}  // namespace regalloc
