#include "lsra/allocate.h"

#include <algorithm>
#include <array>
#include <functional>
#include <limits>

#include <optional>

#include "absl/base/attributes.h"
#include "absl/container/btree_map.h"
#include "absl/strings/str_cat.h"
#include "base/chunked_vector.h"
#include "base/status_macros.h"
#include "base/warm_buffers.h"
#include "ssa/printer.h"

namespace regalloc {
namespace {

constexpr uint32_t kNever = std::numeric_limits<uint32_t>::max();

// The last gap (4k + 3) at or before `p`.
uint32_t GapAtOrBefore(uint32_t p) { return p < 3 ? 0 : p - ((p + 1) % 4); }

// The stack slot of `v` in `slots` (per value id), made on first request: every
// stack piece of a value uses the same one.
StackSlot SlotFor(std::vector<StackSlot>& slots, Function& func, Value v) {
  if (v.index() >= slots.size()) slots.resize(v.index() + 1);
  StackSlot& s = slots[v.index()];
  if (!s.IsValid()) s = func.NewStackSlot(TypeSize(func.value_type(v)));
  return s;
}

bool NeedsRegister(const RefPosition& r) { return r.need == RefNeed::kRegister || r.need == RefNeed::kReuse; }

}  // namespace

namespace lsra_internal {

// The unhandled pieces by (start, id), smallest first. What exists before the
// scan starts (every value's first piece) is sorted once; what the scan adds
// (split tails, pieces taken again) goes in a heap beside it. One heap of
// everything pays a cache-missing log n per pop at a million pieces.
class UnhandledQueue {
 public:
  using Entry = std::pair<uint32_t, uint32_t>;
  void Clear() {
    sorted_.clear();
    next_ = 0;
    heap_.clear();
    sealed_ = false;
  }
  void Push(Entry e) {
    if (!sealed_) {
      sorted_.push_back(e);
      return;
    }
    heap_.push_back(e);
    std::push_heap(heap_.begin(), heap_.end(), std::greater<Entry>());
  }
  // Room for `n` pushes before the scan (one per interval: the list is not
  // doubled past them as they come).
  void Reserve(size_t n) { sorted_.reserve(n); }
  // The scan starts: later pushes go to the heap.
  void Seal() {
    std::sort(sorted_.begin(), sorted_.end());
    sealed_ = true;
  }
  bool empty() const { return next_ == sorted_.size() && heap_.empty(); }
  Entry Pop() {
    if (next_ == sorted_.size() || (!heap_.empty() && heap_.front() < sorted_[next_])) {
      std::pop_heap(heap_.begin(), heap_.end(), std::greater<Entry>());
      Entry e = heap_.back();
      heap_.pop_back();
      return e;
    }
    return sorted_[next_++];
  }

 private:
  std::vector<Entry> sorted_;
  size_t next_ = 0;
  std::vector<Entry> heap_;
  bool sealed_ = false;
};

class Allocator {
 public:
  // Binds the allocator to one function; its buffers stay from the last one.
  void Reset(const Target& t, Function& f, const LsraBuild& b, const LsraOptions& options,
             std::vector<StackSlot>& slots) {
    t_ = &t;
    f_ = &f;
    b_ = &b;
    options_ = &options;
    slots_ = &slots;
    const int nr = t.num_regs();
    free_until_.assign(nr, 0);
    next_use_.assign(nr, 0);
    reg_use_cache_.fill(RegUseEntry());  // piece ids start again
    blocked_at_.assign(nr, 0);
    blocked_for_ = next_use_for_ = kNever;
    preserved_.assign(nr, 0);
    destroyed_.assign(nr, 0);
    order_pos_.assign(nr, 0);
    active_.clear();
    active_next_ = 0;
    active_holders_.assign(nr, 0);
    inactive_.clear();
    inactive_next_ = 0;
    unhandled_.Clear();  // after a run that failed
    splits_ = preferred_ = overlapped_ = seeded_ = 0;
    // The registers each class allocates from (all, or a stress subset).
    UnitSet caller = t.UnitsOf(t.abi().caller_saved), callee = t.UnitsOf(t.abi().callee_saved);
    for (int r = 0; r < nr; ++r) {
      preserved_[r] = !caller.Intersects(t.Units(PReg(r)));
      destroyed_[r] = !callee.Intersects(t.Units(PReg(r)));
    }
    orders_.resize(t.num_classes());
    full_orders_.resize(t.num_classes());
    for (int c = 0; c < t.num_classes(); ++c) {
      full_orders_[c] = t.Class(RegClass(c)).allocation_order;
      std::vector<PReg>& order = orders_[c];
      order.clear();
      for (PReg r : t.Class(RegClass(c)).allocation_order) {
        bool keep = options.registers == LsraOptions::Registers::kAll ||
                    (options.registers == LsraOptions::Registers::kCalleeSavedOnly && !caller.Intersects(t.Units(r))) ||
                    (options.registers == LsraOptions::Registers::kCallerSavedOnly && !callee.Intersects(t.Units(r)));
        if (keep) order.push_back(r);
      }
      if (order.empty()) order = t.Class(RegClass(c)).allocation_order;
    }
  }

  absl::Status Run(LsraAllocStats& stats);
  // The scan's pieces with their chains (each value's first piece, each
  // piece's next in position order), moved out: after a large function the
  // rest of the scan's buffers go before the pieces' rows are made beside
  // them (base/warm_buffers.h).
  struct Chains {
    ChunkedVector<LsraChild> pieces;
    std::vector<uint32_t> first;
    ChunkedVector<uint32_t> next;
  };
  Chains TakeChains() { return Chains{std::move(children_), std::move(first_piece_), std::move(next_piece_)}; }
  // Every value's pieces in position order, row by value.
  void CollectPieces(CompressedRows<LsraChild>& out) const {
    CollectChains(children_, first_piece_, next_piece_, row_, out);
  }
  static void CollectChains(const ChunkedVector<LsraChild>& pieces, const std::vector<uint32_t>& first,
                            const ChunkedVector<uint32_t>& next, std::vector<LsraChild>& row,
                            CompressedRows<LsraChild>& out) {
    out.Clear();
    out.Reserve(first.size(), pieces.size());
    for (size_t v = 0; v < first.size(); ++v) {
      row.clear();
      for (uint32_t c = first[v]; c != kNever; c = next[c]) row.push_back(pieces[c]);
      out.AppendRow(row);
    }
  }

 private:
  absl::Span<const LsraRange> RangesOf(const LsraChild& c) const { return b_->Ranges(c.value); }
  // Puts piece `id` in its value's stack slot.
  void ToStack(uint32_t id) { children_[id].loc = Location::Stack(SlotFor(*slots_, *f_, children_[id].value)); }
  // The value's ranges from the first one ending after `p` (binary search).
  absl::Span<const LsraRange> RangesFrom(Value v, uint32_t p) const {
    absl::Span<const LsraRange> rs = b_->Ranges(v);
    auto it = std::upper_bound(rs.begin(), rs.end(), p, [](uint32_t q, const LsraRange& r) { return q < r.to; });
    return rs.subspan(it - rs.begin());
  }
  // The first position >= c.from the piece covers, and the end of its last range.
  uint32_t Start(const LsraChild& c) const {
    absl::Span<const LsraRange> rs = RangesFrom(c.value, c.from);
    if (rs.empty() || rs.front().from >= c.to) return c.to;
    return std::max(rs.front().from, c.from);
  }
  // Does the piece cover position `p`?
  bool Covers(const LsraChild& c, uint32_t p) const {
    if (p < c.from || p >= c.to) return false;
    absl::Span<const LsraRange> rs = RangesFrom(c.value, p);
    return !rs.empty() && rs.front().from <= p;
  }
  uint32_t End(const LsraChild& c) const {
    absl::Span<const LsraRange> rs = b_->Ranges(c.value);
    // The last range starting before c.to.
    auto it = std::lower_bound(rs.begin(), rs.end(), c.to, [](const LsraRange& r, uint32_t q) { return r.from < q; });
    if (it == rs.begin()) return c.from;
    uint32_t end = std::min(std::prev(it)->to, c.to);
    return std::max(end, c.from);
  }
  // Where piece `id` stands at `pos`: ended (no range left before its end),
  // active (a range covers pos) or inactive (in a hole); event_[id] becomes the
  // position where that next changes.
  enum class Event : uint8_t { kEnded, kActive, kInactive };
  ABSL_ATTRIBUTE_ALWAYS_INLINE Event Classify(uint32_t id, uint32_t pos) {
    const LsraChild& c = children_[id];
    absl::Span<const LsraRange> rs = RangesFrom(c.value, pos);
    if (rs.empty() || rs.front().from >= c.to || pos >= c.to) return Event::kEnded;
    if (rs.front().from <= pos) {
      event_[id] = std::min(rs.front().to, c.to);
      return Event::kActive;
    }
    event_[id] = rs.front().from;
    return Event::kInactive;
  }
  ChunkedVector<uint32_t> event_;
  // No piece of active_ (inactive_) has an event before these (an event may
  // have gone with its piece: they are only ever too early).
  uint32_t active_next_ = 0, inactive_next_ = 0;
  std::vector<uint32_t> still_;
  // The first position >= from that both pieces cover.
  uint32_t NextIntersection(const LsraChild& a, const LsraChild& c, uint32_t from) const {
    uint32_t lo = std::max({from, a.from, c.from}), hi = std::min(a.to, c.to);
    absl::Span<const LsraRange> ra = RangesFrom(a.value, lo), rc = RangesFrom(c.value, lo);
    size_t i = 0, j = 0;
    while (i < ra.size() && j < rc.size()) {
      uint32_t s = std::max({ra[i].from, rc[j].from, lo});
      uint32_t e = std::min({ra[i].to, rc[j].to, hi});
      if (s < e) return s;
      if (s >= hi) return kNever;
      if (ra[i].to < rc[j].to) {
        ++i;
      } else {
        ++j;
      }
    }
    return kNever;
  }
  // The value's references at position `p` (binary search).
  absl::Span<const RefPosition> RefsAt(Value v, uint32_t p) const {
    absl::Span<const RefPosition> refs = b_->Refs(v);
    auto lo = std::lower_bound(refs.begin(), refs.end(), p, [](const RefPosition& r, uint32_t q) { return r.pos < q; });
    auto hi = lo;
    while (hi != refs.end() && hi->pos == p) ++hi;
    return refs.subspan(lo - refs.begin(), hi - lo);
  }
  // The first reference at or after `from` in the piece that needs a register.
  uint32_t NextRegUse(const LsraChild& c, uint32_t from) const {
    absl::Span<const RefPosition> refs = b_->Refs(c.value);
    uint32_t lo = std::max(from, c.from);
    auto it = std::lower_bound(refs.begin(), refs.end(), lo, [](const RefPosition& r, uint32_t q) { return r.pos < q; });
    for (; it != refs.end() && it->pos < c.to; ++it) {
      if (NeedsRegister(*it)) return it->pos;
    }
    return kNever;
  }
  // NextRegUse of piece `id`, remembered: eviction asks it of every active
  // piece at each blocked allocation, at increasing positions, and a long-lived
  // value's next register use mostly lies past the next few (at 10k, the
  // binary searches in long reference lists were a third of AllocateBlockedReg).
  // An answer for `from` holds for any later `from` up to it while the piece
  // keeps its end; a direct-mapped table by piece id, reset per function.
  struct RegUseEntry {
    uint32_t id = kNever, to = 0, from = 0, use = 0;
  };
  mutable std::array<RegUseEntry, 64> reg_use_cache_;
  uint32_t NextRegUseOf(uint32_t id, uint32_t from) const {
    const LsraChild& c = children_[id];
    RegUseEntry& e = reg_use_cache_[id % reg_use_cache_.size()];
    if (e.id == id && e.to == c.to && e.from <= from && from <= e.use) return e.use;
    e = RegUseEntry{id, c.to, from, NextRegUse(c, from)};
    return e.use;
  }
  // The index of r's first blocked range ending after `p`. The scan asks at
  // increasing positions: a cursor per register walks on from the last answer
  // (amortized O(1)); an earlier position is a binary search.
  size_t BlockedAfter(PReg r, uint32_t p) const {
    absl::Span<const LsraRange> bs = b_->Blocked(r);
    if (p < cursor_pos_[r.index()]) {
      return std::lower_bound(bs.begin(), bs.end(), p, [](const LsraRange& x, uint32_t q) { return x.to <= q; }) -
             bs.begin();
    }
    size_t& i = cursor_[r.index()];
    while (i < bs.size() && bs[i].to <= p) ++i;
    cursor_pos_[r.index()] = p;
    return i;
  }
  mutable std::vector<size_t> cursor_;
  mutable std::vector<uint32_t> cursor_pos_;
  // The range at each register's cursor (kNever past the last; `to` 0 until
  // the cursor is first moved): what NextBlocked reads while it stays there.
  mutable std::vector<LsraRange> cursor_range_;
  // The first position at or after `p` where `r` is blocked: NextBlockedFor
  // of any piece whose own fixed references do not name `r`. Most queries are
  // answered from the range at the cursor without reading the register's list.
  uint32_t NextBlocked(PReg r, uint32_t p) const {
    const LsraRange& at = cursor_range_[r.index()];
    if (p >= cursor_pos_[r.index()] && p < at.to) return std::max(at.from, p);
    return NextBlockedPastCursor(r, p);
  }
  // NextBlocked where the range at the cursor does not answer (out of line:
  // the scan asks for every register of the class at each try).
  ABSL_ATTRIBUTE_NOINLINE uint32_t NextBlockedPastCursor(PReg r, uint32_t p) const {
    absl::Span<const LsraRange> bs = b_->Blocked(r);
    const bool forward = p >= cursor_pos_[r.index()];
    const size_t i = BlockedAfter(r, p);
    const LsraRange next = i < bs.size() ? bs[i] : LsraRange{kNever, kNever};
    if (forward) cursor_range_[r.index()] = next;  // BlockedAfter moved the cursor to i
    return std::max(next.from, p);
  }
  // By value: the register its fixed references name (OwnBlockEnd searches
  // only those), kNoOwnFixed when it has none, kManyOwnFixed when several.
  static constexpr uint16_t kNoOwnFixed = 0xFFFF, kManyOwnFixed = 0xFFFE;
  std::vector<uint16_t> own_fixed_;
  // Whether value v's fixed references may name `r`.
  bool MayOwn(Value v, PReg r) const {
    const uint16_t own = own_fixed_[v.index()];
    return own != kNoOwnFixed && (own == kManyOwnFixed || own == r.index());
  }

  // The next position at or after `p` where `r` is blocked for piece `c` (p
  // itself when blocked there): the blocks its own fixed references put on `r`
  // (its def written there, its use read from there) keep others out, not it.
  // A register none of them names: NextBlocked.
  uint32_t NextBlockedFor(const LsraChild& c, PReg r, uint32_t p) const {
    return MayOwn(c.value, r) ? NextBlockedOwn(c, r, p) : NextBlocked(r, p);
  }
  ABSL_ATTRIBUTE_NOINLINE uint32_t NextBlockedOwn(const LsraChild& c, PReg r, uint32_t p) const {
    absl::Span<const LsraRange> bs = b_->Blocked(r);
    for (auto it = bs.begin() + BlockedAfter(r, p); it != bs.end(); ++it) {
      uint32_t at = std::max(it->from, p);
      while (at < it->to) {
        uint32_t past = OwnBlockEnd(c, r, at);
        if (past == at) break;
        at = past;
      }
      if (at < it->to) return at;
    }
    return kNever;
  }
  // If a fixed reference of piece `c` to `r` blocks `r` at `at`, the end of that
  // block; else `at`. A def at p blocks [p, p + 2) (a parameter [p, p + 1)), an
  // Early use at p [p - 1, p + 1), a Late use [p - 3, p + 1): references within
  // [at - 1, at + 3]. Asked only where MayOwn(c.value, r) (NextBlockedOwn).
  uint32_t OwnBlockEnd(const LsraChild& c, PReg r, uint32_t at) const {
    absl::Span<const RefPosition> refs = b_->Refs(c.value);
    uint32_t lo = at == 0 ? 0 : at - 1;
    auto it = std::lower_bound(refs.begin(), refs.end(), lo, [](const RefPosition& x, uint32_t q) { return x.pos < q; });
    for (; it != refs.end() && it->pos <= at + 3; ++it) {
      if (it->need != RefNeed::kFixed || it->reg() != r || it->pos < c.from || it->pos >= c.to) continue;
      LsraRange own = it->kind == RefKind::kDef
                          ? LsraRange{it->pos, it->pos + (it->pos % 4 != kLsraGap ? 2u : 1u)}
                          : LsraRange{it->pos - it->pos % 4 - 1, it->pos + 1};
      if (own.Contains(at)) return own.to;
    }
    return at;
  }

  // Splits piece `id` at `pos` (from < pos < to); the new piece is returned.
  uint32_t Split(uint32_t id, uint32_t pos) {
    LsraChild tail = children_[id];
    tail.from = pos;
    tail.loc = Location();
    children_[id].to = pos;
    const uint32_t added =
        AddPiece(tail, children_[id].loc.IsReg() ? children_[id].loc.reg() : hint_[id], next_piece_[id]);
    next_piece_[id] = added;
    ++splits_;
    return added;
  }
  // Appends a piece to each per-piece list; its id is returned.
  uint32_t AddPiece(const LsraChild& piece, PReg hint, uint32_t next) {
    children_.push_back(piece);
    hint_.push_back(hint);
    next_piece_.push_back(next);
    event_.push_back(0);  // Classify sets it before the lists read it
    return static_cast<uint32_t>(children_.size() - 1);
  }
  void Push(uint32_t id) { unhandled_.Push({Start(children_[id]), id}); }
  // Puts piece `id` on the stack from `pos` up to its next register use, which
  // (with the rest) goes back to the unhandled list.
  // The reload goes after `reload_after` too (the scan's current gap).
  void SpillFrom(uint32_t id, uint32_t pos, uint32_t reload_after) {
    uint32_t tail = id;
    if (pos > children_[id].from) tail = Split(id, pos);
    uint32_t use = NextRegUse(children_[tail], pos);
    if (use != kNever) {
      uint32_t after = std::max(pos, reload_after);
      uint32_t gap = BestReloadGap(after, GapAtOrBefore(use));
      if (gap > children_[tail].from && gap > after) {
        uint32_t rest = Split(tail, gap);
        Push(rest);
      } else {
        // No gap before the use: the piece needs a register right away.
        Push(tail);
        return;
      }
    }
    ToStack(tail);
  }

  // Wimmer's split positions: the start of the block of the smallest loop depth
  // among those starting in (after, gap], else `gap`; the latest such block, or
  // the earliest. Reloads take the latest, so that a reload before a use in a
  // loop happens on the loop's entry edge, not in the loop.
  uint32_t ShallowestBlockStart(uint32_t after, uint32_t gap, bool earliest) const {
    const std::vector<Block>& order = b_->order();
    // The block containing `gap`: the last one starting at or before it.
    auto it = std::upper_bound(order.begin(), order.end(), gap,
                               [&](uint32_t p, Block b) { return p < b_->BlockFrom(b); });
    if (it == order.begin()) return gap;
    --it;
    uint32_t best = gap;
    int best_depth = b_->depth(*it);
    for (int steps = 0; steps < 64; ++steps) {
      uint32_t from = b_->BlockFrom(*it);
      if (from <= after) break;
      if (b_->depth(*it) < best_depth || (earliest && b_->depth(*it) == best_depth)) {
        best = from;
        best_depth = b_->depth(*it);
      }
      if (it == order.begin()) break;
      --it;
    }
    return best;
  }
  uint32_t BestReloadGap(uint32_t after, uint32_t gap) const { return ShallowestBlockStart(after, gap, false); }
  // Where an evicted piece leaves its register: the earliest shallowest block
  // start after its last reference before `gap` that needs a register (or
  // defines it: an Any, Stack or Fixed use reads the stack as well), so that
  // a value not used in a loop, or used there only where its slot serves, is
  // on the stack for the whole loop (nothing to reload on its back edge)
  // rather than from the middle of it.
  uint32_t BestSpillGap(uint32_t id, uint32_t gap) const {
    const LsraChild& c = children_[id];
    absl::Span<const RefPosition> refs = b_->Refs(c.value);
    auto it = std::lower_bound(refs.begin(), refs.end(), gap, [](const RefPosition& r, uint32_t q) { return r.pos < q; });
    while (it != refs.begin() && std::prev(it)->pos > c.from && std::prev(it)->kind != RefKind::kDef &&
           !NeedsRegister(*std::prev(it))) {
      --it;
    }
    uint32_t last = it == refs.begin() ? c.from : std::max(c.from, std::prev(it)->pos);
    return ShallowestBlockStart(last, gap, true);
  }

  // The block containing `p` (invalid before the first).
  Block BlockAt(uint32_t p) const {
    const std::vector<Block>& order = b_->order();
    auto it = std::upper_bound(order.begin(), order.end(), p, [&](uint32_t q, Block b) { return q < b_->BlockFrom(b); });
    return it == order.begin() ? Block() : *std::prev(it);
  }
  absl::Status AllocateOne(uint32_t id, uint32_t pos);
  // RyuJIT's block-start locations (LsraOptions::seed_blocks) for block `b`,
  // before any piece starting at or after its start is allocated; true when it
  // added pieces to the unhandled list.
  bool SeedBlock(Block b);
  // Notes where block `s` leaves the values live into the blocks it seeds (the
  // scan has just passed its end, so those pieces are placed for good).
  void RecordSeedEnd(Block s);
  size_t next_block_ = 0;  // the first block in order not yet seeded
  // Per block that seeds others, the values in registers at its end, by value
  // (seed_end_[seed_end_from_[s] .. seed_end_to_[s])): at most a register's
  // worth each, where a list per live-in value would cost blocks × live values.
  // And how many blocks each block seeds that the scan has yet to start: a
  // block's list goes when the last one starts (DoneWithSeed), and
  // the lists left move down when half of seed_end_ is gone, so it holds the
  // lists of the blocks pending (seed_pending_), not of every block (at a
  // million instructions 2.4 million entries).
  struct SeedEnd {
    Value value;
    PReg reg;
  };
  std::vector<SeedEnd> seed_end_;
  std::vector<uint32_t> seed_end_from_, seed_end_to_, seeds_left_;
  std::vector<Block> seed_pending_;
  size_t seed_end_dead_ = 0;
  void DoneWithSeed(Block s) {
    if (--seeds_left_[s.index()] > 0) return;
    seed_end_dead_ += seed_end_to_[s.index()] - seed_end_from_[s.index()];
    seed_end_from_[s.index()] = seed_end_to_[s.index()] = 0;
  }
  int seeded_ = 0;
  std::vector<uint32_t> reg_stamp_, value_stamp_;
  uint32_t seed_stamp_ = 0;
  struct Reseed {
    uint32_t piece;
    PReg reg;
  };
  std::vector<Reseed> reseed_;
  void SecondChance(LsraAllocStats& stats);
  bool TryOverlap(uint32_t id, uint32_t pos);
  // Is there an instruction in [from, to) whose def takes `v`'s register in
  // place (a Reuse def whose source is v) while `other` lives on past it?
  bool WrittenInPlaceWhileLive(Value v, Value other, uint32_t from, uint32_t to) const;
  // Per value, its uses that a two-address def overwrites in place (the use's
  // position and instruction), in position order: WrittenInPlaceWhileLive
  // searches these, not every reference of a long-lived value.
  struct InPlaceUse {
    uint32_t pos;
    Inst inst;
  };
  void IndexInPlaceUses();
  CompressedRows<InPlaceUse> in_place_;
  std::vector<std::pair<uint32_t, InPlaceUse>> in_place_items_;  // (value, use) in position order
  int overlapped_ = 0;
  bool TryAllocateFreeReg(uint32_t id, uint32_t pos, std::optional<PReg> forced);
  // Per register of `order` (next_use_): the next position where a piece
  // holding it (or an alias) and overlapping piece `id` needs a register, or
  // where a fixed reference or clobber blocks it, whichever comes first.
  void FillNextUses(uint32_t id, uint32_t pos, const std::vector<PReg>& order);
  // The piece whose table TryAllocateFreeReg filled just before it gave way
  // to AllocateBlockedReg (at the same position, with nothing changed since).
  uint32_t next_use_for_ = kNever;
  // RyuJIT's selection among the registers of `order` free at `pos` (by
  // free_until_); invalid when none is.
  PReg SelectFree(uint32_t id, uint32_t pos, const std::vector<PReg>& order);
  // SelectFree for an order of at most 64 * W registers.
  template <int W>
  PReg SelectFreeIn(uint32_t id, uint32_t pos, const std::vector<PReg>& order);
  // Does the piece live across an instruction with clobbers?
  bool SpansCall(const LsraChild& c) const {
    const std::vector<uint32_t>& calls = b_->clobbers();
    for (const LsraRange& r : RangesFrom(c.value, c.from)) {
      if (r.from >= c.to) break;
      uint32_t from = std::max(r.from, c.from), to = std::min(r.to, c.to);
      auto it = std::lower_bound(calls.begin(), calls.end(), from);
      if (it != calls.end() && *it < to) return true;
    }
    return false;
  }
  absl::Status AllocateBlockedReg(uint32_t id, uint32_t pos, std::optional<PReg> forced);
  std::optional<PReg> ReuseRegister(uint32_t id, uint32_t pos) const;
  // Register preference: the register of a source whose last use is the
  // instruction defining this piece at `pos`.
  std::optional<PReg> PreferredRegister(uint32_t id, uint32_t pos) const;
  int preferred_ = 0;
  absl::Status TooMany(uint32_t id, uint32_t pos) const {
    too_many_ = true;
    std::string where = absl::StrCat("function %", f_->name());
    for (Block b : b_->order()) {
      if (pos < b_->BlockFrom(b) || pos >= b_->BlockTo(b)) continue;
      const std::vector<Inst>& insts = f_->block(b).insts;
      for (size_t k = 0; k < insts.size(); ++k) {
        if (b_->Pos(insts[k], 0) / 4 != pos / 4) continue;
        absl::StrAppend(&where, ", ", f_->BlockName(b), pos % 4 == 3 ? ", after inst " : ", inst ", k, " `",
                        PrintInst(*f_, insts[k], *t_), "`");
      }
    }
    return absl::InternalError(absl::StrCat(where, ": ", f_->ValueName(children_[id].value),
                                            " finds no register at position ", pos,
                                            ": its instruction needs more registers at once than the class has"));
  }

  const Target* t_ = nullptr;
  Function* f_ = nullptr;
  const LsraBuild* b_ = nullptr;
  const LsraOptions* options_ = nullptr;
  std::vector<std::vector<PReg>> orders_;
  // Stress: each class's whole allocation order, for the pieces the subset
  // cannot serve (RyuJIT's stress limits give way to what an instruction needs).
  std::vector<std::vector<PReg>> full_orders_;
  mutable bool too_many_ = false;  // the last error was TooMany
  // Per piece: a million and more at a million instructions, in lists that
  // grow by chunks (base/chunked_vector.h).
  ChunkedVector<LsraChild> children_;  // the scan's pieces, in the order it made them
  std::vector<StackSlot>* slots_ = nullptr;
  ChunkedVector<PReg> hint_;
  std::vector<uint32_t> evict_;           // AllocateBlockedReg's scratch
  mutable std::vector<LsraChild> row_;    // CollectPieces' scratch
  std::vector<uint32_t> active_, inactive_;
  // Per register, the active pieces whose register aliases it (two when a
  // copy overlaps its source): a free-register try reads this instead of
  // walking the active pieces' alias lists. Activate and Deactivate keep it.
  std::vector<uint16_t> active_holders_;
  void Activate(uint32_t a) {
    active_.push_back(a);
    for (PReg r : t_->AliasList(children_[a].loc.reg())) ++active_holders_[r.index()];
  }
  // For a piece leaving active_ (the caller removes it), before its register changes.
  void Deactivate(uint32_t a) {
    for (PReg r : t_->AliasList(children_[a].loc.reg())) --active_holders_[r.index()];
  }
  UnhandledQueue unhandled_;
  std::vector<uint32_t> free_until_, next_use_;
  // Per register, NextBlockedFor of the piece TryAllocateFreeReg last tried
  // (`blocked_for_`, at `blocked_pos_`): AllocateBlockedReg, which follows a
  // failed try for the same piece and position, reads them instead of asking
  // again.
  std::vector<uint32_t> blocked_at_;
  uint32_t blocked_for_ = kNever, blocked_pos_ = 0;
  // Per register: all its units preserved by calls; none of them preserved.
  std::vector<uint8_t> preserved_, destroyed_;
  // SelectFree's scratch: per register, its position in the order of the
  // last selection (valid where that order has it there).
  std::vector<uint16_t> order_pos_;
  // Pieces of each value as a list in position order (a split puts the tail
  // right after its head), and a finger per value into it: lookups come near
  // the scan's position and after the last one, so walking on from the finger
  // is amortized O(1). A position before the finger's piece walks again from
  // the first piece (the scan asked for none at a million instructions; a
  // list going back as well would be 12 MB there).
  std::vector<uint32_t> first_piece_;
  ChunkedVector<uint32_t> next_piece_;
  mutable std::vector<uint32_t> finger_;
  // The piece of `v` whose [from, to) holds `p`, or kNever.
  uint32_t PieceAt(Value v, uint32_t p) const {
    uint32_t c = finger_[v.index()];
    if (c == kNever || children_[c].from > p) c = first_piece_[v.index()];
    while (c != kNever && children_[c].to <= p) c = next_piece_[c];
    if (c == kNever || children_[c].from > p) return kNever;
    finger_[v.index()] = c;
    return c;
  }
  int splits_ = 0;
};

std::optional<PReg> Allocator::ReuseRegister(uint32_t id, uint32_t pos) const {
  for (const RefPosition& r : RefsAt(children_[id].value, pos)) {
    if (r.kind != RefKind::kDef || r.need != RefNeed::kReuse) continue;
    const Operand* src = f_->UseOperand(b_->InstAt(r.pos), r.reuse_of());
    if (src == nullptr) return std::nullopt;
    uint32_t early = r.pos - r.pos % 4;
    uint32_t c = PieceAt(src->value(), early);
    if (c != kNever && children_[c].loc.IsReg()) {
      std::optional<RegClass> cls = t_->ClassFor(f_->value_type(children_[id].value));
      return t_->View(children_[c].loc.reg(), *cls);
    }
  }
  return std::nullopt;
}

bool Allocator::TryAllocateFreeReg(uint32_t id, uint32_t pos, std::optional<PReg> forced) {
  const LsraChild c = children_[id];  // a copy: splitting grows children_
  RegClass cls = *t_->ClassFor(f_->value_type(c.value));
  const std::vector<PReg>& order = orders_[cls.index()];
  // Free until the next block, or not at all where an active piece holds the
  // register or an alias of it.
  for (PReg r : order) {
    const uint32_t blocked = NextBlockedFor(c, r, pos);
    blocked_at_[r.index()] = blocked;
    free_until_[r.index()] = active_holders_[r.index()] > 0 ? 0 : blocked;
  }
  // A forced register (a two-address source's) may lie outside the order.
  if (forced.has_value() && active_holders_[forced->index()] > 0) free_until_[forced->index()] = 0;
  blocked_for_ = id;
  blocked_pos_ = pos;
  for (uint32_t a : inactive_) {
    uint32_t x = NextIntersection(children_[a], c, pos);
    if (x == kNever) continue;
    for (PReg r : t_->AliasList(children_[a].loc.reg())) free_until_[r.index()] = std::min(free_until_[r.index()], x);
  }
  uint32_t end = End(c);
  PReg best;
  if (forced.has_value()) {
    best = *forced;
  } else if (options_->scoring) {
    best = SelectFree(id, pos, order);
    if (!best.IsValid()) return false;
  } else {
    PReg hint = hint_[id];
    bool in_order = hint.IsValid() && std::find(order.begin(), order.end(), hint) != order.end();
    if (in_order && free_until_[hint.index()] >= end) {
      best = hint;
    } else {
      for (PReg r : order) {
        if (!best.IsValid() || free_until_[r.index()] > free_until_[best.index()]) best = r;
      }
    }
  }
  uint32_t until = free_until_[best.index()];
  if (until <= pos) return false;
  if (until < end) {
    // Free for a while: keep the register up to the last gap before it is taken.
    uint32_t gap = GapAtOrBefore(until);
    if (gap <= pos || gap <= c.from) return false;
    const bool taken_where_live = Covers(c, until);
    if (options_->spill_before_loops && taken_where_live) {
      // Wimmer's split position, as for an evicted piece. A piece that would
      // leave the register in a loop and has no register use before then goes
      // to the stack now: the register would serve no use, and leaving it in
      // the loop costs a move or a reload at every iteration (on the back
      // edge, to make the register at the loop's start agree). Else a piece
      // whose last reference before then lies outside a loop the gap is in
      // leaves the register before that loop. (Where the register is taken
      // in a hole of the piece, the piece may well keep it after the hole: the
      // split at the gap costs nothing then.)
      if (!forced.has_value() && NextRegUse(c, pos) >= gap && b_->depth(BlockAt(gap)) > 0) {
        SpillFrom(id, pos, pos);
        return true;
      }
      const uint32_t split = BestSpillGap(id, gap);
      if (split > pos && split < gap) {
        children_[id].loc = Location::Reg(best);
        SpillFrom(id, split, pos);
        return true;
      }
    }
    if (options_->evict_over_split && !forced.has_value() && taken_where_live) {
      // The piece needs a register again after the split: if some register's
      // holders are all needed later than that, evicting them (Wimmer's
      // AllocateBlockedReg) costs their reload, later, where the split would
      // cost this piece's, sooner.
      const uint32_t again = NextRegUse(c, gap);
      if (again != kNever) {
        FillNextUses(id, pos, order);
        for (PReg r : order) {
          if (next_use_[r.index()] > again) {
            next_use_for_ = id;  // AllocateBlockedReg, next, reads the table
            return false;
          }
        }
      }
    }
    Push(Split(id, gap));
  }
  children_[id].loc = Location::Reg(best);
  return true;
}

void Allocator::FillNextUses(uint32_t id, uint32_t pos, const std::vector<PReg>& order) {
  const LsraChild& c = children_[id];
  const uint32_t gap = GapAtOrBefore(pos);
  // A fixed use, def or clobber of a register counts as its next use: nothing can
  // be moved out of the way of those.
  if (blocked_for_ == id && blocked_pos_ == pos) {
    for (PReg r : order) next_use_[r.index()] = blocked_at_[r.index()];
  } else {
    for (PReg r : order) next_use_[r.index()] = NextBlockedFor(c, r, pos);
  }
  for (uint32_t a : active_) {
    uint32_t u = NextRegUseOf(a, gap);
    for (PReg r : t_->AliasList(children_[a].loc.reg())) next_use_[r.index()] = std::min(next_use_[r.index()], u);
  }
  for (uint32_t a : inactive_) {
    if (NextIntersection(children_[a], c, pos) == kNever) continue;
    uint32_t u = NextRegUseOf(a, gap);
    for (PReg r : t_->AliasList(children_[a].loc.reg())) next_use_[r.index()] = std::min(next_use_[r.index()], u);
  }
}

PReg Allocator::SelectFree(uint32_t id, uint32_t pos, const std::vector<PReg>& order) {
  return order.size() <= 64 ? SelectFreeIn<1>(id, pos, order) : SelectFreeIn<4>(id, pos, order);
}

template <int W>
PReg Allocator::SelectFreeIn(uint32_t id, uint32_t pos, const std::vector<PReg>& order) {
  // Each rule is a set of positions in `order` (bits of W words); so are the
  // candidates, which a rule narrows by an intersection where that leaves any.
  using Mask = std::array<uint64_t, W>;
  const LsraChild& c = children_[id];
  const uint32_t end = End(c);
  const bool spans = SpansCall(c);
  const std::vector<uint8_t>& side_of = spans ? preserved_ : destroyed_;
  Mask cand{}, cover{}, side{};
  for (size_t i = 0; i < order.size(); ++i) {
    const uint32_t r = order[i].index();
    const uint32_t u = free_until_[r];
    const uint64_t bit = uint64_t{1} << (i % 64);
    cand[i / 64] |= u > pos ? bit : 0;
    cover[i / 64] |= u >= end ? bit : 0;
    side[i / 64] |= side_of[r] != 0 ? bit : 0;
    order_pos_[r] = static_cast<uint16_t>(i);
  }
  int count = 0;
  for (uint64_t w : cand) count += BitSet256::PopCount(w);
  auto first = [](const Mask& m) {
    for (int w = 0; w < W; ++w) {
      if (m[w] != 0) return static_cast<size_t>(w * 64 + __builtin_ctzll(m[w]));
    }
    return size_t{0};
  };
  if (count <= 1) return count == 0 ? PReg() : order[first(cand)];
  // The bit of register r's position in `order`, if it has one.
  auto set_pos = [&](Mask& m, PReg r) {
    const uint16_t i = order_pos_[r.index()];
    if (i < order.size() && order[i] == r) m[i / 64] |= uint64_t{1} << (i % 64);
  };
  auto narrow = [&](const Mask& keep) {
    Mask kept;
    uint64_t any = 0;
    for (int w = 0; w < W; ++w) any |= kept[w] = cand[w] & keep[w];
    if (any != 0) cand = kept;
  };
  // As in RyuJIT, a piece that lives across a call prefers only registers the
  // call preserves.
  Mask preferred{};
  bool any_preferred = false;
  auto prefer = [&](PReg r) {
    std::optional<PReg> view = t_->View(r, *t_->ClassFor(f_->value_type(c.value)));
    if (view.has_value() && free_until_[view->index()] > pos && (!spans || preserved_[view->index()])) {
      set_pos(preferred, *view);
      any_preferred = true;
    }
  };
  if (hint_[id].IsValid()) prefer(hint_[id]);
  if (b_->interval(c.value).hint.IsValid()) prefer(b_->interval(c.value).hint);
  if (any_preferred) {
    // The current range: up to the piece's next hole.
    absl::Span<const LsraRange> rs = RangesFrom(c.value, pos);
    const uint32_t range_end = rs.empty() ? end : std::min(rs.front().to, end);
    Mask over_range{};
    for (int w = 0; w < W; ++w) {
      for (uint64_t bits = preferred[w]; bits != 0; bits &= bits - 1) {
        const size_t i = w * 64 + __builtin_ctzll(bits);
        if (free_until_[order[i].index()] >= range_end) over_range[w] |= uint64_t{1} << (i % 64);
      }
    }
    narrow(over_range);
    narrow(preferred);
  }
  narrow(side);
  Mask held{};
  for (uint32_t a : inactive_) {
    for (PReg r : t_->AliasList(children_[a].loc.reg())) set_pos(held, r);
  }
  for (int w = 0; w < W; ++w) held[w] = ~held[w];
  narrow(held);
  narrow(cover);
  // Best fit: the covering register taken soonest after the piece, else the
  // one free the longest; ties go by allocation order. (The rules leave
  // either only covering candidates or none.)
  PReg best = order[first(cand)];
  const bool covers = free_until_[best.index()] >= end;
  for (int w = 0; w < W; ++w) {
    for (uint64_t bits = cand[w]; bits != 0; bits &= bits - 1) {
      const PReg r = order[w * 64 + __builtin_ctzll(bits)];
      const uint32_t u = free_until_[r.index()], b = free_until_[best.index()];
      if (covers ? u < b : u > b) best = r;
    }
  }
  return best;
}

absl::Status Allocator::AllocateBlockedReg(uint32_t id, uint32_t pos, std::optional<PReg> forced) {
  const LsraChild c = children_[id];  // a copy: splitting grows children_
  RegClass cls = *t_->ClassFor(f_->value_type(c.value));
  const std::vector<PReg>& order = orders_[cls.index()];
  uint32_t gap = GapAtOrBefore(pos);
  if (next_use_for_ != id) FillNextUses(id, pos, order);
  next_use_for_ = blocked_for_ = kNever;  // both read once
  PReg best;
  uint32_t first = NextRegUse(c, pos);
  if (forced.has_value()) {
    best = *forced;
  } else {
    for (PReg r : order) {
      if (!best.IsValid() || next_use_[r.index()] > next_use_[best.index()]) best = r;
    }
    if (options_->spill_nearest) {
      // Stress: the holder needed soonest among those needed after this piece,
      // of the registers this piece can keep until a gap past `pos` (a fixed
      // reference or clobber at its next instruction leaves no room to split).
      PReg nearest;
      for (PReg r : order) {
        if (next_use_[r.index()] <= first) continue;
        if (nearest.IsValid() && next_use_[r.index()] >= next_use_[nearest.index()]) continue;
        uint32_t blocked = NextBlockedFor(c, r, pos);
        if (blocked < End(c) && GapAtOrBefore(blocked) <= std::max(pos, c.from)) continue;
        nearest = r;
      }
      if (nearest.IsValid()) best = nearest;
    }
  }
  // The pieces holding `best` are needed later than this one: they leave.
  // Otherwise this piece waits on the stack until the gap before its first
  // register use (never when it needs one right away: too many at once).
  bool evict_them = forced.has_value() ? next_use_[best.index()] > pos : next_use_[best.index()] > first;
  if (!evict_them) {
    if (forced.has_value()) return TooMany(id, pos);
    if (first == kNever) {
      ToStack(id);
      return absl::OkStatus();
    }
    uint32_t g = GapAtOrBefore(first);
    if (g <= c.from || first <= pos) return TooMany(id, pos);
    Push(Split(id, g));
    ToStack(id);
    return absl::OkStatus();
  }
  // Take `best`; the pieces holding it (or an alias) leave from the gap.
  const RegSet& aliases = t_->Aliases(best);
  std::vector<uint32_t>& evict = evict_;
  evict.clear();
  for (uint32_t a : active_) {
    if (aliases.Contains(children_[a].loc.reg())) evict.push_back(a);
  }
  for (uint32_t a : inactive_) {
    if (aliases.Contains(children_[a].loc.reg()) && NextIntersection(children_[a], c, pos) != kNever) evict.push_back(a);
  }
  for (uint32_t a : evict) {
    auto active_end = std::remove(active_.begin(), active_.end(), a);
    if (active_end != active_.end()) Deactivate(a);
    active_.erase(active_end, active_.end());
    inactive_.erase(std::remove(inactive_.begin(), inactive_.end(), a), inactive_.end());
    uint32_t at = std::max(gap, children_[a].from);
    if (options_->spill_before_loops) {
      // Leave earlier only when the reload can still come after the gap: pieces
      // going back to the unhandled list must not start before this one.
      uint32_t use = NextRegUse(children_[a], gap);
      if (use == kNever || GapAtOrBefore(use) > gap) at = std::max(BestSpillGap(a, gap), children_[a].from);
    }
    if (at > children_[a].from && at < children_[a].to) {
      // The head keeps its register up to `at`, before this piece starts.
      SpillFrom(Split(a, at), at, gap);
    } else {
      children_[a].loc = Location();
      SpillFrom(a, children_[a].from, gap);
    }
  }
  uint32_t blocked = NextBlockedFor(c, best, pos);
  if (blocked == pos) return TooMany(id, pos);
  if (blocked < End(c)) {
    uint32_t g = GapAtOrBefore(blocked);
    if (g > pos && g > c.from) {
      Push(Split(id, g));
    } else if (blocked % 4 == kLsraClobber && NextRegUse(c, blocked) > blocked + 1) {
      // A clobber of `best` right after the instruction's early reads, one of
      // this piece's (no gap before it to leave by): the piece holds `best` up
      // to the clobber and the value goes on from its slot, where its def
      // stored it; nothing moves at the clobber. (A value read by a call-like
      // instruction and living past it, with every register its clobbers
      // spare taken by others read there.)
      SpillFrom(id, blocked, gap);
    } else {
      return TooMany(id, pos);
    }
  }
  children_[id].loc = Location::Reg(best);
  return absl::OkStatus();
}

std::optional<PReg> Allocator::PreferredRegister(uint32_t id, uint32_t pos) const {
  for (const RefPosition& r : RefsAt(children_[id].value, pos)) {
    const Inst inst = b_->InstAt(r.pos);
    if (r.kind != RefKind::kDef || !inst.IsValid() || r.need != RefNeed::kRegister) continue;
    uint32_t early = r.pos - r.pos % 4;
    for (const Operand& op : f_->operands(inst)) {
      if (!op.IsUse() || op.position() != Position::kEarly) continue;
      // A source whose piece at the instruction ends there, in a register.
      uint32_t c = PieceAt(op.value(), early);
      if (c == kNever) continue;
      const LsraChild& s = children_[c];
      if (s.loc.IsReg() && End(s) <= early + 1) {
        std::optional<RegClass> cls = t_->ClassFor(f_->value_type(children_[id].value));
        std::optional<PReg> view = t_->View(s.loc.reg(), *cls);
        if (view.has_value()) return view;
      }
    }
  }
  return std::nullopt;
}

bool Allocator::WrittenInPlaceWhileLive(Value v, Value other, uint32_t from, uint32_t to) const {
  absl::Span<const InPlaceUse> uses = in_place_.Row(v.index());
  auto it = std::lower_bound(uses.begin(), uses.end(), from, [](const InPlaceUse& u, uint32_t q) { return u.pos < q; });
  for (; it != uses.end() && it->pos < to; ++it) {
    if (b_->Covers(other, b_->Pos(it->inst, kLsraClobber))) return true;
  }
  return false;
}

// The use references of each value at an instruction with a two-address def
// reusing one of its operands that names the value (a reference per use
// operand, as the value's references list them).
void Allocator::IndexInPlaceUses() {
  in_place_items_.clear();
  // Positions grow along the block order: each value's uses come in position
  // order, once per instruction.
  for (Block b : b_->order()) {
    for (Inst i : f_->block(b).insts) {
      absl::Span<const Operand> ops = f_->operands(i);
      const size_t first_of_inst = in_place_items_.size();
      for (const Operand& op : ops) {
        if (!op.IsDef() || op.constraint() != ConstraintKind::kReuse) continue;
        const Operand* src = f_->UseOperand(i, op.reuse_index());
        if (src == nullptr || !b_->HasInterval(src->value())) continue;
        const uint32_t v = src->value().index();
        if (std::any_of(in_place_items_.begin() + first_of_inst, in_place_items_.end(),
                        [&](const auto& item) { return item.first == v; })) {
          continue;  // two defs reusing one value
        }
        absl::Span<const RefPosition> refs = b_->Refs(src->value());
        const uint32_t first = b_->Pos(i, 0);
        auto it = std::lower_bound(refs.begin(), refs.end(), first,
                                   [](const RefPosition& r, uint32_t q) { return r.pos < q; });
        for (; it != refs.end() && it->pos < first + kLsraGap; ++it) {  // i's references
          if (it->kind == RefKind::kUse) {
            in_place_items_.push_back({v, InPlaceUse{it->pos, i}});
          }
        }
      }
    }
  }
  in_place_.StartCounting(b_->num_values());
  for (const auto& [v, use] : in_place_items_) in_place_.Count(v);
  in_place_.StartFilling();
  for (const auto& [v, use] : in_place_items_) in_place_.Place(v, use);
  // Read for the last time: after a large function it goes now, not beside
  // the scan's peak (base/warm_buffers.h).
  ReleaseAfterLargeFunction(f_->num_insts(), in_place_items_);
}

bool Allocator::TryOverlap(uint32_t id, uint32_t pos) {
  const LsraChild& c = children_[id];
  if (c.from != pos || first_piece_[c.value.index()] != id) return false;
  Inst copy;
  for (const RefPosition& r : RefsAt(c.value, pos)) {
    const Inst inst = b_->InstAt(r.pos);
    if (r.kind == RefKind::kDef && inst.IsValid() && r.need == RefNeed::kRegister &&
        f_->inst(inst).opcode == Opcode::kCopy) {
      copy = inst;
    }
  }
  if (!copy.IsValid()) return false;
  const Operand* src = f_->UseOperand(copy, 0);
  uint32_t early = b_->Pos(copy, kLsraEarly);
  uint32_t s = src == nullptr ? kNever : PieceAt(src->value(), early);
  // A source dying at the copy is register preference's case.
  if (s == kNever || !children_[s].loc.IsReg() || End(children_[s]) <= early + 1) return false;
  PReg r = children_[s].loc.reg();
  const std::vector<PReg>& order = orders_[t_->ClassFor(f_->value_type(c.value))->index()];
  if (std::find(order.begin(), order.end(), r) == order.end()) return false;
  uint32_t end = End(c);
  if (NextBlockedFor(c, r, pos) < end) return false;
  for (uint32_t a : active_) {
    if (a != s && t_->RegsAlias(children_[a].loc.reg(), r)) return false;
  }
  for (uint32_t a : inactive_) {
    if (t_->RegsAlias(children_[a].loc.reg(), r) && NextIntersection(children_[a], c, pos) != kNever) return false;
  }
  // They share the register until either ends, across blocks too: an edge
  // that brings both into it moves only the copy, whose location holds the
  // source as well (lsra_resolve).
  uint32_t shared_end = std::min(end, End(children_[s]));
  // A two-address def overwriting one of them must come where the other is
  // dead (not merely later in the order: in another branch, the other may
  // still be live in the register).
  if (WrittenInPlaceWhileLive(c.value, src->value(), pos, shared_end) ||
      WrittenInPlaceWhileLive(src->value(), c.value, pos, shared_end)) {
    return false;
  }
  children_[id].loc = Location::Reg(r);
  ++overlapped_;
  return true;
}

void Allocator::SecondChance(LsraAllocStats& stats) {
  // Per register, the union of the ranges its pieces cover: disjoint intervals
  // keyed by start, so that their ends increase too.
  std::vector<absl::btree_map<uint32_t, uint32_t>> busy(t_->num_regs());
  auto ranges_of = [&](const LsraChild& c, auto&& f) {
    for (const LsraRange& r : RangesFrom(c.value, c.from)) {
      if (r.from >= c.to) break;
      f(std::max(r.from, c.from), std::min(r.to, c.to));
    }
  };
  auto occupy = [&](PReg reg, uint32_t from, uint32_t to) {
    absl::btree_map<uint32_t, uint32_t>& m = busy[reg.index()];
    auto it = m.upper_bound(from);
    if (it != m.begin() && std::prev(it)->second >= from) {
      --it;
      from = it->first;
      to = std::max(to, it->second);
      it = m.erase(it);
    }
    while (it != m.end() && it->first <= to) {
      to = std::max(to, it->second);
      it = m.erase(it);
    }
    m.emplace(from, to);
  };
  auto is_free = [&](PReg reg, const LsraChild& c) {
    if (NextBlockedFor(c, reg, Start(c)) < End(c)) return false;
    bool free = true;
    for (PReg a : t_->AliasList(reg)) {
      const absl::btree_map<uint32_t, uint32_t>& m = busy[a.index()];
      ranges_of(c, [&](uint32_t from, uint32_t to) {
        auto it = m.lower_bound(to);
        if (it != m.begin() && std::prev(it)->second > from) free = false;
      });
      if (!free) break;
    }
    return free;
  };
  // Each piece's predecessor in its value's list (the scan keeps only the
  // next).
  std::vector<uint32_t> prev(children_.size(), kNever);
  for (uint32_t id = 0; id < children_.size(); ++id) {
    if (next_piece_[id] != kNever) prev[next_piece_[id]] = id;
  }
  std::vector<uint32_t> candidates;
  for (uint32_t id = 0; id < children_.size(); ++id) {
    if (children_[id].loc.IsReg()) {
      ranges_of(children_[id], [&](uint32_t from, uint32_t to) { occupy(children_[id].loc.reg(), from, to); });
    } else if (children_[id].loc.IsStack() && Start(children_[id]) < children_[id].to &&
               children_[id].from % 4 != kLsraClobber) {
      // (A piece that left its register at a clobber has no gap to come back by.)
      candidates.push_back(id);
    }
  }
  std::sort(candidates.begin(), candidates.end(), [&](uint32_t a, uint32_t b) { return children_[a].from < children_[b].from; });
  while (!candidates.empty()) {
    ++stats.rounds;
    std::vector<uint32_t> left;
    for (uint32_t id : candidates) {
      const LsraChild& c = children_[id];
      const std::vector<PReg>& order = orders_[t_->ClassFor(f_->value_type(c.value))->index()];
      PReg take;
      // A neighbouring piece's register first: no move joins them.
      for (uint32_t n : {prev[id], next_piece_[id]}) {
        if (take.IsValid() || n == kNever || !children_[n].loc.IsReg()) continue;
        PReg r = children_[n].loc.reg();
        if (std::find(order.begin(), order.end(), r) != order.end() && is_free(r, c)) take = r;
      }
      for (size_t k = 0; !take.IsValid() && k < order.size(); ++k) {
        if (is_free(order[k], c)) take = order[k];
      }
      if (!take.IsValid()) {
        left.push_back(id);
        continue;
      }
      children_[id].loc = Location::Reg(take);
      ranges_of(c, [&](uint32_t from, uint32_t to) { occupy(take, from, to); });
      ++stats.recovered;
    }
    if (left.size() == candidates.size()) break;
    candidates.swap(left);
  }
}

void Allocator::RecordSeedEnd(Block s) {
  if (seeds_left_[s.index()] == 0) return;  // it seeds no block the scan has yet to start
  if (seed_end_dead_ > 1024 && 2 * seed_end_dead_ > seed_end_.size()) {
    size_t out = 0, keep = 0;
    for (Block p : seed_pending_) {
      if (seeds_left_[p.index()] == 0) continue;
      const uint32_t from = seed_end_from_[p.index()], to = seed_end_to_[p.index()];
      if (out < from) std::copy(seed_end_.begin() + from, seed_end_.begin() + to, seed_end_.begin() + out);
      seed_end_from_[p.index()] = static_cast<uint32_t>(out);
      out += to - from;
      seed_end_to_[p.index()] = static_cast<uint32_t>(out);
      seed_pending_[keep++] = p;
    }
    seed_pending_.resize(keep);
    seed_end_.resize(out);
    seed_end_dead_ = 0;
  }
  seed_pending_.push_back(s);
  // The values in registers at s's end are those of the pieces in registers
  // that cover it: all on the active and inactive lists (the scan has not yet
  // dropped what ended since its last position, which is before the end).
  const uint32_t end = b_->BlockTo(s) - 1;
  size_t from = seed_end_.size();
  for (const std::vector<uint32_t>* list : {&active_, &inactive_}) {
    for (uint32_t a : *list) {
      const LsraChild& c = children_[a];
      if (c.loc.IsReg() && c.from <= end && end < c.to) seed_end_.push_back({c.value, c.loc.reg()});
    }
  }
  std::sort(seed_end_.begin() + from, seed_end_.end(),
            [](const SeedEnd& x, const SeedEnd& y) { return x.value.index() < y.value.index(); });
  seed_end_from_[s.index()] = static_cast<uint32_t>(from);
  seed_end_to_[s.index()] = static_cast<uint32_t>(seed_end_.size());
}

bool Allocator::SeedBlock(Block b) {
  Block seed = b_->seed(b);
  const uint32_t p = b_->BlockFrom(b);
  if (!seed.IsValid()) return false;
  if (b_->BlockTo(seed) > p) {  // not placed before b (reversed stress order)
    DoneWithSeed(seed);
    return false;
  }
  if (++seed_stamp_ == 0) {
    std::fill(reg_stamp_.begin(), reg_stamp_.end(), 0);
    std::fill(value_stamp_.begin(), value_stamp_.end(), 0);
    seed_stamp_ = 1;
  }
  // The live-in values not where the seed left them.
  reseed_.clear();
  for (uint32_t k = seed_end_from_[seed.index()]; k < seed_end_to_[seed.index()]; ++k) {
    auto [v, r] = seed_end_[k];
    if (!b_->LiveInto(v, b)) continue;
    uint32_t c = PieceAt(v, p);
    if (c == kNever) continue;
    if (children_[c].loc.IsNone()) {
      if (children_[c].from == p) hint_[c] = r;  // a piece starting here, not allocated yet
      continue;
    }
    // Only a register-to-register move is saved: from a register to the stack
    // costs nothing (the slot was written at the definition), and a piece on the
    // stack here has no use before its next piece.
    if (!children_[c].loc.IsReg() || children_[c].loc == Location::Reg(r) || children_[c].from == p) continue;
    reseed_.push_back({c, r});
    value_stamp_[v.index()] = seed_stamp_;
  }
  DoneWithSeed(seed);
  if (reseed_.empty()) return false;
  // The register must be free of pieces that stay where they are, at p and over
  // the value's current range: a piece of another value that resumes in it
  // there would split the new piece again.
  auto free_over_range = [&](const Reseed& m) {
    const LsraChild& c = children_[m.piece];
    absl::Span<const LsraRange> rs = RangesFrom(c.value, p);
    uint32_t limit = rs.empty() ? p + 1 : std::min(rs.front().to, c.to);
    if (NextBlockedFor(c, m.reg, p) < limit) return false;
    const RegSet& aliases = t_->Aliases(m.reg);
    auto clear = [&](uint32_t a) {
      return value_stamp_[children_[a].value.index()] == seed_stamp_ || !aliases.Contains(children_[a].loc.reg()) ||
             NextIntersection(children_[a], c, p) >= limit;
    };
    return std::all_of(active_.begin(), active_.end(), clear) && std::all_of(inactive_.begin(), inactive_.end(), clear);
  };
  bool added = false;
  for (const Reseed& m : reseed_) {
    if (reg_stamp_[m.reg.index()] == seed_stamp_ || !free_over_range(m)) continue;
    uint32_t tail = Split(m.piece, p);
    // The head ends here: the scan must not take it for active past p.
    event_[m.piece] = std::min(event_[m.piece], p);
    active_next_ = std::min(active_next_, p);
    inactive_next_ = std::min(inactive_next_, p);
    hint_[tail] = m.reg;
    Push(tail);
    for (PReg r : t_->AliasList(m.reg)) reg_stamp_[r.index()] = seed_stamp_;
    ++seeded_;
    added = true;
  }
  return added;
}

absl::Status Allocator::AllocateOne(uint32_t id, uint32_t pos) {
  if (options_->overlap && TryOverlap(id, pos)) return absl::OkStatus();
  std::optional<PReg> forced = ReuseRegister(id, pos);
  if (!forced.has_value() && options_->preference && !hint_[id].IsValid()) {
    if (std::optional<PReg> p = PreferredRegister(id, pos)) {
      hint_[id] = *p;
      ++preferred_;
    }
  }
  if (TryAllocateFreeReg(id, pos, forced)) return absl::OkStatus();
  too_many_ = false;
  absl::Status s = AllocateBlockedReg(id, pos, forced);
  if (s.ok() || !too_many_ || options_->registers == LsraOptions::Registers::kAll) return s;
  // A stress subset too small for what the instruction needs at once (a late
  // read beside clobbers of the whole subset): this piece takes from every
  // register of its class, as RyuJIT's stress limits give way.
  const size_t c = t_->ClassFor(f_->value_type(children_[id].value))->index();
  orders_[c].swap(full_orders_[c]);
  s = TryAllocateFreeReg(id, pos, forced) ? absl::OkStatus() : AllocateBlockedReg(id, pos, forced);
  orders_[c].swap(full_orders_[c]);
  return s;
}

absl::Status Allocator::Run(LsraAllocStats& stats) {
  unhandled_.Clear();
  children_.clear();
  hint_.clear();
  next_piece_.clear();
  event_.clear();
  cursor_.assign(t_->num_regs(), 0);
  cursor_pos_.assign(t_->num_regs(), 0);
  cursor_range_.assign(t_->num_regs(), LsraRange{0, 0});
  first_piece_.assign(b_->num_values(), kNever);
  finger_.assign(b_->num_values(), kNever);
  next_block_ = 0;
  if (options_->seed_blocks) {
    const int nb = f_->num_blocks();
    seed_end_.clear();
    seed_end_from_.assign(nb, 0);
    seed_end_to_.assign(nb, 0);
    seeds_left_.assign(nb, 0);
    seed_pending_.clear();
    seed_end_dead_ = 0;
    for (Block b : b_->order()) {
      if (b_->seed(b).IsValid()) ++seeds_left_[b_->seed(b).index()];
    }
  }
  reg_stamp_.assign(t_->num_regs(), 0);
  value_stamp_.assign(b_->num_values(), 0);
  own_fixed_.assign(b_->num_values(), kNoOwnFixed);
  for (int v = 0; v < b_->num_values(); ++v) {
    if (!b_->HasInterval(Value(v))) continue;
    uint16_t& own = own_fixed_[v];
    for (const RefPosition& r : b_->Refs(Value(v))) {
      if (r.need != RefNeed::kFixed) continue;
      const uint16_t reg = static_cast<uint16_t>(r.reg().index());
      own = own == kNoOwnFixed || own == reg ? reg : kManyOwnFixed;
    }
  }
  if (options_->overlap) IndexInPlaceUses();
  seed_stamp_ = 0;
  // Every interval's first piece, then the splits'.
  size_t intervals = 0;
  for (int v = 0; v < b_->num_values(); ++v) intervals += b_->HasInterval(Value(v));
  unhandled_.Reserve(intervals);
  for (int v = 0; v < b_->num_values(); ++v) {
    if (!b_->HasInterval(Value(v))) continue;
    absl::Span<const LsraRange> rs = b_->Ranges(Value(v));
    const uint32_t id =
        AddPiece(LsraChild{Value(v), rs.front().from, rs.back().to, Location()}, b_->interval(Value(v)).hint, kNever);
    first_piece_[v] = id;
    // In an order where a use comes before the definition (the reversed stress
    // order), the definition starts a piece of its own, so that what it needs (a
    // reuse or fixed register) applies at the piece's start. Nothing is live just
    // before a definition, so no move joins the two.
    for (const RefPosition& r : b_->Refs(Value(v))) {
      if (r.kind == RefKind::kDef && r.pos > children_[id].from && r.pos < children_[id].to) {
        Push(Split(id, r.pos));
        --splits_;
      }
    }
    if (options_->local_split) {
      // Cut the first piece at every block start it spans (later pieces in
      // position order are split from the last one cut).
      uint32_t last = id;
      const std::vector<Block>& order = b_->order();
      auto it = std::upper_bound(order.begin(), order.end(), children_[id].from,
                                 [&](uint32_t p, Block blk) { return p < b_->BlockFrom(blk); });
      for (; it != order.end() && b_->BlockFrom(*it) < children_[last].to; ++it) {
        uint32_t from = b_->BlockFrom(*it);
        if (from > children_[last].from && b_->Covers(Value(v), from)) {
          uint32_t piece = Split(last, from);
          Push(last);
          last = piece;
        }
      }
      Push(last);
      continue;
    }
    Push(id);
  }
  unhandled_.Seal();
  while (!unhandled_.empty()) {
    auto [pos, id] = unhandled_.Pop();
    if (!children_[id].loc.IsNone() || Start(children_[id]) != pos) continue;  // stale entry
    if (options_->seed_blocks) {
      // Block starts passed since the last piece: seed them first, and take
      // this piece again after what seeding added there.
      const std::vector<Block>& order = b_->order();
      bool added = false;
      while (next_block_ < order.size() && b_->BlockFrom(order[next_block_]) <= pos) {
        if (next_block_ > 0) RecordSeedEnd(order[next_block_ - 1]);
        added |= SeedBlock(order[next_block_++]);
      }
      if (added) {
        unhandled_.Push({pos, id});
        continue;
      }
    }
    // Active pieces that ended or entered a hole; inactive ones that resumed.
    // A piece is looked at again only from its next event on, and a list
    // only from its earliest event on (most pieces start where no other
    // piece's state changes).
    const size_t resumed = inactive_.size();
    if (pos >= active_next_) {
      still_.clear();
      uint32_t next = kNever;
      for (uint32_t a : active_) {
        Event e = pos < event_[a] ? Event::kActive : Classify(a, pos);
        if (e == Event::kActive) {
          still_.push_back(a);
          next = std::min(next, event_[a]);
          continue;
        }
        Deactivate(a);
        if (e == Event::kInactive) {
          inactive_.push_back(a);
          inactive_next_ = std::min(inactive_next_, event_[a]);
        }
      }
      active_.swap(still_);
      active_next_ = next;
    }
    if (pos >= inactive_next_) {
      still_.clear();
      uint32_t next = kNever;
      for (size_t k = 0; k < inactive_.size(); ++k) {
        uint32_t a = inactive_[k];
        Event e = k >= resumed || pos < event_[a] ? Event::kInactive : Classify(a, pos);
        if (e == Event::kActive) {
          Activate(a);
          active_next_ = std::min(active_next_, event_[a]);
        } else if (e == Event::kInactive) {
          still_.push_back(a);
          next = std::min(next, event_[a]);
        }
      }
      inactive_.swap(still_);
      inactive_next_ = next;
    }
    absl::Status s = AllocateOne(id, pos);
    if (!s.ok()) return s;
    if (children_[id].loc.IsReg()) {
      Classify(id, pos);
      Activate(id);
      active_next_ = std::min(active_next_, event_[id]);
    }
  }
  if (options_->second_chance) SecondChance(stats);
  stats.splits = splits_;
  stats.preferred = preferred_;
  stats.overlapped = overlapped_;
  stats.seeded = seeded_;
  stats.children = static_cast<int>(children_.size());
  for (size_t id = 0; id < children_.size(); ++id) {
    stats.spilled += children_[id].loc.IsStack();
    stats.registers += children_[id].loc.IsReg();
  }
  return absl::OkStatus();
}

}  // namespace lsra_internal

absl::StatusOr<LsraAllocStats> LsraAllocation::Run(const Target& target, Function& func, const LsraBuild& build,
                                                   const LsraOptions& options) {
  LsraAllocStats stats;
  slots_.assign(func.num_values(), StackSlot());
  if (scratch_ == nullptr) scratch_ = std::make_unique<lsra_internal::Allocator>();
  lsra_internal::Allocator& a = *scratch_;
  a.Reset(target, func, build, options, slots_);
  absl::Status s = a.Run(stats);
  if (!s.ok()) return s;
  if (func.num_insts() <= kWarmBufferInsts) {
    a.CollectPieces(pieces_);
    return stats;
  }
  // After a large function the scan's buffers are given back (see
  // base/warm_buffers.h), all but its pieces before their rows are made.
  lsra_internal::Allocator::Chains chains = a.TakeChains();
  scratch_.reset();
  std::vector<LsraChild> row;
  lsra_internal::Allocator::CollectChains(chains.pieces, chains.first, chains.next, row, pieces_);
  return stats;
}

LsraAllocation::LsraAllocation() = default;
LsraAllocation::~LsraAllocation() = default;
LsraAllocation::LsraAllocation(const LsraAllocation& o) : pieces_(o.pieces_), slots_(o.slots_) {}
LsraAllocation& LsraAllocation::operator=(const LsraAllocation& o) {
  pieces_ = o.pieces_;
  slots_ = o.slots_;
  return *this;
}

Location LsraAllocation::At(Value v, uint32_t pos) const {
  uint32_t hint = ~0u;  // none: searched
  return At(v, pos, hint);
}

Location LsraAllocation::At(Value v, uint32_t pos, uint32_t& hint) const {
  // Pieces are sorted by `from` and disjoint: the last one starting at or before pos.
  absl::Span<const LsraChild> ps = PiecesOf(v);
  uint32_t& k = hint;
  auto answer = [&] { return pos < ps[k].to ? ps[k].loc : Location(); };
  if (k < ps.size() && ps[k].from <= pos) {
    if (k + 1 == ps.size() || pos < ps[k + 1].from) return answer();
    if (k + 2 == ps.size() || pos < ps[k + 2].from) {
      ++k;
      return answer();
    }
  }
  auto it = std::upper_bound(ps.begin(), ps.end(), pos, [](uint32_t p, const LsraChild& c) { return p < c.from; });
  if (it == ps.begin()) return Location();
  k = static_cast<uint32_t>(it - ps.begin() - 1);
  return answer();
}

StackSlot LsraAllocation::SlotOf(Value v, Function& func) { return SlotFor(slots_, func, v); }

std::string LsraAllocation::Print(const Function& func, const Target& target) const {
  std::string out = absl::StrCat("lsra allocation of %", func.name(), " (pieces [from, to); ss: the value's slot)\n");
  auto where = [&](Location l) { return l.IsReg() ? absl::StrCat("%", target.RegName(l.reg())) : std::string("ss"); };
  std::vector<std::vector<const LsraChild*>> per_reg(target.num_regs());
  for (size_t v = 0; v < pieces_.num_rows(); ++v) {
    if (pieces_.Row(v).empty()) continue;
    absl::StrAppend(&out, "  ", func.ValueName(Value(v)), ":");
    for (const LsraChild& c : pieces_.Row(v)) {
      absl::StrAppend(&out, " [", c.from, ", ", c.to, ") ", where(c.loc));
      if (c.loc.IsReg()) per_reg[c.loc.reg().index()].push_back(&c);
    }
    absl::StrAppend(&out, "\n");
  }
  for (int r = 0; r < target.num_regs(); ++r) {
    if (per_reg[r].empty()) continue;
    std::sort(per_reg[r].begin(), per_reg[r].end(),
              [&](const LsraChild* a, const LsraChild* b) { return a->from < b->from; });
    absl::StrAppend(&out, "  %", target.RegName(PReg(r)), ":");
    for (const LsraChild* c : per_reg[r]) {
      absl::StrAppend(&out, " ", func.ValueName(c->value), "[", c->from, ", ", c->to, ")");
    }
    absl::StrAppend(&out, "\n");
  }
  return out;
}

}  // namespace regalloc
