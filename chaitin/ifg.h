// An interference graph over dense node ids (C2's PhaseIFG): built from an edge
// list, then one sorted adjacency row per node, so that a coalescer can ask
// whether two nodes interfere (binary search) and merge one node into another.
// C2 keeps a triangular half first and squares it up; here the rows are square
// from the start (each edge in both rows).
//
//   InterferenceGraph g;          // keep it: rows are reused between builds
//   g.Reset(num_nodes);
//   g.AddEdge(a, b);              // duplicates and self-edges are dropped
//   g.Finish();
//   if (!g.Interferes(a, b)) g.Merge(a, b);   // b's edges now a's; b has none
//
// Memory: 4 bytes per edge end plus a row header per node. A bit matrix would
// cost n²/8 bytes (1.25 GB at the 100k live ranges of a 100k-instruction
// function); rows cost what the graph holds.
#ifndef REGALLOC_CHAITIN_IFG_H_
#define REGALLOC_CHAITIN_IFG_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"

namespace regalloc {

class InterferenceGraph {
 public:
  // Drops every edge and sizes the graph for `num_nodes` nodes.
  void Reset(int num_nodes);
  // Records an edge (before Finish).
  void AddEdge(uint32_t a, uint32_t b) {
    if (a == b) return;
    rows_[a].push_back(b);
    rows_[b].push_back(a);
  }
  // Sorts each row and drops its duplicates (many small sorts beat one sort of
  // every edge: at a hundred values live, a 5k-instruction function records
  // half a million edge ends).
  void Finish();

  int num_nodes() const { return num_nodes_; }
  // Sorted; after merges it may still name a merged node (where its survivor is
  // named too): callers skip nodes they know merged.
  absl::Span<const uint32_t> Neighbors(uint32_t a) const { return rows_[a]; }
  bool Interferes(uint32_t a, uint32_t b) const;
  // Merges `b` into `a`: a's row becomes the union, every neighbour of b now
  // lists a (and may still list b). Precondition: !Interferes(a, b).
  void Merge(uint32_t a, uint32_t b);
  // Edges (each counted once) and the bytes the rows hold.
  int64_t num_edges() const;
  int64_t MemoryBytes() const;

 private:
  int num_nodes_ = 0;
  std::vector<std::vector<uint32_t>> rows_;
  std::vector<uint8_t> dead_;  // merged into another node
  std::vector<uint32_t> merged_;
};

}  // namespace regalloc

#endif  // REGALLOC_CHAITIN_IFG_H_
