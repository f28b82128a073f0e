// Any text: the parser returns a function or an error, never crashes; what parses
// prints canonically and re-parses to the same text; the verifier is total.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "ssa/parser.h"
#include "ssa/printer.h"
#include "ssa/verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // The first byte picks the target, so every register file's names get exercised.
  const char* names[] = {"x86_64", "aarch64", "armv7"};
  const regalloc::Target& t = *regalloc::TargetByName(names[data[0] % 3]).value();
  std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  absl::StatusOr<std::vector<regalloc::Function>> funcs = regalloc::ParseModule(text, t);
  if (!funcs.ok()) return 0;
  std::string printed = regalloc::PrintModule(*funcs, t);
  absl::StatusOr<std::vector<regalloc::Function>> again = regalloc::ParseModule(printed, t);
  if (!again.ok() || regalloc::PrintModule(*again, t) != printed) std::abort();
  for (const regalloc::Function& f : *funcs) (void)regalloc::Verify(f, t);
  return 0;
}
