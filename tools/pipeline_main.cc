// bazel run //tools:pipeline -- [--target=x86_64|x86_64_win|aarch64|armv7]
//     [--phases=a,b,c | --pipeline=NAME] [--in=FILE.ra|FILE.dump | --generate=N --seed=S --size=I]
//     [--out=FILE]
//     [--dump_after=PHASE --dump_dir=DIR] [--print] [--stats] [--list]
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "targets/target.h"
#include "tools/phases.h"
#include "tools/pipeline.h"

ABSL_FLAG(std::string, target, "", "x86_64 (default), x86_64_win, aarch64 or armv7");
ABSL_FLAG(bool, frame_pointer, false, "reserve the frame pointer register");
ABSL_FLAG(std::vector<std::string>, phases, {},
          "comma-separated phases to run, in order; options in braces after a name, e.g. "
          "lsra_allocate{overlap=false,scoring=false} (--list shows each phase's options)");
ABSL_FLAG(std::string, pipeline, "", "a named phase list (see --list); default: ssa");
ABSL_FLAG(std::string, in, "", "input: FILE.ra (text) or a dump; default: the embedded corpus");
ABSL_FLAG(std::optional<int>, generate, std::nullopt,
          "run on this many generated functions (1 to 1000000) instead of --in");
ABSL_FLAG(uint64_t, seed, 1, "first generator seed (with --generate)");
ABSL_FLAG(int, size, 200, "instructions per generated function, 1 to 10000000 (with --generate)");
ABSL_FLAG(int, byte_percent, 0, "share of generated integer values that are i8, 0-100 (with --generate)");
ABSL_FLAG(int, unusual_percent, 0,
          "share of generated joins, loops, calls and instructions given shapes the generator otherwise never "
          "makes: wide branches, rotating parameters, stack-passed arguments, fixed Reuse sources, early fixed "
          "defs, callee-saved clobbers (0-100, with --generate)");
ABSL_FLAG(std::string, out, "", "output: FILE.ra (text) or a dump");
ABSL_FLAG(std::string, dump_after, "", "write a dump of every function after this phase");
ABSL_FLAG(std::string, dump_dir, "", "directory for --dump_after");
ABSL_FLAG(bool, print, false, "print every function after the last phase");
ABSL_FLAG(bool, stats, false, "print per-phase statistics");
ABSL_FLAG(bool, check, true, "run the allocation checker after the last allocating phase (--nocheck: don't)");
ABSL_FLAG(std::string, html, "",
          "write pictures of every allocation (live ranges by location, pressure, code) to this HTML page");
ABSL_FLAG(std::vector<std::string>, compare, {},
          "run these named pipelines in turn on the same input (with --html: their charts one above the other)");
ABSL_FLAG(bool, list, false, "list targets, phases and pipelines, then exit");

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("Runs register-allocation phases on functions and checks the results.");
  // --help lists this file's flags whatever the binary is called (abseil's
  // default looks for flags in files named after the program).
  absl::FlagsUsageConfig usage;
  usage.contains_help_flags = [](absl::string_view file) { return absl::EndsWith(file, "pipeline_main.cc"); };
  usage.contains_helpshort_flags = usage.contains_help_flags;
  absl::SetFlagsUsageConfig(usage);
  absl::ParseCommandLine(argc, argv);
  const regalloc::PhaseRegistry& registry = regalloc::PhaseRegistry::Default();
  if (absl::GetFlag(FLAGS_list)) {
    std::cout << "targets: " << absl::StrJoin(regalloc::TargetNames(), ", ") << "\n";
    std::cout << "phases:\n";
    for (const std::string& name : registry.Names()) {
      const regalloc::Phase* p = registry.Find(name);
      std::cout << "  " << name << ": " << p->description;
      if (!p->needs.empty()) std::cout << " (needs " << absl::StrJoin(p->needs, ", ") << ")";
      std::cout << "\n";
      for (const regalloc::PhaseOption& option : p->options) {
        std::cout << "      " << option.name << "=" << absl::StrJoin(option.values, "|") << " (default "
                  << option.default_value << "): " << option.description << "\n";
      }
    }
    std::cout << "pipelines:\n";
    for (const std::string& name : registry.PipelineNames()) {
      std::cout << "  " << name << ": " << absl::StrJoin(registry.Pipeline(name).value(), ",") << "\n";
    }
    return 0;
  }
  regalloc::PipelineOptions o;
  o.target = absl::GetFlag(FLAGS_target);
  o.frame_pointer = absl::GetFlag(FLAGS_frame_pointer);
  o.phases = absl::GetFlag(FLAGS_phases);
  o.pipeline = absl::GetFlag(FLAGS_pipeline);
  o.in = absl::GetFlag(FLAGS_in);
  o.out = absl::GetFlag(FLAGS_out);
  std::optional<int> generate = absl::GetFlag(FLAGS_generate);
  if (generate.has_value() && (*generate < 1 || *generate > 1000000)) {
    std::cerr << "pipeline: --generate=" << *generate << " is not a number of functions (1 to 1000000)\n";
    return 2;
  }
  o.generate = generate.value_or(0);
  o.seed = absl::GetFlag(FLAGS_seed);
  o.size = absl::GetFlag(FLAGS_size);
  o.byte_percent = absl::GetFlag(FLAGS_byte_percent);
  o.unusual_percent = absl::GetFlag(FLAGS_unusual_percent);
  o.dump_after = absl::GetFlag(FLAGS_dump_after);
  o.dump_dir = absl::GetFlag(FLAGS_dump_dir);
  o.print = absl::GetFlag(FLAGS_print);
  o.stats = absl::GetFlag(FLAGS_stats);
  o.check = absl::GetFlag(FLAGS_check);
  o.html = absl::GetFlag(FLAGS_html);
  o.compare = absl::GetFlag(FLAGS_compare);
  absl::StatusOr<regalloc::PipelineSummary> summary = regalloc::RunPipeline(o, std::cout, std::cerr);
  if (!summary.ok()) {
    std::cerr << "pipeline: " << summary.status().message() << "\n";
    return 2;
  }
  return summary->failed == 0 ? 0 : 1;
}
