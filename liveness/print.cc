#include "liveness/print.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace regalloc {
namespace {

std::string Values(const Function& func, absl::Span<const Value> vs) {
  if (vs.empty()) return "-";
  std::vector<std::string> names;
  for (Value v : vs) names.push_back(func.ValueName(v));
  return absl::StrJoin(names, ", ");
}

std::string Show(const Interval& i) { return absl::StrCat("[", i.begin.bits(), ", ", i.end.bits(), "]"); }

}  // namespace

std::string PrintLiveness(const Function& func, const LiveSets& sets, const LiveRanges& ranges) {
  std::string out = absl::StrCat("liveness of %", func.name(), " (program points: 2 per instruction, layout order)\n");
  for (Block b : func.layout()) {
    absl::StrAppend(&out, "  ", func.BlockName(b), ": in ", Values(func, sets.LiveIn(b)), "; out ",
                    Values(func, sets.LiveOut(b)), "\n");
  }
  for (int v = 0; v < func.num_values(); ++v) {
    if (!ranges.HasRange(Value(v))) continue;
    absl::StrAppend(&out, "  ", func.ValueName(Value(v)), ": def ", Show(ranges.def_interval(Value(v))));
    absl::Span<const Interval> ins = ranges.live_ins(Value(v));
    if (!ins.empty()) {
      out += ", live-in";
      for (const Interval& i : ins) absl::StrAppend(&out, " ", Show(i));
    }
    out += "\n";
  }
  return out;
}

}  // namespace regalloc
