// The first phase of the linear-scan allocator (`lsra_build`): the block order,
// the intervals and RefPositions that allocation walks, and the physical
// registers' fixed references (RyuJIT's LinearScan::buildIntervals, on the
// Mössenböck–Pfeiffer / Wimmer interval model).
//
//   LsraBuild build;                      // keep it: buffers are reused
//   absl::StatusOr<LsraBuildStats> s = build.Run(target, func, sets);
//   for (int v = 0; v < build.num_values(); ++v) {
//     if (build.HasInterval(Value(v))) ... build.interval(Value(v)).cls ... build.Ranges(Value(v)) ...
//   }
//
// Block order (RyuJIT's blockSequence): the entry first, then repeatedly the
// heaviest block (loop depth as weight; among equals the one made ready last, so
// a successor of the block just placed falls through, then reverse post-order)
// that has a predecessor already placed: every block follows a predecessor.
// That predecessor (the heaviest placed one) is the block's seed: allocation
// starts the block from the seed's end state. Edges from a block with several
// successors to a block with several predecessors are critical; resolution
// splits those that need moves.
//
// Positions: instructions are numbered k = 1, 2, ... in block order and get four
// positions each:
//   4k      Early: uses read, early defs written
//   4k + 1  clobbers
//   4k + 2  Late: late uses read, defs written
//   4k + 3  the gap after the instruction, where the allocator inserts moves
// A block covers [4·first - 1, 4·last + 3): it starts at the gap before its first
// instruction, where its parameters are defined.
//
// Intervals are half-open ranges [from, to) in these positions, sorted and
// disjoint, with lifetime holes where the value is dead (a value defined before a
// loop it is not used in, used after it, has no hole; one used only before and
// after a loop in the block order has one). In SSA a value is live in one
// contiguous piece of each block, so an interval has at most one range per block,
// adjacent ones merged. A use at Early is covered through 4k (a Reuse source
// too: the def written at 4k + 2 may take its register); a Late use through
// 4k + 2; a def starts at its position; a dead def covers just its position.
//
// RefPositions, per value and sorted: defs and uses with what they need (a
// register; any location; a stack slot; a fixed register; the register of a
// use), and per physical register the positions it is unavailable: a Fixed use
// of it at k blocks [4k - 1, 4k + 1) (the move into it goes in the gap before k),
// a Fixed def [4k + 2, 4k + 4) (the move out of it goes in the gap after), a
// clobber [4k + 1, 4k + 2). Blocking a register blocks its aliases.
//
// Build changes the function in two ways, both for Reuse (two-address) defs
// whose source is still needed after the instruction (live after it, or read by
// another operand): in a commutative integer op whose other source dies there,
// the two sources trade places, so that the dying one is overwritten; otherwise
// the source is copied first (`v9 = copy v3`), so that the def may take the
// copy's register where it dies; a source defined by `const` is made again
// instead (`v9 = const.i32 5`: LsraBuildOptions::remat), which needs no
// register holding the constant there.
//
// Precondition: `sets` is the liveness of `func` (the copies Build adds are local
// to their blocks, so the sets stay exact; a constant it makes again is read
// no more there, and its sets shrink: LiveSets::Shrink, on Run's `release`
// when given, else on a copy). Run reads it and nothing after:
// which values live into a block (resolution's edges, allocation's seeded
// blocks) LiveInto answers from the ranges, so that an allocator may give the
// sets back before allocation, or even before Run makes the rows from its walk
// (Run's `release`: LsraAllocator's after a large function, where at a million
// instructions they are 76 MB beside the rows being made). Errors:
// InvalidArgument for a value of a type the target has no registers for, for
// unreachable blocks.
#ifndef REGALLOC_LSRA_BUILD_H_
#define REGALLOC_LSRA_BUILD_H_

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "base/compressed_rows.h"
#include "liveness/live_sets.h"
#include "ssa/cfg.h"
#include "ssa/ir.h"
#include "ssa/verifier.h"
#include "targets/target.h"

namespace regalloc {

inline constexpr uint32_t kLsraEarly = 0;
inline constexpr uint32_t kLsraClobber = 1;
inline constexpr uint32_t kLsraLate = 2;
inline constexpr uint32_t kLsraGap = 3;

// The slot where use `o` of `i` is read: Early or Late, but a Late use that a
// Reuse def of its instruction overwrites is read at the clobber slot, so that
// its piece still covers the clobbers and early defs (it must survive them, as
// any Late read) and ends where the def, written at Late, takes its register.
inline uint32_t LsraUseSlot(absl::Span<const Operand> ops, size_t o) {
  return ops[o].position() == Position::kEarly ? kLsraEarly : IsReuseSource(ops, o) ? kLsraClobber : kLsraLate;
}

struct LsraRange {
  uint32_t from = 0;
  uint32_t to = 0;  // exclusive
  bool Contains(uint32_t p) const { return from <= p && p < to; }
};

enum class RefKind : uint8_t {
  kDef,       // the value is written (an instruction's def or a block parameter)
  kUse,       // the value is read (branch arguments too: at the branch)
  kFixedUse,  // a physical register is read by a Fixed use
  kFixedDef,  // a physical register is written by a Fixed def
  kKill,      // a physical register is clobbered
};

// What a reference needs of its value's location.
enum class RefNeed : uint8_t {
  kRegister,  // any register of the class (Reg; a Reuse source; most defs)
  kAny,       // register or stack (Any; branch arguments)
  kStack,     // a stack slot
  kFixed,     // exactly `reg` (the allocator may copy the value there)
  kReuse,     // a def in the register its instruction's use `reuse_of` is read from
};

// A reference to a value (in its row of LsraBuild::Refs) or to a register (in
// RegRefs), 8 bytes, as there are three or four per instruction: the value is
// its row's, the instruction follows from the position (LsraBuild::InstAt:
// none at a gap, where block parameters are defined), the loop depth from the
// block.
struct RefPosition {
  uint32_t pos = 0;
  RefKind kind = RefKind::kUse;
  RefNeed need = RefNeed::kRegister;

  // kFixed needs and register references: the register.
  PReg reg() const { return need == RefNeed::kFixed && aux_ != kNone ? PReg(aux_) : PReg(); }
  void set_reg(PReg r) { aux_ = r.IsValid() ? static_cast<uint16_t>(r.index()) : kNone; }
  // kReuse: the use of its instruction whose register the def takes.
  int reuse_of() const { return aux_; }
  void set_reuse_of(int use) { aux_ = static_cast<uint16_t>(use); }

 private:
  static constexpr uint16_t kNone = 0xffff;
  uint16_t aux_ = kNone;  // the register (kFixed) or the use (kReuse)
};
static_assert(sizeof(RefPosition) == 8, "references are 8 bytes");

// An interval's own facts, by value id (its value is its index).
struct LsraInterval {
  RegClass cls;
  PReg hint;  // a fixed register it is defined in or read from, if any
};
static_assert(sizeof(LsraInterval) <= 8, "intervals are 8 bytes");

struct LsraBuildStats {
  int intervals = 0;
  int ranges = 0;
  int refs = 0;
  int fixed_refs = 0;
  int critical_edges = 0;
  int reuse_copies = 0;
  int commuted = 0;  // commutative ops whose sources traded places instead
  int remats = 0;    // constant sources made again instead of copied
};

struct LsraBuildOptions {
  // Stress (RyuJIT's reversed order): the blocks after the entry in reverse, so
  // blocks no longer follow their predecessors and resolution does the work.
  bool reverse_order = false;
  // A Reuse def's source that is still needed and is defined by `const` is
  // made again (`v9 = const.i32 5`) instead of copied (`v9 = copy v3`).
  bool remat = true;
};

class LsraBuild {
 public:
  absl::StatusOr<LsraBuildStats> Run(const Target& target, Function& func, const LiveSets& sets,
                                     const LsraBuildOptions& options = LsraBuildOptions());
  // The same for a caller that verified `func` itself and keeps its analyses
  // (FunctionVerifier::Run(func, target, analyses), as LsraAllocator does, so
  // that the live sets are computed on the same graph): they are not
  // verified or computed again, and they must outlive the build's use
  // (analyses(), read by resolution). `release`, when given, is `sets`
  // itself (LsraAllocator's): where constants are made again their sets
  // shrink in it, and after a large function they are given back
  // (LiveSets::Release) as soon as they have been read for the last time,
  // before the rows are made (base/warm_buffers.h).
  absl::StatusOr<LsraBuildStats> Run(const Target& target, Function& func, const LiveSets& sets,
                                     const LsraBuildOptions& options, const CfgAnalyses& verified,
                                     LiveSets* release = nullptr);

  // The control-flow graph, dominator tree and loop nest of the function as
  // built (Build adds copies, no blocks): resolution reads the graph.
  const CfgAnalyses& analyses() const { return analyses_ != nullptr ? *analyses_ : own_analyses_; }

  // Block order and positions.
  const std::vector<Block>& order() const { return order_; }
  Block seed(Block b) const { return seed_[b.index()]; }
  int depth(Block b) const { return depth_[b.index()]; }  // loop depth
  uint32_t BlockFrom(Block b) const { return block_from_[b.index()]; }
  uint32_t BlockTo(Block b) const { return block_to_[b.index()]; }
  // The position of slot `slot` (kLsraEarly...) of `inst`.
  uint32_t Pos(Inst inst, uint32_t slot) const { return 4 * number_[inst.index()] + slot; }
  // The instruction of a reference at `pos`; none at a gap (a block's
  // parameters, defined at the gap before its first instruction). Until
  // ReleaseIntervals.
  Inst InstAt(uint32_t pos) const { return pos % 4 == kLsraGap ? Inst() : inst_at_[pos / 4]; }
  const std::vector<Edge>& critical_edges() const { return critical_; }
  // Is `v` live into block `b` (in the live sets' LiveIn(b))? From the
  // ranges: covered at the block's start, and not one of its parameters
  // (defined there, never live into it).
  bool LiveInto(Value v, Block b) const;

  // Intervals, one per value with a range (dense by value id: HasInterval tells).
  bool HasInterval(Value v) const { return v.index() < has_.size() && has_[v.index()]; }
  const LsraInterval& interval(Value v) const { return intervals_[v.index()]; }
  absl::Span<const LsraRange> Ranges(Value v) const { return ranges_.Row(v.index()); }
  absl::Span<const RefPosition> Refs(Value v) const { return refs_.Row(v.index()); }
  // Positions where physical register `r` (or an alias) is unavailable, sorted,
  // and the references behind them.
  absl::Span<const LsraRange> Blocked(PReg r) const { return blocked_.Row(r.index()); }
  absl::Span<const RefPosition> RegRefs(PReg r) const { return reg_refs_.Row(r.index()); }
  // The clobber positions (4k + 1) of the instructions with clobbers (calls), sorted.
  const std::vector<uint32_t>& clobbers() const { return clobbers_; }
  int num_values() const { return static_cast<int>(has_.size()); }
  // Is `v` live at position `p` (binary search in its ranges)?
  bool Covers(Value v, uint32_t p) const;

  // Gives back the intervals, ranges and references (the registers' too),
  // keeping the block order and positions: for resolution, which reads those
  // last before it grows the function (LsraResolver::Run's `release`). Only
  // the order and positions may be asked until the next Run.
  void ReleaseIntervals();

  // RyuJIT-style dump: the order, each interval with its ranges and references,
  // each register's fixed references.
  std::string Print(const Function& func, const Target& target) const;

 private:
  absl::Status InsertReuseCopies(Function& func, const LiveSets& sets, bool remat, LsraBuildStats& stats);
  void OrderBlocks(const Function& func, const ControlFlowGraph& cfg, const LoopNest& loops);

  const Target* target_ = nullptr;
  std::vector<Block> order_;
  std::vector<Block> seed_;
  std::vector<int> depth_;
  std::vector<uint32_t> block_from_, block_to_, number_;
  std::vector<Inst> inst_at_;  // by number: the inverse of number_
  std::vector<Edge> critical_;
  std::vector<uint32_t> clobbers_;
  std::vector<uint8_t> has_;
  std::vector<Block> param_of_;  // per value: the block it is a parameter of (LiveInto)
  std::vector<LsraInterval> intervals_;
  CompressedRows<LsraRange> ranges_;
  CompressedRows<RefPosition> refs_;
  CompressedRows<LsraRange> blocked_;
  CompressedRows<RefPosition> reg_refs_;
  // Scratch kept between runs.
  struct ValueRange {
    Value value;
    LsraRange range;
  };
  // Per value, what the block walks need of it, together (one cache line for
  // the random accesses by value id, not one per array).
  struct CopyScratch {
    uint32_t stamp = 0;  // block stamp of its last use here
    int last_use = -1;   // index of that last use in the block
  };
  struct RangeScratch {
    uint32_t seen = 0;   // block stamp when referred to
    uint32_t start = 0;  // the open piece's start
    uint32_t last = 0;   // its last reference in the block
  };
  // Given back after a large function (base/warm_buffers.h): nothing here is
  // read after Run.
  struct Scratch {
    std::vector<ValueRange> pieces;                         // every value's pieces, in walk order
    std::vector<RefPosition> all_reg_refs;                  // fixed-register references, in walk order
    std::vector<std::vector<LsraRange>> blocked;            // per register: its blocked ranges, in walk order
    std::vector<CopyScratch> copy;
    std::vector<Inst> const_def;  // InsertReuseCopies' (remat): per value, the const defining it
    std::vector<Value> remade;    // the constants it made again, sorted
    LiveSets sets;                // the sets shrunk, when the caller's are not given (Run's `release`)
    std::vector<RangeScratch> range;
    std::vector<Value> touched;
    std::vector<Operand> ops;
    std::vector<Inst> insts;
    std::vector<LsraRange> merged;
    CompressedRows<ValueRange> pieces_by_value;
    std::vector<uint8_t> placed;
    std::vector<std::tuple<int, uint32_t, int, uint32_t>> ready;  // OrderBlocks' heap
    FunctionVerifier verifier;
  } scratch_;
  // The analyses when the caller keeps none: not with the scratch, which goes
  // after a large function's build, as resolution reads them after it.
  CfgAnalyses own_analyses_;
  const CfgAnalyses* analyses_ = nullptr;  // the caller's, or null for own_analyses_
};

}  // namespace regalloc

#endif  // REGALLOC_LSRA_BUILD_H_
