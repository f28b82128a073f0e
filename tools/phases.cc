#include "tools/phases.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/status_macros.h"
#include "ssa/cfg.h"
#include "ssa/legalize.h"
#include "ssa/elide_moves.h"
#include "ssa/lower_params.h"
#include "ssa/printer.h"
#include "ssa/verifier.h"
#include "coalesce/coalesce.h"
#include "color/color.h"
#include "color/ssa_allocator.h"
#include "spill/reload.h"
#include "spill/spill.h"
#include "liveness/live_ranges.h"
#include "liveness/live_sets.h"
#include "liveness/print.h"
#include "lsra/allocate.h"
#include "lsra/allocator.h"
#include "chaitin/chaitin.h"
#include "packing/packing.h"
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
  r.Register(Phase{"elide_moves",
                   "after any allocator: a reload, copy or move into a register already holding the same bits "
                   "(within a block) moves nothing (ssa/elide_moves.h)",
                   {"locations"}, {}, {},
                   [](PhaseContext& c) -> absl::Status {
                     c.stat("elided", ElideRedundantMoves(c.state.function, c.target));
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

PhaseOption SpillHeuristicOption() {
  return PhaseOption::Choice("heuristic", {"farthest_def", "belady"},
                             "the spiller's victim: defined farthest back (Cretonne), or used farthest ahead "
                             "(Belady; Braun & Hack 2009)");
}

PhaseOption RematOption() {
  return PhaseOption::Bool("remat", true,
                           "make spilled constants again at their register uses instead of reloading them");
}

SpillHeuristic SpillHeuristicOf(const PhaseArgs& a) {
  return a.Get("heuristic") == "belady" ? SpillHeuristic::kFarthestNextUse : SpillHeuristic::kFarthestDef;
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
                     c.stat("rounds", s.rounds);
                     c.state.virtual_registers.clear();
                     for (int i = 0; i < vregs.num_vregs(); ++i) {
                       std::vector<uint32_t> members;
                       for (Value v : vregs.Members(VirtReg(i))) members.push_back(v.index());
                       c.state.virtual_registers.push_back(std::move(members));
                     }
                     return absl::OkStatus();
                   }});
  Phase spill{"spill", "farthest-def spilling: values in registers fit every instruction (spill/)",
              {"virtual_registers"}, {"spilled"}, {"liveness"},
              [](PhaseContext& c) -> absl::Status {
                VirtRegs vregs = VirtRegsOf(c.state);
                ValueLocations locs;
                SpillOptions options;
                options.heuristic = SpillHeuristicOf(c.args);
                RA_ASSIGN_OR_RETURN(SpillStats s, Spill(c.target, c.state.function, vregs, locs, options));
                c.stat("values_spilled", s.values_spilled);
                c.stat("decisions", s.spill_decisions);
                c.stat("constraint_copies", s.prepare.copies);
                c.state.value_locations = locs.all();
                return absl::OkStatus();
              }};
  spill.options = {SpillHeuristicOption()};
  r.Register(std::move(spill));
  Phase reload{"reload", "reloads before register uses of spilled values, stores after their defs (spill/)",
               {"spilled"}, {"reloaded"}, {"liveness"},
               [](PhaseContext& c) -> absl::Status {
                 ValueLocations locs = LocationsOf(c.state);
                 ReloadOptions options;
                 options.remat = c.args.Flag("remat");
                 RA_ASSIGN_OR_RETURN(ReloadStats s, InsertReloads(c.target, c.state.function, locs, options));
                 c.stat("reloads", s.reloads);
                 c.stat("remats", s.remats);
                 c.stat("spills", s.spills);
                 c.stat("dead_stores", s.dead_stores);
                 c.stat("weighted_cost", s.weighted_cost);
                 c.state.value_locations = locs.all();
                 return absl::OkStatus();
               }};
  reload.options = {RematOption()};
  r.Register(std::move(reload));
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
  r.SetConflicts("reload", {"reloaded", "locations"});
  r.SetConflicts("color", {"locations"});
  r.RegisterPipeline("ssa", {"legalize", "liveness", "coalesce", "spill", "reload", "color", "lower_params", "check",
                             "interpret"});
  // The same with Belady's heuristic instead of farthest-def, to compare.
  r.RegisterPipeline("ssa_belady", {"legalize", "liveness", "coalesce", "spill{heuristic=belady}", "reload", "color",
                                    "lower_params", "check", "interpret"});
  // Spilled constants reloaded from their slots, as every spilled value.
  r.RegisterPipeline("ssa_noremat", {"legalize", "liveness", "coalesce", "spill", "reload{remat=false}", "color",
                                     "lower_params", "check", "interpret"});
  // The same allocator as one object (color/ssa_allocator.h): what a compiler
  // reusing the toolkit calls, without the dumps between phases.
  Phase whole{"ssa_allocate",
              "the whole ssa allocator as one reusable object: coalesce, spill, reload, color, lower_params",
              {"legal"}, {"locations", "lowered", "no_critical_edges"}, {"liveness"},
              [](PhaseContext& c) -> absl::Status {
                if (c.state.function.IsAllocated()) {
                  return absl::FailedPreconditionError("ssa_allocate needs SSA form; this function is allocated");
                }
                SsaAllocatorOptions options;
                options.spill = SpillHeuristicOf(c.args);
                options.remat = c.args.Flag("remat");
                SsaAllocator allocator(options);
                RA_ASSIGN_OR_RETURN(SsaAllocationStats s, allocator.Run(c.state.function, c.target));
                c.stat("vregs", s.coalesce.vregs);
                c.stat("values_spilled", s.spill.values_spilled);
                c.stat("reloads", s.reload.reloads);
                c.stat("spills", s.reload.spills);
                c.stat("moves", s.color.moves + s.lower.moves);
                return absl::OkStatus();
              }};
  whole.options = {SpillHeuristicOption(), RematOption()};
  r.Register(std::move(whole));
  r.SetConflicts("ssa_allocate", {"locations"});
  r.RegisterPipeline("ssa_allocate", {"legalize", "ssa_allocate", "check", "interpret"});
}

}  // namespace

struct LsraPipelineState {
  LsraAllocator allocator;  // its steps run as lsra_build, lsra_allocate, lsra_resolve
};

namespace {

absl::StatusOr<LsraPipelineState*> LsraStateOf(PhaseContext& c, const char* phase) {
  if (c.state.lsra == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        phase, " needs lsra_build's intervals from this run (they are not stored in dumps): run lsra_build first"));
  }
  return c.state.lsra.get();
}

// lsra_allocate's options: the fields of LsraOptions (lsra/allocate.h).
std::vector<PhaseOption> LsraAllocateOptions() {
  LsraOptions d;
  return {
      PhaseOption::Bool("preference", d.preference, "Subzero's register preference for a def whose source dies"),
      PhaseOption::Bool("overlap", d.overlap, "Subzero's register overlap: a copy may share its live source's register"),
      PhaseOption::Bool("scoring", d.scoring, "RyuJIT's selection rules among free registers (off: hint, else free longest)"),
      PhaseOption::Bool("seed_blocks", d.seed_blocks, "RyuJIT's block-start locations from the seed predecessor"),
      PhaseOption::Bool("second_chance", d.second_chance, "Subzero's repeat-until-convergence rounds for stack pieces"),
      PhaseOption::Bool("spill_before_loops", d.spill_before_loops,
                        "Wimmer's split position for an evicted piece and one whose register is free only for a while (off: where the register is taken)"),
      PhaseOption::Bool("local_split", d.local_split, "Subzero's block-local splitting at every block start"),
      PhaseOption::Bool("evict_over_split", d.evict_over_split,
                        "a piece free only for a while that needs a register again evicts holders needed later instead (off: split where the register is taken)"),
      PhaseOption::Bool("spill_nearest", d.spill_nearest, "stress: evict the register needed soonest"),
      PhaseOption::Choice("registers", {"all", "callee_saved", "caller_saved"},
                          "stress: allocate only from callee-saved or caller-saved registers"),
  };
}

LsraOptions LsraOptionsOf(const PhaseArgs& a) {
  LsraOptions o;
  o.preference = a.Flag("preference");
  o.overlap = a.Flag("overlap");
  o.scoring = a.Flag("scoring");
  o.seed_blocks = a.Flag("seed_blocks");
  o.second_chance = a.Flag("second_chance");
  o.spill_before_loops = a.Flag("spill_before_loops");
  o.local_split = a.Flag("local_split");
  o.evict_over_split = a.Flag("evict_over_split");
  o.spill_nearest = a.Flag("spill_nearest");
  const std::string& r = a.Get("registers");
  o.registers = r == "callee_saved"   ? LsraOptions::Registers::kCalleeSavedOnly
                : r == "caller_saved" ? LsraOptions::Registers::kCallerSavedOnly
                                      : LsraOptions::Registers::kAll;
  return o;
}

// The linear-scan allocator (issue 7): the three steps of one LsraAllocator.
void RegisterLsraPhases(PhaseRegistry& r) {
  Phase build{"lsra_build", "linear scan: block order, intervals, RefPositions, fixed registers (lsra/)",
              {"legal"}, {"lsra_intervals"}, {"liveness"},
              [](PhaseContext& c) -> absl::Status {
                Function& f = c.state.function;
                auto state = std::make_shared<LsraPipelineState>();
                state->allocator.options().build.reverse_order = c.args.Flag("reverse_order");
                state->allocator.options().build.remat = c.args.Flag("remat");
                RA_ASSIGN_OR_RETURN(LsraBuildStats s, state->allocator.Build(f, c.target));
                c.stat("intervals", s.intervals);
                c.stat("ranges", s.ranges);
                c.stat("refs", s.refs);
                c.stat("fixed_refs", s.fixed_refs);
                c.stat("critical_edges", s.critical_edges);
                c.stat("reuse_copies", s.reuse_copies);
                c.stat("commuted", s.commuted);
                c.stat("remats", s.remats);
                c.state.lsra_printed = c.dumps ? state->allocator.build().Print(f, c.target) : std::string();
                c.state.lsra = std::move(state);
                return absl::OkStatus();
              }};
  build.options = {PhaseOption::Bool("reverse_order", false,
                                     "stress (RyuJIT): the blocks after the entry in reverse order"),
                   PhaseOption::Bool("remat", LsraBuildOptions().remat,
                                     "a two-address source defined by const is made again, not copied")};
  r.Register(std::move(build));
  r.SetConflicts("lsra_build", {"locations"});
  Phase allocate{"lsra_allocate", "linear scan with lifetime holes and interval splitting (lsra/)",
                 {"lsra_intervals"}, {"lsra_allocation"}, {},
                 [](PhaseContext& c) -> absl::Status {
                   RA_ASSIGN_OR_RETURN(LsraPipelineState * state, LsraStateOf(c, "lsra_allocate"));
                   state->allocator.options().allocate = LsraOptionsOf(c.args);
                   RA_ASSIGN_OR_RETURN(LsraAllocStats s, state->allocator.Allocate(c.state.function, c.target));
                   c.stat("children", s.children);
                   c.stat("splits", s.splits);
                   c.stat("stack_pieces", s.spilled);
                   c.stat("preferred", s.preferred);
                   c.stat("overlapped", s.overlapped);
                   c.stat("recovered", s.recovered);
                   c.stat("seeded", s.seeded);
                   c.stat("rounds", s.rounds);
                   if (c.dumps) {
                     absl::StrAppend(&c.state.lsra_printed,
                                     state->allocator.allocation().Print(c.state.function, c.target));
                   }
                   return absl::OkStatus();
                 }};
  allocate.options = LsraAllocateOptions();
  r.Register(std::move(allocate));
  Phase resolve{"lsra_resolve", "linear scan resolution: operand locations, split and edge moves (lsra/)",
                {"lsra_allocation"}, {"locations", "lowered"}, {"liveness"},
                [](PhaseContext& c) -> absl::Status {
                  RA_ASSIGN_OR_RETURN(LsraPipelineState * state, LsraStateOf(c, "lsra_resolve"));
                  LsraResolveOptions o;
                  o.dump = c.dumps;
                  o.remat = c.args.Flag("remat");
                  RA_ASSIGN_OR_RETURN(LsraResolveStats s, state->allocator.Resolve(c.state.function, c.target, o));
                  c.stat("gap_moves", s.gap_moves);
                  c.stat("edge_moves", s.edge_moves);
                  c.stat("edges_split", s.edges_split);
                  c.stat("remats", s.remats);
                  c.stat("dead_stores", s.dead_stores);
                  absl::StrAppend(&c.state.lsra_printed, s.printed);
                  c.state.lsra = nullptr;
                  return absl::OkStatus();
                }};
  resolve.options = {PhaseOption::Bool("remat", LsraResolveOptions().remat,
                                       "a constant's reload is the constant made again (its twin outside its block), its unread store goes")};
  r.Register(std::move(resolve));
  r.SetConflicts("lsra_resolve", {"locations"});
  auto lsra = [&](const std::string& name, const std::string& build, const std::string& allocate,
                  const std::string& resolve = "lsra_resolve") {
    r.RegisterPipeline(name, {"legalize", "liveness", build, allocate, resolve, "check", "interpret"});
  };
  lsra("lsra", "lsra_build", "lsra_allocate");
  // Each enhancement off, and RyuJIT-style stress modes (run by the fuzz test):
  // names for option sets.
  lsra("lsra_nopref", "lsra_build", "lsra_allocate{preference=false}");
  lsra("lsra_nooverlap", "lsra_build", "lsra_allocate{overlap=false}");
  lsra("lsra_noscoring", "lsra_build", "lsra_allocate{scoring=false}");
  lsra("lsra_noseed", "lsra_build", "lsra_allocate{seed_blocks=false}");
  lsra("lsra_second_chance", "lsra_build", "lsra_allocate{second_chance=true}");
  lsra("lsra_evict_in_place", "lsra_build", "lsra_allocate{spill_before_loops=false}");
  lsra("lsra_local_split", "lsra_build", "lsra_allocate{local_split=true}");
  lsra("lsra_split_first", "lsra_build", "lsra_allocate{evict_over_split=false}");
  lsra("lsra_noremat", "lsra_build{remat=false}", "lsra_allocate", "lsra_resolve{remat=false}");
  lsra("lsra_stress_callee_saved", "lsra_build", "lsra_allocate{registers=callee_saved}");
  lsra("lsra_stress_caller_saved", "lsra_build", "lsra_allocate{registers=caller_saved}");
  lsra("lsra_stress_nearest", "lsra_build", "lsra_allocate{spill_nearest=true}");
  lsra("lsra_stress_reversed", "lsra_build{reverse_order=true}", "lsra_allocate");
}

}  // namespace

struct ChaitinPipelineState {
  ChaitinAllocator allocator;  // its two steps run as chaitin_coalesce and chaitin_color
};

namespace {

void ReportChaitin(PhaseContext& c, const ChaitinStats& s, bool coloring) {
  if (!coloring) {
    c.stat("live_ranges", s.live_ranges);
    c.stat("edges", s.edges);
    c.stat("constraint_copies", s.constraint_copies);
    c.stat("aggressive", s.aggressive);
    c.stat("remat_args", s.remat_args);
    return;
  }
  c.stat("rounds", s.rounds);
  c.stat("conservative", s.conservative);
  c.stat("spilled", s.spilled);
  c.stat("spills", s.spills);
  c.stat("reloads", s.reloads);
  c.stat("remats", s.remats);
  c.stat("elided", s.elided);
  c.stat("loop_reloads", s.loop_reloads);
  c.stat("split_params", s.split_params);
  c.stat("split_carried", s.split_carried);
  c.stat("split_dropped", s.split_dropped);
  c.stat("dead_stores", s.dead_stores);
  c.stat("edge_moves", s.lower.moves);
}

// The Chaitin–Briggs allocator (issue 20): one object, whole or in two steps.
void RegisterChaitinPhases(PhaseRegistry& r) {
  ChaitinOptions d;
  const PhaseOption aggressive =
      PhaseOption::Bool("aggressive", d.aggressive, "C2's aggressive coalescing of block parameters and arguments");
  const std::vector<PhaseOption> coloring = {
      PhaseOption::Bool("conservative", d.conservative, "Briggs's conservative coalescing of copies (George's for fixed registers)"),
      PhaseOption::Bool("optimistic", d.optimistic,
                        "Briggs's optimistic simplify (off: Chaitin's, spilling a blocked live range at once)"),
      PhaseOption::Bool("bias", d.bias,
                        "biased coloring: a live range takes a copy partner's register where it is free (off: the "
                        "first free register)"),
      PhaseOption::Bool("split", d.split,
                        "C2's splitting at high-pressure boundaries and around low-pressure loops (off: Chaitin's "
                        "spill everywhere)"),
      PhaseOption::Bool("joins", d.joins,
                        "with split: pieces live on across block boundaries where both sides are low-pressure, "
                        "meeting at joins in new block parameters (off: a piece stays in its block, and one reload "
                        "before a low-pressure loop serves it)"),
  };
  auto set_coloring = [](const PhaseArgs& a, ChaitinOptions& o) {
    o.conservative = a.Flag("conservative");
    o.optimistic = a.Flag("optimistic");
    o.bias = a.Flag("bias");
    o.split = a.Flag("split");
    o.joins = a.Flag("joins");
  };
  Phase whole{"chaitin_allocate",
              "Chaitin-Briggs after HotSpot C2, the whole allocator as one object (chaitin/)",
              {"legal"}, {"locations", "lowered"}, {"liveness"},
              [set_coloring](PhaseContext& c) -> absl::Status {
                ChaitinOptions o;
                o.aggressive = c.args.Flag("aggressive");
                set_coloring(c.args, o);
                o.dump = c.dumps;
                ChaitinAllocator allocator(o);
                RA_ASSIGN_OR_RETURN(ChaitinStats s, allocator.Run(c.state.function, c.target));
                ReportChaitin(c, s, false);
                ReportChaitin(c, s, true);
                if (c.dumps) c.state.lsra_printed = std::move(s.printed);
                return absl::OkStatus();
              }};
  whole.options = coloring;
  whole.options.insert(whole.options.begin(), aggressive);
  r.Register(std::move(whole));
  r.SetConflicts("chaitin_allocate", {"locations"});
  Phase coalesce{"chaitin_coalesce",
                 "Chaitin-Briggs, first step: constraints as copies, live ranges, the graph, aggressive coalescing (chaitin/)",
                 {"legal"}, {"chaitin_graph"}, {"liveness"},
                 [](PhaseContext& c) -> absl::Status {
                   auto state = std::make_shared<ChaitinPipelineState>();
                   state->allocator.options().aggressive = c.args.Flag("aggressive");
                   state->allocator.options().dump = c.dumps;
                   RA_ASSIGN_OR_RETURN(ChaitinStats s, state->allocator.Coalesce(c.state.function, c.target));
                   ReportChaitin(c, s, false);
                   c.state.chaitin = std::move(state);
                   return absl::OkStatus();
                 }};
  coalesce.options = {aggressive};
  r.Register(std::move(coalesce));
  r.SetConflicts("chaitin_coalesce", {"locations"});
  Phase color{"chaitin_color",
              "Chaitin-Briggs, the rest: conservative coalescing, simplify/select, spill rounds, locations (chaitin/)",
              {"chaitin_graph"}, {"locations", "lowered"}, {"liveness"},
              [set_coloring](PhaseContext& c) -> absl::Status {
                if (c.state.chaitin == nullptr) {
                  return absl::FailedPreconditionError(
                      "chaitin_color needs chaitin_coalesce's graph from this run (it is not stored in dumps): run "
                      "chaitin_coalesce first");
                }
                set_coloring(c.args, c.state.chaitin->allocator.options());
                absl::StatusOr<ChaitinStats> s = c.state.chaitin->allocator.Color(c.state.function, c.target);
                std::shared_ptr<ChaitinPipelineState> done = std::move(c.state.chaitin);
                if (!s.ok()) return s.status();
                ReportChaitin(c, *s, true);
                if (c.dumps) c.state.lsra_printed = std::move(s->printed);
                return absl::OkStatus();
              }};
  color.options = coloring;
  r.Register(std::move(color));
  r.SetConflicts("chaitin_color", {"locations"});
  auto chaitin = [&](const std::string& name, const std::string& coalesce, const std::string& color) {
    r.RegisterPipeline(name, {"legalize", coalesce, color, "check", "interpret"});
  };
  chaitin("chaitin", "chaitin_coalesce", "chaitin_color");
  chaitin("chaitin_noaggressive", "chaitin_coalesce{aggressive=false}", "chaitin_color");
  chaitin("chaitin_noconservative", "chaitin_coalesce", "chaitin_color{conservative=false}");
  chaitin("chaitin_pessimistic", "chaitin_coalesce", "chaitin_color{optimistic=false}");
  chaitin("chaitin_spill_everywhere", "chaitin_coalesce", "chaitin_color{split=false}");
  chaitin("chaitin_nojoins", "chaitin_coalesce", "chaitin_color{joins=false}");
  // The same allocator as one object: what a compiler reusing the toolkit calls.
  r.RegisterPipeline("chaitin_allocate", {"legalize", "chaitin_allocate", "check", "interpret"});
}

}  // namespace

struct PackingPipelineState {
  PackingAllocator allocator;  // its three steps run as packing_allocations, packing_pack, packing_transform
};

namespace {

void ReportPacking(PhaseContext& c, const PackingStats& s, int step) {
  if (step == 0) {
    c.stat("items", s.items);
    c.stat("timespans", s.timespans);
    c.stat("allocations", s.allocations);
    c.stat("scratch", s.scratch);
    c.stat("loop_entries_split", s.loop_entries_split);
  } else if (step == 1) {
    c.stat("packed", s.packed);
    c.stat("registers", s.registers);
    c.stat("promoted", s.promoted);
    c.stat("yield_lost", s.yield_lost);
  } else {
    c.stat("inits", s.transform.inits);
    c.stat("spills", s.transform.spills);
    c.stat("reloads", s.transform.reloads);
    c.stat("remats", s.transform.remats);
    c.stat("moves", s.transform.moves);
    c.stat("edge_moves", s.transform.lower.moves);
  }
}

// The packing allocator (issue 21): one object, whole or in three steps.
void RegisterPackingPhases(PhaseRegistry& r) {
  const std::vector<PhaseOption> analysis = {
      PhaseOption::Choice("goal", {"time", "size"},
                          "the ACK's two profit models: loop-weighted time (loops packed first) or static size"),
      PhaseOption::Bool("loops", true, "loop timespans besides the whole function"),
  };
  const PhaseOption yield = PhaseOption::Bool("yield", true, "the callee-save yield check");
  auto set_analysis = [](const PhaseArgs& a, PackingOptions& o) {
    o.goal = a.Get("goal") == "size" ? PackingGoal::kSize : PackingGoal::kTime;
    o.loops = a.Flag("loops");
  };
  Phase whole{"packing_allocate",
              "the ACK global optimizer's packing allocator, whole, as one object (packing/)",
              {"legal"}, {"locations", "lowered"}, {"liveness"},
              [set_analysis](PhaseContext& c) -> absl::Status {
                PackingOptions o;
                set_analysis(c.args, o);
                o.yield = c.args.Flag("yield");
                o.dump = c.dumps;
                PackingAllocator allocator(o);
                RA_ASSIGN_OR_RETURN(PackingStats s, allocator.Run(c.state.function, c.target));
                for (int step = 0; step < 3; ++step) ReportPacking(c, s, step);
                if (c.dumps) c.state.lsra_printed = std::move(s.printed);
                return absl::OkStatus();
              }};
  whole.options = analysis;
  whole.options.push_back(yield);
  r.Register(std::move(whole));
  r.SetConflicts("packing_allocate", {"locations"});
  Phase allocations{"packing_allocations",
                    "packing, first step: items, timespans, allocations with busy ranges, rivals and profits (packing/)",
                    {"legal"}, {"packing_allocations"}, {"liveness"},
                    [set_analysis](PhaseContext& c) -> absl::Status {
                      auto state = std::make_shared<PackingPipelineState>();
                      set_analysis(c.args, state->allocator.options());
                      state->allocator.options().dump = c.dumps;
                      RA_ASSIGN_OR_RETURN(PackingStats s, state->allocator.Allocations(c.state.function, c.target));
                      ReportPacking(c, s, 0);
                      if (c.dumps) c.state.lsra_printed = s.printed;
                      c.state.packing = std::move(state);
                      return absl::OkStatus();
                    }};
  allocations.options = analysis;
  r.Register(std::move(allocations));
  r.SetConflicts("packing_allocations", {"locations"});
  auto missing = [](const char* phase) {
    return absl::FailedPreconditionError(absl::StrCat(
        phase, " needs packing_allocations's list from this run (it is not stored in dumps): run packing_allocations first"));
  };
  Phase pack{"packing_pack", "packing, second step: registers for allocations by the goal's order, the yield check (packing/)",
             {"packing_allocations"}, {"packing_decisions"}, {},
             [missing](PhaseContext& c) -> absl::Status {
               if (c.state.packing == nullptr) return missing("packing_pack");
               PackingAllocator& a = c.state.packing->allocator;
               a.options().yield = c.args.Flag("yield");
               RA_ASSIGN_OR_RETURN(PackingStats s, a.Pack(c.state.function, c.target));
               ReportPacking(c, s, 1);
               if (c.dumps) c.state.lsra_printed = s.printed;
               return absl::OkStatus();
             }};
  pack.options = {yield};
  r.Register(std::move(pack));
  r.SetConflicts("packing_pack", {"locations"});
  Phase transform{"packing_transform",
                  "packing, last step: initializations, locations, stores, scratch reloads, moves; parameters lowered (packing/)",
                  {"packing_decisions"}, {"locations", "lowered"}, {"liveness"},
                  [missing](PhaseContext& c) -> absl::Status {
                    if (c.state.packing == nullptr) return missing("packing_transform");
                    std::shared_ptr<PackingPipelineState> done = std::move(c.state.packing);
                    RA_ASSIGN_OR_RETURN(PackingStats s, done->allocator.Transform(c.state.function, c.target));
                    ReportPacking(c, s, 2);
                    return absl::OkStatus();
                  }};
  r.Register(std::move(transform));
  r.SetConflicts("packing_transform", {"locations"});
  auto packing = [&](const std::string& name, const std::string& allocations, const std::string& pack) {
    r.RegisterPipeline(name, {"legalize", allocations, pack, "packing_transform", "check", "interpret"});
  };
  packing("packing", "packing_allocations", "packing_pack");
  packing("packing_size", "packing_allocations{goal=size}", "packing_pack");
  packing("packing_noloops", "packing_allocations{loops=false}", "packing_pack");
  packing("packing_noyield", "packing_allocations", "packing_pack{yield=false}");
  // The same allocator as one object: what a compiler reusing the toolkit calls.
  r.RegisterPipeline("packing_allocate", {"legalize", "packing_allocate", "check", "interpret"});
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
    RegisterChaitinPhases(*r);
    RegisterPackingPhases(*r);
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

PhaseOption PhaseOption::Bool(std::string name, bool default_value, std::string description) {
  return PhaseOption{std::move(name), std::move(description), {"true", "false"}, default_value ? "true" : "false"};
}

PhaseOption PhaseOption::Choice(std::string name, std::vector<std::string> values, std::string description) {
  std::string first = values.front();
  return PhaseOption{std::move(name), std::move(description), std::move(values), std::move(first)};
}

const std::string& PhaseArgs::Get(const std::string& name) const {
  static const std::string* none = new std::string();
  auto it = values_.find(name);
  return it == values_.end() ? *none : it->second;
}

std::vector<std::string> SplitPhaseList(const std::vector<std::string>& pieces) {
  std::vector<std::string> out;
  int depth = 0;
  for (const std::string& list : pieces) {
    size_t start = 0;
    for (size_t i = 0; i <= list.size(); ++i) {
      if (i < list.size() && list[i] == '{') ++depth;
      if (i < list.size() && list[i] == '}') --depth;
      if (i < list.size() && (list[i] != ',' || depth > 0)) continue;
      std::string piece = list.substr(start, i - start);
      start = i + 1;
      // Inside braces a comma separates options: join with the previous piece.
      bool open = !out.empty() && std::count(out.back().begin(), out.back().end(), '{') >
                                      std::count(out.back().begin(), out.back().end(), '}');
      if (open) {
        absl::StrAppend(&out.back(), ",", piece);
      } else {
        out.push_back(std::move(piece));
      }
    }
    if (depth > 0) depth = 0;  // an unclosed brace: Parse says so
  }
  return out;
}

absl::StatusOr<PhaseCall> PhaseRegistry::Parse(const std::string& text) const {
  size_t brace = text.find('{');
  std::string name = text.substr(0, brace);
  PhaseCall call;
  call.phase = Find(name);
  if (call.phase == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown phase '", name, "'; available phases: ", absl::StrJoin(Names(), ", ")));
  }
  for (const PhaseOption& o : call.phase->options) call.args.Set(o.name, o.default_value);
  std::vector<std::string> written;
  if (brace != std::string::npos) {
    if (text.back() != '}' || text.find('{', brace + 1) != std::string::npos ||
        text.find('}') != text.size() - 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("phase '", text, "': options go in one pair of braces at the end: ", name, "{option=value,...}"));
    }
    std::string inside = text.substr(brace + 1, text.size() - brace - 2);
    for (absl::string_view item : absl::StrSplit(inside, absl::ByAnyChar(", \t"), absl::SkipEmpty())) {
      std::vector<std::string> kv = absl::StrSplit(item, absl::MaxSplits('=', 1));
      const PhaseOption* option = nullptr;
      for (const PhaseOption& o : call.phase->options) {
        if (o.name == kv[0]) option = &o;
      }
      if (option == nullptr) {
        std::vector<std::string> known;
        for (const PhaseOption& o : call.phase->options) known.push_back(o.name);
        return absl::InvalidArgumentError(absl::StrCat(
            "phase '", name, "' has no option '", kv[0], "'",
            known.empty() ? std::string(" (it takes none)") : absl::StrCat("; its options: ", absl::StrJoin(known, ", "))));
      }
      // `name{flag}` sets a switch.
      std::string value = kv.size() == 2 ? kv[1] : (option->values.front() == "true" ? "true" : "");
      if (std::find(option->values.begin(), option->values.end(), value) == option->values.end()) {
        return absl::InvalidArgumentError(absl::StrCat("phase '", name, "': option ", option->name, " takes ",
                                                       absl::StrJoin(option->values, " or "), ", not '", value, "'"));
      }
      call.args.Set(option->name, value);
      written.push_back(absl::StrCat(option->name, "=", value));
    }
  }
  call.text = written.empty() ? name : absl::StrCat(name, "{", absl::StrJoin(written, ","), "}");
  return call;
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

absl::StatusOr<std::vector<PhaseCall>> PhaseRegistry::Resolve(const std::vector<std::string>& names,
                                                              const std::set<std::string>& initial) const {
  if (names.empty()) return absl::InvalidArgumentError("no phases given");
  std::vector<PhaseCall> out;
  std::set<std::string> have = initial;
  for (const std::string& text : names) {
    RA_ASSIGN_OR_RETURN(PhaseCall call, Parse(text));
    const Phase* p = call.phase;
    const std::string& name = p->name;
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
    out.push_back(std::move(call));
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
    if (const Phase* p = registry.Find(name.substr(0, name.find('{')))) {
      for (const std::string& gone : p->invalidates) have.erase(gone);
      for (const std::string& made : p->produces) have.insert(made);
    }
  }
  return have;
}

}  // namespace regalloc
