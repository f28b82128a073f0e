// A list indexed like a vector whose items sit in chunks of a fixed size, for
// the lists that grow item by item to millions with no size known beforehand
// (the linear scan's pieces at a million instructions). Growing adds a chunk:
// nothing is moved or copied, so the old storage is never held beside the new
// (a std::vector doubling holds both, 3 times its old size at that moment), and
// at most one chunk is room to spare (a vector keeps a quarter to a half).
// Items stay where they are: a reference to one stays valid as others are
// added. An index costs a shift, a mask and one more load (the chunk table:
// a pointer per 4096 items, in cache).
//
//   ChunkedVector<LsraChild> pieces;
//   pieces.push_back(piece);
//   pieces[id].to = pos;
//   pieces.clear();   // keeps its chunks for the next function
#ifndef REGALLOC_BASE_CHUNKED_VECTOR_H_
#define REGALLOC_BASE_CHUNKED_VECTOR_H_

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"

namespace regalloc {

template <typename T>
class ChunkedVector {
 public:
  static constexpr int kChunkBits = 12;
  static constexpr size_t kChunkItems = size_t{1} << kChunkBits;

  ChunkedVector() = default;
  ChunkedVector(ChunkedVector&& other) noexcept : chunks_(std::move(other.chunks_)), size_(other.size_) {
    other.size_ = 0;
  }
  ChunkedVector& operator=(ChunkedVector&& other) noexcept {
    chunks_ = std::move(other.chunks_);
    size_ = other.size_;
    other.size_ = 0;
    return *this;
  }

  T& operator[](size_t i) { return chunks_[i >> kChunkBits][i & (kChunkItems - 1)]; }
  const T& operator[](size_t i) const { return chunks_[i >> kChunkBits][i & (kChunkItems - 1)]; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& back() { return (*this)[size_ - 1]; }

  void push_back(const T& item) {
    // `item` may be one of ours: it stays where it is as a chunk is added.
    if (ABSL_PREDICT_FALSE(size_ == chunks_.size() * kChunkItems)) AddChunk();
    (*this)[size_++] = item;
  }
  // Empties the list, keeping its chunks.
  void clear() { size_ = 0; }
  // The heap its chunks and their table take.
  size_t MemoryBytes() const { return chunks_.size() * (kChunkItems * sizeof(T) + sizeof(chunks_[0])); }

 private:
  ABSL_ATTRIBUTE_NOINLINE void AddChunk() { chunks_.push_back(std::unique_ptr<T[]>(new T[kChunkItems])); }

  std::vector<std::unique_ptr<T[]>> chunks_;
  size_t size_ = 0;
};

}  // namespace regalloc

#endif  // REGALLOC_BASE_CHUNKED_VECTOR_H_
