// An interference graph over dense node ids (C2's PhaseIFG): a set of neighbour
// bits per node, so that a coalescer can ask whether two nodes interfere and
// merge one node into another. C2 keeps a triangular half first and squares it
// up; here the rows are square from the start (each edge in both rows). A def
// meeting the live nodes adds its edges in one batch (AddEdges from a NodeSet,
// the live set as words of bits), which a row takes word by word; the other
// rows grow at their ends, as the build walks blocks in layout order.
//
// Two representations of the rows behind one interface, chosen by size at Reset:
//  - up to kMatrixMaxBytes of n² bits, a square bit matrix: an edge is one bit,
//    Interferes one test, Merge ORs one row into another. Each row has a
//    summary, a bit per word of the row that may hold bits, so that walks
//    read only those words: a short live range's row has bits near its own
//    id and at the long-lived values' ids, and between them zeros (at 10k
//    instructions its words with bits take half the cache lines of the span
//    between its first and last);
//  - above it, sparse bit rows (C2's IndexSet keeps a sparse bit set per live
//    range): each row the 64-bit words it has bits in, sorted by word index.
//    A short live range's row is then a few words, where sorted id lists cost
//    4 bytes per edge end (1.6 GB at 1M instructions with 200 long-lived
//    values). A row that comes to hold more than a quarter of the n/64 words
//    (a long-lived value's, which meets most defs) becomes a dense row of
//    n/64 words without indices: a bit is set, cleared or tested in place
//    (where the sparse row searched for its word or inserted one mid-row),
//    and Interferes asks a dense row when either node has one.
// All give the same rows after the same calls, stale entries included: tests
// run one against the other.
//
//   InterferenceGraph g;          // keep it: buffers are reused between builds
//   g.Reset(num_nodes);
//   g.AddEdge(a, b);              // duplicates and self-edges are dropped
//   g.AddEdges(a, live, skip);    // a to each node of a NodeSet but skip
//   g.Finish();
//   if (!g.Interferes(a, b)) g.Merge(a, b);   // b's edges now a's; b has none
//   g.ForEachNeighbor(a, [&](uint32_t m) { ... });   // in increasing order
//
// Memory: the matrix n²/8 bytes (0.18 MB at the 1.2k live ranges of a 1k-
// instruction function, 15 MB at 10k, 1.25 GB at 100k) and its summaries
// n²/512; sparse rows 12 bytes per word holding bits (in blocks of size
// classes, from a pool of chunks kept from build to build), plus a 16-byte
// row header and a pointer per node; dense rows n/8 bytes each (at most 8/3 of
// the sparse row they replace, whose block goes back to the pool; the block of
// a dense row merged away stays unused until the next build, which reuses the
// blocks of the builds before).
#ifndef REGALLOC_CHAITIN_IFG_H_
#define REGALLOC_CHAITIN_IFG_H_

#include <cstddef>
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "base/bitset.h"
#include "base/prefetch.h"

namespace regalloc {

// A set of node ids as 64-bit words with the list of its nonzero words in
// increasing order: insert, erase and test are a bit each (and, when a word
// fills or empties, an update of the short list), and a walk reads only the
// nonzero words. The build's live set: a few hundred nodes live at once, in a
// few dozen words (the long-lived nodes' low ids and the block's own).
class NodeSet {
 public:
  // Empties the set and sizes it for ids below `num_nodes`.
  void Reset(int num_nodes) {
    Clear();
    bits_.assign((static_cast<size_t>(num_nodes) + 63) / 64, 0);
  }
  bool Contains(uint32_t n) const { return (bits_[n >> 6] >> (n & 63)) & 1; }
  // Adds n; false if it was there.
  bool Insert(uint32_t n) {
    uint64_t& word = bits_[n >> 6];
    const uint64_t bit = uint64_t{1} << (n & 63);
    if (word & bit) return false;
    if (word == 0) {
      const uint32_t index = n >> 6;
      words_.insert(std::lower_bound(words_.begin(), words_.end(), index), index);
    }
    word |= bit;
    return true;
  }
  // Removes n; false if it was not there.
  bool Erase(uint32_t n) {
    uint64_t& word = bits_[n >> 6];
    const uint64_t bit = uint64_t{1} << (n & 63);
    if (!(word & bit)) return false;
    word &= ~bit;
    if (word == 0) words_.erase(std::lower_bound(words_.begin(), words_.end(), n >> 6));
    return true;
  }
  void Clear() {
    for (uint32_t index : words_) bits_[index] = 0;
    words_.clear();
  }
  // The nonzero words' indices, increasing, and a word's bits (ids
  // index*64 .. index*64+63).
  const std::vector<uint32_t>& words() const { return words_; }
  uint64_t word(uint32_t index) const { return bits_[index]; }
  // Calls f(n) for each n in increasing order; f must not change the set.
  template <typename F>
  void ForEach(F&& f) const {
    for (uint32_t index : words_) {
      for (uint64_t bits = bits_[index]; bits != 0; bits &= bits - 1) {
        f(index * 64 + static_cast<uint32_t>(__builtin_ctzll(bits)));
      }
    }
  }

 private:
  std::vector<uint64_t> bits_;
  std::vector<uint32_t> words_;
};

class InterferenceGraph {
 public:
  // The bit matrix's largest size (n²/8 bytes: about 2,900 nodes); larger
  // graphs use sparse rows. A matrix beyond the L2 cache makes every row walk
  // and bit set a miss: measured on generated functions, sparse rows are as
  // fast from about 2k instructions and 15-35% faster at 10k (against the
  // 15 MB matrix), and take a quarter of its memory there.
  static constexpr int64_t kMatrixMaxBytes = int64_t{1} << 20;

  // A sparse row becomes dense when it holds more than this many words:
  // kDenseRowsAuto, a quarter of a dense row's words (at least
  // kMinDenseRowWords); 0 makes a row dense at its first word; kNeverDense
  // keeps every row sparse.
  static constexpr int64_t kDenseRowsAuto = -1;
  static constexpr int64_t kNeverDense = int64_t{1} << 62;
  static constexpr int64_t kMinDenseRowWords = 4;

  // Drops every edge and sizes the graph for `num_nodes` nodes, as a bit
  // matrix if that takes at most `matrix_max_bytes` (0: sparse rows always),
  // else sparse rows that turn dense past `dense_row_words` words.
  void Reset(int num_nodes, int64_t matrix_max_bytes = kMatrixMaxBytes, int64_t dense_row_words = kDenseRowsAuto);
  // Records an edge (before Finish).
  void AddEdge(uint32_t a, uint32_t b) {
    if (a == b || !SetBit(a, b)) return;
    SetBit(b, a);
    ++edges_;
  }
  // Records the edges from `a` to each node of `to` but `skip` (and a
  // itself), before Finish or after. The same as AddEdge for each, but a's
  // row takes them a word at a time.
  void AddEdges(uint32_t a, const NodeSet& to, uint32_t skip);
  // Ends the build. Edges may still be added. (Sparse rows are kept sorted
  // and matrix rows' summaries as bits are set: nothing is left to do.)
  void Finish() {}

  int num_nodes() const { return num_nodes_; }
  // Whether the rows are a bit matrix (else sparse rows).
  bool IsMatrix() const { return words_ > 0; }
  bool Interferes(uint32_t a, uint32_t b) const;
  // The entries of a's row. After merges it may still name a merged node
  // (where its survivor is named too): callers skip nodes they know merged.
  int Degree(uint32_t a) const { return degree_[a]; }
  // The entries of a's row that name unmerged nodes (what a walk restricted
  // to the unmerged nodes counts), without reading the row: Merge keeps a
  // count per row of its entries that name merged nodes. Edges are added
  // between unmerged nodes only.
  int LiveDegree(uint32_t a) const { return degree_[a] - stale_[a]; }
  // Calls f(m) for each entry m of a's row in increasing order (after
  // Finish); f may return bool, false to stop.
  template <typename F>
  void ForEachNeighbor(uint32_t a, F&& f) const {
    ForEachRowWord(a, [&](size_t k, uint64_t bits) { return VisitBits(k, bits, f); });
  }
  // The same for the entries m of a's row whose bit is set in `keep` (a dense
  // bit set over node ids: bit m of keep[m / 64]): the others cost nothing.
  template <typename F>
  void ForEachNeighborIn(uint32_t a, const uint64_t* keep, F&& f) const {
    ForEachRowWord(a, [&](size_t k, uint64_t bits) { return VisitBits(k, bits & keep[k], f); });
  }
  // How many entries of a's row have their bit set in `keep` (as above).
  int CountNeighborsIn(uint32_t a, const uint64_t* keep) const {
    int count = 0;
    ForEachRowWord(a, [&](size_t k, uint64_t bits) {
      count += BitSet256::PopCount(bits & keep[k]);
      return true;
    });
    return count;
  }
  // Calls f(m) once for each m in a's row or b's row, in increasing order; f
  // as above.
  template <typename F>
  void ForEachNeighborOfEither(uint32_t a, uint32_t b, F&& f) const {
    if (words_ > 0) {
      const uint64_t* x = &matrix_[a * words_];
      const uint64_t* y = &matrix_[b * words_];
      ForEachSummaryWord(&summary_[a * summary_words_], &summary_[b * summary_words_],
                         [&](size_t k) { return VisitBits(k, x[k] | y[k], f); });
      return;
    }
    if (dense_[a] != nullptr || dense_[b] != nullptr) {
      RowCursor x(*this, a), y(*this, b);
      for (size_t k = 0; k < row_words_; ++k) {
        const uint64_t bits = x.At(k) | y.At(k);
        if (bits != 0 && !VisitBits(k, bits, f)) return;
      }
      return;
    }
    const Row& x = sparse_[a];
    const Row& y = sparse_[b];
    size_t i = 0, j = 0;
    while (i < x.size() || j < y.size()) {
      bool keep;
      if (j == y.size() || (i < x.size() && x[i].index < y[j].index)) {
        keep = VisitBits(x[i].index, x[i].bits(), f);
        ++i;
      } else if (i == x.size() || y[j].index < x[i].index) {
        keep = VisitBits(y[j].index, y[j].bits(), f);
        ++j;
      } else {
        keep = VisitBits(x[i].index, x[i].bits() | y[j].bits(), f);
        ++i;
        ++j;
      }
      if (!keep) return;
    }
  }
  // Hints that a's row will be walked soon: its sparse row's header and
  // first and last words into the cache (nothing for a matrix, which fits the
  // L2 cache, or a dense row). Select walks the rows in the simplify stack's
  // order, and simplify in its low list's: at 1M instructions, the load of a
  // row's first word was a third of both.
  void PrefetchRowHeader(uint32_t a) const {
    if (words_ == 0) Prefetch(&sparse_[a]);
  }
  void PrefetchRow(uint32_t a) const {
    if (words_ != 0) return;
    const Row& row = sparse_[a];
    if (row.count == 0) return;  // (an empty row's data may be null: no arithmetic on it)
    Prefetch(row.data);
    Prefetch(row.data + (row.count - 1));
  }
  // a's row as a list (tests and dumps).
  std::vector<uint32_t> Neighbors(uint32_t a) const;
  // Merges `b` into `a`: a's row becomes the union; each live neighbour of b
  // lists a, and b no more where it did not list a already (there b stays,
  // stale). Precondition: !Interferes(a, b).
  void Merge(uint32_t a, uint32_t b);
  // Edges between unmerged nodes, and the bytes the rows hold.
  int64_t num_edges() const { return edges_; }
  int64_t MemoryBytes() const;

 private:
  // 12 bytes, not 16: the 64 bits kept as two halves next to the index, so no
  // padding (the rows are most of the graph's memory, and walking them is
  // bound by memory).
  struct Word {
    uint32_t index = 0;  // bits for ids index*64 .. index*64+63
    uint32_t lo = 0, hi = 0;
    Word() = default;
    Word(uint32_t i, uint64_t b) : index(i), lo(static_cast<uint32_t>(b)), hi(static_cast<uint32_t>(b >> 32)) {}
    uint64_t bits() const { return uint64_t{hi} << 32 | lo; }
    void set_bits(uint64_t b) {
      lo = static_cast<uint32_t>(b);
      hi = static_cast<uint32_t>(b >> 32);
    }
  };
  static_assert(sizeof(Word) == 12, "sparse row words are 12 bytes");

  // Blocks of sparse-row words in size classes (ClassWords: 8, 16, 24, 32,
  // 48, 64, ... words: two per power of two from 16 on, each a multiple of 8,
  // so that a block split for a smaller one leaves blocks of classes and
  // nothing unused), carved from chunks that never move, so that a row's
  // words stay where they are while other rows grow. A block given back goes
  // on its class's free list for the next row growing to that size; Reset
  // takes every block back at once. Not a heap block per row: at a million
  // live ranges the rows took 3.9 million of them per function (each growth
  // one, and a copy), and giving the graph back freed a million. Two classes
  // per power of two, not one: at a million instructions the first graph's
  // rows hold 27M words, which took 452 MB of blocks of powers of two.
  static constexpr int kNumClasses = 48;
  static constexpr uint32_t ClassWords(int k) {
    return k == 0 ? 8 : (k % 2 == 1 ? uint32_t{16} : uint32_t{24}) << ((k - 1) / 2);
  }
  // The class of a block of ClassWords(k) words.
  static int ClassOf(uint32_t words) {
    if (words == 8) return 0;
    const int shift = 31 - __builtin_clz(words);  // 16 << j and 24 << j: 4 + j
    return 1 + 2 * (shift - 4) + ((words & (words - 1)) != 0 ? 1 : 0);
  }
  // The largest class of at most `words` words (at least kFirstRowWords).
  static int ClassAtMost(size_t words) {
    if (words < 16) return 0;
    const int shift = 63 - __builtin_clzll(words);  // 16 << j and 24 << j: 4 + j
    const int k = 1 + 2 * (shift - 4) + (words >= (size_t{24} << (shift - 4)) ? 1 : 0);
    return std::min(k, kNumClasses - 1);
  }
  class RowPool {
   public:
    Word* Take(int k);  // a block of class k
    void Give(Word* block, uint32_t words) {
      const int k = ClassOf(words);
      std::memcpy(static_cast<void*>(block), &free_[k], sizeof(Word*));  // the list's link, in the block
      free_[k] = block;
      nonempty_ |= uint64_t{1} << k;
    }
    // Every block free again; the chunks stay for the next build.
    void Reset() {
      free_.fill(nullptr);
      nonempty_ = 0;
      chunk_ = 0;
      used_ = 0;
    }
    int64_t Bytes() const;

   private:
    struct Free {
      void operator()(Word* w) const { ::operator delete(static_cast<void*>(w)); }
    };
    struct Chunk {
      std::unique_ptr<Word, Free> words;  // raw storage: a block's words are written before read
      size_t size = 0;
    };
    std::vector<Chunk> chunks_;
    size_t chunk_ = 0;  // the chunk blocks are carved from
    size_t used_ = 0;   // its words carved
    // Gives back `words` words at `rest` as blocks of the largest classes
    // that fit (fewer than kFirstRowWords left over stay unused).
    void GiveRest(Word* rest, size_t words);
    std::array<Word*, kNumClasses> free_{};
    uint64_t nonempty_ = 0;  // bit k: free_[k] holds a block (Take's search for a larger one is a ctz)
    static_assert(kNumClasses <= 64, "a bit per class");
  };
  // A sparse row: its words in a block of the pool.
  struct Row {
    Word* data = nullptr;
    uint32_t count = 0;
    uint32_t capacity = 0;
    size_t size() const { return count; }
    bool empty() const { return count == 0; }
    Word* begin() { return data; }
    Word* end() { return data + count; }
    const Word* begin() const { return data; }
    const Word* end() const { return data + count; }
    Word& operator[](size_t i) { return data[i]; }
    const Word& operator[](size_t i) const { return data[i]; }
    Word& back() { return data[count - 1]; }
    const Word& back() const { return data[count - 1]; }
  };

  // Calls f(k, bits) for each word k of a's row that may hold bits (ids
  // k*64 .. k*64+63), in increasing k, whatever the row's kind, while f
  // returns true.
  template <typename F>
  void ForEachRowWord(uint32_t a, F&& f) const {
    if (words_ > 0) {
      const uint64_t* row = &matrix_[a * words_];
      ForEachSummaryWord(&summary_[a * summary_words_], nullptr, [&](size_t k) { return f(k, row[k]); });
      return;
    }
    if (const uint64_t* d = dense_[a]) {
      for (size_t k = 0; k < row_words_; ++k) {
        if (d[k] != 0 && !f(k, d[k])) return;
      }
      return;
    }
    for (const Word& w : sparse_[a]) {
      if (!f(w.index, w.bits())) return;
    }
  }
  // Calls f(k) for each word k of a matrix row that `summary` (or `other`,
  // if not null) names, in increasing order, while f returns true.
  template <typename F>
  void ForEachSummaryWord(const uint64_t* summary, const uint64_t* other, F&& f) const {
    for (size_t s = 0; s < summary_words_; ++s) {
      for (uint64_t words = summary[s] | (other != nullptr ? other[s] : 0); words != 0; words &= words - 1) {
        if (!f(s * 64 + static_cast<size_t>(__builtin_ctzll(words)))) return;
      }
    }
  }
  template <typename F>
  static bool VisitBits(size_t index, uint64_t bits, F& f) {
    for (; bits != 0; bits &= bits - 1) {
      const uint32_t m = static_cast<uint32_t>(index * 64 + __builtin_ctzll(bits));
      if constexpr (std::is_same_v<decltype(f(m)), bool>) {
        if (!f(m)) return false;
      } else {
        f(m);
      }
    }
    return true;
  }
  // Sets bit b of a's row; false if it was set.
  bool SetBit(uint32_t a, uint32_t b) {
    if (words_ == 0) return SetSparseBit(a, b);
    const uint32_t k = b >> 6;
    uint64_t& word = matrix_[a * words_ + k];
    const uint64_t bit = uint64_t{1} << (b & 63);
    if (word & bit) return false;
    word |= bit;
    ++degree_[a];
    summary_[a * summary_words_ + (k >> 6)] |= uint64_t{1} << (k & 63);
    return true;
  }
  // Its usual cases inline: a dense row, or the row's last word already
  // holds b's word (a long-lived node meets each def of a block in turn).
  bool SetSparseBit(uint32_t a, uint32_t b) {
    if (uint64_t* d = dense_[a]) return SetDenseBit(d, a, b);
    Row& row = sparse_[a];
    if (row.empty() || row.back().index != b >> 6) return SetSparseBitElsewhere(a, b);
    const uint64_t bit = uint64_t{1} << (b & 63);
    const uint64_t bits = row.back().bits();
    if (bits & bit) return false;
    row.back().set_bits(bits | bit);
    ++degree_[a];
    return true;
  }
  bool SetSparseBitElsewhere(uint32_t a, uint32_t b);
  bool SetDenseBit(uint64_t* d, uint32_t a, uint32_t b) {
    uint64_t& word = d[b >> 6];
    const uint64_t bit = uint64_t{1} << (b & 63);
    if (word & bit) return false;
    word |= bit;
    ++degree_[a];
    return true;
  }
  // Makes a's sparse row dense once it holds more than dense_after_ words.
  void MaybeDense(uint32_t a) {
    if (sparse_[a].size() > dense_after_) MakeDense(a);
  }
  void MakeDense(uint32_t a);
  // Word k of a sparse-mode row, asked in increasing k (a dense row's word,
  // or a sparse row's, found past the words asked before).
  class RowCursor {
   public:
    RowCursor(const InterferenceGraph& g, uint32_t a) : dense_(g.dense_[a]), sparse_(g.sparse_[a]) {}
    uint64_t At(size_t k) {
      if (dense_ != nullptr) return dense_[k];
      while (next_ < sparse_.size() && sparse_[next_].index < k) ++next_;
      return next_ < sparse_.size() && sparse_[next_].index == k ? sparse_[next_].bits() : 0;
    }

   private:
    const uint64_t* dense_;
    const InterferenceGraph::Row& sparse_;
    size_t next_ = 0;
  };
  // Room for `words` words in a sparse row: a block of the next class up (at
  // least kFirstRowWords: a row's words come one at a time, and growing 1, 2,
  // 4, ... took a copy each), or larger if `words` needs it, the words moved,
  // the old block given back.
  static constexpr uint32_t kFirstRowWords = 8;
  void ReserveRow(Row& row, size_t words) {
    if (words <= row.capacity) return;
    int k = row.capacity == 0 ? 0 : ClassOf(row.capacity) + 1;
    while (ClassWords(k) < words) ++k;
    const uint32_t capacity = ClassWords(k);
    Word* block = pool_.Take(k);
    if (row.count > 0) std::memcpy(static_cast<void*>(block), row.data, row.count * sizeof(Word));
    if (row.data != nullptr) pool_.Give(row.data, row.capacity);
    row.data = block;
    row.capacity = capacity;
  }
  void RoomForWord(Row& row) {
    if (row.count == row.capacity) ReserveRow(row, row.count + 1);
  }
  // Empties a row and gives its block back.
  void DropRow(Row& row) {
    if (row.data != nullptr) pool_.Give(row.data, row.capacity);
    row = Row();
  }
  void ClearBit(uint32_t a, uint32_t b);
  bool Bit(uint32_t a, uint32_t b) const;
  // The word of a's sparse row holding index `index`, or nullptr.
  const Word* FindWord(uint32_t a, uint32_t index) const;

  int num_nodes_ = 0;
  size_t words_ = 0;  // per matrix row; 0: sparse rows
  std::vector<uint64_t> matrix_;
  // Matrix rows' summaries: bit k of row a's summary is set where word k of
  // the row may hold bits (set with its first bit; a word whose bits were
  // cleared may keep it), summary_words_ per row.
  std::vector<uint64_t> summary_;
  size_t summary_words_ = 0;
  std::vector<Row> sparse_;
  RowPool pool_;
  // Sparse mode: per node, its dense row (row_words_ words) or nullptr; the
  // rows themselves, each a heap block that stays where it is (a pointer to
  // it survives other rows turning dense). Blocks are kept from build to
  // build: the first dense_used_ serve this one, the rest wait for the next
  // (a build makes a few hundred dense rows, and the next build about as
  // many, of about the same size).
  struct DenseBlock {
    std::unique_ptr<uint64_t[]> words;
    size_t capacity = 0;
  };
  std::vector<uint64_t*> dense_;
  std::vector<DenseBlock> dense_rows_;
  size_t dense_used_ = 0;
  size_t row_words_ = 0;
  size_t dense_after_ = 0;
  std::vector<int32_t> degree_;
  // Merged into another node, a bit per node (Merge's rows are OR-ed word by
  // word against it).
  std::vector<uint64_t> dead_bits_;
  bool Dead(uint32_t n) const { return (dead_bits_[n >> 6] >> (n & 63)) & 1; }
  // Word k of a's row gains `fresh` (bits it did not hold): its degree, and
  // its stale count for those naming merged nodes.
  void CountFresh(uint32_t a, size_t k, uint64_t fresh) {
    degree_[a] += BitSet256::PopCount(fresh);
    stale_[a] += BitSet256::PopCount(fresh & dead_bits_[k]);
  }
  std::vector<int32_t> stale_;       // per node: its row's entries that name merged nodes
  std::vector<Word> merged_;   // Merge's buffer
  int64_t edges_ = 0;
};

}  // namespace regalloc

#endif  // REGALLOC_CHAITIN_IFG_H_
