#include "tools/pipeline.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/status_macros.h"
#include "ssa/parser.h"
#include "ssa/printer.h"
#include "ssa/verifier.h"
#include "testdata/corpus.h"
#include "tools/dump.h"
#include "tools/html.h"
#include "check/generator.h"
#include "tools/phases.h"

namespace regalloc {
namespace {

// `bazel run` starts the tool in its runfiles tree; paths are the user's.
std::string UserPath(const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  const char* wd = std::getenv("BUILD_WORKING_DIRECTORY");
  return wd != nullptr ? absl::StrCat(wd, "/", path) : path;
}

bool IsText(const std::string& path) { return absl::EndsWith(path, ".ra"); }

// The bytes of an input file (text or dump), or what keeps it from being one.
absl::StatusOr<std::string> ReadInputFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return absl::InvalidArgumentError(absl::StrCat(path, " is a directory, not a .ra text file or a dump"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InvalidArgumentError(absl::StrCat("cannot read ", path, ": ", std::strerror(errno)));
  std::stringstream buf;
  buf << in.rdbuf();
  if (buf.str().empty()) return absl::InvalidArgumentError(absl::StrCat(path, " is empty: it holds no function"));
  return buf.str();
}

struct Input {
  const Target* target = nullptr;
  TargetOptions target_options;
  std::vector<DumpedFunction> functions;
};

absl::StatusOr<Input> LoadInput(const PipelineOptions& o) {
  Input in;
  in.target_options.frame_pointer = o.frame_pointer;
  std::string target_name = o.target.empty() ? "x86_64" : o.target;
  if (!o.in.empty() && !IsText(o.in)) {
    RA_ASSIGN_OR_RETURN(std::string bytes, ReadInputFile(UserPath(o.in)));
    RA_ASSIGN_OR_RETURN(LoadedDump dump, ParseDump(bytes, UserPath(o.in)));
    if (!o.target.empty() && o.target != dump.target->name()) {
      return absl::InvalidArgumentError(absl::StrCat(o.in, " was dumped for target ", dump.target->name(),
                                                     ", not ", o.target));
    }
    if (dump.functions.empty()) return absl::InvalidArgumentError(absl::StrCat(o.in, " holds no function"));
    in.target = dump.target;
    in.functions = std::move(dump.functions);
    return in;
  }
  RA_ASSIGN_OR_RETURN(in.target, TargetByName(target_name, in.target_options));
  if (o.generate < 0 || o.generate > 1'000'000) {
    return absl::InvalidArgumentError(absl::StrCat("--generate=", o.generate, " is not a number of functions (1 to 1000000)"));
  }
  if (o.generate > 0) {
    if (!o.in.empty()) return absl::InvalidArgumentError("give --in or --generate, not both");
    if (o.size < 1 || o.size > 10'000'000) {
      return absl::InvalidArgumentError(absl::StrCat("--size=", o.size, " is not a function size (1 to 10000000 instructions)"));
    }
    if (o.byte_percent < 0 || o.byte_percent > 100) {
      return absl::InvalidArgumentError(absl::StrCat("--byte_percent=", o.byte_percent, " is not a share (0-100)"));
    }
    if (o.unusual_percent < 0 || o.unusual_percent > 100) {
      return absl::InvalidArgumentError(absl::StrCat("--unusual_percent=", o.unusual_percent, " is not a share (0-100)"));
    }
    GeneratorOptions g;
    g.num_insts = o.size;
    g.byte_percent = o.byte_percent;
    g.unusual_percent = o.unusual_percent;
    for (int i = 0; i < o.generate; ++i) {
      // Generated functions are generic IR, like the corpus; `legalize` is a phase.
      // Unusual shapes include hand-written constraints, which the generator adds
      // to a legalized function (legalize leaves them as they are).
      g.legalize = o.unusual_percent > 0;
      RA_ASSIGN_OR_RETURN(Function f, Generate(o.seed + i, g, *in.target));
      in.functions.push_back(DumpedFunction(std::move(f)));
    }
    return in;
  }
  std::vector<std::pair<std::string, std::string>> sources;
  if (o.in.empty()) {
    for (const CorpusFile& f : Corpus()) sources.emplace_back(absl::StrCat("corpus/", f.name), f.text);
  } else {
    RA_ASSIGN_OR_RETURN(std::string text, ReadInputFile(UserPath(o.in)));
    sources.emplace_back(o.in, std::move(text));
  }
  for (const auto& [name, text] : sources) {
    absl::StatusOr<std::vector<Function>> funcs = ParseModule(text, *in.target);
    if (!funcs.ok()) return absl::InvalidArgumentError(absl::StrCat(name, ":", funcs.status().message()));
    if (funcs->empty()) return absl::InvalidArgumentError(absl::StrCat(name, " holds no function"));
    for (Function& f : *funcs) in.functions.push_back(DumpedFunction(std::move(f)));
  }
  return in;
}

std::string Micros(absl::Duration d) { return absl::StrFormat("%.1f", absl::ToDoubleMicroseconds(d)); }

}  // namespace

namespace {

// One pipeline over the input; with `html`, a chart of every allocation (the
// report is made for the input's target on first use).
absl::StatusOr<PipelineSummary> RunOne(const PipelineOptions& o, std::ostream& out, std::ostream& err,
                                       std::unique_ptr<HtmlReport>* html) {
  const PhaseRegistry& registry = PhaseRegistry::Default();
  std::vector<std::string> names = SplitPhaseList(o.phases);
  if (!names.empty() && !o.pipeline.empty()) {
    return absl::InvalidArgumentError("give --phases or --pipeline, not both");
  }
  if (names.empty()) {
    RA_ASSIGN_OR_RETURN(names, registry.Pipeline(o.pipeline.empty() ? kDefaultPipeline : o.pipeline));
  }
  // Each phase and its options, checked once; written back normalized.
  std::vector<std::string> bare;  // the names without options
  for (std::string& n : names) {
    RA_ASSIGN_OR_RETURN(PhaseCall call, registry.Parse(n));
    n = call.text;
    bare.push_back(call.phase->name);
  }
  // Every allocation is checked: after the last phase producing locations, add
  // `check` unless it follows already.
  if (o.check) {
    int last_alloc = -1, last_check = -1;
    for (size_t i = 0; i < names.size(); ++i) {
      const Phase* p = registry.Find(bare[i]);
      if (std::count(p->produces.begin(), p->produces.end(), "locations")) last_alloc = static_cast<int>(i);
      if (bare[i] == "check") last_check = static_cast<int>(i);
    }
    if (last_alloc >= 0 && last_check < last_alloc) {
      names.push_back("check");
      bare.push_back("check");
    }
  }
  if (!o.dump_after.empty()) {
    if (std::find(names.begin(), names.end(), o.dump_after) == names.end() &&
        std::find(bare.begin(), bare.end(), o.dump_after) == bare.end()) {
      return absl::InvalidArgumentError(absl::StrCat("--dump_after=", o.dump_after, " is not among the phases (",
                                                     absl::StrJoin(names, ", "), ")"));
    }
    if (o.dump_dir.empty()) return absl::InvalidArgumentError("--dump_after needs --dump_dir");
  }
  RA_ASSIGN_OR_RETURN(Input input, LoadInput(o));
  const Target& target = *input.target;
  if (html != nullptr && *html == nullptr) *html = std::make_unique<HtmlReport>(target);
  const std::string label = o.pipeline.empty() ? (o.phases.empty() ? std::string(kDefaultPipeline) : absl::StrJoin(names, ","))
                                               : o.pipeline;

  PipelineSummary summary;
  summary.functions = static_cast<int>(input.functions.size());
  std::vector<DumpedFunction> snapshots;
  std::vector<std::vector<absl::Duration>> times(input.functions.size());
  std::vector<std::string> status(input.functions.size(), "ok");
  std::vector<std::array<int, 3>> sizes(input.functions.size());
  std::ostringstream printed;
  // Resolution errors repeat for every function with the same inputs: group them.
  std::map<std::string, std::vector<std::string>> resolve_errors;
  bool progress = o.progress && isatty(STDERR_FILENO) && input.functions.size() >= 50;

  for (size_t fi = 0; fi < input.functions.size(); ++fi) {
    DumpedFunction& state = input.functions[fi];
    const Function& f = state.function;
    sizes[fi] = {f.CountInstsInLayout(), static_cast<int>(f.layout().size()), f.num_values()};
    // Every input is verified before any phase runs: a phase may then take its
    // input for valid, and an error from it is a bug.
    if (absl::Status valid = Verify(f, target); !valid.ok()) {
      err << "invalid input: " << valid.message() << "\n";
      status[fi] = "invalid input";
      ++summary.failed;
      if (html != nullptr) (*html)->AddFailure(label, f, status[fi]);
      continue;
    }
    absl::StatusOr<std::vector<PhaseCall>> phases = registry.Resolve(names, InitialResults(state, registry));
    if (!phases.ok()) {
      resolve_errors[std::string(phases.status().message())].push_back(absl::StrCat("%", f.name()));
      status[fi] = "error";
      ++summary.failed;
      if (html != nullptr) (*html)->AddFailure(label, f, status[fi]);
      continue;
    }
    // The function as loaded, for phases that compare against it.
    // (A copy only when a phase before the reader may change the function.)
    std::optional<Function> input_function;
    for (size_t k = 1; k < phases->size(); ++k) {
      if ((*phases)[k].phase->reads_input) {
        input_function = state.function;
        break;
      }
    }
    bool dumped = false;
    // For a picture: the function every pipeline starts from, legalized (so that
    // the charts of several pipelines line up on its program points).
    std::optional<Function> before;
    const bool legalizes = std::any_of(phases->begin(), phases->end(),
                                       [](const PhaseCall& c) { return c.phase->name == "legalize"; });
    if (html != nullptr && !legalizes) before = state.function;
    bool dumps = o.print || std::any_of(phases->begin(), phases->end(),
                                        [](const PhaseCall& p) { return p.phase->name == "print"; });
    for (const PhaseCall& call : *phases) {
      const Phase* p = call.phase;
      PhaseContext ctx{target, state, input_function ? &*input_function : &state.function, &printed, dumps,
                       [&](const std::string& stat, int64_t value) {
                         state.stats.push_back(PhaseStat{p->name, stat, value});
                       },
                       call.args};
      absl::Time start = absl::Now();
      absl::Status s = p->run(ctx);
      times[fi].push_back(absl::Now() - start);
      if (!s.ok()) {
        err << "%" << state.function.name() << ": phase " << p->name << ": " << s.message() << "\n";
        status[fi] = absl::StrCat("failed in ", p->name);
        ++summary.failed;
        break;
      }
      state.phases_run.push_back(call.text);
      if (html != nullptr && p->name == "legalize") before = state.function;
      // A phase that changes the function makes a recorded liveness stale (a
      // dump with it would not load): drop the record.
      if (std::count(p->invalidates.begin(), p->invalidates.end(), "liveness")) state.liveness = LivenessRecord();
      if (!dumped && (p->name == o.dump_after || call.text == o.dump_after)) {
        snapshots.push_back(state);
        dumped = true;
      }
    }
    if (o.print) printed << PrintFunction(state.function, target) << state.liveness.printed << state.lsra_printed << "\n";
    if (html != nullptr) {
      std::vector<std::pair<std::string, absl::Duration>> timed;
      for (size_t i = 0; i < times[fi].size() && i < names.size(); ++i) timed.emplace_back(names[i], times[fi][i]);
      if (before.has_value() && status[fi] == "ok") {
        if (absl::Status s = (*html)->Add(label, *before, state.function, std::move(timed), status[fi]); !s.ok()) {
          err << "%" << f.name() << ": --html: " << s.message() << "\n";
          (*html)->AddFailure(label, *before, absl::StrCat("no picture: ", s.message()));
        }
      } else {
        (*html)->AddFailure(label, before.has_value() ? *before : state.function,
                            status[fi] == "ok" ? std::string("no allocating phase") : status[fi]);
      }
    }
    if (progress) {
      int width = 40;
      int done = static_cast<int>((fi + 1) * width / input.functions.size());
      err << "\r[" << std::string(done, '=') << std::string(width - done, ' ') << "] " << fi + 1 << "/"
          << input.functions.size() << std::flush;
    }
  }
  if (progress) err << "\n";
  for (const auto& [message, funcs] : resolve_errors) {
    err << message << " [" << funcs.size() << " function(s): " << absl::StrJoin(funcs, ", ") << "]\n";
  }

  // The table.
  out << "target " << target.name() << " (" << target.abi().name << "), phases: " << absl::StrJoin(names, ", ")
      << "\n";
  std::string total_label = absl::StrCat("total (", summary.functions, ")");
  size_t name_width = std::max<size_t>(8, total_label.size());
  for (const DumpedFunction& d : input.functions) name_width = std::max(name_width, d.function.name().size() + 1);
  out << absl::StrFormat("%-*s %7s %6s %6s", name_width, "function", "insts", "blocks", "values");
  for (size_t i = 0; i < names.size(); ++i) out << absl::StrFormat(" %*s", std::max<size_t>(names[i].size(), 8) + 3, absl::StrCat(names[i], " us"));
  out << "  status\n";
  std::vector<absl::Duration> total_times(names.size());
  int64_t total_insts = 0;
  for (size_t fi = 0; fi < input.functions.size(); ++fi) {
    out << absl::StrFormat("%-*s %7d %6d %6d", name_width, absl::StrCat("%", input.functions[fi].function.name()),
                           sizes[fi][0], sizes[fi][1], sizes[fi][2]);
    total_insts += sizes[fi][0];
    for (size_t i = 0; i < names.size(); ++i) {
      std::string cell = i < times[fi].size() ? Micros(times[fi][i]) : "-";
      if (i < times[fi].size()) total_times[i] += times[fi][i];
      out << absl::StrFormat(" %*s", std::max<size_t>(names[i].size(), 8) + 3, cell);
    }
    out << "  " << status[fi] << "\n";
  }
  out << absl::StrFormat("%-*s %7d %6s %6s", name_width, total_label, total_insts,
                         "", "");
  for (size_t i = 0; i < names.size(); ++i) {
    out << absl::StrFormat(" %*s", std::max<size_t>(names[i].size(), 8) + 3, Micros(total_times[i]));
  }
  out << "  " << (summary.failed == 0 ? "ok" : absl::StrCat(summary.failed, " failed")) << "\n";

  if (o.stats) {
    // One column per statistic, in the order phases reported them.
    std::vector<std::string> keys;
    std::map<std::string, int64_t> totals;
    for (const DumpedFunction& d : input.functions) {
      for (const PhaseStat& st : d.stats) {
        std::string key = absl::StrCat(st.phase, ".", st.name);
        if (totals.emplace(key, 0).second) keys.push_back(key);
        totals[key] += st.value;
      }
    }
    out << "\nstatistics\n" << absl::StrFormat("%-*s", name_width, "function");
    for (const std::string& k : keys) out << " " << k;
    out << "\n";
    for (const DumpedFunction& d : input.functions) {
      std::map<std::string, int64_t> mine;
      for (const PhaseStat& st : d.stats) mine[absl::StrCat(st.phase, ".", st.name)] += st.value;
      out << absl::StrFormat("%-*s", name_width, absl::StrCat("%", d.function.name()));
      for (const std::string& k : keys) {
        auto it = mine.find(k);
        out << absl::StrFormat(" %*s", k.size(), it == mine.end() ? std::string("-") : absl::StrCat(it->second));
      }
      out << "\n";
    }
    out << absl::StrFormat("%-*s", name_width, total_label);
    for (const std::string& k : keys) out << absl::StrFormat(" %*d", k.size(), totals[k]);
    out << "\n";
  }
  if (!printed.str().empty()) out << "\n" << printed.str();

  if (!o.dump_after.empty()) {
    std::string path = UserPath(absl::StrCat(o.dump_dir, "/after_", o.dump_after, ".dump"));
    RA_RETURN_IF_ERROR(WriteDumpFile(path, target, input.target_options, snapshots));
    err << "wrote " << snapshots.size() << " function(s) after " << o.dump_after << " to " << path << "\n";
  }
  if (!o.out.empty()) {
    std::string path = UserPath(o.out);
    if (IsText(o.out)) {
      std::vector<Function> funcs;
      for (const DumpedFunction& d : input.functions) funcs.push_back(d.function);
      std::ofstream file(path);
      file << PrintModule(funcs, target);
      if (!file) return absl::InvalidArgumentError(absl::StrCat("cannot write ", path));
    } else {
      RA_RETURN_IF_ERROR(WriteDumpFile(path, target, input.target_options, input.functions));
    }
  }
  return summary;
}

}  // namespace

absl::StatusOr<PipelineSummary> RunPipeline(const PipelineOptions& o, std::ostream& out, std::ostream& err) {
  std::unique_ptr<HtmlReport> html;
  std::unique_ptr<HtmlReport>* report = o.html.empty() ? nullptr : &html;
  PipelineSummary summary;
  if (o.compare.empty()) {
    RA_ASSIGN_OR_RETURN(summary, RunOne(o, out, err, report));
  } else {
    if (!o.pipeline.empty() || !o.phases.empty()) {
      return absl::InvalidArgumentError("give --compare or --pipeline / --phases, not both");
    }
    for (size_t k = 0; k < o.compare.size(); ++k) {
      PipelineOptions one = o;
      one.compare.clear();
      one.pipeline = o.compare[k];
      one.out.clear();
      if (k > 0) out << "\n";
      RA_ASSIGN_OR_RETURN(PipelineSummary s, RunOne(one, out, err, report));
      summary.functions += s.functions;
      summary.failed += s.failed;
    }
  }
  if (html != nullptr) {
    const std::string path = UserPath(o.html);
    std::ofstream file(path);
    html->Write(file);
    if (!file) return absl::InvalidArgumentError(absl::StrCat("cannot write ", path));
    err << "wrote " << html->charts().size() << " chart(s) to " << path << "\n";
  }
  return summary;
}

}  // namespace regalloc
