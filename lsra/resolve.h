// Resolution for the linear-scan allocator (`lsra_resolve`), after RyuJIT's
// resolution and Wimmer's data-flow resolution: writes each operand's location
// from the allocation and inserts the moves it implies.
//
//   absl::StatusOr<LsraResolveStats> s = ResolveLsra(target, func, build, alloc);
//
// Within a block, all moves at one gap (between two instructions) form one
// parallel copy, sequentialized by ssa/parallel_copy.h (stores first, register
// moves with swaps or a stack temporary for cycles, reloads last):
//  - a piece of an interval ending at the gap and the next piece starting there;
//  - a value written to a Fixed register by the instruction before the gap,
//    going to its piece's location;
//  - a value read from a Fixed register by the instruction after the gap, copied
//    there (the value itself stays where its piece is); a Stack use stores the
//    value to its slot first.
// Every source is where the value is right after the previous instruction, so the
// copy is exact whatever order the parts were found in.
// Constants are made again where they would be reloaded (LsraResolveOptions::
// remat): `v12[%rax] = const.i64 5`, where v12 is a new value that the reads
// name (outside the constant's block, one twin per constant that an edge
// would reload).
// At block boundaries, each edge gets one parallel copy: each value live into the
// successor from where it is at the predecessor's end to where the successor
// expects it, and each block parameter from its argument (phi lowering after
// allocation, as Subzero delays it). The copy goes before the predecessor's
// branch when it has one successor, at the top of the successor when it has one
// predecessor, and on a new block for a critical edge. Block parameters and
// branch arguments are gone afterwards; the frame saves the callee-saved
// registers used.
//
// Errors: Internal naming the instruction when the allocation breaks a
// constraint (a Reg operand on the stack, a Reuse def not in its source's
// register): a bug in lsra_allocate.
#ifndef REGALLOC_LSRA_RESOLVE_H_
#define REGALLOC_LSRA_RESOLVE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "liveness/live_sets.h"
#include "lsra/allocate.h"
#include "lsra/build.h"
#include "ssa/ir.h"
#include "targets/target.h"

namespace regalloc {

struct LsraResolveStats {
  int gap_moves = 0;     // moving instructions inside blocks
  int edge_moves = 0;    // moving instructions on edges
  int edges_split = 0;
  int stack_temps = 0;
  int remats = 0;       // constants made again instead of reloaded
  int dead_stores = 0;  // constants' stores whose slots nothing reads any more
  // The --print dump (with LsraResolveOptions::dump): each edge's copy, before
  // it was sequentialized.
  std::string printed;
};

struct LsraResolveOptions {
  bool dump = false;  // fill LsraResolveStats::printed
  // Rematerialization (resolve.cc): a constant's reload is the constant made
  // again instead: into a new value that the reads of that register piece
  // name, and, for a constant some edge would reload, outside its block as
  // its twin, a value of its own for the constant in registers there, made
  // again where it would be reloaded, on edges into joins too. Its store
  // goes where nothing reads its slot any more.
  bool remat = true;
};

// The values live across each edge are those lsra_build's ranges say live
// into its target (LsraBuild::LiveInto).
absl::StatusOr<LsraResolveStats> ResolveLsra(const Target& target, Function& func, const LsraBuild& build,
                                             LsraAllocation& alloc,
                                             const LsraResolveOptions& options = LsraResolveOptions());

// The same as a reusable object (LsraAllocator holds one): its buffers stay
// between functions, so a warm resolver allocates nothing but the function's
// growth.
class LsraResolver {
 public:
  LsraResolver();
  ~LsraResolver();
  // `release`, when given, is `build` itself (LsraAllocator's): after a
  // function of more than kWarmBufferInsts instructions (base/warm_buffers.h)
  // its intervals, ranges and references are given back once resolution has
  // read them, before the function grows (LsraBuild::ReleaseIntervals).
  absl::StatusOr<LsraResolveStats> Run(const Target& target, Function& func, const LsraBuild& build,
                                       LsraAllocation& alloc, const LsraResolveOptions& options = LsraResolveOptions(),
                                       LsraBuild* release = nullptr);

  struct Buffers;  // defined with the phase

 private:
  std::unique_ptr<Buffers> buf_;
};

}  // namespace regalloc

#endif  // REGALLOC_LSRA_RESOLVE_H_
