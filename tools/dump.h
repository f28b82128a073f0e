// Converters between proto dumps (tools/dump.proto) and the in-memory IR, and the
// dump files themselves.
//
//   DumpedFunction d{func, {"legalize", "verify"}, stats};
//   RA_RETURN_IF_ERROR(WriteDumpFile(path, target, {d}));
//   absl::StatusOr<LoadedDump> loaded = ReadDumpFile(path);
//
// Loading checks everything before building: the schema version, that the bytes
// parse, that every id (value, block, register, stack slot, callee, clobber set,
// opcode, type) is in range, and finally that the function passes the verifier.
// Errors are InvalidArgument naming the file and the function.
#ifndef REGALLOC_TOOLS_DUMP_H_
#define REGALLOC_TOOLS_DUMP_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ssa/ir.h"
#include "targets/target.h"
#include "tools/dump.pb.h"

namespace regalloc {

// Version 1: the IR, phases run, statistics, value locations.
inline constexpr uint32_t kDumpSchemaVersion = 1;
// The last field of every dump file ("RAD1").
inline constexpr uint32_t kDumpEndMarker = 0x31444152;

struct PhaseStat {
  std::string phase;
  std::string name;
  int64_t value = 0;
};

// What the `liveness` phase computed, as plain data (empty when it did not run).
struct LivenessRecord {
  std::vector<std::vector<uint32_t>> live_in;   // value ids, by block id
  std::vector<std::vector<uint32_t>> live_out;
  struct Range {
    uint32_t value = 0;
    uint32_t def_begin = 0;
    uint32_t def_end = 0;
    std::vector<uint32_t> live_in_bounds;  // begin, end, begin, end, ...
  };
  std::vector<Range> ranges;
  std::string printed;  // the --print text; not stored in dumps
  bool empty() const { return live_in.empty(); }
};

// The linear-scan allocator's intervals and allocation between its phases, kept
// in memory only (tools/phases.cc).
struct LsraPipelineState;
struct ChaitinPipelineState;
struct PackingPipelineState;

// One function with what the pipeline knows about it.
struct DumpedFunction {
  DumpedFunction() = default;
  explicit DumpedFunction(Function f, std::vector<std::string> phases = {}, std::vector<PhaseStat> stat_list = {},
                          std::vector<Location> locations = {})
      : function(std::move(f)),
        phases_run(std::move(phases)),
        stats(std::move(stat_list)),
        value_locations(std::move(locations)) {}

  Function function;
  std::vector<std::string> phases_run;
  std::vector<PhaseStat> stats;
  // A location per value id, or empty when no phase computed one.
  std::vector<Location> value_locations;
  LivenessRecord liveness;
  // CSSA virtual registers (value ids, two or more each), or empty.
  std::vector<std::vector<uint32_t>> virtual_registers;
  // The --print text of the linear-scan allocator's phases; not stored in dumps.
  std::string lsra_printed;
  // lsra_build's and lsra_allocate's results for the next lsra phase; not stored
  // in dumps (a run resumed from one starts again at lsra_build).
  std::shared_ptr<LsraPipelineState> lsra;
  // The Chaitin allocator between chaitin_coalesce and chaitin_color (in memory
  // only, like `lsra`).
  std::shared_ptr<ChaitinPipelineState> chaitin;
  // The packing allocator between its three phases (in memory only).
  std::shared_ptr<PackingPipelineState> packing;
};

struct LoadedDump {
  const Target* target = nullptr;
  std::vector<DumpedFunction> functions;
};

dump::Function FunctionToProto(const Function& func);
// Builds a function from its proto, checking every id; does not run the verifier.
absl::StatusOr<Function> FunctionFromProto(const dump::Function& proto, const Target& target);

dump::DumpFile ToDumpFile(const Target& target, const TargetOptions& options,
                          const std::vector<DumpedFunction>& funcs);
absl::StatusOr<LoadedDump> FromDumpFile(const dump::DumpFile& file);

// Serialized bytes <-> dumps. `source` names the bytes in error messages.
std::string SerializeDump(const dump::DumpFile& file);
absl::StatusOr<LoadedDump> ParseDump(absl::string_view bytes, absl::string_view source);

absl::Status WriteDumpFile(const std::string& path, const Target& target, const TargetOptions& options,
                           const std::vector<DumpedFunction>& funcs);
absl::StatusOr<LoadedDump> ReadDumpFile(const std::string& path);

}  // namespace regalloc

#endif  // REGALLOC_TOOLS_DUMP_H_
