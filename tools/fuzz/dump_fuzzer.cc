// Any bytes: the dump loader returns dumps or an error, never crashes; what loads
// prints.
#include <cstdint>
#include <string>

#include "ssa/printer.h"
#include "tools/dump.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<regalloc::LoadedDump> loaded = regalloc::ParseDump(bytes, "fuzz");
  if (!loaded.ok()) return 0;
  for (const regalloc::DumpedFunction& d : loaded->functions) {
    (void)regalloc::PrintFunction(d.function, *loaded->target);
  }
  return 0;
}
