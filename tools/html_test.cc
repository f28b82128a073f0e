// The pictures' content: for hand-written and generated functions allocated by
// every family on every target, the chart holds one row per value, each operand
// of the allocated code finds its value's row in the operand's location at its
// point, the top track holds exactly the spills, reloads and moves the checker's
// measure counts, and the page renders all of it.
#include "tools/html.h"

#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "chaitin/chaitin.h"
#include "check/checker.h"
#include "check/generator.h"
#include "color/ssa_allocator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lsra/allocator.h"
#include "packing/packing.h"
#include "ssa/legalize.h"
#include "ssa/parser.h"
#include "targets/targets.h"
#include "testdata/corpus.h"

namespace regalloc {
namespace {

using ::testing::HasSubstr;

int Count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

absl::Status Allocate(const std::string& family, Function& f, const Target& t) {
  if (family == "ssa") return SsaAllocator().Run(f, t).status();
  if (family == "lsra") return LsraAllocator().Run(f, t).status();
  if (family == "chaitin") return ChaitinAllocator().Run(f, t).status();
  return PackingAllocator().Run(f, t).status();
}

// Checks one chart against the allocation it draws.
void ExpectChartMatches(const Target& target, const Function& before, const Function& after, const Chart& c,
                        const std::string& what) {
  // One row per value of the function before allocation.
  int values = 0;
  for (int v = 0; v < before.num_values(); ++v) values += before.ValueExists(Value(v)) ? 1 : 0;
  EXPECT_EQ(static_cast<int>(c.rows.size()), values) << what;
  // The top track counts what MeasureAllocation counts.
  const AllocationCost cost = MeasureAllocation(after);
  int spills = 0, reloads = 0, moves = 0;
  for (const ChartMark& m : c.added) {
    spills += m.kind == ChartMark::Kind::kSpill;
    reloads += m.kind == ChartMark::Kind::kReload;
    moves += m.kind == ChartMark::Kind::kMove;
  }
  EXPECT_EQ(spills, cost.spills) << what;
  EXPECT_EQ(reloads, cost.reloads) << what;
  EXPECT_EQ(moves, cost.moves) << what;
  EXPECT_EQ(c.weighted, cost.weighted) << what;
  // Every operand of an instruction of the original finds its row, at its point,
  // in a segment of the operand's location.
  std::vector<const ChartRow*> row_of(after.num_values(), nullptr);
  for (const ChartRow& r : c.rows) {
    if (r.value.index() < row_of.size()) row_of[r.value.index()] = &r;
  }
  const std::vector<Inst> match = MatchOriginal(before, after);
  int checked = 0;
  for (const ChartLine& line : c.code) {
    if (line.header || line.inst < 0 || !match[line.inst].IsValid()) continue;
    const Inst i(line.inst);
    absl::Span<const Operand> ops = after.operands(i);
    for (const Operand& op : ops) {
      const ChartRow* r = op.value().index() < row_of.size() ? row_of[op.value().index()] : nullptr;
      if (r == nullptr || op.location().IsNone()) continue;
      const double x = line.x + (op.IsDef() && op.position() == Position::kLate ? 1 : 0);
      // A value read twice by one instruction from two places (x86 `add v3[%eax],
      // v3@any[%ecx]`) is in both: the row shows one of them.
      bool found = false;
      for (const ChartSegment& s : r->segments) {
        if (s.x0 > x || x >= s.x1 + 0.01) continue;
        for (const Operand& same : ops) found |= same.value() == op.value() && same.IsDef() == op.IsDef() && same.location() == s.loc;
      }
      EXPECT_TRUE(found) << what << ": v" << op.value().index() << " in " << LocationName(target, op.location()) << " at "
                         << x << " (`" << line.text << "`)";
      ++checked;
    }
  }
  EXPECT_GT(checked, 0) << what;
}

TEST(HtmlTest, ChartsMatchTheirAllocationsForEveryFamilyAndTarget) {
  for (const char* target_name : {"x86_64", "aarch64", "armv7"}) {
    const Target& target = *TargetByName(target_name).value();
    std::vector<Function> inputs;
    for (const CorpusFile& file : Corpus()) {
      absl::StatusOr<std::vector<Function>> fs = ParseModule(file.text, target);
      if (!fs.ok()) continue;  // a corpus file with types this target lacks
      for (Function& f : *fs) inputs.push_back(std::move(f));
    }
    for (uint64_t seed = 1; seed <= 6; ++seed) {
      GeneratorOptions g;
      g.num_insts = 120;
      inputs.push_back(Generate(seed, g, target).value());
    }
    for (const char* family : {"ssa", "lsra", "chaitin", "packing"}) {
      HtmlReport report(target);
      for (const Function& input : inputs) {
        Function before = input;
        if (!Legalize(before, target).ok()) continue;
        Function after = before;
        const std::string what = absl::StrCat(family, " on ", target_name, ", %", before.name());
        ASSERT_TRUE(Allocate(family, after, target).ok()) << what;
        ASSERT_TRUE(report.Add(family, before, after, {}).ok()) << what;
        ExpectChartMatches(target, before, after, report.charts().back(), what);
      }
      // The page draws what the charts hold.
      std::ostringstream page;
      report.Write(page);
      int rows = 0, spills = 0, reloads = 0, moves = 0, segments = 0;
      for (const Chart& c : report.charts()) {
        rows += static_cast<int>(c.rows.size());
        for (const ChartRow& r : c.rows) segments += static_cast<int>(r.segments.size());
        spills += c.spills;
        reloads += c.reloads;
        moves += c.moves;
      }
      const std::string html = page.str();
      EXPECT_EQ(Count(html, "<g class=\"row\""), rows) << family << " on " << target_name;
      EXPECT_EQ(Count(html, "<rect class=\"seg"), segments) << family << " on " << target_name;
      EXPECT_EQ(Count(html, "class=\"added spill\""), spills) << family << " on " << target_name;
      EXPECT_EQ(Count(html, "class=\"added reload\""), reloads) << family << " on " << target_name;
      EXPECT_EQ(Count(html, "class=\"added move\""), moves) << family << " on " << target_name;
      EXPECT_EQ(Count(html, "<section class=\"function\""), static_cast<int>(report.charts().size()));
      EXPECT_EQ(html.find("http"), std::string::npos) << "the page fetches nothing";
    }
  }
}

// A hand-written function: the rows' locations are the allocation's, named.
TEST(HtmlTest, HandWrittenFunctionShowsItsRegistersAndSlots) {
  const Target& target = *TargetByName("x86_64").value();
  std::string text = "function %f(i64, i64) -> i64 {\nblock0(v0: i64, v1: i64):\n";
  // More values live than registers, across a call: spills and reloads.
  for (int i = 0; i < 18; ++i) absl::StrAppend(&text, "    v", 10 + i, " = add v0, v1\n");
  absl::StrAppend(&text, "    v2 = call.i64 %g(v0)\n    v3 = add v2, v10\n");
  for (int i = 1; i < 18; ++i) absl::StrAppend(&text, "    v", 40 + i, " = add v", i == 1 ? 3 : 39 + i, ", v", 10 + i, "\n");
  absl::StrAppend(&text, "    ret v57\n}\n");
  Function before = ParseModule(text, target).value().front();
  ASSERT_TRUE(Legalize(before, target).ok());
  Function after = before;
  ASSERT_TRUE(SsaAllocator().Run(after, target).ok());
  HtmlReport report(target);
  ASSERT_TRUE(report.Add("ssa", before, after, {{"ssa", absl::Microseconds(12)}}).ok());
  const Chart& c = report.charts().front();
  ExpectChartMatches(target, before, after, c, "ssa, %f");
  EXPECT_GT(c.spills + c.reloads, 0);
  std::ostringstream page;
  report.Write(page);
  const std::string html = page.str();
  EXPECT_THAT(html, HasSubstr("data-loc=\"%rax\""));
  EXPECT_THAT(html, HasSubstr("class=\"seg stack\" data-loc=\"ss"));
  EXPECT_THAT(html, HasSubstr("<text class=\"vname\" x=\"2\" y=\"10\">v57</text>"));
  EXPECT_THAT(html, HasSubstr("data-bank=\"gpr\""));
  EXPECT_THAT(html, HasSubstr("<span class=\"t-spills\">" + std::to_string(c.spills) + "</span>"));
}

// Above the detail limit a function is summarized per block, and the page stays
// small: no row per value, no per-point series.
TEST(HtmlTest, LargeFunctionsAreSummarizedPerBlock) {
  const Target& target = *TargetByName("x86_64").value();
  GeneratorOptions g;
  g.num_insts = kDetailLimit * 3;
  Function before = Generate(7, g, target).value();
  ASSERT_TRUE(Legalize(before, target).ok());
  Function after = before;
  ASSERT_TRUE(LsraAllocator().Run(after, target).ok());
  HtmlReport report(target);
  ASSERT_TRUE(report.Add("lsra", before, after, {}).ok());
  const Chart& c = report.charts().front();
  EXPECT_FALSE(c.detailed);
  EXPECT_TRUE(c.rows.empty());
  EXPECT_TRUE(c.pressure.empty());
  EXPECT_EQ(c.blocks.size(), before.layout().size());
  int added = 0;
  for (const ChartBlock& b : c.blocks) added += b.spills + b.reloads + b.moves;
  const AllocationCost cost = MeasureAllocation(after);
  EXPECT_LE(added, cost.spills + cost.reloads + cost.moves);  // edge blocks the allocation added are not original blocks
  std::ostringstream page;
  report.Write(page);
  EXPECT_THAT(page.str(), HasSubstr("summarized per block"));
  EXPECT_LT(page.str().size(), 1000u * c.blocks.size() + 20000);  // no per-value or per-point data
}

}  // namespace
}  // namespace regalloc
