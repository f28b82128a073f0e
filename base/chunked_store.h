// Runs of items written one after another into chunks that are never grown, so
// that a run stays where it was written and a pointer to it stays good. Not a
// heap block per run (at a million instructions a phase writes some hundred
// thousand sets), and not one vector that doubles (its old copy and its new one
// are held at once while it grows). A chunk can be given back on its own once
// nothing reads its runs any more: a phase that copies runs out chunk by chunk
// holds one chunk beside the copies, not all of them.
//
//   ChunkedStore<uint32_t> store;
//   store.Clear(size_t{1} << 18);
//   uint32_t* run = store.Allot(n);  // then written
//   size_t c = store.last_chunk();   // the chunk holding it, for Release(c)
#ifndef REGALLOC_BASE_CHUNKED_STORE_H_
#define REGALLOC_BASE_CHUNKED_STORE_H_

#include <cstddef>
#include <vector>

namespace regalloc {

template <typename T>
class ChunkedStore {
 public:
  // Empties the store, keeping the chunks' storage for the next runs. No run
  // may be longer than `chunk_items`, each chunk's size from now on.
  void Clear(size_t chunk_items) {
    for (std::vector<T>& c : chunks_) c.clear();
    chunk_items_ = chunk_items;
    chunk_ = 0;
  }

  // Room for a run of `n` items (n ≤ the chunk size), after the last run.
  T* Allot(size_t n) {
    if (chunk_ == chunks_.size()) chunks_.emplace_back();
    std::vector<T>* c = &Open(chunk_);
    if (c->capacity() - c->size() < n) {
      if (++chunk_ == chunks_.size()) chunks_.emplace_back();
      c = &Open(chunk_);
    }
    c->resize(c->size() + n);
    return c->data() + c->size() - n;
  }
  // The size of the chunks opened from now on (runs added later, fewer than
  // the first: no chunk as big as all of those).
  void set_chunk_items(size_t chunk_items) { chunk_items_ = chunk_items; }
  // The chunk the last Allot wrote to.
  size_t last_chunk() const { return chunk_; }
  size_t num_chunks() const { return chunks_.size(); }

  // Gives chunk `c`'s storage back: nothing may read its runs any more.
  void Release(size_t c) { std::vector<T>().swap(chunks_[c]); }

  // Bytes the chunks hold.
  size_t MemoryBytes() const {
    size_t bytes = 0;
    for (const std::vector<T>& c : chunks_) bytes += c.capacity() * sizeof(T);
    return bytes;
  }

 private:
  // Chunk `c`, with room for a chunk's items if nothing is in it yet.
  std::vector<T>& Open(size_t c) {
    std::vector<T>& chunk = chunks_[c];
    if (chunk.empty() && chunk.capacity() < chunk_items_) chunk.reserve(chunk_items_);
    return chunk;
  }

  std::vector<std::vector<T>> chunks_;
  size_t chunk_items_ = 0;
  size_t chunk_ = 0;
};

}  // namespace regalloc

#endif  // REGALLOC_BASE_CHUNKED_STORE_H_
