// Test fixtures shared by the allocators' tests: text-format functions parsed and
// legalized for a target, and the loop every allocator's tests start from.
//
//   Function f = ParseLegal(kSumLoopText, target);
#ifndef REGALLOC_SSA_SSA_TESTING_H_
#define REGALLOC_SSA_SSA_TESTING_H_

#include <string>
#include <utility>

#include "gtest/gtest.h"
#include "ssa/legalize.h"
#include "ssa/parser.h"

namespace regalloc {

// Cretonne's running example: a loop summing memory, with loop-carried block
// parameters and a critical back edge.
inline constexpr char kSumLoopText[] = R"(function %sum_loop(i32, i32) -> i32 {
block0(v0: i32, v1: i32):
    v2 = const.i32 0
    jump block1(v2, v0)
block1(v3: i32, v4: i32):
    v5 = load.i32 v4, 0
    v6 = add v3, v5
    v7 = const.i32 4
    v8 = add v4, v7
    v9 = cmp.ult v8, v1
    br v9, block1(v6, v8), block2
block2:
    ret v6
}
)";

// Parses `text` for `target` and legalizes it; a test failure (and an empty
// function) when either step fails.
inline Function ParseLegal(const std::string& text, const Target& target) {
  absl::StatusOr<Function> f = ParseFunction(text, target);
  EXPECT_TRUE(f.ok()) << f.status();
  if (!f.ok()) return Function();
  absl::Status legal = Legalize(*f, target);
  EXPECT_TRUE(legal.ok()) << legal;
  return *std::move(f);
}

}  // namespace regalloc

#endif  // REGALLOC_SSA_SSA_TESTING_H_
