// Human-readable liveness, as the pipeline's --print shows it:
//   block1: in v0, v3; out v0, v5
//   v3: def [6, 13], live-in [20, 31] [40, 45]
#ifndef REGALLOC_LIVENESS_PRINT_H_
#define REGALLOC_LIVENESS_PRINT_H_

#include <string>

#include "liveness/live_ranges.h"
#include "liveness/live_sets.h"
#include "ssa/ir.h"

namespace regalloc {

std::string PrintLiveness(const Function& func, const LiveSets& sets, const LiveRanges& ranges);

}  // namespace regalloc

#endif  // REGALLOC_LIVENESS_PRINT_H_
