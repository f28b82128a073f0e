// Test and benchmark support: a plain dense-bit-vector liveness, the reference the
// sparse sets are checked and measured against, and the set of values live at
// every program point.
#ifndef REGALLOC_LIVENESS_LIVENESS_TESTING_H_
#define REGALLOC_LIVENESS_LIVENESS_TESTING_H_

#include <cstdint>
#include <vector>

#include "ssa/ir.h"
#include "ssa/program_point.h"

namespace regalloc {

// One bit per value id.
class DenseSet {
 public:
  explicit DenseSet(int n = 0) : words_((n + 63) / 64, 0) {}
  void Set(uint32_t i) { words_[i >> 6] |= uint64_t{1} << (i & 63); }
  void Reset(uint32_t i) { words_[i >> 6] &= ~(uint64_t{1} << (i & 63)); }
  bool Test(uint32_t i) const { return (words_[i >> 6] >> (i & 63)) & 1; }
  std::vector<Value> Values() const;
  std::vector<uint64_t>& words() { return words_; }
  const std::vector<uint64_t>& words() const { return words_; }
  friend bool operator==(const DenseSet& a, const DenseSet& b) { return a.words_ == b.words_; }

 private:
  std::vector<uint64_t> words_;
};

// Textbook iterative liveness over dense bit vectors of every value: the
// reference implementation.
struct DenseLiveness {
  explicit DenseLiveness(const Function& func);
  std::vector<DenseSet> live_in;   // by block id
  std::vector<DenseSet> live_out;
};

// The values live at each program point (index: point bits), from the dense sets
// by the recurrence S(Late i) = S(after i) ∪ late uses ∪ late defs,
// S(Early i) = (S(Late i) − late defs) ∪ early uses ∪ early defs.
std::vector<DenseSet> LiveAtEveryPoint(const Function& func, const DenseLiveness& dense, const InstNumbering& num);

}  // namespace regalloc

#endif  // REGALLOC_LIVENESS_LIVENESS_TESTING_H_
