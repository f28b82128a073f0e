#include "tools/dump.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ssa/parser.h"
#include "ssa/printer.h"
#include "testdata/corpus.h"
#include "check/generator.h"

namespace regalloc {
namespace {

using ::testing::HasSubstr;

const Target& X86() { return *TargetByName("x86_64").value(); }

std::string RoundTrip(const Function& f, const Target& t) {
  std::string bytes = SerializeDump(ToDumpFile(t, {}, {DumpedFunction{f, {"legalize"}, {}, {}}}));
  absl::StatusOr<LoadedDump> back = ParseDump(bytes, "test");
  EXPECT_TRUE(back.ok()) << back.status();
  if (!back.ok()) return "";
  EXPECT_EQ(back->target, &t);
  EXPECT_EQ(back->functions.size(), 1u);
  EXPECT_EQ(back->functions[0].phases_run, std::vector<std::string>{"legalize"});
  return PrintFunction(back->functions[0].function, t);
}

TEST(DumpTest, CorpusRoundTripsThroughDumps) {
  for (const CorpusFile& file : Corpus()) {
    std::vector<Function> funcs = ParseModule(file.text, X86()).value();
    for (const Function& f : funcs) {
      EXPECT_EQ(RoundTrip(f, X86()), PrintFunction(f, X86())) << file.name;
    }
  }
}

TEST(DumpTest, GeneratedAndAllocatedFunctionsRoundTrip) {
  for (const char* name : {"x86_64", "aarch64", "armv7"}) {
    const Target& t = *TargetByName(name).value();
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      GeneratorOptions options;
      options.byte_percent = seed % 2 == 0 ? 30 : 0;  // i8 values too
      Function f = Generate(seed, options, t).value();
      EXPECT_EQ(RoundTrip(f, t), PrintFunction(f, t)) << name << " seed " << seed;
    }
  }
  Function allocated = ParseFunction(R"(function %a() -> i32 {
    ss0 = stack_slot 4
block0:
    v0[%eax] = const.i32 1
    v0[ss0] = spill v0[%eax]
    v0[%ecx] = reload v0[ss0]
    ret v0@%eax[%ecx]
}
)", X86()).value();
  EXPECT_EQ(RoundTrip(allocated, X86()), PrintFunction(allocated, X86()));
}

TEST(DumpTest, SparseNamesSurvive) {
  Function f = ParseFunction(
                   "function %f(i64) -> i64 {\n    ss16777215 = stack_slot 8\nblock16777215(v16777215: i64):\n"
                   "    v16000000 = add v16777215, v16777215\n    jump block0(v16000000)\nblock0(v3: i64):\n"
                   "    ret v3\n}\n",
                   X86())
                   .value();
  std::string bytes = SerializeDump(ToDumpFile(X86(), {}, {DumpedFunction{f, {}, {}, {}}}));
  EXPECT_LT(bytes.size(), 400u);
  EXPECT_EQ(RoundTrip(f, X86()), PrintFunction(f, X86()));
  EXPECT_THAT(RoundTrip(f, X86()), HasSubstr("block16777215(v16777215: i64)"));
}

TEST(DumpTest, StatsAndLocationsSurvive) {
  Function f = ParseFunction("function %f() {\nblock0:\n    ret\n}\n", X86()).value();
  DumpedFunction d{f, {"verify"}, {{"split_critical_edges", "edges_split", 3}}, {Location::Reg(PReg(2))}};
  LoadedDump back = ParseDump(SerializeDump(ToDumpFile(X86(), {}, {d})), "t").value();
  ASSERT_EQ(back.functions[0].stats.size(), 1u);
  EXPECT_EQ(back.functions[0].stats[0].value, 3);
  EXPECT_EQ(back.functions[0].value_locations, std::vector<Location>{Location::Reg(PReg(2))});
}

dump::DumpFile Valid() {
  Function f = ParseFunction(R"(function %f(i64) -> i64 {
block0(v0@%rdi: i64):
    v1 = call.i64 %g(v0) clobbers %rax
    jump block1(v1)
block1(v2: i64):
    ret v2
}
)", X86()).value();
  return ToDumpFile(X86(), {}, {DumpedFunction{f, {}, {}, {}}});
}

struct BadDump {
  const char* name;
  std::function<void(dump::DumpFile&)> mutate;
  const char* message;
};

TEST(DumpTest, MalformedDumpsGetClearErrors) {
  const BadDump kBad[] = {
      {"version", [](dump::DumpFile& d) { d.set_schema_version(7); },
       "dump schema version 7 is not supported (this build reads version 1)"},
      {"target", [](dump::DumpFile& d) { d.set_target("vax"); }, "unknown target 'vax'"},
      {"count", [](dump::DumpFile& d) { d.set_num_functions(2); }, "dump is truncated: it announces 2 functions and holds 1"},
      {"value", [](dump::DumpFile& d) { d.mutable_functions(0)->mutable_function()->mutable_layout(0)->mutable_insts(0)->mutable_operands(1)->set_value(99); },
       "function %f, block0, inst 0: operand names v99, which does not exist"},
      {"register", [](dump::DumpFile& d) { d.mutable_functions(0)->mutable_function()->mutable_layout(0)->mutable_params(0)->set_constraint_arg(900); },
       "function %f, block0: v0 is fixed to register #900, which does not exist on x86_64"},
      {"constraint", [](dump::DumpFile& d) { d.mutable_functions(0)->mutable_function()->mutable_layout(0)->mutable_params(0)->set_constraint(9); },
       "v0 has constraint kind #9, which does not exist"},
      {"location", [](dump::DumpFile& d) {
         auto* op = d.mutable_functions(0)->mutable_function()->mutable_layout(0)->mutable_params(0);
         op->set_location_kind(2);
         op->set_location_index(4);
       }, "function %f, block0: stack slot ss4 is not declared"},
      {"opcode", [](dump::DumpFile& d) { d.mutable_functions(0)->mutable_function()->mutable_layout(0)->mutable_insts(0)->set_opcode(200); },
       "function %f, block0, inst 0: opcode #200 does not exist"},
      {"type", [](dump::DumpFile& d) { d.mutable_functions(0)->mutable_function()->set_value_types(1, 17); }, "function %f, v1: type #17 does not exist"},
      {"callee", [](dump::DumpFile& d) { d.mutable_functions(0)->mutable_function()->mutable_layout(0)->mutable_insts(0)->set_imm(5); },
       "function %f, block0, inst 0: callee #5 does not exist"},
      {"clobbers", [](dump::DumpFile& d) { d.mutable_functions(0)->mutable_function()->mutable_layout(0)->mutable_insts(0)->set_clobbers(3); },
       "function %f, block0, inst 0: clobber set #3 does not exist"},
      {"branch target", [](dump::DumpFile& d) { d.mutable_functions(0)->mutable_function()->mutable_layout(0)->mutable_insts(1)->mutable_targets(0)->set_block(40); },
       "function %f, block0, inst 1: branch to block40, which does not exist"},
      {"branch args", [](dump::DumpFile& d) { d.mutable_functions(0)->mutable_function()->mutable_layout(0)->mutable_insts(1)->mutable_targets(0)->set_num_args(5); },
       "function %f, block0, inst 1: branch arguments run past the operands"},
      {"layout", [](dump::DumpFile& d) { d.mutable_functions(0)->mutable_function()->mutable_layout(1)->set_id(0); },
       "function %f, block0: block appears twice in the layout"},
      {"fails the verifier", [](dump::DumpFile& d) { d.mutable_functions(0)->mutable_function()->mutable_layout(1)->mutable_insts()->Clear(); },
       "function %f, block1: is empty (a block ends in a terminator)"},
      {"value locations", [](dump::DumpFile& d) { d.mutable_functions(0)->mutable_value_locations()->add_kinds(1); },
       "function %f: value locations are malformed"},
      {"name count", [](dump::DumpFile& d) { d.mutable_functions(0)->mutable_function()->add_value_names(5); },
       "function %f, value names: 1 names for"},
      {"block count", [](dump::DumpFile& d) { d.mutable_functions(0)->mutable_function()->set_num_blocks(16777215); },
       "num_blocks 16777215 is out of proportion to the 2 blocks of the layout"},
  };
  for (const BadDump& bad : kBad) {
    dump::DumpFile file = Valid();
    bad.mutate(file);
    absl::StatusOr<LoadedDump> loaded = ParseDump(SerializeDump(file), "bad.dump");
    ASSERT_FALSE(loaded.ok()) << bad.name;
    EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument) << bad.name;
    EXPECT_THAT(std::string(loaded.status().message()), HasSubstr(bad.message)) << bad.name;
    EXPECT_THAT(std::string(loaded.status().message()), HasSubstr("bad.dump: ")) << bad.name;
  }
}

TEST(DumpTest, LivenessSurvives) {
  Function f = ParseFunction("function %f(i64) -> i64 {\nblock0(v0: i64):\n    ret v0\n}\n", X86()).value();
  DumpedFunction d{f, {"liveness"}, {}, {}};
  d.liveness.live_in = {{}};
  d.liveness.live_out = {{}};
  d.liveness.ranges.push_back(LivenessRecord::Range{0, 0, 0, {}});
  LoadedDump back = ParseDump(SerializeDump(ToDumpFile(X86(), {}, {d})), "t").value();
  ASSERT_EQ(back.functions[0].liveness.ranges.size(), 1u);
  d.liveness.live_in = {{7}};
  EXPECT_THAT(std::string(ParseDump(SerializeDump(ToDumpFile(X86(), {}, {d})), "t").status().message()),
              HasSubstr("liveness names an unknown value"));
}

TEST(DumpTest, EveryTruncationIsAnError) {
  std::string bytes = SerializeDump(Valid());
  for (size_t n = 0; n < bytes.size(); ++n) {
    absl::StatusOr<LoadedDump> loaded = ParseDump(bytes.substr(0, n), "cut.dump");
    EXPECT_FALSE(loaded.ok()) << "prefix of " << n << " bytes loaded";
  }
  EXPECT_THAT(ParseDump("not a dump at all \xff\xff", "junk.dump").status().message(),
              HasSubstr("junk.dump: not a regalloc dump (truncated or corrupt)"));
}

TEST(DumpTest, Files) {
  std::string path = ::testing::TempDir() + "/t.dump";
  Function f = ParseFunction("function %f() {\nblock0:\n    ret\n}\n", X86()).value();
  ASSERT_TRUE(WriteDumpFile(path, X86(), {}, {DumpedFunction{f, {}, {}, {}}}).ok());
  EXPECT_EQ(ReadDumpFile(path).value().functions.size(), 1u);
  EXPECT_THAT(ReadDumpFile("/nonexistent/x.dump").status().message(), HasSubstr("cannot read /nonexistent/x.dump"));
}

}  // namespace
}  // namespace regalloc
