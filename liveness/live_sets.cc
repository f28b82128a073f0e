#include "liveness/live_sets.h"

#include <algorithm>
#include <functional>

#include "absl/container/flat_hash_map.h"
#include "base/bitset.h"
#include "base/chunked_store.h"
#include "base/warm_buffers.h"
#include "ssa/cfg.h"

namespace regalloc {
namespace {

constexpr uint32_t kNoSize = ~0u;  // a block the fixpoint did not visit

// The bits set in a bit vector of `words` words.
size_t CountBits(const uint64_t* bits, size_t words) {
  size_t c = 0;
  for (size_t k = 0; k < words; ++k) c += static_cast<size_t>(BitSet256::PopCount(bits[k]));
  return c;
}

// out = the union of b's successors' bit vectors (`words` words each, block
// s's at rows + s * words): a block's live-out set, where the sets are bits.
void UnionOfSuccessors(const ControlFlowGraph& cfg, Block b, const uint64_t* rows, size_t words,
                       std::vector<uint64_t>& out) {
  std::fill(out.begin(), out.end(), 0);
  for (const Edge& e : cfg.succs(b)) {
    const uint64_t* row = rows + e.to.index() * words;
    for (size_t k = 0; k < words; ++k) out[k] |= row[k];
  }
}

// out = a ∪ b, all sorted: a merge written through a pointer (a push per
// element cost a third of the fixpoint), with branches, not selects: the two
// sets are mostly equal (a branch's successors), so the equal case predicts
// well, where a branchless merge waits on each comparison.
void Union(absl::Span<const uint32_t> a, absl::Span<const uint32_t> b, std::vector<uint32_t>& out) {
  out.resize(a.size() + b.size());
  uint32_t* w = out.data();
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const uint32_t x = a[i], y = b[j];
    if (x == y) {
      *w++ = x;
      ++i;
      ++j;
    } else if (x < y) {
      *w++ = x;
      ++i;
    } else {
      *w++ = y;
      ++j;
    }
  }
  while (i < a.size()) *w++ = a[i++];
  while (j < b.size()) *w++ = b[j++];
  out.resize(static_cast<size_t>(w - out.data()));
}

}  // namespace

void LiveSets::Compute(const Function& func, absl::Span<const uint8_t> skip) {
  s_.cfg.Compute(func);
  Compute(func, s_.cfg, skip);
}

void LiveSets::Compute(const Function& func, const ControlFlowGraph& cfg, absl::Span<const uint8_t> skip) {
  cfg_ = &cfg;
  ComputeSets(func, skip);
  cfg_ = nullptr;
  // The working storage is as big as the result: keep it for the next
  // function only when that costs little (a compiler allocating many small
  // functions), not after a large one, where it would stay beside the sets
  // through every phase that reads them (base/warm_buffers.h's policy).
  ReleaseAfterLargeFunction(func.num_insts(), s_);
}

void LiveSets::ComputeSets(const Function& func, absl::Span<const uint8_t> skip) {
  global_index_.assign(func.num_values(), -1);
  def_block_.assign(func.num_values(), Block());
  num_global_ = 0;
  block_visits_ = 0;
  // Pass 1: the defining block of every value, and the layout positions of the
  // first and last blocks each appears in: a value in more than one block is
  // global.
  const bool give_back = func.num_insts() > kWarmBufferInsts;  // the scratch, once read
  std::vector<uint32_t>& first_pos = s_.first_pos;
  std::vector<uint32_t>& last_pos = s_.last_pos;
  first_pos.assign(func.num_values(), ~0u);
  last_pos.resize(func.num_values());
  uint32_t pos = 0;
  auto at = [&](Value v) {
    if (first_pos[v.index()] == ~0u) first_pos[v.index()] = pos;
    last_pos[v.index()] = pos;
  };
  for (Block b : func.layout()) {
    for (const Operand& p : func.block(b).params) {
      def_block_[p.value().index()] = b;
      at(p.value());
    }
    for (Inst i : func.block(b).insts) {
      for (const Operand& op : func.operands(i)) {
        if (op.IsDef()) def_block_[op.value().index()] = b;
        at(op.value());
      }
    }
    ++pos;
  }
  for (int v = 0; v < func.num_values(); ++v) {
    if (first_pos[v] != last_pos[v] && first_pos[v] != ~0u && (static_cast<size_t>(v) >= skip.size() || skip[v] == 0)) {
      global_index_[v] = num_global_++;
    }
  }
  const size_t nb = func.num_blocks();
  const size_t words = (static_cast<size_t>(num_global_) + 63) / 64;
  const bool dense = nb * words <= dense_max_words_;  // bit vectors (else sorted lists)
  // The bit vectors' result translates global indexes back to values.
  std::vector<Value>& global_value = s_.global_value;
  global_value.assign(dense ? num_global_ : 0, Value());
  for (int v = 0; dense && v < func.num_values(); ++v) {
    if (global_index_[v] >= 0) global_value[global_index_[v]] = Value(v);
  }
  // With sorted lists, the long-lived values go to bit vectors beside them
  // (set_long_value_span): those spanning the most blocks of the layout, up
  // to kLongValueWords words, taken in value order.
  std::vector<int32_t>& long_bit = s_.long_bit;
  std::vector<Value>& long_value = s_.long_value;
  long_value.clear();
  size_t lw = 0;  // words per block
  if (!dense && long_span_ != kNoLongValues) {
    uint32_t span_min = long_span_ != kLongSpanAuto ? long_span_ : std::max<uint32_t>(64, pos / 64);
    const size_t cap = kLongValueWords * 64;
    auto span = [&](int v) { return last_pos[v] - first_pos[v]; };
    std::vector<uint32_t>& spans = s_.spans;
    spans.clear();
    for (int v = 0; v < func.num_values(); ++v) {
      if (global_index_[v] >= 0 && span(v) >= span_min) spans.push_back(span(v));
    }
    if (spans.size() > cap) {  // the cap longest (ties: the first in value order)
      std::nth_element(spans.begin(), spans.begin() + static_cast<std::ptrdiff_t>(cap - 1), spans.end(),
                       std::greater<uint32_t>());
      span_min = spans[cap - 1];
    }
    long_bit.assign(func.num_values(), -1);
    for (int v = 0; v < func.num_values() && long_value.size() < cap; ++v) {
      if (global_index_[v] < 0 || span(v) < span_min) continue;
      long_bit[v] = static_cast<int32_t>(long_value.size());
      long_value.push_back(Value(v));
    }
    lw = (long_value.size() + 63) / 64;
  }
  if (give_back) {
    std::vector<uint32_t>().swap(first_pos);
    std::vector<uint32_t>().swap(last_pos);
  }
  num_long_ = static_cast<int>(long_value.size());
  std::vector<uint64_t>& long_ue = s_.long_ue;
  std::vector<uint64_t>& long_defs = s_.long_defs;
  long_ue.assign(lw * nb, 0);
  long_defs.assign(lw * nb, 0);
  auto set_bit = [&](std::vector<uint64_t>& rows, size_t b, int32_t bit) {
    rows[b * lw + static_cast<size_t>(bit >> 6)] |= uint64_t{1} << (bit & 63);
  };

  // Pass 2: per block, upward-exposed uses and defs of global values, as sorted
  // keys, in flat rows (the long-lived values' as bits instead). In SSA a use in the defining block follows the def, so a
  // use is upward-exposed exactly when the value is defined elsewhere. The keys
  // are global indexes where the sets are bit vectors (Pass 3), else value
  // indexes: a sorted list of those is the result as it is, with no
  // translation per element (both orders are the same).
  CompressedRows<uint32_t>& ue = s_.ue;
  CompressedRows<uint32_t>& defs = s_.defs;
  ue.Clear();
  defs.Clear();
  std::vector<uint32_t>& u = s_.u;
  std::vector<uint32_t>& d = s_.d;
  for (size_t bi = 0; bi < nb; ++bi) {
    Block b(static_cast<uint32_t>(bi));
    u.clear();
    d.clear();
    if (func.block(b).in_layout) {
      for (const Operand& p : func.block(b).params) {
        const int32_t g = global_index_[p.value().index()];
        if (g < 0) continue;
        if (lw > 0 && long_bit[p.value().index()] >= 0) {
          set_bit(long_defs, bi, long_bit[p.value().index()]);
        } else {
          d.push_back(dense ? static_cast<uint32_t>(g) : p.value().index());
        }
      }
      for (Inst i : func.block(b).insts) {
        for (const Operand& op : func.operands(i)) {
          const int32_t g = global_index_[op.value().index()];
          if (g < 0) continue;
          if (lw > 0 && long_bit[op.value().index()] >= 0) {
            if (op.IsDef()) {
              set_bit(long_defs, bi, long_bit[op.value().index()]);
            } else if (def_block_[op.value().index()] != b) {
              set_bit(long_ue, bi, long_bit[op.value().index()]);
            }
            continue;
          }
          const uint32_t key = dense ? static_cast<uint32_t>(g) : op.value().index();
          if (op.IsDef()) {
            d.push_back(key);
          } else if (def_block_[op.value().index()] != b) {
            u.push_back(key);
          }
        }
      }
      std::sort(u.begin(), u.end());
      u.erase(std::unique(u.begin(), u.end()), u.end());
      std::sort(d.begin(), d.end());
    }
    ue.AppendRow(u);
    defs.AppendRow(d);
  }
  if (give_back) std::vector<int32_t>().swap(long_bit);

  // Pass 3: the fixpoint over live-in sets only (live-out is the union of the
  // successors' live-in, taken once at the end). Blocks are visited in post-order
  // first (successors before predecessors); a block whose live-in grows requeues
  // its predecessors.
  const ControlFlowGraph& cfg = *cfg_;
  if (dense) {
    DenseFixpoint(nb, words);
    return;
  }
  std::vector<Scratch::InRow>& in_rows = s_.in_rows;
  in_rows.assign(nb, Scratch::InRow());
  auto in = [&](size_t b) { return absl::MakeConstSpan(in_rows[b].data, in_rows[b].size); };
  ChunkedStore<uint32_t>& store = s_.in_store;
  // A set holds at most every global value, so it fits in a chunk.
  store.Clear(std::max<size_t>(size_t{1} << 18, num_global_));
  auto keep = [&](absl::Span<const uint32_t> set) {
    uint32_t* at = store.Allot(set.size());
    std::copy(set.begin(), set.end(), at);
    return Scratch::InRow{at, static_cast<uint32_t>(set.size()), static_cast<uint32_t>(store.last_chunk())};
  };
  std::vector<uint32_t>& out = s_.out;
  std::vector<uint32_t>& merged = s_.merged;
  std::vector<uint32_t>& next_in = s_.next_in;
  auto live_out = [&](Block b) {
    absl::Span<const Edge> succs = cfg.succs(b);
    if (succs.size() == 2) {  // the usual branch: one merge
      Union(in(succs[0].to.index()), in(succs[1].to.index()), out);
      return;
    }
    out.clear();
    for (const Edge& e : succs) {
      Union(out, in(e.to.index()), merged);
      out.swap(merged);
    }
  };
  // The live-out set: a single successor's live-in as it is, else the union
  // (in `out`).
  auto out_of = [&](Block b) -> absl::Span<const uint32_t> {
    absl::Span<const Edge> succs = cfg.succs(b);
    if (succs.size() == 1) return in(succs[0].to.index());
    live_out(b);
    return out;
  };
  // Each visit's live-out size: a block's last visit saw its successors'
  // final sets (a change to one requeues it), so Flatten reads the size of
  // a union instead of merging the two sets again.
  std::vector<uint32_t>& out_size = s_.out_size;
  out_size.assign(nb, kNoSize);
  // The long-lived values' live-in bits, and live-out as the union of the
  // successors' (in long_out).
  std::vector<uint64_t>& long_in = s_.long_in;
  std::vector<uint64_t>& long_out = s_.long_out;
  long_in.assign(lw * nb, 0);
  long_out.assign(lw, 0);
  auto long_live_out = [&](Block b) { UnionOfSuccessors(cfg, b, long_in.data(), lw, long_out); };
  // A sorted list and long-lived bits, merged into values.
  auto write = [&](absl::Span<const uint32_t> list, const uint64_t* bits, Value* row) {
    const uint32_t* l = list.data();
    const uint32_t* const l_end = l + list.size();
    for (size_t k = 0; k < lw; ++k) {
      for (uint64_t w = bits[k]; w != 0; w &= w - 1) {
        const uint32_t v = long_value[k * 64 + static_cast<size_t>(__builtin_ctzll(w))].index();
        while (l != l_end && *l < v) *row++ = Value(*l++);
        *row++ = Value(v);
      }
    }
    while (l != l_end) *row++ = Value(*l++);
  };
  Fixpoint(nb, [&](Block b) {
    bool long_grew = false;
    if (lw > 0) {
      long_live_out(b);
      const uint64_t* ue_bits = long_ue.data() + b.index() * lw;
      const uint64_t* def_bits = long_defs.data() + b.index() * lw;
      uint64_t* in_bits = long_in.data() + b.index() * lw;
      for (size_t k = 0; k < lw; ++k) {
        const uint64_t next = (long_out[k] & ~def_bits[k]) | ue_bits[k];
        long_grew |= next != in_bits[k];
        in_bits[k] = next;
      }
    }
    absl::Span<const uint32_t> bout = out_of(b);
    out_size[b.index()] = static_cast<uint32_t>(bout.size());
    // in = ue ∪ (out − defs) in one pass: defs and ue are a block's few
    // global values, out the hundreds live across it, so out is copied in
    // runs, each ending where the next def or use would fall (a binary search),
    // not compared element by element.
    absl::Span<const uint32_t> bd = defs.Row(b.index());
    absl::Span<const uint32_t> bu = ue.Row(b.index());
    next_in.resize(bout.size() + bu.size());
    uint32_t* w = next_in.data();
    const uint32_t* o = bout.data();
    const uint32_t* const o_end = o + bout.size();
    size_t j = 0, k = 0;
    while (j < bd.size() || k < bu.size()) {
      const bool use = k < bu.size() && (j == bd.size() || bu[k] <= bd[j]);
      const uint32_t key = use ? bu[k] : bd[j];
      const uint32_t* run_end = std::lower_bound(o, o_end, key);
      w = std::copy(o, run_end, w);
      o = run_end;
      if (o != o_end && *o == key) ++o;  // live out: kept as a use, dropped as a def
      if (use) {
        *w++ = key;
        ++k;
      }
      if (j < bd.size() && bd[j] == key) ++j;
    }
    w = std::copy(o, o_end, w);
    next_in.resize(static_cast<size_t>(w - next_in.data()));
    // A set only grows from visit to visit (it is a monotone function of its
    // successors' sets, which only grow), so an unchanged size is an
    // unchanged set.
    if (next_in.size() == in_rows[b.index()].size) return long_grew;
    in_rows[b.index()] = keep(next_in);
    return true;
  });

  // After a large function, the live-in sets are copied out chunk by chunk,
  // each chunk given back after its last set: the sets and their copies are
  // not held whole at once (at a million instructions each is some 70 MB).
  std::vector<Block>& in_order = s_.in_order;
  std::vector<uint32_t>& chunk_sets = s_.in_chunk_sets;
  in_order.clear();
  chunk_sets.assign(store.num_chunks() + 1, 0);
  if (give_back) {  // the blocks by chunk (a counting sort; sets in no chunk first)
    auto chunk_of = [&](size_t b) { return in_rows[b].size == 0 ? 0 : in_rows[b].chunk + 1; };
    for (size_t b = 0; b < nb; ++b) ++chunk_sets[chunk_of(b)];
    std::vector<uint32_t>& start = s_.u;  // free again
    start.assign(chunk_sets.size() + 1, 0);
    for (size_t c = 0; c < chunk_sets.size(); ++c) start[c + 1] = start[c] + chunk_sets[c];
    in_order.resize(nb);
    for (size_t b = 0; b < nb; ++b) in_order[start[chunk_of(b)]++] = Block(static_cast<uint32_t>(b));
  }
  auto in_done = [&](size_t b) {
    if (!give_back || in_rows[b].size == 0) return;
    const uint32_t c = in_rows[b].chunk;
    if (--chunk_sets[c + 1] == 0) store.Release(c);
  };
  Flatten(
      nb, [&](size_t b) { return in_rows[b].size + CountBits(long_in.data() + b * lw, lw); },
      [&](size_t b) {
        long_live_out(Block(static_cast<uint32_t>(b)));
        const size_t long_size = CountBits(long_out.data(), lw);
        if (out_size[b] != kNoSize) return static_cast<size_t>(out_size[b]) + long_size;
        // Not visited (unreachable): the union's size.
        return out_of(Block(static_cast<uint32_t>(b))).size() + long_size;
      },
      [&](size_t b, Value* row) { write(in(b), long_in.data() + b * lw, row); },
      [&](size_t b, Value* row) {
        long_live_out(Block(static_cast<uint32_t>(b)));
        write(out_of(Block(static_cast<uint32_t>(b))), long_out.data(), row);
      },
      [&](size_t b) {
        long_live_out(Block(static_cast<uint32_t>(b)));
        if (!std::equal(long_out.begin(), long_out.end(), long_in.begin() + static_cast<std::ptrdiff_t>(b * lw))) {
          return false;
        }
        absl::Span<const uint32_t> bout = out_of(Block(static_cast<uint32_t>(b)));
        absl::Span<const uint32_t> bin = in(b);
        return std::equal(bout.begin(), bout.end(), bin.begin(), bin.end());
      },
      in_order, in_done);
}

// Pass 3 and the result with a bit vector of the global values per block
// (Subzero's sets), where they are small: the same worklist, each transfer a
// few word operations instead of merging sorted lists element by element.
void LiveSets::DenseFixpoint(size_t nb, size_t words) {
  const ControlFlowGraph& cfg = *cfg_;
  std::vector<uint64_t>& in = s_.in_bits;
  std::vector<uint64_t>& out = s_.out_bits;
  out.resize(words);
  auto live_out = [&](Block b) { UnionOfSuccessors(cfg, b, in.data(), words, out); };
  // in = ue ∪ (out − defs)
  BitFixpoint(nb, words, [&](Block b, uint64_t* next) {
    for (uint32_t g : s_.defs.Row(b.index())) next[g >> 6] &= ~(uint64_t{1} << (g & 63));
    for (uint32_t g : s_.ue.Row(b.index())) next[g >> 6] |= uint64_t{1} << (g & 63);
  });
  auto values = [&](const uint64_t* bits, Value* row) {
    for (size_t k = 0; k < words; ++k) {
      for (uint64_t w = bits[k]; w != 0; w &= w - 1) {
        *row++ = s_.global_value[k * 64 + static_cast<size_t>(__builtin_ctzll(w))];
      }
    }
  };
  Flatten(
      nb, [&](size_t b) { return CountBits(in.data() + b * words, words); },
      [&](size_t b) {
        live_out(Block(static_cast<uint32_t>(b)));
        return CountBits(out.data(), words);
      },
      [&](size_t b, Value* row) { values(in.data() + b * words, row); },
      [&](size_t b, Value* row) {
        live_out(Block(static_cast<uint32_t>(b)));
        values(out.data(), row);
      },
      [&](size_t b) {
        live_out(Block(static_cast<uint32_t>(b)));
        return std::equal(out.begin(), out.end(), in.data() + b * words);
      },
      {}, [](size_t) {});
}

// The fixpoint over bit vectors of `words` words a block (live-in sets in
// s_.in_bits): transfer(b, bits) makes b's live-out set, the union of its
// successors' live-in sets, its live-in set (in place).
template <typename Transfer>
void LiveSets::BitFixpoint(size_t nb, size_t words, const Transfer& transfer) {
  std::vector<uint64_t>& in = s_.in_bits;
  in.assign(nb * words, 0);
  std::vector<uint64_t>& next = s_.next_bits;
  next.resize(words);
  Fixpoint(nb, [&](Block b) {
    UnionOfSuccessors(*cfg_, b, in.data(), words, next);
    transfer(b, next.data());
    uint64_t* row = in.data() + b.index() * words;  // not in[...]: with no global values, in is empty
    if (std::equal(next.begin(), next.end(), row)) return false;
    std::copy(next.begin(), next.end(), row);
    return true;
  });
}

// The worklist, seeded in post-order (successors before predecessors):
// visit(b) recomputes b's live-in set and says whether it grew, which requeues
// b's predecessors.
template <typename Visit>
void LiveSets::Fixpoint(size_t nb, const Visit& visit) {
  s_.queued.assign(nb, 0);
  s_.work.assign(cfg_->rpo().begin(), cfg_->rpo().end());  // popped from the back: post-order
  for (Block b : s_.work) s_.queued[b.index()] = 1;
  while (!s_.work.empty()) {
    Block b = s_.work.back();
    s_.work.pop_back();
    s_.queued[b.index()] = 0;
    ++block_visits_;
    if (!visit(b)) continue;
    for (const Edge& e : cfg_->preds(b)) {
      if (!s_.queued[e.from.index()]) {
        s_.queued[e.from.index()] = 1;
        s_.work.push_back(e.from);
      }
    }
  }
}

// The result, as values (the bit vectors' global indexes translated back:
// ascending index order is ascending value order, since indexes were given in
// value order; the sorted lists hold values already): in_size(b)
// and out_size(b) say how many values are live into and out of block b (the
// rows are written to their exact size; out_size is not asked of a block whose
// edges all go to one successor), in_row(b, row) and out_row(b, row) write them
// to the row, in_is_out(b) compares the two sets of a block (asked only when
// their sizes are equal). A set equal to another is stored once: a live-out set
// is the union of the successors' live-in sets, so it equals any of them that
// has its size. The live-out sets are written first, then the live-in sets in
// `in_order` (empty: block order), in_done(b) told after each block's, whether
// its set was stored or not: a caller gives back what only they read.
template <typename InSize, typename OutSize, typename InRow, typename OutRow, typename InIsOut, typename InDone>
void LiveSets::Flatten(size_t nb, const InSize& in_size, const OutSize& out_size, const InRow& in_row,
                       const OutRow& out_row, const InIsOut& in_is_out, absl::Span<const Block> in_order,
                       const InDone& in_done) {
  std::vector<int32_t>& alias = s_.alias;
  std::vector<uint32_t>& size = s_.size;
  alias.assign(2 * nb, -1);
  size.assign(2 * nb, 0);
  for (size_t b = 0; b < nb; ++b) size[2 * b] = static_cast<uint32_t>(in_size(b));
  size_t largest = 0;
  for (size_t b = 0; b < nb; ++b) {
    largest = std::max<size_t>(largest, size[2 * b]);
    absl::Span<const Edge> succs = cfg_->succs(Block(static_cast<uint32_t>(b)));
    if (succs.empty()) continue;
    bool one = std::all_of(succs.begin(), succs.end(), [&](const Edge& e) { return e.to == succs.front().to; });
    uint32_t out = one ? size[2 * succs.front().to.index()] : static_cast<uint32_t>(out_size(b));
    size[2 * b + 1] = out;
    largest = std::max<size_t>(largest, out);
    for (const Edge& e : succs) {
      if (size[2 * e.to.index()] == out) {
        alias[2 * b + 1] = static_cast<int32_t>(2 * e.to.index());
        break;
      }
    }
    if (size[2 * b] == out && in_is_out(b)) alias[2 * b] = static_cast<int32_t>(2 * b + 1);
  }
  ResolveAliases();
  const std::vector<uint32_t>& rep = s_.rep;
  size_t items = 0;
  for (size_t n = 0; n < 2 * nb; ++n) items += alias[n] >= 0 ? 0 : size[n];
  // Chunks of a quarter million values, or one of the exact size where the
  // sets hold fewer (a small function's sets cost what they hold).
  rows_.Clear(std::max(largest, std::min(size_t{1} << 18, items)));
  set_.assign(2 * nb, SetRef());
  stored_sets_ = 0;
  auto write = [&](size_t n) {
    if (alias[n] >= 0) return;
    Value* row = rows_.Allot(size[n]);
    if (n % 2 == 0) {
      in_row(n / 2, row);
    } else {
      out_row(n / 2, row);
    }
    set_[n] = SetRef{row, size[n], static_cast<uint32_t>(n)};
    ++stored_sets_;
  };
  for (size_t b = 0; b < nb; ++b) write(2 * b + 1);
  for (size_t k = 0; k < nb; ++k) {
    const size_t b = in_order.empty() ? k : in_order[k].index();
    write(2 * b);
    in_done(b);
  }
  for (size_t n = 0; n < 2 * nb; ++n) {
    if (alias[n] >= 0) set_[n] = set_[rep[n]];
  }
}

// Each set's alias chain followed to the set that ends it, into s_.rep. Equal sets can alias one another in
// a cycle (a loop of empty blocks): the set closing the cycle is stored.
void LiveSets::ResolveAliases() {
  std::vector<int32_t>& alias = s_.alias;
  std::vector<uint8_t>& state = s_.state;
  std::vector<uint32_t>& chain = s_.chain;
  std::vector<uint32_t>& rep = s_.rep;
  const size_t sets = alias.size();
  rep.assign(sets, 0);
  state.assign(sets, 0);
  for (size_t n = 0; n < sets; ++n) {
    chain.clear();
    size_t m = n;
    while (state[m] == 0 && alias[m] >= 0) {
      state[m] = 1;
      chain.push_back(static_cast<uint32_t>(m));
      m = static_cast<size_t>(alias[m]);
    }
    if (state[m] == 1) alias[m] = -1;  // m closes a cycle: stored
    uint32_t end = state[m] == 2 ? rep[m] : static_cast<uint32_t>(m);
    rep[m] = end;
    state[m] = 2;
    for (uint32_t c : chain) {
      rep[c] = end;
      state[c] = 2;
    }
  }
}

LiveSets& LiveSets::operator=(const LiveSets& other) {
  if (this == &other) return *this;
  global_index_ = other.global_index_;
  def_block_ = other.def_block_;
  num_global_ = other.num_global_;
  num_long_ = other.num_long_;
  dense_max_words_ = other.dense_max_words_;
  long_span_ = other.long_span_;
  block_visits_ = other.block_visits_;
  stored_sets_ = other.stored_sets_;
  s_ = Scratch();
  // Each stored set copied once (sets that share storage share the copy).
  absl::flat_hash_map<const Value*, Value*> copy_of;
  size_t items = 0, largest = 0;
  for (const SetRef& r : other.set_) {
    if (r.size > 0 && copy_of.emplace(r.data, nullptr).second) {
      items += r.size;
      largest = std::max<size_t>(largest, r.size);
    }
  }
  rows_.Clear(std::max(largest, std::min(size_t{1} << 18, items)));
  set_.assign(other.set_.size(), SetRef());
  for (size_t n = 0; n < set_.size(); ++n) {
    const SetRef& r = other.set_[n];
    if (r.size == 0) continue;
    Value*& copy = copy_of[r.data];
    if (copy == nullptr) {
      Value* row = rows_.Allot(r.size);
      std::copy(r.data, r.data + r.size, row);
      copy = row;
    }
    set_[n] = SetRef{copy, r.size, r.stored};
  }
  return *this;
}

void LiveSets::Shrink(const Function& func, const ControlFlowGraph& cfg, absl::Span<const Value> values) {
  const size_t nb = set_.size() / 2;
  // Each value shrunk gets a bit (shrink_of: its bit + 1).
  std::vector<uint32_t>& shrink_of = s_.shrink_of;
  shrink_of.assign(global_index_.size(), 0);
  uint32_t count = 0;
  for (Value v : values) {
    if (v.index() < global_index_.size() && global_index_[v.index()] >= 0 && shrink_of[v.index()] == 0) {
      shrink_of[v.index()] = ++count;
    }
  }
  if (count == 0) return;
  auto bit_of = [&](Value v) { return v.index() < shrink_of.size() ? static_cast<int64_t>(shrink_of[v.index()]) - 1 : -1; };
  // The dataflow again, for these values only, as bit vectors (the constants
  // made again are few, but live across most of the function: a walk up from
  // each of their remaining uses passed as many blocks as all the other
  // values' sets hold). Upward-exposed uses and defs, as in ComputeSets.
  const size_t words = (count + 63) / 64;
  std::vector<uint64_t>& ue = s_.long_ue;
  std::vector<uint64_t>& defs = s_.long_defs;
  ue.assign(nb * words, 0);
  defs.assign(nb * words, 0);
  auto set_bit = [&](std::vector<uint64_t>& rows, Block b, int64_t bit) {
    rows[b.index() * words + static_cast<size_t>(bit >> 6)] |= uint64_t{1} << (bit & 63);
  };
  for (Block b : func.layout()) {
    for (const Operand& p : func.block(b).params) {
      if (const int64_t bit = bit_of(p.value()); bit >= 0) set_bit(defs, b, bit);
    }
    for (Inst i : func.block(b).insts) {
      for (const Operand& op : func.operands(i)) {
        const int64_t bit = bit_of(op.value());
        if (bit < 0) continue;
        if (op.IsDef()) {
          set_bit(defs, b, bit);
        } else if (def_block_[op.value().index()] != b) {
          set_bit(ue, b, bit);
        }
      }
    }
  }
  cfg_ = &cfg;
  BitFixpoint(nb, words, [&](Block b, uint64_t* next) {
    const uint64_t* u = ue.data() + b.index() * words;
    const uint64_t* d = defs.data() + b.index() * words;
    for (size_t k = 0; k < words; ++k) next[k] = u[k] | (next[k] & ~d[k]);
  });
  cfg_ = nullptr;
  std::vector<uint64_t>& in = s_.in_bits;
  std::vector<uint64_t>& out = s_.out_bits;
  out.resize(words);
  // Live-out bits (the successors' live-in), in `ue`, read no more.
  std::vector<uint64_t>& outs = ue;
  for (size_t b = 0; b < nb; ++b) {
    UnionOfSuccessors(cfg, Block(static_cast<uint32_t>(b)), in.data(), words, out);
    std::copy(out.begin(), out.end(), outs.begin() + static_cast<std::ptrdiff_t>(b * words));
  }
  // Per set (2b: live-in, 2b + 1: live-out), its shrunk values' bits.
  auto bits = [&](size_t n) { return (n % 2 == 0 ? in.data() : outs.data()) + (n / 2) * words; };
  auto filter = [&](const Value* from, uint32_t size, const uint64_t* live, Value* to) {
    Value* w = to;
    for (const Value* r = from; r != from + size; ++r) {
      const int64_t bit = bit_of(*r);
      if (bit < 0 || ((live[bit >> 6] >> (bit & 63)) & 1)) *w++ = *r;
    }
    return static_cast<uint32_t>(w - to);
  };
  // A set sharing its storage with one whose shrunk values now differ gets
  // storage of its own, filtered from the shared row before that one is
  // filtered in place.
  std::vector<uint32_t>& own = s_.shrink_own;
  own.clear();
  size_t items = 0, largest = 0;
  for (size_t n = 0; n < set_.size(); ++n) {
    const SetRef& r = set_[n];
    if (r.stored == n || std::equal(bits(n), bits(n) + words, bits(r.stored))) continue;
    own.push_back(static_cast<uint32_t>(n));
    items += r.size;
    largest = std::max<size_t>(largest, r.size);
  }
  rows_.set_chunk_items(std::max(largest, std::min(size_t{1} << 18, items)));
  for (uint32_t n : own) {
    SetRef& r = set_[n];
    Value* row = rows_.Allot(r.size);
    r = SetRef{row, filter(r.data, r.size, bits(n), row), n};
    ++stored_sets_;
  }
  for (size_t n = 0; n < set_.size(); ++n) {
    SetRef& r = set_[n];
    if (r.stored == n) r.size = filter(r.data, r.size, bits(n), r.data);
  }
  for (SetRef& r : set_) r.size = set_[r.stored].size;
  ReleaseAfterLargeFunction(func.num_insts(), s_);
}

size_t LiveSets::MemoryBytes() const {
  return global_index_.capacity() * sizeof(int32_t) + def_block_.capacity() * sizeof(Block) +
         rows_.MemoryBytes() + set_.capacity() * sizeof(SetRef);
}

}  // namespace regalloc
