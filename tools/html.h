// Pictures of allocations: one self-contained HTML page (inline SVG, CSS and a
// little JavaScript; nothing fetched) that draws, per function and allocator,
// the live ranges coloured by location, the register pressure per bank, the
// allocated code beside them, and the totals `--stats` reports.
//
//   HtmlReport report(target);
//   report.Add("ssa", legalized, allocated, timings);   // per function, per pipeline
//   report.Write(std::cout);
//
// What a chart shows, and where it comes from:
// - The x axis is the program points of the function before allocation
//   (legalized, SSA: two points per instruction, InstNumbering), so that charts of
//   several allocators of one function line up. An instruction the allocation
//   added sits half a point after the Late point of the original instruction it
//   follows (half a point before its block when it opens the block; on an edge
//   block, after the branch).
// - One row per value with a live range (liveness/LiveRanges on the function
//   before allocation). Each interval is cut where the allocation moves the value:
//   it starts in its def's location (or, live into a block, where its first use
//   or move finds it), moves at spills, reloads, moves and parallel copies to the
//   destination, and follows a use that reads it elsewhere. One hue per 32-bit
//   lane of register storage (x86 al/ah/ax/eax/rax share a hue, narrower views
//   lighter; ARMv7 d0 shares s0's, d16 and d17 differ); stack slots hatched.
// - Marks: defs (triangles), uses (ticks), fixed-register and Reuse operands in
//   red, and on a top track every instruction MeasureAllocation counts (spill,
//   reload, move: check/ClassifyMove), so the marks match `--stats`.
// - Pressure: per bank, the values live at each point against the bank's
//   capacity, and the registers each instruction pins (fixed operands, clobbers).
// - Above kDetailLimit instructions a function is summarized per block (pressure
//   peaks and spills, reloads and moves per block) and its code is left out.
//
// The report reads only the two functions, which every allocator produces (the
// rewritten function the checker reads): new allocators get pictures for free.
#ifndef REGALLOC_TOOLS_HTML_H_
#define REGALLOC_TOOLS_HTML_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "ssa/ir.h"
#include "targets/target.h"

namespace regalloc {

// Functions larger than this are summarized per block.
inline constexpr int kDetailLimit = 4000;

// A piece of a value's live range in one location, in program points of the
// function before allocation (x: bits of a ProgramPoint; added instructions at
// half points).
struct ChartSegment {
  double x0 = 0;
  double x1 = 0;
  Location loc;
};

struct ChartMark {
  enum class Kind : uint8_t { kDef, kUse, kSpill, kReload, kMove };
  Kind kind = Kind::kUse;
  double x = 0;
  bool constrained = false;  // fixed register or Reuse
  int inst = -1;             // instruction id in the allocated function
};

struct ChartRow {
  Value value;
  std::vector<ChartSegment> segments;
  std::vector<ChartMark> marks;
};

struct ChartBlock {
  std::string name;
  double x0 = 0, x1 = 0;  // its points, first to last
  int depth = 0;          // loop depth
  int spills = 0, reloads = 0, moves = 0;
  std::vector<int> peak;  // per bank: most values live at once
};

struct ChartLine {  // one line of the allocated code
  std::string text;
  bool header = false;  // a block's name line
  double x = 0;         // its point
  int inst = -1;
  std::string block;  // for a block header
  std::vector<int> values;
  ChartMark::Kind kind = ChartMark::Kind::kUse;  // for counted moves; kUse otherwise
  bool counted = false;
};

// One allocation of one function, as drawn.
struct Chart {
  std::string function;
  std::string pipeline;
  std::string status = "ok";
  int insts = 0;
  double points = 0;  // the x extent
  double px = 5;      // pixels per point on the page
  bool detailed = true;
  std::vector<ChartBlock> blocks;
  std::vector<ChartRow> rows;
  // One mark per instruction MeasureAllocation counts (spill, reload, move), on
  // the chart's top track; the rows of the values it moves repeat it.
  std::vector<ChartMark> added;
  std::vector<ChartLine> code;
  std::vector<std::string> banks;
  std::vector<int> capacity;                 // per bank
  std::vector<std::vector<int>> pressure;    // per bank, per point (detailed only)
  std::vector<std::vector<int>> pinned;      // per bank, per point: registers pinned
  int spills = 0, reloads = 0, moves = 0;
  int64_t weighted = 0;
  std::vector<std::pair<std::string, absl::Duration>> times;
};

class HtmlReport {
 public:
  explicit HtmlReport(const Target& target) : target_(target) {}

  // `before` is the function as the allocator received it (legalized, SSA);
  // `after` the allocation of it (or before itself, with a status, when the
  // allocation failed). Charts of one function name are drawn together, in the
  // order added.
  absl::Status Add(const std::string& pipeline, const Function& before, const Function& after,
                   std::vector<std::pair<std::string, absl::Duration>> times, const std::string& status = "ok");
  // A function that did not get as far as an allocation.
  void AddFailure(const std::string& pipeline, const Function& before, const std::string& status);

  const std::vector<Chart>& charts() const { return charts_; }
  void Write(std::ostream& out) const;

 private:
  const Target& target_;
  std::vector<Chart> charts_;
};

// The chart data of one allocation (what Add draws).
absl::StatusOr<Chart> BuildChart(const Target& target, const Function& before, const Function& after);

// A location's name as the page shows it: "%rbx", "ss3".
std::string LocationName(const Target& target, Location loc);

}  // namespace regalloc

#endif  // REGALLOC_TOOLS_HTML_H_
