// An interference graph over dense node ids (C2's PhaseIFG): built from an edge
// list, then one sorted adjacency row per node, so that a coalescer can ask
// whether two nodes interfere and merge one node into another. C2 keeps a
// triangular half first and squares it up; here the rows are square from the
// start (each edge in both rows).
//
// Two representations behind one interface, chosen by size at Reset:
//  - up to kMatrixMaxBytes of n² bits, a square bit matrix (C2 keeps a bit set
//    per live range): an edge is one bit (duplicates cost nothing), Interferes
//    one test, Merge ORs one row into another; the sorted rows Neighbors hands
//    out are read off the matrix when asked for, after a change only;
//  - above it, rows only: edge ends pushed per row, each row sorted once by
//    Finish; Interferes a binary search, Merge a sorted union.
// Both give the same rows after the same calls (stale entries included).
//
//   InterferenceGraph g;          // keep it: rows are reused between builds
//   g.Reset(num_nodes);
//   g.AddEdge(a, b);              // duplicates and self-edges are dropped
//   g.Finish();
//   if (!g.Interferes(a, b)) g.Merge(a, b);   // b's edges now a's; b has none
//
// Memory: the matrix n²/8 bytes (15 MB at the 11k live ranges of a 10k-
// instruction function; 1.25 GB at 100k, hence the bound), plus 4 bytes per
// edge end and a row header per node for the rows. Neighbors may rebuild a
// row: not for concurrent readers.
#ifndef REGALLOC_CHAITIN_IFG_H_
#define REGALLOC_CHAITIN_IFG_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"

namespace regalloc {

class InterferenceGraph {
 public:
  // The bit matrix's largest size (n²/8 bytes); larger graphs use rows only.
  static constexpr int64_t kMatrixMaxBytes = int64_t{64} << 20;

  // Drops every edge and sizes the graph for `num_nodes` nodes. `matrix`
  // false forces rows only (for tests of both representations).
  void Reset(int num_nodes, bool matrix = true);
  // Records an edge (before Finish).
  void AddEdge(uint32_t a, uint32_t b) {
    if (a == b) return;
    if (words_ > 0) {
      uint64_t& w = matrix_[a * words_ + (b >> 6)];
      const uint64_t bit = uint64_t{1} << (b & 63);
      if (w & bit) return;
      w |= bit;
      matrix_[b * words_ + (a >> 6)] |= uint64_t{1} << (a & 63);
      ++matrix_edges_;
      return;
    }
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
  absl::Span<const uint32_t> Neighbors(uint32_t a) const {
    if (words_ > 0 && stale_row_[a]) ReadRow(a);
    return rows_[a];
  }
  bool Interferes(uint32_t a, uint32_t b) const;
  // Merges `b` into `a`: a's row becomes the union, every neighbour of b now
  // lists a (and may still list b). Precondition: !Interferes(a, b).
  void Merge(uint32_t a, uint32_t b);
  // Edges (each counted once) and the bytes the rows hold.
  int64_t num_edges() const;
  int64_t MemoryBytes() const;

 private:
  bool Bit(uint32_t a, uint32_t b) const { return (matrix_[a * words_ + (b >> 6)] >> (b & 63)) & 1; }
  void ReadRow(uint32_t a) const;

  int num_nodes_ = 0;
  size_t words_ = 0;               // per matrix row; 0: rows only
  int64_t matrix_edges_ = 0;       // matrix mode: edges between live nodes
  std::vector<uint64_t> matrix_;
  mutable std::vector<uint8_t> stale_row_;  // matrix mode: rows_[n] to be read again
  mutable std::vector<std::vector<uint32_t>> rows_;
  std::vector<uint8_t> dead_;  // merged into another node
  std::vector<uint32_t> merged_;
};

}  // namespace regalloc

#endif  // REGALLOC_CHAITIN_IFG_H_
