#include "tools/phases.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "ssa/cfg.h"
#include "ssa/legalize.h"
#include "ssa/lower_params.h"
#include "ssa/printer.h"
#include "ssa/verifier.h"
#include "coalesce/coalesce.h"
#include "color/color.h"
#include "spill/reload.h"
#include "spill/spill.h"
#include "liveness/live_ranges.h"
#include "liveness/live_sets.h"
#include "liveness/print.h"
#include "lsra/allocate.h"
#include "lsra/build.h"
#include "lsra/resolve.h"
#include "check/checker.h"
#include "check/interpreter.h"
#include "check/stack_allocator.h"

namespace regalloc {
namespace {

void RegisterFoundationPhases(PhaseRegistry& r) {
  r.Register(Phase{"verify", "check the IR: structure, types, SSA dominance, constraints", {}, {}, {},
                   [](PhaseContext& c) { return Verify(c.state.function, c.target); }});
  r.Register(Phase{"legalize", "attach the target's operand constraints (ABI, two-address, fixed registers)",
                   {}, {"legal"}, {},
                   [](PhaseContext& c) { return Legalize(c.state.function, c.target); }});
  r.Register(Phase{"split_critical_edges", "split every critical edge with a new block", {}, {"no_critical_edges"}, {"liveness"},
                   [](PhaseContext& c) {
                     c.stat("edges_split", SplitCriticalEdges(c.state.function));
                     return absl::OkStatus();
                   }});
  r.Register(Phase{"lower_params", "turn block parameters into moves on incoming edges (parallel copies)",
                   {"locations"}, {"lowered", "no_critical_edges"}, {"liveness"},
                   [](PhaseContext& c) -> absl::Status {
                     RA_ASSIGN_OR_RETURN(LowerParamsStats s, LowerBlockParams(c.state.function, c.target));
                     c.stat("moves", s.moves);
                     c.stat("renames", s.renames);
                     c.stat("swaps", s.swaps);
                     c.stat("edges_split", s.edges_split);
                     c.stat("stack_temps", s.stack_temps);
                     return absl::OkStatus();
                   }});
  r.Register(Phase{"print", "print the function as it is now (and its liveness, if computed)", {}, {}, {},
                   [](PhaseContext& c) {
                     if (c.print != nullptr) {
                       *c.print << PrintFunction(c.state.function, c.target) << c.state.liveness.printed << c.state.lsra_printed;
                     }
                     return absl::OkStatus();
                   }});
  r.Register(Phase{"liveness", "live-in/out sets, live ranges and register pressure (liveness/)", {}, {"liveness"},
                   {}, [](PhaseContext& c) -> absl::Status {
                     const Function& f = c.state.function;
                     if (f.IsAllocated()) {
                       return absl::FailedPreconditionError("liveness needs SSA form; this function is allocated");
                     }
                     InstNumbering num(f);
                     LiveSets sets(f);
                     LiveRanges ranges(f, sets, num);
                     RA_ASSIGN_OR_RETURN(RegisterPressure pressure, RegisterPressure::Compute(f, c.target, sets, num));
                     c.stat("global_values", sets.num_global());
                     c.stat("block_visits", sets.block_visits());
                     for (int b = 0; b < c.target.num_banks(); ++b) {
                       c.stat(absl::StrCat("max_pressure_", c.target.Bank(b).name), pressure.Max(b));
                     }
                     LivenessRecord& rec = c.state.liveness;
                     rec = LivenessRecord();
                     for (int b = 0; b < f.num_blocks(); ++b) {
                       rec.live_in.emplace_back();
                       rec.live_out.emplace_back();
                       for (Value v : sets.LiveIn(Block(b))) rec.live_in.back().push_back(v.index());
                       for (Value v : sets.LiveOut(Block(b))) rec.live_out.back().push_back(v.index());
                     }
                     for (int v = 0; v < f.num_values(); ++v) {
                       if (!ranges.HasRange(Value(v))) continue;
                       LivenessRecord::Range r{static_cast<uint32_t>(v), ranges.def_interval(Value(v)).begin.bits(),
                                               ranges.def_interval(Value(v)).end.bits(), {}};
                       for (const Interval& i : ranges.live_ins(Value(v))) {
                         r.live_in_bounds.push_back(i.begin.bits());
                         r.live_in_bounds.push_back(i.end.bits());
                       }
                       rec.ranges.push_back(std::move(r));
                     }
                     if (c.dumps) rec.printed = PrintLiveness(f, sets, ranges);
                     return absl::OkStatus();
                   }});
  r.RegisterPipeline("front", {"legalize", "verify", "split_critical_edges", "verify"});
}

// The phases of the `ssa` allocator pass virtual registers and value locations
// through the dump state; these convert them back.
VirtRegs VirtRegsOf(const DumpedFunction& state) {
  std::vector<std::vector<Value>> sets;
  for (const std::vector<uint32_t>& members : state.virtual_registers) {
    sets.emplace_back();
    for (uint32_t v : members) sets.back().push_back(Value(v));
  }
  VirtRegs vregs;
  vregs.Assign(state.function.num_values(), std::move(sets));
  return vregs;
}

ValueLocations LocationsOf(const DumpedFunction& state) {
  ValueLocations locs;
  locs.Assign(state.value_locations);
  locs.Resize(state.function.num_values());
  return locs;
}

// The `ssa` allocator (issue 6): coalesce, spill, reload, color.
void RegisterSsaPhases(PhaseRegistry& r) {
  r.Register(Phase{"coalesce", "CSSA virtual registers: parameters and their arguments, interference-free (coalesce/)",
                   {"legal"}, {"virtual_registers", "no_critical_edges"}, {"liveness"},
                   [](PhaseContext& c) -> absl::Status {
                     VirtRegs vregs;
                     RA_ASSIGN_OR_RETURN(CoalesceStats s, Coalesce(c.state.function, vregs));
                     c.stat("vregs", s.vregs);
                     c.stat("values_in_vregs", s.values_in_vregs);
                     c.stat("arg_copies", s.arg_copies);
                     c.stat("param_copies", s.param_copies);
                     c.state.virtual_registers.clear();
                     for (int i = 0; i < vregs.num_vregs(); ++i) {
                       std::vector<uint32_t> members;
                       for (Value v : vregs.Members(VirtReg(i))) members.push_back(v.index());
                       c.state.virtual_registers.push_back(std::move(members));
                     }
                     return absl::OkStatus();
                   }});
  auto spill_phase = [](std::string name, SpillHeuristic heuristic, std::string description) {
    return Phase{std::move(name), std::move(description), {"virtual_registers"}, {"spilled"}, {"liveness"},
                 [heuristic](PhaseContext& c) -> absl::Status {
                   VirtRegs vregs = VirtRegsOf(c.state);
                   ValueLocations locs;
                   SpillOptions options;
                   options.heuristic = heuristic;
                   RA_ASSIGN_OR_RETURN(SpillStats s, Spill(c.target, c.state.function, vregs, locs, options));
                   c.stat("values_spilled", s.values_spilled);
                   c.stat("decisions", s.spill_decisions);
                   c.stat("constraint_copies", s.prepare.copies);
                   c.state.value_locations = locs.all();
                   return absl::OkStatus();
                 }};
  };
  r.Register(spill_phase("spill", SpillHeuristic::kFarthestDef,
                         "farthest-def spilling: values in registers fit every instruction (spill/)"));
  r.Register(spill_phase("spill_belady", SpillHeuristic::kFarthestNextUse,
                         "spilling by farthest next use instead (Belady; Braun & Hack 2009) (spill/)"));
  r.Register(Phase{"reload", "reloads before register uses of spilled values, stores after their defs (spill/)",
                   {"spilled"}, {"reloaded"}, {"liveness"},
                   [](PhaseContext& c) -> absl::Status {
                     ValueLocations locs = LocationsOf(c.state);
                     RA_ASSIGN_OR_RETURN(ReloadStats s, InsertReloads(c.target, c.state.function, locs));
                     c.stat("reloads", s.reloads);
                     c.stat("spills", s.spills);
                     c.stat("weighted_cost", s.weighted_cost);
                     c.state.value_locations = locs.all();
                     return absl::OkStatus();
                   }});
  r.Register(Phase{"color", "dominator-order coloring with operand constraints; never spills (color/)",
                   {"reloaded"}, {"locations"}, {"liveness"},
                   [](PhaseContext& c) -> absl::Status {
                     VirtRegs vregs = VirtRegsOf(c.state);
                     ValueLocations locs = LocationsOf(c.state);
                     RA_ASSIGN_OR_RETURN(ColorStats s, Color(c.target, c.state.function, vregs, locs));
                     c.stat("moves", s.moves);
                     c.stat("relocations", s.relocations);
                     c.stat("restores", s.restores);
                     c.stat("weighted_cost", s.weighted_cost);
                     c.state.value_locations = locs.all();
                     return absl::OkStatus();
                   }});
  r.SetConflicts("coalesce", {"virtual_registers", "locations"});
  r.SetConflicts("spill", {"spilled", "locations"});
  r.SetConflicts("spill_belady", {"spilled", "locations"});
  r.SetConflicts("reload", {"reloaded", "locations"});
  r.SetConflicts("color", {"locations"});
  r.RegisterPipeline("ssa", {"legalize", "liveness", "coalesce", "spill", "reload", "color", "lower_params", "check",
                             "interpret"});
  // The same with Belady's heuristic instead of farthest-def, to compare.
  r.RegisterPipeline("ssa_belady", {"legalize", "liveness", "coalesce", "spill_belady", "reload", "color",
                                    "lower_params", "check", "interpret"});
}

}  // namespace

struct LsraPipelineState {
  LiveSets sets;  // what lsra_build was given; exact for resolution too
  LsraBuild build;
  LsraAllocation alloc;
};

namespace {

absl::StatusOr<LsraPipelineState*> LsraStateOf(PhaseContext& c, const char* phase) {
  if (c.state.lsra == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        phase, " needs lsra_build's intervals from this run (they are not stored in dumps): run lsra_build first"));
  }
  return c.state.lsra.get();
}

// The linear-scan allocator (issue 7).
void RegisterLsraPhases(PhaseRegistry& r) {
  auto build_phase = [](std::string name, LsraBuildOptions options, std::string description) {
    return Phase{std::move(name), std::move(description), {"legal"}, {"lsra_intervals"}, {"liveness"},
                 [options](PhaseContext& c) -> absl::Status {
                   Function& f = c.state.function;
                   if (f.IsAllocated()) return absl::FailedPreconditionError("lsra_build needs SSA form");
                   auto state = std::make_shared<LsraPipelineState>();
                   state->sets.Compute(f);
                   RA_ASSIGN_OR_RETURN(LsraBuildStats s, state->build.Run(c.target, f, state->sets, options));
                   c.stat("intervals", s.intervals);
                   c.stat("ranges", s.ranges);
                   c.stat("refs", s.refs);
                   c.stat("fixed_refs", s.fixed_refs);
                   c.stat("critical_edges", s.critical_edges);
                   c.stat("reuse_copies", s.reuse_copies);
                   c.stat("commuted", s.commuted);
                   c.state.lsra_printed = c.dumps ? state->build.Print(f, c.target) : std::string();
                   c.state.lsra = std::move(state);
                   return absl::OkStatus();
                 }};
  };
  r.Register(build_phase("lsra_build", LsraBuildOptions(),
                         "linear scan: block order, intervals, RefPositions, fixed registers (lsra/)"));
  LsraBuildOptions reversed;
  reversed.reverse_order = true;
  r.Register(build_phase("lsra_build_reversed", reversed, "stress: lsra_build with the block order reversed"));
  r.SetConflicts("lsra_build", {"locations"});
  r.SetConflicts("lsra_build_reversed", {"locations"});
  auto allocate_phase = [](std::string name, LsraOptions options, std::string description) {
    return Phase{std::move(name), std::move(description), {"lsra_intervals"}, {"lsra_allocation"}, {},
                 [options](PhaseContext& c) -> absl::Status {
                   RA_ASSIGN_OR_RETURN(LsraPipelineState * state, LsraStateOf(c, "lsra_allocate"));
                   RA_ASSIGN_OR_RETURN(LsraAllocStats s,
                                       state->alloc.Run(c.target, c.state.function, state->build, options));
                   c.stat("children", s.children);
                   c.stat("splits", s.splits);
                   c.stat("stack_pieces", s.spilled);
                   c.stat("preferred", s.preferred);
                   c.stat("overlapped", s.overlapped);
                   c.stat("recovered", s.recovered);
                   c.stat("seeded", s.seeded);
                   c.stat("rounds", s.rounds);
                   if (c.dumps) absl::StrAppend(&c.state.lsra_printed, state->alloc.Print(c.state.function, c.target));
                   return absl::OkStatus();
                 }};
  };
  r.Register(allocate_phase("lsra_allocate", LsraOptions(),
                            "linear scan with lifetime holes and interval splitting (lsra/)"));
  // Each switch of LsraOptions as a phase of its own, so that its effect can be
  // measured and the fuzz test runs it.
  struct Variant {
    const char* name;
    const char* description;
    void (*set)(LsraOptions&);
  };
  const Variant variants[] = {
      {"lsra_allocate_nopref", "lsra_allocate without register preference",
       [](LsraOptions& o) { o.preference = false; }},
      {"lsra_allocate_nooverlap", "lsra_allocate without register overlap", [](LsraOptions& o) { o.overlap = false; }},
      {"lsra_allocate_noscoring", "lsra_allocate taking the hint or the register free the longest, without RyuJIT's selection rules",
       [](LsraOptions& o) { o.scoring = false; }},
      {"lsra_allocate_noseed", "lsra_allocate without RyuJIT's block-start locations from the seed predecessor",
       [](LsraOptions& o) { o.seed_blocks = false; }},
      {"lsra_allocate_second_chance",
       "lsra_allocate with Subzero's repeat-until-convergence (second-chance rounds)",
       [](LsraOptions& o) { o.second_chance = true; }},
      {"lsra_allocate_evict_in_place", "lsra_allocate splitting an evicted interval at the current position",
       [](LsraOptions& o) { o.spill_before_loops = false; }},
      {"lsra_allocate_callee_saved", "stress: lsra_allocate from callee-saved registers only",
       [](LsraOptions& o) { o.registers = LsraOptions::Registers::kCalleeSavedOnly; }},
      {"lsra_allocate_caller_saved", "stress: lsra_allocate from caller-saved registers only",
       [](LsraOptions& o) { o.registers = LsraOptions::Registers::kCallerSavedOnly; }},
      {"lsra_allocate_local_split", "lsra_allocate with Subzero's block-local splitting",
       [](LsraOptions& o) { o.local_split = true; }},
      {"lsra_allocate_nearest", "stress: lsra_allocate evicting the register needed soonest",
       [](LsraOptions& o) { o.spill_nearest = true; }},
  };
  for (const Variant& v : variants) {
    LsraOptions options;
    v.set(options);
    r.Register(allocate_phase(v.name, options, v.description));
  }
  r.Register(Phase{"lsra_resolve", "linear scan resolution: operand locations, split and edge moves (lsra/)",
                   {"lsra_allocation"}, {"locations", "lowered"}, {"liveness"},
                   [](PhaseContext& c) -> absl::Status {
                     RA_ASSIGN_OR_RETURN(LsraPipelineState * state, LsraStateOf(c, "lsra_resolve"));
                     RA_ASSIGN_OR_RETURN(LsraResolveStats s,
                                         ResolveLsra(c.target, c.state.function, state->build, state->alloc, LsraResolveOptions{c.dumps}));
                     c.stat("gap_moves", s.gap_moves);
                     c.stat("edge_moves", s.edge_moves);
                     c.stat("edges_split", s.edges_split);
                     absl::StrAppend(&c.state.lsra_printed, s.printed);
                     c.state.lsra = nullptr;
                     return absl::OkStatus();
                   }});
  r.SetConflicts("lsra_resolve", {"locations"});
  auto lsra = [&](const std::string& name, const std::string& build, const std::string& allocate) {
    r.RegisterPipeline(name, {"legalize", "liveness", build, allocate, "lsra_resolve", "check", "interpret"});
  };
  lsra("lsra", "lsra_build", "lsra_allocate");
  // Each enhancement off, and RyuJIT-style stress modes (run by the fuzz test).
  lsra("lsra_nopref", "lsra_build", "lsra_allocate_nopref");
  lsra("lsra_nooverlap", "lsra_build", "lsra_allocate_nooverlap");
  lsra("lsra_noscoring", "lsra_build", "lsra_allocate_noscoring");
  lsra("lsra_noseed", "lsra_build", "lsra_allocate_noseed");
  lsra("lsra_second_chance", "lsra_build", "lsra_allocate_second_chance");
  lsra("lsra_evict_in_place", "lsra_build", "lsra_allocate_evict_in_place");
  lsra("lsra_local_split", "lsra_build", "lsra_allocate_local_split");
  lsra("lsra_stress_callee_saved", "lsra_build", "lsra_allocate_callee_saved");
  lsra("lsra_stress_caller_saved", "lsra_build", "lsra_allocate_caller_saved");
  lsra("lsra_stress_nearest", "lsra_build", "lsra_allocate_nearest");
  lsra("lsra_stress_reversed", "lsra_build_reversed", "lsra_allocate");
}

// The correctness harness and the reference allocator (tools/).
void RegisterHarnessPhases(PhaseRegistry& r) {
  r.Register(Phase{"stack_alloc", "reference allocator: every value in its own stack slot", {"legal"}, {"locations"}, {"liveness"},
                   [](PhaseContext& c) -> absl::Status {
                     RA_ASSIGN_OR_RETURN(StackAllocStats s, AllocateOnStack(c.state.function, c.target));
                     c.stat("spills", s.spills);
                     c.stat("reloads", s.reloads);
                     c.stat("weighted_cost", s.weighted_cost);
                     return absl::OkStatus();
                   }});
  r.Register(Phase{"check", "symbolic check of the allocation (check/checker.h)", {"locations"}, {"checked"}, {},
                   [](PhaseContext& c) -> absl::Status {
                     RA_RETURN_IF_ERROR(CheckAllocation(c.state.function, c.target));
                     // Every instruction of the input, stores and calls included, still there.
                     if (c.input != nullptr && c.input != &c.state.function) {
                       RA_RETURN_IF_ERROR(CheckKeepsOriginal(*c.input, c.state.function, c.target));
                     }
                     AllocationCost cost = MeasureAllocation(c.state.function);
                     c.stat("spills", cost.spills);
                     c.stat("reloads", cost.reloads);
                     c.stat("moves", cost.moves);
                     c.stat("weighted_cost", cost.weighted);
                     c.stat("saves", cost.saves);
                     return absl::OkStatus();
                   },
                   /*reads_input=*/true});
  r.Register(Phase{"interpret", "run the input on values and the allocation on the machine, 3 seeds, and compare",
                   {"locations"}, {"interpreted"}, {},
                   [](PhaseContext& c) -> absl::Status {
                     const Function& original = c.input != nullptr ? *c.input : c.state.function;
                     // Imported machine code holds opaque target instructions: the
                     // checker proves its allocation; there is nothing to run.
                     if (absl::IsUnimplemented(CheckInterpretable(original))) {
                       c.stat("not_interpretable", 1);
                       return absl::OkStatus();
                     }
                     for (uint64_t seed = 1; seed <= 3; ++seed) {
                       RA_RETURN_IF_ERROR(CompareExecutions(original, c.state.function, c.target, seed));
                     }
                     return absl::OkStatus();
                   },
                   /*reads_input=*/true});
  // The main job: allocate with the reference allocator, lower block parameters,
  // and prove the result with the checker and the interpreter.
  r.SetConflicts("stack_alloc", {"locations"});
  r.RegisterPipeline("stack", {"legalize", "stack_alloc", "lower_params", "check", "interpret"});
}

}  // namespace

const PhaseRegistry& PhaseRegistry::Default() {
  static const PhaseRegistry* registry = [] {
    auto* r = new PhaseRegistry();
    RegisterFoundationPhases(*r);
    RegisterHarnessPhases(*r);
    RegisterSsaPhases(*r);
    RegisterLsraPhases(*r);
    return r;
  }();
  return *registry;
}

void PhaseRegistry::Register(Phase phase) {
  std::string name = phase.name;
  phases_[name] = std::move(phase);
}

const Phase* PhaseRegistry::Find(const std::string& name) const {
  auto it = phases_.find(name);
  return it == phases_.end() ? nullptr : &it->second;
}

std::vector<std::string> PhaseRegistry::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, phase] : phases_) names.push_back(name);
  return names;
}

void PhaseRegistry::SetConflicts(const std::string& phase, std::vector<std::string> results) {
  phases_.at(phase).conflicts = std::move(results);
}

void PhaseRegistry::RegisterPipeline(const std::string& name, std::vector<std::string> phases) {
  pipelines_[name] = std::move(phases);
}

absl::StatusOr<std::vector<std::string>> PhaseRegistry::Pipeline(const std::string& name) const {
  auto it = pipelines_.find(name);
  if (it == pipelines_.end()) {
    return absl::InvalidArgumentError(absl::StrCat("unknown pipeline '", name, "'; known pipelines: ",
                                                   absl::StrJoin(PipelineNames(), ", ")));
  }
  return it->second;
}

std::vector<std::string> PhaseRegistry::PipelineNames() const {
  std::vector<std::string> names;
  for (const auto& [name, phases] : pipelines_) names.push_back(name);
  return names;
}

absl::StatusOr<std::vector<const Phase*>> PhaseRegistry::Resolve(const std::vector<std::string>& names,
                                                                 const std::set<std::string>& initial) const {
  if (names.empty()) return absl::InvalidArgumentError("no phases given");
  std::vector<const Phase*> out;
  std::set<std::string> have = initial;
  for (const std::string& name : names) {
    const Phase* p = Find(name);
    if (p == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("unknown phase '", name, "'; available phases: ",
                                                     absl::StrJoin(Names(), ", ")));
    }
    for (const std::string& need : p->needs) {
      if (have.count(need) == 0) {
        std::vector<std::string> producers;
        for (const auto& [other, phase] : phases_) {
          if (std::count(phase.produces.begin(), phase.produces.end(), need)) producers.push_back(other);
        }
        return absl::InvalidArgumentError(absl::StrCat(
            "phase '", name, "' needs '", need, "', which neither the input nor an earlier phase provides (",
            producers.size() > 1 || (producers.size() == 1 && producers[0] != name)
                ? absl::StrCat("produced by: ", absl::StrJoin(producers, ", "))
                : "an allocator produces it, or an input whose every operand has a location",
            "; available so far: ", have.empty() ? "nothing" : absl::StrJoin(have, ", "), ")"));
      }
    }
    for (const std::string& done : p->conflicts) {
      if (have.count(done)) {
        return absl::InvalidArgumentError(absl::StrCat("phase '", name, "' cannot run on a function that already has '",
                                                       done, "' (from the input or an earlier phase)"));
      }
    }
    for (const std::string& gone : p->invalidates) have.erase(gone);
    for (const std::string& made : p->produces) have.insert(made);
    out.push_back(p);
  }
  return out;
}

std::set<std::string> InitialResults(const DumpedFunction& state, const PhaseRegistry& registry) {
  std::set<std::string> have;
  const Function& f = state.function;
  if (f.IsAllocated()) {
    have.insert("locations");
    bool lowered = true;
    for (Block b : f.layout()) lowered &= b == f.entry() || f.block(b).params.empty();
    if (lowered) have.insert("lowered");
  }
  for (const std::string& name : state.phases_run) {
    if (const Phase* p = registry.Find(name)) {
      for (const std::string& gone : p->invalidates) have.erase(gone);
      for (const std::string& made : p->produces) have.insert(made);
    }
  }
  return have;
}

}  // namespace regalloc
