#include "ssa/program_point.h"

namespace regalloc {

void InstNumbering::Compute(const Function& func) {
  number_.assign(func.num_insts(), 0);
  first_.assign(func.num_blocks(), 0);
  last_.assign(func.num_blocks(), 0);
  order_.clear();
  block_of_.clear();
  order_.reserve(func.num_insts());
  block_of_.reserve(func.num_insts());
  for (Block b : func.layout()) {
    first_[b.index()] = static_cast<uint32_t>(order_.size());
    for (Inst i : func.block(b).insts) {
      number_[i.index()] = static_cast<uint32_t>(order_.size());
      order_.push_back(i);
      block_of_.push_back(b);
    }
    last_[b.index()] = order_.empty() ? 0 : static_cast<uint32_t>(order_.size() - 1);
  }
}

}  // namespace regalloc
