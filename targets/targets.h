// The concrete targets: "x86_64" (System V), "x86_64_win" (Win64 calling convention
// on the same register file), "aarch64" (AAPCS64) and "armv7" (AAPCS-VFP).
//
// Most callers want the cached, shared instance from `TargetByName` (target.h);
// `BuildTarget` builds a fresh one (tests compare options side by side).
#ifndef REGALLOC_TARGETS_TARGETS_H_
#define REGALLOC_TARGETS_TARGETS_H_

#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"
#include "targets/target.h"

namespace regalloc {

absl::StatusOr<Target> BuildTarget(absl::string_view name, const TargetOptions& options = {});

}  // namespace regalloc

#endif  // REGALLOC_TARGETS_TARGETS_H_
