// Rows of items grouped by a dense key, stored flat (compressed sparse rows): one
// items array and one offsets array instead of a vector per row, so building rows
// for 100k blocks makes two allocations rather than 100k.
//
//   CompressedRows<Edge> preds;
//   preds.Build(num_blocks, edges, [](const Edge& e) { return e.to.index(); });
//   for (const Edge& e : preds.Row(b.index())) ...
#ifndef REGALLOC_BASE_COMPRESSED_ROWS_H_
#define REGALLOC_BASE_COMPRESSED_ROWS_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"

namespace regalloc {

template <typename T>
class CompressedRows {
 public:
  // Builds row after row: Clear(), then AppendRow for rows 0, 1, 2, ...
  void Clear() {
    items_.clear();
    start_.assign(1, 0);
  }
  // Room for `rows` rows of `items` items in all, so that appending never grows.
  // After Clear(), storage too small is given back before the new is taken, so
  // the two are never held at once.
  void Reserve(size_t rows, size_t items) {
    if (start_.capacity() < rows + 1 && start_.size() <= 1) {
      const size_t had = start_.size();
      std::vector<uint32_t>().swap(start_);
      start_.assign(had, 0);
    }
    start_.reserve(rows + 1);
    if (items_.capacity() < items && items_.empty()) std::vector<T>().swap(items_);
    items_.reserve(items);
  }

  // Appends a row of `n` items to be written through the pointer returned
  // (valid until the next append), without a copy made first.
  T* AppendRowOfSize(size_t n) {
    const size_t at = items_.size();
    items_.resize(at + n);
    start_.push_back(static_cast<uint32_t>(items_.size()));
    return items_.data() + at;
  }
  template <typename Range>
  void AppendRow(const Range& row) {
    items_.insert(items_.end(), row.begin(), row.end());
    start_.push_back(static_cast<uint32_t>(items_.size()));
  }

  // Groups `items` into `num_rows` rows by `key(item)` (< num_rows), keeping the
  // items' order within each row (a counting sort). `key` must be a pure function
  // of the item: it is called twice per item.
  template <typename KeyFn>
  void Build(size_t num_rows, absl::Span<const T> items, KeyFn key) {
    start_.assign(num_rows + 1, 0);
    for (const T& item : items) ++start_[key(item) + 1];
    for (size_t i = 1; i < start_.size(); ++i) start_[i] += start_[i - 1];
    items_.resize(items.size());
    fill_.assign(start_.begin(), start_.end() - 1);
    for (const T& item : items) items_[fill_[key(item)]++] = item;
  }

  // Builds rows whose sizes are known before their items, without a second
  // copy of the items: StartCounting(num_rows), Count(row) once per item,
  // StartFilling(), then Place(row, item) for each item, in the order wanted
  // within its row. Each row must get exactly the items counted for it.
  void StartCounting(size_t num_rows) { start_.assign(num_rows + 1, 0); }
  void Count(size_t row) { ++start_[row + 1]; }
  void StartFilling() {
    for (size_t i = 1; i < start_.size(); ++i) start_[i] += start_[i - 1];
    items_.resize(start_.back());
    fill_.assign(start_.begin(), start_.end() - 1);
  }
  void Place(size_t row, const T& item) { items_[fill_[row]++] = item; }
  // Gives back the cursors of Build and Place, kept for the next build (a row
  // count's worth: after a large function's, base/warm_buffers.h).
  void ReleaseCursors() { std::vector<uint32_t>().swap(fill_); }

  size_t num_rows() const { return start_.empty() ? 0 : start_.size() - 1; }
  absl::Span<const T> Row(size_t row) const {
    return absl::MakeConstSpan(items_.data() + start_[row], start_[row + 1] - start_[row]);
  }
  // A row's items, to reorder in place.
  absl::Span<T> MutableRow(size_t row) {
    return absl::MakeSpan(items_.data() + start_[row], start_[row + 1] - start_[row]);
  }
  // Every item, row after row.
  absl::Span<const T> all() const { return items_; }

 private:
  std::vector<T> items_;
  std::vector<uint32_t> start_;
  std::vector<uint32_t> fill_;  // Build's cursors, kept for the next Build
};

}  // namespace regalloc

#endif  // REGALLOC_BASE_COMPRESSED_ROWS_H_
