// The pipeline's phase registry: for each phase a name, what it needs, what it
// produces, and an adapter that calls the phase library's plain C++ entry point.
// Phase libraries know nothing of this file; only tools/ does.
//
//   const PhaseRegistry& reg = PhaseRegistry::Default();
//   absl::StatusOr<std::vector<const Phase*>> phases = reg.Resolve({"legalize", "verify"}, initial);
//   for (const Phase* p : *phases) RA_RETURN_IF_ERROR(p->run(ctx));
//
// "Results" are names of facts about a function: `legal` (constraints attached),
// `no_critical_edges`, `locations` (every operand has a location: an allocation
// result), `lowered` (no block parameters left). A phase lists the results it
// requires and the ones it produces; phases that change the function in ways that
// break a result list it in `invalidates`.
//
// Options: a phase may take named options, written after its name in braces
// (MLIR's pass-option syntax), separated by commas or spaces:
//   --phases=legalize,liveness,lsra_build,lsra_allocate{overlap=false,scoring=false},lsra_resolve
// Each option has a default, so `lsra_allocate` alone means every default;
// `--list` shows each phase's options and their values. A named pipeline is a
// phase list with options set (`lsra_nooverlap` is `lsra_allocate{overlap=false}`).
#ifndef REGALLOC_TOOLS_PHASES_H_
#define REGALLOC_TOOLS_PHASES_H_

#include <functional>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ssa/ir.h"
#include "targets/target.h"
#include "tools/dump.h"

namespace regalloc {

// One option of a phase: boolean (values "true", "false") or a choice among
// `values`, the first of which is the default unless `default_value` says.
struct PhaseOption {
  std::string name;
  std::string description;
  std::vector<std::string> values;  // allowed values; {"true", "false"} for a switch
  std::string default_value;
  static PhaseOption Bool(std::string name, bool default_value, std::string description);
  static PhaseOption Choice(std::string name, std::vector<std::string> values, std::string description);
};

// The values of a phase's options for one run: every option present (defaults
// filled in).
class PhaseArgs {
 public:
  const std::string& Get(const std::string& name) const;
  bool Flag(const std::string& name) const { return Get(name) == "true"; }
  void Set(const std::string& name, std::string value) { values_[name] = std::move(value); }
  const std::map<std::string, std::string>& all() const { return values_; }

 private:
  std::map<std::string, std::string> values_;
};

// What a phase adapter may read and change.
struct PhaseContext {
  const Target& target;
  DumpedFunction& state;        // the function, its locations, stats, phases run
  const Function* input = nullptr;  // the function as loaded, before any phase
  std::ostream* print = nullptr;  // where `print` writes
  // Will anything show the phases' text dumps (--print, or a `print` phase)?
  // Phases build them only then: at a million instructions they cost more
  // than some phases.
  bool dumps = false;
  // Records a statistic of the running phase.
  std::function<void(const std::string& name, int64_t value)> stat;
  // The phase's options.
  const PhaseArgs& args;
};

struct Phase {
  std::string name;
  std::string description;
  std::vector<std::string> needs;
  std::vector<std::string> produces;
  std::vector<std::string> invalidates;
  std::function<absl::Status(PhaseContext&)> run;
  // The phase reads PhaseContext::input (the function as loaded); only then does
  // the pipeline keep a copy of it.
  bool reads_input = false;
  // Results in whose presence the phase refuses to run (`spill` on a function
  // already spilled).
  std::vector<std::string> conflicts;
  // Named options (see above).
  std::vector<PhaseOption> options;
};

// A phase with its options, as written in a phase list.
struct PhaseCall {
  const Phase* phase = nullptr;
  PhaseArgs args;
  std::string text;  // as written, normalized: `lsra_allocate{overlap=false}`
};

// Splits a comma-separated phase list, keeping commas inside braces:
// "a,b{x=1,y=2},c" → {"a", "b{x=1,y=2}", "c"}. Also rejoins a list that a flag
// parser already split at every comma.
std::vector<std::string> SplitPhaseList(const std::vector<std::string>& pieces);

class PhaseRegistry {
 public:
  // The registry with every phase the project has.
  static const PhaseRegistry& Default();

  void Register(Phase phase);
  // The phase named `name` (without options), or null.
  const Phase* Find(const std::string& name) const;
  // Parses `name{option=value, ...}`: the phase and every option's value.
  // InvalidArgument names an unknown phase, option or value and lists the
  // allowed ones.
  absl::StatusOr<PhaseCall> Parse(const std::string& text) const;
  std::vector<std::string> Names() const;

  // Named phase lists: `--pipeline=NAME`.
  void RegisterPipeline(const std::string& name, std::vector<std::string> phases);
  // `phase` refuses to run where any of `results` is present (Phase::conflicts).
  void SetConflicts(const std::string& phase, std::vector<std::string> results);
  absl::StatusOr<std::vector<std::string>> Pipeline(const std::string& name) const;
  std::vector<std::string> PipelineNames() const;

  // Looks the phases up and checks that each one's requirements are produced by
  // the input (`initial`) or an earlier phase. Errors name the phase and list what
  // is available.
  absl::StatusOr<std::vector<PhaseCall>> Resolve(const std::vector<std::string>& names,
                                                 const std::set<std::string>& initial) const;

 private:
  std::map<std::string, Phase> phases_;
  std::map<std::string, std::vector<std::string>> pipelines_;
};

// The results a function provides before any phase runs: `locations` when every
// operand has one, `lowered` when, in addition, no block but the entry has
// parameters; plus what the phases recorded in a dump produced.
std::set<std::string> InitialResults(const DumpedFunction& state, const PhaseRegistry& registry);

}  // namespace regalloc

#endif  // REGALLOC_TOOLS_PHASES_H_
