// Test fixtures shared by the allocators' tests: text-format functions parsed and
// legalized for a target, the loop every allocator's tests start from, and the
// x86 byte-register cases.
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

// Ten i8 values and a pointer live at once: on x86-64 the pointer holds %rdi and
// the bytes fill the other eight caller-saved low bytes, then %ah and %ch.
inline constexpr char kTenBytesText[] = R"(function %bytes(i64) -> i8 {
block0(v0: i64):
    v1 = load.i8 v0, 1
    v2 = load.i8 v0, 2
    v3 = load.i8 v0, 3
    v4 = load.i8 v0, 4
    v5 = load.i8 v0, 5
    v6 = load.i8 v0, 6
    v7 = load.i8 v0, 7
    v8 = load.i8 v0, 8
    v9 = load.i8 v0, 9
    v10 = load.i8 v0, 10
    v11 = add v1, v2
    v12 = add v11, v3
    v13 = add v12, v4
    v14 = add v13, v5
    v15 = add v14, v6
    v16 = add v15, v7
    v17 = add v16, v8
    v18 = add v17, v9
    v19 = add v18, v10
    store v19, v0, 0
    ret v19
}
)";

// x86-64 divides bytes in ax: the remainder lands in %ah while %al is clobbered.
// v0 lives on after the rem; v4, an i64, is live across it and must avoid %rax.
inline constexpr char kByteRemainderText[] = R"(function %rem8(i8, i8, i64) -> i8 {
block0(v0: i8, v1: i8, v2: i64):
    v3 = rem v0, v1
    v4 = load.i64 v2, 0
    v5 = add v3, v0
    store v4, v2, 8
    ret v5
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
