// Live-in and live-out sets per block, by backward dataflow over an SSA function.
//
//   LiveSets live(func);
//   for (Value v : live.LiveIn(b)) ...
//   bool across = live.IsLiveOut(v, b);
//
// Cretonne's rules: a block parameter is defined at the block's entry (never
// live-in to its block); a branch argument is used at the branch (in the
// predecessor). live_out(B) = ∪ live_in(S) over successors; live_in(B) =
// upward-exposed uses(B) ∪ (live_out(B) − defs(B)).
//
// Implementation, after Subzero's liveness: a first pass numbers values. Values
// that appear (defined or used) in more than one block are "global" and get the
// low indexes 0..num_global-1; values confined to one block are "local" and never
// take part in the dataflow, since they can't be live across a block boundary.
// Subzero then keeps one bit vector of num_global bits per block; so do these
// sets while blocks × num_global bits stay within kDenseMaxWords words (a
// transfer is then a few word operations). Above, they are sorted lists of
// the global values' ids: the bit vectors grow quadratically with the function (125k
// blocks × 200k globals = 3 GB at a million instructions), while the lists cost
// what is actually live. The fixpoint iterates a worklist seeded in post-order
// (either way the same visits); it takes loop-depth + 2 passes on reducible
// graphs. The result is sorted lists of values either way.
//
// Precondition: the function verifies and is in SSA form (not allocated).
#ifndef REGALLOC_LIVENESS_LIVE_SETS_H_
#define REGALLOC_LIVENESS_LIVE_SETS_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "base/chunked_store.h"
#include "base/compressed_rows.h"
#include "ssa/cfg.h"
#include "ssa/ir.h"

namespace regalloc {

class LiveSets {
 public:
  LiveSets() = default;
  explicit LiveSets(const Function& func) { Compute(func); }
  // A copy holds the sets in its own storage (equal sets still stored once),
  // with no working storage.
  LiveSets(const LiveSets& other) { *this = other; }
  LiveSets& operator=(const LiveSets& other);
  LiveSets(LiveSets&&) = default;
  LiveSets& operator=(LiveSets&&) = default;

  // Recomputes for `func`, reusing this object's storage: a phase that keeps one
  // LiveSets across functions allocates only when a function is bigger than any
  // before it. Values v with a nonzero `skip[v]` (v below skip.size()) are left
  // out of every set, as if local to a block (num_global() does not count
  // them): an allocator's values that live in stack slots, which its later
  // rounds do not track, cost nothing there.
  void Compute(const Function& func, absl::Span<const uint8_t> skip = {});
  // The same with `func`'s control-flow graph as the caller has it (computed
  // for `func` as it is now: an allocator's phases share one).
  void Compute(const Function& func, const ControlFlowGraph& cfg, absl::Span<const uint8_t> skip = {});

  // Sorted by value id. Equal sets are often stored once: a block's live-out
  // set is a successor's live-in set whenever they have the same size (that
  // one is a subset of it), and a block that defines and reads no value live
  // across it (an edge's jump) has its live-out set as its live-in set. On the
  // generated functions that halves the rows.
  absl::Span<const Value> LiveIn(Block b) const { return set_[2 * b.index()].span(); }
  absl::Span<const Value> LiveOut(Block b) const { return set_[2 * b.index() + 1].span(); }
  // Gives the storage back: for an allocator that has read the sets for the
  // last time and is about to grow the function (LsraResolver). Nothing may be
  // asked until the next Compute.
  void Release() { *this = LiveSets(); }

  // Makes the sets exact again after a phase removed uses of `values` (and
  // changed no other value's uses or defs, nor the blocks and edges; values
  // it added are local to one block, like Reload's): each is taken out of the
  // sets of the blocks it no longer lives in, found by the dataflow over
  // these values only, a bit each (a pass over the function, the fixpoint
  // on a word or a few per block, a pass over the stored sets), not the
  // sorted sets of every value again. `cfg` is `func`'s graph. The numbering
  // (GlobalIndex, num_global, DefBlock) stays as it was; equal sets may be
  // stored twice.
  void Shrink(const Function& func, const ControlFlowGraph& cfg, absl::Span<const Value> values);

  // Binary search in the block's set (inline: walks ask it per value).
  bool IsLiveIn(Value v, Block b) const {
    absl::Span<const Value> s = LiveIn(b);
    return std::binary_search(s.begin(), s.end(), v);
  }
  bool IsLiveOut(Value v, Block b) const {
    absl::Span<const Value> s = LiveOut(b);
    return std::binary_search(s.begin(), s.end(), v);
  }

  // Subzero's numbering: global values (in several blocks) have an index below
  // num_global(); local values (and skipped ones) have -1.
  int num_global() const { return num_global_; }
  int GlobalIndex(Value v) const { return global_index_[v.index()]; }
  // The block defining each value (invalid for holes).
  Block DefBlock(Value v) const { return def_block_[v.index()]; }
  // How many distinct rows hold the 2 × blocks sets (equal sets share one).
  int stored_sets() const { return stored_sets_; }
  // Dataflow passes over the blocks until the fixpoint (for benchmarks).
  int block_visits() const { return block_visits_; }
  // Bytes held by the result.
  size_t MemoryBytes() const;

  // The most words of bit vectors (blocks × num_global / 64) the fixpoint
  // takes before it uses sorted lists instead (8 MB: 2.5k blocks × 12k
  // global values, a function of about 10k instructions).
  static constexpr size_t kDenseMaxWords = size_t{1} << 20;
  // Another bound for the next Compute (tests: 0 takes sorted lists always).
  void set_dense_max_words(size_t words) { dense_max_words_ = words; }

  // With sorted lists, the long-lived values (those whose first and last
  // blocks lie at least a span of blocks apart in the layout, the span
  // kLongSpanAuto picks: a 64th of the blocks, at least 64) are kept as bit
  // vectors beside the lists, up to kLongValueWords words of them per block:
  // a value live across most blocks costs a bit per block there, where each
  // list holding it copied it at each visit. The result is the same sorted
  // lists either way. (Tests: 1 puts every global value with a span of a
  // block or more there, up to the bound; kNoLongValues none.)
  static constexpr uint32_t kLongSpanAuto = 0;
  static constexpr uint32_t kNoLongValues = ~0u;
  static constexpr size_t kLongValueWords = 8;
  void set_long_value_span(uint32_t blocks) { long_span_ = blocks; }
  // How many values the last Compute kept as bit vectors beside the lists.
  int num_long_values() const { return num_long_; }

 private:
  void ComputeSets(const Function& func, absl::Span<const uint8_t> skip);
  // During Compute: the function's control-flow graph (the caller's, or the
  // scratch one).
  const ControlFlowGraph* cfg_ = nullptr;
  void DenseFixpoint(size_t nb, size_t words);
  template <typename Visit>
  void Fixpoint(size_t nb, const Visit& visit);
  template <typename Transfer>
  void BitFixpoint(size_t nb, size_t words, const Transfer& transfer);
  template <typename InSize, typename OutSize, typename InRow, typename OutRow, typename InIsOut,
            typename InDone>
  void Flatten(size_t nb, const InSize& in_size, const OutSize& out_size, const InRow& in_row,
               const OutRow& out_row, const InIsOut& in_is_out, absl::Span<const Block> in_order,
               const InDone& in_done);
  // Per set (2b: block b's live-in, 2b + 1: its live-out), the set it equals
  // (Flatten's `alias`) followed to the one that is stored (in s_.rep).
  void ResolveAliases();

  std::vector<int32_t> global_index_;
  std::vector<Block> def_block_;
  int num_global_ = 0;
  int num_long_ = 0;
  size_t dense_max_words_ = kDenseMaxWords;
  uint32_t long_span_ = kLongSpanAuto;
  int block_visits_ = 0;
  // Per set (2b: live-in of block b, 2b + 1: live-out), where it is stored:
  // in rows_, the distinct sets, written in chunks (Flatten writes them while
  // it gives back the fixpoint's chunks, so that both are not held whole).
  struct SetRef {
    Value* data = nullptr;
    uint32_t size = 0;
    uint32_t stored = 0;  // the set stored at `data` (itself, or one it equals)
    absl::Span<const Value> span() const { return absl::MakeConstSpan(data, size); }
  };
  std::vector<SetRef> set_;
  ChunkedStore<Value> rows_;
  int stored_sets_ = 0;
  // Working storage, kept between Compute calls (given back after a function
  // of more than kWarmBufferInsts instructions: base/warm_buffers.h).
  struct Scratch {
    // Pass 1, per value: the layout positions of the first and last blocks
    // it appears in.
    std::vector<uint32_t> first_pos, last_pos;
    // The long-lived values beside the sorted lists: per value its bit
    // (-1: none), per bit its value, and per block their bit vectors
    // (long_words each): upward-exposed uses, defs, live-in.
    std::vector<int32_t> long_bit;
    std::vector<Value> long_value;
    std::vector<uint32_t> spans;
    std::vector<uint64_t> long_ue, long_defs, long_in, long_out;
    std::vector<Value> global_value;
    CompressedRows<uint32_t> ue;
    CompressedRows<uint32_t> defs;
    // The sorted lists' live-in sets, block b's at in_rows[b], written one after
    // another into chunks (base/chunked_store.h); a set that grows is written
    // again (its old place stays, unused). Not a heap block per set: at a
    // million instructions there were 140k of them to allocate, scatter and
    // free. Flatten copies them out chunk by chunk (in_order: the blocks by
    // the chunk of their set), giving each chunk back after its last set
    // (in_chunk_sets: per chunk, the final sets in it not yet copied).
    struct InRow {
      const uint32_t* data = nullptr;
      uint32_t size = 0;
      uint32_t chunk = 0;
    };
    std::vector<InRow> in_rows;
    ChunkedStore<uint32_t> in_store;
    std::vector<uint32_t> in_chunk_sets;
    std::vector<Block> in_order;
    std::vector<uint64_t> in_bits, out_bits, next_bits;
    ControlFlowGraph cfg;
    std::vector<uint32_t> u, d, out, merged, next_in;
    std::vector<uint8_t> queued;
    std::vector<Block> work;
    std::vector<int32_t> alias;  // Flatten, per set: an equal set, or -1 (stored)
    std::vector<uint32_t> size;  // Flatten, per set: its size
    // The sorted lists' fixpoint, per block: its live-out set's size at its
    // last visit.
    std::vector<uint32_t> out_size;
    std::vector<uint32_t> rep;   // ResolveAliases, per set: the stored set it equals
    // Shrink: per value, its bit + 1 (0: not shrunk); its dataflow uses
    // long_ue, long_defs and the bit vectors of DenseFixpoint.
    std::vector<uint32_t> shrink_of;
    std::vector<uint32_t> shrink_own;  // the sets given storage of their own
    std::vector<uint8_t> state;  // ResolveAliases: 0 new, 1 on the current chain, 2 resolved
    std::vector<uint32_t> chain;
  };
  Scratch s_;
};

}  // namespace regalloc

#endif  // REGALLOC_LIVENESS_LIVE_SETS_H_
