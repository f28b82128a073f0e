// The pipeline driver behind `bazel run //tools:pipeline`: reads functions (a .ra
// text file, a dump, or the embedded corpus), runs a list of phases on each,
// prints a table (instructions, blocks, values, time per phase), and writes the
// result and dumps as asked.
//
//   PipelineOptions opts;
//   opts.phases = {"legalize", "verify"};
//   absl::StatusOr<PipelineSummary> s = RunPipeline(opts, std::cout, std::cerr);
#ifndef REGALLOC_TOOLS_PIPELINE_H_
#define REGALLOC_TOOLS_PIPELINE_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace regalloc {

// What runs when neither --phases nor --pipeline is given.
inline constexpr char kDefaultPipeline[] = "ssa";

struct PipelineOptions {
  std::string target;                // empty: x86_64, or the dump's target
  bool frame_pointer = false;
  std::vector<std::string> phases;   // explicit phase list, or
  std::string pipeline;              // a named one; both empty: kDefaultPipeline
  std::string in;                    // .ra text or a dump; empty: the embedded corpus
  int generate = 0;                  // > 0: run on this many generated functions
  uint64_t seed = 1;                 //   seeds seed, seed+1, ...
  int size = 200;                    //   of about this many instructions
  int byte_percent = 0;              //   with this share of integer values i8
  int unusual_percent = 0;           //   and this share of unusual shapes (GeneratorOptions)
  std::string out;                   // .ra text or a dump; empty: none
  std::string dump_after;            // phase after which to write a dump
  std::string dump_dir;
  bool print = false;                // print every function after the last phase
  bool stats = false;                // print per-phase statistics
  bool check = true;                 // run `check` after the last allocating phase
  bool progress = true;              // progress bar when stderr is a terminal
  std::string html;                  // write pictures of every allocation to this page (tools/html.h)
  std::vector<std::string> compare;  // run each of these pipelines in turn (their charts side by side with --html)
};

struct PipelineSummary {
  int functions = 0;
  int failed = 0;
};

// Configuration errors (unknown target, phase or pipeline, missing inputs, bad
// files) are returned; a phase failing on one function is reported on `err`,
// counted in `failed`, and the other functions still run.
absl::StatusOr<PipelineSummary> RunPipeline(const PipelineOptions& options, std::ostream& out, std::ostream& err);

}  // namespace regalloc

#endif  // REGALLOC_TOOLS_PIPELINE_H_
