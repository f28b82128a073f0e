#include "chaitin/ifg.h"

#include <algorithm>

namespace regalloc {

void InterferenceGraph::Reset(int num_nodes, int64_t matrix_max_bytes, int64_t dense_row_words) {
  num_nodes_ = num_nodes;
  degree_.assign(num_nodes, 0);
  stale_.assign(num_nodes, 0);
  dead_bits_.assign((static_cast<size_t>(num_nodes) + 63) / 64, 0);
  dense_.assign(num_nodes, nullptr);
  dense_used_ = 0;
  edges_ = 0;
  const size_t words = (static_cast<size_t>(num_nodes) + 63) / 64;
  const size_t new_words =
      num_nodes > 0 && static_cast<int64_t>(words * num_nodes * 8) <= matrix_max_bytes ? words : 0;
  const size_t size = new_words * num_nodes;
  if (size > matrix_.capacity()) {
    matrix_.assign(size, 0);  // exactly the size (a resize could double it)
  } else {
    // Every bit of a matrix row lies in the words its summary names:
    // clearing those leaves the whole matrix zero, which a resize keeps (a
    // round's graph touches a small part of the n² bits).
    for (size_t n = 0; words_ > 0 && n * summary_words_ < summary_.size(); ++n) {
      ForEachSummaryWord(&summary_[n * summary_words_], nullptr, [&](size_t k) {
        matrix_[n * words_ + k] = 0;
        return true;
      });
    }
    matrix_.resize(size);
  }
  words_ = new_words;
  row_words_ = words;
  dense_after_ = static_cast<size_t>(dense_row_words == kDenseRowsAuto
                                         ? std::max<int64_t>(kMinDenseRowWords, static_cast<int64_t>(words / 4))
                                         : dense_row_words);
  summary_words_ = (words_ + 63) / 64;
  summary_.assign(summary_words_ * num_nodes, 0);
  if (words_ > 0) {
    sparse_.clear();
    pool_.Reset();
    return;
  }
  // Room for a quarter more: a later round's graph has some more nodes (the
  // spill temporaries: 8% more at 10k instructions), and growing would move
  // every row header (the standard resize doubles).
  if (static_cast<size_t>(num_nodes) > sparse_.capacity()) {
    sparse_.reserve(static_cast<size_t>(num_nodes) + static_cast<size_t>(num_nodes) / 4);
  }
  // Every row empty, and every block back in the pool at once.
  sparse_.assign(num_nodes, Row());
  pool_.Reset();
}

void InterferenceGraph::RowPool::GiveRest(Word* rest, size_t words) {
  while (words >= kFirstRowWords) {
    const int k = ClassAtMost(words);
    Give(rest, ClassWords(k));
    rest += ClassWords(k);
    words -= ClassWords(k);
  }
}

InterferenceGraph::Word* InterferenceGraph::RowPool::Take(int k) {
  auto pop = [&](int j) {
    Word* block = free_[j];
    std::memcpy(&free_[j], static_cast<const void*>(block), sizeof(Word*));
    if (free_[j] == nullptr) nonempty_ &= ~(uint64_t{1} << j);
    return block;
  };
  if (free_[k] != nullptr) return pop(k);
  const uint32_t words = ClassWords(k);
  // A larger free block is split (rows grow, giving their smaller blocks
  // back, while new rows want the smallest): its first `words` taken, the
  // rest given back in blocks of classes. The smallest larger class that
  // has one.
  if (const uint64_t larger = nonempty_ >> (k + 1) << (k + 1); larger != 0) {
    const int j = __builtin_ctzll(larger);
    Word* block = pop(j);
    GiveRest(block + words, ClassWords(j) - words);
    return block;
  }
  // Carve from the current chunk, else the next one large enough (what was
  // left of the one before goes to the free lists, in blocks of classes),
  // else a new chunk of 8k words (96 KB: a graph of 10k instructions takes a
  // dozen or two, of 1M a few thousand; larger chunks left more of the last
  // one unused).
  while (chunk_ < chunks_.size() && chunks_[chunk_].size - used_ < words) {
    GiveRest(chunks_[chunk_].words.get() + used_, chunks_[chunk_].size - used_);
    ++chunk_;
    used_ = 0;
  }
  if (chunk_ == chunks_.size()) {
    constexpr size_t kChunkWords = size_t{1} << 13;
    const size_t size = std::max<size_t>(words, kChunkWords);
    Chunk chunk;
    chunk.words.reset(static_cast<Word*>(::operator new(size * sizeof(Word))));
    chunk.size = size;
    chunks_.push_back(std::move(chunk));
    used_ = 0;
  }
  Word* block = chunks_[chunk_].words.get() + used_;
  used_ += words;
  return block;
}

int64_t InterferenceGraph::RowPool::Bytes() const {
  int64_t bytes = static_cast<int64_t>(chunks_.capacity() * sizeof(Chunk));
  for (const Chunk& c : chunks_) bytes += static_cast<int64_t>(c.size * sizeof(Word));
  return bytes;
}

namespace {

// The first word of a sparse row at or past word index `index`.
template <typename Row>
auto WordAtOrAfter(Row& row, uint32_t index) {
  return std::lower_bound(row.begin(), row.end(), index, [](const auto& w, uint32_t i) { return w.index < i; });
}

}  // namespace

void InterferenceGraph::MakeDense(uint32_t a) {
  if (dense_used_ == dense_rows_.size()) dense_rows_.emplace_back();
  DenseBlock& block = dense_rows_[dense_used_++];
  if (block.capacity < row_words_) {
    block.words = std::make_unique<uint64_t[]>(row_words_);  // zeroed
    block.capacity = row_words_;
  } else {
    std::fill(block.words.get(), block.words.get() + row_words_, 0);
  }
  uint64_t* d = block.words.get();
  for (const Word& w : sparse_[a]) d[w.index] = w.bits();
  DropRow(sparse_[a]);
  dense_[a] = d;
}

const InterferenceGraph::Word* InterferenceGraph::FindWord(uint32_t a, uint32_t index) const {
  const Row& row = sparse_[a];
  auto it = WordAtOrAfter(row, index);
  return it != row.end() && it->index == index ? &*it : nullptr;
}

bool InterferenceGraph::Bit(uint32_t a, uint32_t b) const {
  if (words_ > 0) return (matrix_[a * words_ + (b >> 6)] >> (b & 63)) & 1;
  if (const uint64_t* d = dense_[a]) return (d[b >> 6] >> (b & 63)) & 1;
  const Word* w = FindWord(a, b >> 6);
  return w != nullptr && ((w->bits() >> (b & 63)) & 1);
}

bool InterferenceGraph::SetSparseBitElsewhere(uint32_t a, uint32_t b) {
  // Not the last word (SetSparseBit tried it). Rows grow mostly at their end
  // (the build walks blocks in layout order, and ids follow it): try past it
  // and next to it before searching. A new word is written whole, never read
  // back (reading its 8 bytes of bits across the two 4-byte stores that wrote
  // them stalls store forwarding).
  Row& row = sparse_[a];
  const uint32_t index = b >> 6;
  const uint64_t bit = uint64_t{1} << (b & 63);
  const size_t n = row.size();
  // A new word holding only the bit, at position `at` of the row.
  auto add_word = [&](size_t at) {
    RoomForWord(row);
    std::memmove(static_cast<void*>(row.data + at + 1), row.data + at, (row.count - at) * sizeof(Word));
    row.data[at] = Word(index, bit);
    ++row.count;
    ++degree_[a];
    MaybeDense(a);
    return true;
  };
  if (n == 0 || row.back().index < index) return add_word(n);
  Word* word;
  if (n >= 2 && row[n - 2].index == index) {  // a block's defs cross a word boundary
    word = &row[n - 2];
  } else if (n >= 2 && row[n - 2].index < index) {
    return add_word(n - 1);
  } else {
    auto it = WordAtOrAfter(row, index);
    if (it->index != index) return add_word(static_cast<size_t>(it - row.begin()));
    word = &*it;
  }
  const uint64_t bits = word->bits();
  if (bits & bit) return false;
  word->set_bits(bits | bit);
  ++degree_[a];
  return true;
}

void InterferenceGraph::AddEdges(uint32_t a, const NodeSet& to, uint32_t skip) {
  const uint32_t ka = a >> 6;
  const uint64_t bit_a = uint64_t{1} << (a & 63);
  // The word of `to` at `index` without a and skip.
  auto wanted = [&](uint32_t index) {
    uint64_t bits = to.word(index);
    if (index == ka) bits &= ~bit_a;
    if (index == skip >> 6) bits &= ~(uint64_t{1} << (skip & 63));
    return bits;
  };
  if (words_ > 0) {
    uint64_t* row_a = &matrix_[a * words_];
    uint64_t* summary_a = &summary_[a * summary_words_];
    const size_t summary_ka = ka >> 6;
    const uint64_t summary_bit_a = uint64_t{1} << (ka & 63);
    int32_t added = 0;
    for (uint32_t index : to.words()) {
      const uint64_t fresh = wanted(index) & ~row_a[index];
      if (fresh == 0) continue;
      row_a[index] |= fresh;
      added += BitSet256::PopCount(fresh);
      summary_a[index >> 6] |= uint64_t{1} << (index & 63);
      for (uint64_t bits = fresh; bits != 0; bits &= bits - 1) {
        const uint32_t b = index * 64 + static_cast<uint32_t>(__builtin_ctzll(bits));
        uint64_t& word = matrix_[b * words_ + ka];
        if ((word & bit_a) != 0) continue;
        word |= bit_a;
        ++degree_[b];
        summary_[b * summary_words_ + summary_ka] |= summary_bit_a;
      }
    }
    degree_[a] += added;
    edges_ += added;
    return;
  }
  if (uint64_t* d = dense_[a]) {
    int32_t added = 0;
    for (uint32_t index : to.words()) {
      uint64_t kept = 0;
      for (uint64_t bits = wanted(index) & ~d[index]; bits != 0; bits &= bits - 1) {
        const int bit = __builtin_ctzll(bits);
        if (SetSparseBit(index * 64 + static_cast<uint32_t>(bit), a)) kept |= uint64_t{1} << bit;
      }
      d[index] |= kept;
      added += BitSet256::PopCount(kept);
    }
    degree_[a] += added;
    edges_ += added;
    return;
  }
  // Each word's new bits go to the other rows (mostly at their ends: see
  // SetSparseBit), then into a's row: appended where they pass its end (a
  // def's first batch), else merged in one pass.
  Row& row = sparse_[a];
  const size_t old_size = row.size();
  merged_.clear();
  size_t i = 0;
  for (uint32_t index : to.words()) {
    while (i < old_size && row[i].index < index) ++i;
    const bool had = i < old_size && row[i].index == index;
    uint64_t kept = 0;
    for (uint64_t bits = wanted(index) & ~(had ? row[i].bits() : 0); bits != 0; bits &= bits - 1) {
      const int bit = __builtin_ctzll(bits);
      if (SetSparseBit(index * 64 + static_cast<uint32_t>(bit), a)) kept |= uint64_t{1} << bit;
    }
    if (kept == 0) continue;
    const int count = BitSet256::PopCount(kept);
    degree_[a] += count;
    edges_ += count;
    if (had) {
      row[i].set_bits(row[i].bits() | kept);
    } else if (i == old_size) {
      RoomForWord(row);
      row.data[row.count++] = Word(index, kept);
    } else {
      merged_.push_back(Word(index, kept));  // between a's words: merged below
    }
  }
  if (!merged_.empty()) {
    // Words that fall before or between the row's words (a value defined in
    // a block, whose row got the later defs of the block first, meets the
    // long-lived values): the two sorted lists merged from the back, in place.
    size_t from = row.size(), extra = merged_.size();
    ReserveRow(row, from + extra);
    row.count = static_cast<uint32_t>(from + extra);
    for (size_t to = row.size(); extra > 0;) {
      if (from > 0 && row[from - 1].index > merged_[extra - 1].index) {
        row[--to] = row[--from];
      } else {
        row[--to] = merged_[--extra];
      }
    }
  }
  MaybeDense(a);
}

void InterferenceGraph::ClearBit(uint32_t a, uint32_t b) {
  const uint64_t bit = uint64_t{1} << (b & 63);
  if (words_ > 0) {
    matrix_[a * words_ + (b >> 6)] &= ~bit;
  } else if (uint64_t* d = dense_[a]) {
    d[b >> 6] &= ~bit;
  } else {
    // The bit is set, so its word is there (a word left empty stays). Merge
    // clears a merged node's bit in each of its neighbours' rows, which often
    // hold it among their first words: those first, then a search (at 1M the
    // search's cache misses were 4.5% of chaitin's time; the last four words
    // first ran slower).
    Row& row = sparse_[a];
    const uint32_t index = b >> 6;
    Word* word = nullptr;
    for (size_t k = 0, last = std::min<size_t>(row.count, 4); k < last; ++k) {
      if (row.data[k].index == index) {
        word = &row.data[k];
        break;
      }
    }
    if (word == nullptr) word = WordAtOrAfter(row, index);
    word->set_bits(word->bits() & ~bit);
  }
  --degree_[a];
}

bool InterferenceGraph::Interferes(uint32_t a, uint32_t b) const {
  // The rows of live nodes are symmetric: ask the one that answers fastest
  // (a dense row, else the shorter).
  if (words_ == 0 && dense_[a] == nullptr && (dense_[b] != nullptr || sparse_[b].size() < sparse_[a].size())) {
    return Bit(b, a);
  }
  return Bit(a, b);
}

std::vector<uint32_t> InterferenceGraph::Neighbors(uint32_t a) const {
  std::vector<uint32_t> out;
  out.reserve(degree_[a]);
  ForEachNeighbor(a, [&](uint32_t m) { out.push_back(m); });
  return out;
}

void InterferenceGraph::Merge(uint32_t a, uint32_t b) {
  // Each live neighbour n of b gets a; where it had a already, b stays
  // (stale), else b's entry becomes a. b's edges leave the count, a's new
  // ones join it.
  if (words_ > 0) {
    ForEachNeighbor(b, [&](uint32_t n) {
      if (Dead(n)) return;
      --edges_;
      if (Bit(n, a)) {
        ++stale_[n];  // n keeps b, stale
        return;
      }
      SetBit(n, a);
      ClearBit(n, b);
      ++edges_;
    });
  } else {
    // Whether n lists a is read off a's row (the rows of live nodes are
    // symmetric), walked beside b's in word order: one search in n's row
    // for b's bit, and a's set next to it or at the row's end, mostly.
    // (Rows other than a's and b's may turn dense here, not these two.)
    RowCursor row_a(*this, a);
    ForEachRowWord(b, [&](size_t index, uint64_t bits) {
      const uint64_t in_a = row_a.At(index);
      for (; bits != 0; bits &= bits - 1) {
        const int bit = __builtin_ctzll(bits);
        const uint32_t n = static_cast<uint32_t>(index * 64) + static_cast<uint32_t>(bit);
        if (Dead(n)) continue;
        if ((in_a >> bit) & 1) {
          --edges_;  // n keeps b, stale
          ++stale_[n];
          continue;
        }
        ClearBit(n, b);
        SetSparseBit(n, a);
      }
      return true;
    });
  }
  if (words_ > 0) {
    uint64_t* row_a = &matrix_[a * words_];
    uint64_t* row_b = &matrix_[b * words_];
    uint64_t* summary_a = &summary_[a * summary_words_];
    uint64_t* summary_b = &summary_[b * summary_words_];
    ForEachSummaryWord(summary_b, nullptr, [&](size_t k) {
      CountFresh(a, k, row_b[k] & ~row_a[k]);
      row_a[k] |= row_b[k];
      row_b[k] = 0;
      return true;
    });
    for (size_t s = 0; s < summary_words_; ++s) {
      summary_a[s] |= summary_b[s];
      summary_b[s] = 0;
    }
  } else if (dense_[a] != nullptr || dense_[b] != nullptr) {
    // Into a dense row (a's, made dense if only b's was): b's words OR-ed in.
    if (dense_[a] == nullptr) MakeDense(a);
    uint64_t* x = dense_[a];
    auto add = [&](size_t k, uint64_t bits) {
      CountFresh(a, k, bits & ~x[k]);
      x[k] |= bits;
    };
    ForEachRowWord(b, [&](size_t k, uint64_t bits) {
      add(k, bits);
      return true;
    });
    dense_[b] = nullptr;  // its block stays unused until the next build (which clears it)
    DropRow(sparse_[b]);
  } else {
    Row& x = sparse_[a];
    Row& y = sparse_[b];
    merged_.clear();
    size_t i = 0, j = 0;
    while (i < x.size() || j < y.size()) {
      if (j == y.size() || (i < x.size() && x[i].index < y[j].index)) {
        merged_.push_back(x[i++]);
      } else if (i == x.size() || y[j].index < x[i].index) {
        CountFresh(a, y[j].index, y[j].bits());
        merged_.push_back(y[j++]);
      } else {
        CountFresh(a, y[j].index, y[j].bits() & ~x[i].bits());
        merged_.push_back(Word(x[i].index, x[i].bits() | y[j].bits()));
        ++i;
        ++j;
      }
    }
    if (!merged_.empty()) {
      ReserveRow(x, merged_.size());
      std::memcpy(static_cast<void*>(x.data), merged_.data(), merged_.size() * sizeof(Word));
    }
    x.count = static_cast<uint32_t>(merged_.size());
    DropRow(y);
    MaybeDense(a);
  }
  degree_[b] = 0;
  stale_[b] = 0;
  dead_bits_[b >> 6] |= uint64_t{1} << (b & 63);
}

int64_t InterferenceGraph::MemoryBytes() const {
  int64_t bytes = static_cast<int64_t>(matrix_.capacity() * sizeof(uint64_t) + summary_.capacity() * 8 +
                                       sparse_.capacity() * sizeof(Row) + pool_.Bytes() +
                                       degree_.capacity() * sizeof(int32_t) +
                                       stale_.capacity() * sizeof(int32_t) + dead_bits_.capacity() * 8);
  bytes += static_cast<int64_t>(dense_.capacity() * sizeof(uint64_t*));
  for (const DenseBlock& block : dense_rows_) bytes += static_cast<int64_t>(block.capacity * 8);
  return bytes;
}

}  // namespace regalloc
