#include "tools/html.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "check/checker.h"
#include "liveness/live_ranges.h"
#include "liveness/live_sets.h"
#include "ssa/cfg.h"
#include "ssa/printer.h"
#include "ssa/program_point.h"

namespace regalloc {
namespace {

std::string Escape(absl::string_view s) {
  return absl::StrReplaceAll(s, {{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}, {"\"", "&quot;"}});
}

// One change of where a value is, in the allocated function, at `x`.
struct Event {
  double x = 0;
  enum class Kind : uint8_t { kDef, kUse, kMove } kind = Kind::kUse;
  Location from;  // kMove: the source
  Location to;    // the location the value is in afterwards (kUse: where it was read)
};

bool Constrained(const Operand& o) {
  return o.constraint() == ConstraintKind::kFixed || o.constraint() == ConstraintKind::kReuse;
}

ChartMark::Kind MarkKind(MoveKind k) {
  switch (k) {
    case MoveKind::kSpill: return ChartMark::Kind::kSpill;
    case MoveKind::kReload: return ChartMark::Kind::kReload;
    default: return ChartMark::Kind::kMove;
  }
}

// Cuts the interval [x0, x1] of a value at its events (sorted by x): the
// location before the first event is where that event finds the value.
void Cut(double x0, double x1, const std::vector<Event>& events, Location carried, std::vector<ChartSegment>& out,
         Location* last) {
  auto first = std::lower_bound(events.begin(), events.end(), x0 - 0.75,
                                [](const Event& e, double x) { return e.x < x; });
  Location cur = carried;
  if (first != events.end() && first->x <= x1 + 1.5) {
    cur = first->kind == Event::Kind::kMove ? first->from : first->to;
  }
  double at = x0;
  for (auto e = first; e != events.end() && e->x <= x1 + 1.5; ++e) {
    const Location next = e->to;
    if (next == cur || next.IsNone()) continue;
    const double cut = std::clamp(e->x, x0, x1 + 1);
    if (cut > at && !cur.IsNone()) out.push_back(ChartSegment{at, cut, cur});
    at = cut;
    cur = next;
  }
  if (x1 + 1 > at && !cur.IsNone()) out.push_back(ChartSegment{at, x1 + 1, cur});
  *last = cur;
}

}  // namespace

std::string LocationName(const Target& target, Location loc) {
  if (loc.IsReg()) return absl::StrCat("%", target.RegName(loc.reg()));
  if (loc.IsStack()) return absl::StrCat("ss", loc.slot().index());
  return "-";
}

absl::StatusOr<Chart> BuildChart(const Target& target, const Function& before, const Function& after) {
  Chart c;
  c.function = before.name();
  const InstNumbering num(before);
  const ControlFlowGraph cfg(before);
  const DominatorTree dom(before, cfg);
  const LoopNest loops(before, cfg, dom);
  c.insts = num.num_insts();
  c.points = 2.0 * c.insts;
  c.detailed = c.insts <= kDetailLimit;
  // Small functions drawn wide enough to read, large ones at 4 pixels a point.
  c.px = std::clamp(900.0 / std::max(1.0, c.points), 4.0, 24.0);
  for (int k = 0; k < target.num_banks(); ++k) {
    c.banks.push_back(target.Bank(k).name);
    c.capacity.push_back(target.Bank(k).capacity);
  }
  const size_t nbanks = c.banks.size();
  std::vector<int> block_of(before.num_blocks(), -1);  // a block of `before` -> its chart block
  for (Block b : before.layout()) {
    ChartBlock cb;
    cb.name = before.BlockName(b);
    cb.x0 = num.BlockStart(b).bits();
    cb.x1 = num.BlockEnd(b).bits();
    cb.depth = loops.depth(b);
    cb.peak.assign(nbanks, 0);
    block_of[b.index()] = static_cast<int>(c.blocks.size());
    c.blocks.push_back(std::move(cb));
  }

  // The allocated function on the original's axis.
  const std::vector<Inst> match = MatchOriginal(before, after);
  std::vector<std::vector<Event>> events(after.num_values());
  std::vector<std::vector<ChartMark>> marks(after.num_values());
  const AllocationCost cost = MeasureAllocation(after);
  c.spills = cost.spills;
  c.reloads = cost.reloads;
  c.moves = cost.moves;
  c.weighted = cost.weighted;
  double last = 0;
  for (Block b : after.layout()) {
    const std::vector<Inst>& insts = after.block(b).insts;
    const bool original = before.BlockExists(b) && before.block(b).in_layout;
    // Added instructions that open an original block sit just before its start.
    // Added instructions sit between points: half a point before their block
    // when they open it, half a point after the Late point of the original
    // instruction they follow, after the branch on an edge block.
    double at = original ? num.BlockStart(b).bits() - 0.5 : last + 0.5;
    int chart_block = original ? block_of[b.index()] : -1;
    if (c.detailed) {
      ChartLine head;
      head.text = absl::StrCat(after.BlockName(b), ":");
      head.header = true;
      head.block = after.BlockName(b);
      c.code.push_back(std::move(head));
    }
    for (Inst i : insts) {
      const Inst o = match[i.index()];
      double x;
      if (o.IsValid()) {
        x = num.Early(o).bits();
        at = x + 1.5;
      } else {
        x = at;
      }
      last = x;
      const InstData& d = after.inst(i);
      absl::Span<const Operand> ops = after.operands(i);
      const MoveKind counted = ClassifyMove(after, i);
      ChartLine line;
      line.x = x;
      line.inst = static_cast<int>(i.index());
      if (counted != MoveKind::kNone) {
        line.counted = true;
        line.kind = MarkKind(counted);
        c.added.push_back(ChartMark{MarkKind(counted), x, false, static_cast<int>(i.index())});
        if (chart_block >= 0) {
          ChartBlock& cb = c.blocks[chart_block];
          ++(counted == MoveKind::kSpill ? cb.spills : counted == MoveKind::kReload ? cb.reloads : cb.moves);
        }
      }
      const bool move_like = IsMoveLike(d.opcode) || (d.opcode == Opcode::kCopy && !o.IsValid());
      if (move_like) {
        const size_t n = ops.size() / 2;
        for (size_t k = 0; k < n; ++k) {
          const Value v = ops[k].value();
          if (!v.IsValid() || v.index() >= events.size()) continue;
          // The source is where its value is; the destination holds the moved value.
          const Value from = ops[n + k].value();
          if (from.IsValid() && from != v && from.index() < events.size()) {
            events[from.index()].push_back(Event{x, Event::Kind::kUse, Location(), ops[n + k].location()});
            line.values.push_back(static_cast<int>(from.index()));
          }
          events[v.index()].push_back(Event{x, Event::Kind::kMove, ops[n + k].location(), ops[k].location()});
          line.values.push_back(static_cast<int>(v.index()));
          if (counted != MoveKind::kNone && ops[k].location() != ops[n + k].location()) {
            marks[v.index()].push_back(ChartMark{MarkKind(counted), x, false, static_cast<int>(i.index())});
          }
        }
      } else {
        for (const Operand& op : ops) {
          const Value v = op.value();
          if (!v.IsValid() || v.index() >= events.size()) continue;
          const double ox = x + (op.IsDef() && op.position() == Position::kLate ? 1 : 0);
          events[v.index()].push_back(Event{ox, op.IsDef() ? Event::Kind::kDef : Event::Kind::kUse, Location(), op.location()});
          marks[v.index()].push_back(ChartMark{op.IsDef() ? ChartMark::Kind::kDef : ChartMark::Kind::kUse, ox,
                                               o.IsValid() && Constrained(op), static_cast<int>(i.index())});
          line.values.push_back(static_cast<int>(v.index()));
        }
      }
      if (c.detailed) {
        line.text = PrintInst(after, i, target);
        c.code.push_back(std::move(line));
      }
    }
  }
  for (auto& e : events) {
    std::stable_sort(e.begin(), e.end(), [](const Event& a, const Event& b) { return a.x < b.x; });
  }

  // Live ranges before allocation, cut where the allocation moves each value.
  const LiveSets sets(before);
  const LiveRanges ranges(before, sets, num);
  std::vector<std::vector<int>> diff(nbanks, std::vector<int>(static_cast<size_t>(c.points) + 2, 0));
  for (int vi = 0; vi < before.num_values(); ++vi) {
    const Value v(vi);
    if (!before.ValueExists(v) || !ranges.HasRange(v)) continue;
    std::vector<Interval> intervals(ranges.live_ins(v).begin(), ranges.live_ins(v).end());
    intervals.push_back(ranges.def_interval(v));
    std::sort(intervals.begin(), intervals.end(), [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
    const std::optional<RegClass> cls = target.ClassFor(before.value_type(v));
    const int bank = cls.has_value() ? target.Class(*cls).bank : -1;
    const int weight = cls.has_value() ? target.Class(*cls).pressure_weight : 1;
    ChartRow row;
    row.value = v;
    Location carried;
    static const std::vector<Event> kNone;
    const std::vector<Event>& ev = v.index() < events.size() ? events[v.index()] : kNone;
    for (const Interval& in : intervals) {
      Cut(in.begin.bits(), in.end.bits(), ev, carried, row.segments, &carried);
      if (bank >= 0) {
        diff[bank][in.begin.bits()] += weight;
        diff[bank][in.end.bits() + 1] -= weight;
      }
    }
    if (v.index() < marks.size()) row.marks = std::move(marks[v.index()]);
    if (c.detailed) c.rows.push_back(std::move(row));
  }
  // Pressure and pins per point, peaks per block.
  c.pressure.assign(nbanks, std::vector<int>(static_cast<size_t>(c.points), 0));
  c.pinned.assign(nbanks, std::vector<int>(static_cast<size_t>(c.points), 0));
  for (size_t k = 0; k < nbanks; ++k) {
    int live = 0;
    for (size_t p = 0; p < c.pressure[k].size(); ++p) {
      live += diff[k][p];
      c.pressure[k][p] = live;
    }
  }
  for (Block b : before.layout()) {
    ChartBlock& cb = c.blocks[block_of[b.index()]];
    for (Inst i : before.block(b).insts) {
      RegSet pins = before.Clobbers(i);
      for (const Operand& op : before.operands(i)) {
        if (op.constraint() == ConstraintKind::kFixed) pins.Insert(op.fixed_reg());
      }
      const uint32_t p = num.Early(i).bits();
      std::vector<int> count(nbanks, 0);
      for (PReg r : pins) {
        const std::optional<RegClass> rc = target.Reg(r).reg_class;
        if (rc.has_value() && target.Class(*rc).counted.Contains(r)) ++count[target.Class(*rc).bank];
      }
      for (size_t k = 0; k < nbanks; ++k) {
        c.pinned[k][p] = c.pinned[k][p + 1] = count[k];
        cb.peak[k] = std::max({cb.peak[k], c.pressure[k][p], c.pressure[k][p + 1]});
      }
    }
  }
  if (!c.detailed) {
    // The per-point series are what makes a page large: kept per block instead.
    c.pressure.clear();
    c.pinned.clear();
  }
  return c;
}

absl::Status HtmlReport::Add(const std::string& pipeline, const Function& before, const Function& after,
                             std::vector<std::pair<std::string, absl::Duration>> times, const std::string& status) {
  absl::StatusOr<Chart> chart = BuildChart(target_, before, after);
  if (!chart.ok()) return chart.status();
  chart->pipeline = pipeline;
  chart->status = status;
  chart->times = std::move(times);
  charts_.push_back(std::move(*chart));
  return absl::OkStatus();
}

void HtmlReport::AddFailure(const std::string& pipeline, const Function& before, const std::string& status) {
  Chart c;
  c.function = before.name();
  c.pipeline = pipeline;
  c.status = status;
  c.detailed = false;
  c.insts = before.CountInstsInLayout();
  charts_.push_back(std::move(c));
}

namespace {

constexpr int kRow = 14;        // pixels per value row
constexpr int kLabel = 64;      // the value names' column
constexpr int kPressure = 70;   // height of one bank's pressure chart

// A colour per register: a hue per 32-bit lane of storage (golden-angle
// spaced), so that views of one register share it (x86 al/ah/eax/rax: lane 0 of
// their container; ARMv7 d0 with s0) while registers that do not overlap get
// their own (ARMv7 d16 and d17 share a container, not a lane); narrower views
// are lighter.
std::string Colour(const Target& target, Location loc) {
  if (!loc.IsReg()) return "url(#hatch)";
  const RegInfo& r = target.Reg(loc.reg());
  const int lane = r.container * 4 + r.lo_bit / 32;
  const int hue = static_cast<int>(std::fmod(lane * 137.508, 360.0));
  const int width = r.hi_bit - r.lo_bit;
  const int light = width >= 64 ? 45 : width >= 32 ? 55 : 65;
  return absl::StrFormat("hsl(%d,70%%,%d%%)", hue, light + (r.lo_bit > 0 ? 8 : 0));
}

const char* MarkName(ChartMark::Kind k) {
  switch (k) {
    case ChartMark::Kind::kDef: return "def";
    case ChartMark::Kind::kUse: return "use";
    case ChartMark::Kind::kSpill: return "spill";
    case ChartMark::Kind::kReload: return "reload";
    case ChartMark::Kind::kMove: return "move";
  }
  return "?";
}

std::string HtmlId(const std::string& s) {
  std::string out;
  for (char ch : s) out += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return out;
}

void WriteTotals(std::ostream& out, const Chart& c) {
  out << "<div class=\"totals\"><b>" << Escape(c.pipeline) << "</b> " << Escape(c.status) << ": <span class=\"t-spills\">"
      << c.spills << "</span> spills, <span class=\"t-reloads\">" << c.reloads << "</span> reloads, <span class=\"t-moves\">"
      << c.moves << "</span> moves, weighted cost <span class=\"t-weighted\">" << c.weighted << "</span>";
  if (!c.times.empty()) {
    out << "; time (us):";
    for (const auto& [phase, t] : c.times) out << " " << Escape(phase) << " " << absl::StrFormat("%.1f", absl::ToDoubleMicroseconds(t));
  }
  out << "</div>\n";
}

void WriteDetailed(std::ostream& out, const Target& target, const Chart& c, const std::string& id) {
  const double width = c.points * c.px + kLabel + 20;
  const int height = static_cast<int>(c.rows.size()) * kRow + 24 + kRow + 4;
  out << "<div class=\"chart\" data-chart=\"" << id << "\"><div class=\"draw\">\n";
  out << absl::StrFormat("<svg class=\"ranges\" width=\"%.0f\" height=\"%d\" data-px=\"%g\" data-label=\"%d\">\n", width,
                         height, c.px, kLabel);
  // Blocks: bands shaded by loop depth, names on top.
  for (const ChartBlock& b : c.blocks) {
    const double x = kLabel + b.x0 * c.px;
    const double w = (b.x1 - b.x0 + 1) * c.px;
    out << absl::StrFormat(
        "<rect class=\"band depth%d\" data-block=\"%s\" x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"%d\"><title>%s, loop depth %d</title></rect>"
        "<text class=\"bname\" data-block=\"%s\" x=\"%.1f\" y=\"11\">%s</text>\n",
        std::min(b.depth, 4), Escape(b.name), x, w, height, Escape(b.name), b.depth, Escape(b.name), x + 2, Escape(b.name));
  }
  out << "<line class=\"cursor\" x1=\"-10\" x2=\"-10\" y1=\"0\" y2=\"" << height << "\"/>\n";
  // The top track: every spill, reload and move the allocation added, where it is.
  out << "<g class=\"track\" transform=\"translate(0,14)\"><text class=\"vname\" x=\"2\" y=\"10\">added</text>";
  for (const ChartMark& m : c.added) {
    out << absl::StrFormat("<rect class=\"added %s\" data-inst=\"%d\" x=\"%.1f\" y=\"1\" width=\"4\" height=\"%d\"><title>%s</title></rect>",
                           MarkName(m.kind), m.inst, kLabel + m.x * c.px - 2, kRow - 3, MarkName(m.kind));
  }
  out << "</g>\n";
  int y = 14 + kRow + 4;
  for (const ChartRow& r : c.rows) {
    const std::string v = absl::StrCat("v", r.value.index());
    out << "<g class=\"row\" data-value=\"" << r.value.index() << "\" transform=\"translate(0," << y << ")\">";
    out << "<text class=\"vname\" x=\"2\" y=\"10\">" << v << "</text>";
    for (const ChartSegment& s : r.segments) {
      const std::string loc = LocationName(target, s.loc);
      out << absl::StrFormat(
          "<rect class=\"seg%s\" data-loc=\"%s\" x=\"%.1f\" y=\"2\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>%s in %s, points %g-%g</title></rect>",
          s.loc.IsStack() ? " stack" : "", loc, kLabel + s.x0 * c.px, std::max(1.0, (s.x1 - s.x0) * c.px), kRow - 4,
          Colour(target, s.loc), v, loc, s.x0, s.x1);
    }
    for (const ChartMark& m : r.marks) {
      const double x = kLabel + m.x * c.px;
      const char* name = MarkName(m.kind);
      std::string shape;
      switch (m.kind) {
        case ChartMark::Kind::kDef:
          shape = absl::StrFormat("<path d=\"M%.1f 2 l4 5 l-4 5 z\"/>", x);
          break;
        case ChartMark::Kind::kUse:
          shape = absl::StrFormat("<path d=\"M%.1f 1 v%d\"/>", x, kRow - 2);
          break;
        default:
          shape = absl::StrFormat("<rect x=\"%.1f\" y=\"0\" width=\"4\" height=\"%d\"/>", x - 2, kRow - 1);
      }
      out << "<g class=\"mark " << name << (m.constrained ? " constrained" : "") << "\" data-inst=\"" << m.inst << "\">"
          << shape << "</g>";
    }
    out << "</g>\n";
    y += kRow;
  }
  out << "</svg>\n";
  // Pressure per bank.
  for (size_t k = 0; k < c.banks.size(); ++k) {
    int top = 0;
    for (int p : c.pressure[k]) top = std::max(top, p);
    if (top == 0) continue;  // a bank no value of the function uses
    top = std::max(top, c.capacity[k]);
    const double scale = static_cast<double>(kPressure - 8) / top;
    out << absl::StrFormat("<svg class=\"pressure\" data-bank=\"%s\" width=\"%.0f\" height=\"%d\">", Escape(c.banks[k]), width,
                           kPressure);
    out << "<text class=\"bname\" x=\"2\" y=\"12\">" << Escape(c.banks[k]) << "</text>";
    std::string live = absl::StrFormat("M%d %d", kLabel, kPressure);
    std::string pins;
    for (size_t p = 0; p < c.pressure[k].size(); ++p) {
      const double x = kLabel + p * c.px;
      absl::StrAppendFormat(&live, " L%.1f %.1f L%.1f %.1f", x, kPressure - c.pressure[k][p] * scale, x + c.px,
                            kPressure - c.pressure[k][p] * scale);
      if (c.pinned[k][p] > 0) {
        absl::StrAppendFormat(&pins, "<rect class=\"pin\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>%d pinned</title></rect>",
                              x, kPressure - c.pinned[k][p] * scale, c.px, c.pinned[k][p] * scale, c.pinned[k][p]);
      }
    }
    absl::StrAppendFormat(&live, " L%.1f %d z", kLabel + c.pressure[k].size() * c.px, kPressure);
    out << pins << "<path class=\"live\" d=\"" << live << "\"/>";
    out << absl::StrFormat("<line class=\"limit\" x1=\"%d\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\"><title>%d registers</title></line>",
                           kLabel, width, kPressure - c.capacity[k] * scale, kPressure - c.capacity[k] * scale, c.capacity[k]);
    out << "</svg>\n";
  }
  out << "</div>\n<pre class=\"code\">";
  for (const ChartLine& l : c.code) {
    if (l.header) {
      out << "<span class=\"bhead\" data-block=\"" << Escape(l.block) << "\">" << Escape(l.text) << "</span>";
      continue;
    }
    out << "<span class=\"line" << (l.counted ? absl::StrCat(" ", MarkName(l.kind)) : "") << "\" data-inst=\"" << l.inst
        << "\" data-x=\"" << l.x << "\" data-values=\"" << absl::StrJoin(l.values, " ") << "\">    " << Escape(l.text)
        << "</span>";
  }
  out << "</pre></div>\n";
}

void WriteSummary(std::ostream& out, const Chart& c) {
  // Per block: peaks against capacity, and what the allocation added.
  out << "<div class=\"chart summary\"><p>" << c.insts << " instructions: above " << kDetailLimit
      << ", summarized per block (peak live values per bank; spills, reloads and moves added).</p>\n";
  if (c.blocks.empty()) {
    out << "</div>\n";
    return;
  }
  const double bw = std::max(2.0, std::min(40.0, 4000.0 / c.blocks.size()));
  const int h = 120;
  int top = 1;
  for (const ChartBlock& b : c.blocks) {
    for (int p : b.peak) top = std::max(top, p);
    top = std::max(top, b.spills + b.reloads + b.moves);
  }
  for (int k : c.capacity) top = std::max(top, k);
  out << absl::StrFormat("<svg class=\"blocks\" width=\"%.0f\" height=\"%d\">", bw * c.blocks.size() + 20, 2 * h + 20);
  for (size_t i = 0; i < c.blocks.size(); ++i) {
    const ChartBlock& b = c.blocks[i];
    const double x = i * bw;
    for (size_t k = 0; k < b.peak.size(); ++k) {
      const double hh = static_cast<double>(b.peak[k]) * h / top;
      out << absl::StrFormat("<rect class=\"peak bank%d\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>%s: %d live in %s</title></rect>",
                             k, x + k * bw / b.peak.size(), h - hh, bw / b.peak.size(), hh, Escape(b.name), b.peak[k],
                             Escape(c.banks[k]));
    }
    const int added = b.spills + b.reloads + b.moves;
    const double ah = static_cast<double>(added) * h / top;
    out << absl::StrFormat("<rect class=\"added\" data-block=\"%s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%.1f\"><title>%s: %d spills, %d reloads, %d moves</title></rect>",
                           Escape(b.name), x, h + 20, bw, ah, Escape(b.name), b.spills, b.reloads, b.moves);
  }
  out << "</svg></div>\n";
}

constexpr char kStyle[] = R"(
body { font: 13px system-ui, sans-serif; margin: 16px; color: #222; }
h1 { font-size: 18px; } h2 { font-size: 15px; margin: 24px 0 4px; }
table.corpus { border-collapse: collapse; margin-bottom: 16px; }
table.corpus th, table.corpus td { padding: 2px 8px; border-bottom: 1px solid #ddd; text-align: right; }
table.corpus th { cursor: pointer; background: #f3f3f3; } table.corpus td:first-child { text-align: left; }
.bar { display: inline-block; height: 9px; background: #6a8fd8; margin-left: 4px; vertical-align: middle; }
.chart { display: flex; gap: 12px; align-items: flex-start; margin-bottom: 14px; }
.draw { overflow-x: auto; max-width: 62vw; border: 1px solid #ddd; }
pre.code { margin: 0; max-height: 520px; overflow: auto; font: 11px ui-monospace, monospace; border: 1px solid #ddd; padding: 4px; }
pre.code span { display: block; } .bhead { font-weight: bold; cursor: pointer; }
.line.spill, .line.reload, .line.move { background: #fff3d6; }
.hl { background: #ffe58f !important; } g.row.hl rect.seg { stroke: #000; stroke-width: 1; }
.band { fill: #fff; } .band.depth1 { fill: #f4f7ff; } .band.depth2 { fill: #e8eeff; } .band.depth3, .band.depth4 { fill: #dbe4ff; }
.band.hl { fill: #fff0b3; } .bname { font-size: 10px; fill: #667; cursor: pointer; }
.vname { font: 10px ui-monospace, monospace; fill: #333; }
g.row:hover .vname, g.row.hl .vname { font-weight: bold; }
.seg.stack { stroke: #888; stroke-width: .5; }
.mark path, .mark rect { stroke: #222; fill: #222; stroke-width: 1; }
.mark.use path { fill: none; stroke: #000; } .mark.constrained path { stroke: #d00; fill: #d00; stroke-width: 2; }
.mark.spill rect, rect.added.spill { fill: #d9534f; stroke: none; } .mark.reload rect, rect.added.reload { fill: #2e8b57; stroke: none; }
.mark.move rect, rect.added.move { fill: #7b4fd6; stroke: none; }
.cursor { stroke: #e00; stroke-width: 1; }
.live { fill: #4f74c8; opacity: .75; } .limit { stroke: #c00; stroke-dasharray: 4 2; } .pin { fill: #f2b38a; }
.peak { fill: #9db4e8; } .peak.bank1 { fill: #8fd0a8; } .peak.bank2 { fill: #d8b46a; } .added { fill: #d9534f; }
.totals { margin: 4px 0; } .legend span { margin-right: 12px; }
)";

constexpr char kScript[] = R"(
(function () {
  function each(sel, root, f) { Array.prototype.forEach.call((root || document).querySelectorAll(sel), f); }
  function clear(root) { each('.hl', root, function (e) { e.classList.remove('hl'); }); }
  each('.chart[data-chart]', null, function (chart) {
    var svg = chart.querySelector('svg.ranges');
    var px = parseFloat(svg.dataset.px), label = parseFloat(svg.dataset.label);
    var cursor = svg.querySelector('.cursor');
    function values(list) { return list ? list.split(' ') : []; }
    function showValue(v) {
      each('g.row[data-value="' + v + '"]', chart, function (r) { r.classList.add('hl'); });
      each('.line', chart, function (l) { if (values(l.dataset.values).indexOf(v) >= 0) l.classList.add('hl'); });
    }
    each('g.row', chart, function (row) {
      row.addEventListener('mouseenter', function () { clear(chart); showValue(row.dataset.value); });
    });
    each('.mark, rect.added', chart, function (m) {
      m.addEventListener('mouseenter', function () {
        each('.line[data-inst="' + m.dataset.inst + '"]', chart, function (l) {
          l.classList.add('hl'); l.scrollIntoView({block: 'nearest'});
        });
      });
    });
    each('.line', chart, function (line) {
      line.addEventListener('mouseenter', function () {
        clear(chart);
        line.classList.add('hl');
        values(line.dataset.values).forEach(function (v) {
          each('g.row[data-value="' + v + '"]', chart, function (r) { r.classList.add('hl'); });
        });
        var x = label + parseFloat(line.dataset.x) * px;
        cursor.setAttribute('x1', x); cursor.setAttribute('x2', x);
      });
    });
    function jump(name) {
      clear(chart);
      each('[data-block="' + name + '"]', chart, function (e) { e.classList.add('hl'); });
      var head = chart.querySelector('.bhead[data-block="' + name + '"]');
      if (head) head.scrollIntoView({block: 'start'});
      var band = svg.querySelector('rect.band[data-block="' + name + '"]');
      if (band) chart.querySelector('.draw').scrollLeft = parseFloat(band.getAttribute('x')) - label;
    }
    each('.bhead, .bname', chart, function (e) { e.addEventListener('click', function () { jump(e.dataset.block); }); });
  });
  each('table.corpus', null, function (table) {
    each('th', table, function (th, col) {
      th.addEventListener('click', function () {
        var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
        var dir = th.dataset.dir === 'asc' ? -1 : 1; th.dataset.dir = dir === 1 ? 'asc' : 'desc';
        rows.sort(function (a, b) {
          var x = a.cells[col].dataset.sort, y = b.cells[col].dataset.sort;
          var nx = parseFloat(x), ny = parseFloat(y);
          return dir * (isNaN(nx) || isNaN(ny) ? String(x).localeCompare(String(y)) : nx - ny);
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
  // #selftest: hover the first row and the first code line, and record what
  // the handlers highlighted, for a headless browser to read from the DOM.
  if (location.hash === '#selftest') {
    var first = document.querySelector('.chart[data-chart] .line[data-values]:not([data-values=""])');
    var row = first && first.closest('.chart').querySelector('g.row[data-value="' + first.dataset.values.split(' ')[0] + '"]');
    if (row) {
      row.dispatchEvent(new MouseEvent('mouseenter'));
      document.body.dataset.rowHighlights = document.querySelectorAll('.hl').length;
      document.body.dataset.rowValue = row.dataset.value;
    }
    var line = document.querySelector('.chart[data-chart] .line');
    if (line) {
      line.dispatchEvent(new MouseEvent('mouseenter'));
      document.body.dataset.lineHighlights = document.querySelectorAll('g.row.hl').length;
      document.body.dataset.cursorX = line.closest('.chart').querySelector('.cursor').getAttribute('x1');
    }
  }
  document.body.dataset.ready = 'yes';
})();
)";

}  // namespace

void HtmlReport::Write(std::ostream& out) const {
  out << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>regalloc: allocations</title><style>" << kStyle
      << "</style></head><body>\n";
  out << "<h1>Allocations, target " << Escape(std::string(target_.name())) << "</h1>\n";
  out << "<svg width=\"0\" height=\"0\" style=\"position:absolute\"><defs><pattern id=\"hatch\" width=\"6\" height=\"6\" "
         "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#eee\"/>"
         "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#888\" stroke-width=\"2\"/></pattern></defs></svg>\n";
  out << "<p class=\"legend\"><span>bars: a value's live range, one colour per register (hatched: a stack slot)</span>"
         "<span>&#9654; def, | use (red: fixed register or Reuse)</span><span style=\"color:#d9534f\">&#9632; spill</span>"
         "<span style=\"color:#2e8b57\">&#9632; reload</span><span style=\"color:#7b4fd6\">&#9632; move</span>"
         "<span>pressure: live values (blue) against the registers (dashed), pinned registers (orange)</span></p>\n";
  // Functions in the order first seen; pipelines in the order added.
  std::vector<std::string> functions, pipelines;
  std::map<std::string, std::vector<const Chart*>> by_function;
  for (const Chart& c : charts_) {
    if (!by_function.count(c.function)) functions.push_back(c.function);
    by_function[c.function].push_back(&c);
    if (std::find(pipelines.begin(), pipelines.end(), c.pipeline) == pipelines.end()) pipelines.push_back(c.pipeline);
  }
  // The corpus summary: weighted cost per function per pipeline, sortable.
  int64_t top = 1;
  for (const Chart& c : charts_) top = std::max(top, c.weighted);
  out << "<table class=\"corpus\"><thead><tr><th>function</th><th>insts</th>";
  for (const std::string& p : pipelines) out << "<th>" << Escape(p) << " weighted</th>";
  out << "</tr></thead><tbody>\n";
  for (const std::string& f : functions) {
    const std::vector<const Chart*>& cs = by_function[f];
    out << "<tr><td data-sort=\"" << Escape(f) << "\"><a href=\"#f-" << HtmlId(f) << "\">%" << Escape(f) << "</a></td><td data-sort=\""
        << cs.front()->insts << "\">" << cs.front()->insts << "</td>";
    for (const std::string& p : pipelines) {
      auto it = std::find_if(cs.begin(), cs.end(), [&](const Chart* c) { return c->pipeline == p; });
      if (it == cs.end() || (*it)->status != "ok") {
        out << "<td data-sort=\"-1\">" << (it == cs.end() ? "-" : Escape((*it)->status)) << "</td>";
        continue;
      }
      out << absl::StrFormat("<td data-sort=\"%d\">%d<span class=\"bar\" style=\"width:%.0fpx\"></span></td>", (*it)->weighted,
                             (*it)->weighted, 120.0 * (*it)->weighted / top);
    }
    out << "</tr>\n";
  }
  out << "</tbody></table>\n";
  for (const std::string& f : functions) {
    out << "<section class=\"function\" id=\"f-" << HtmlId(f) << "\"><h2>%" << Escape(f) << "</h2>\n";
    for (const Chart* c : by_function[f]) {
      WriteTotals(out, *c);
      const std::string id = HtmlId(absl::StrCat(f, "-", c->pipeline));
      if (c->detailed) {
        WriteDetailed(out, target_, *c, id);
      } else {
        WriteSummary(out, *c);
      }
    }
    out << "</section>\n";
  }
  out << "<script>" << kScript << "</script>\n</body></html>\n";
}

}  // namespace regalloc
