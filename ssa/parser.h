// The text format's parser (see ssa/printer.h for the canonical form).
//
//   absl::StatusOr<std::vector<Function>> funcs = ParseModule(text, target);
//
// Registers are named through the target (`%rax`, `%s1`), so the same text parses
// for every target whose register names it uses. Errors are InvalidArgument with a
// message that starts `line:col:` and says what was expected and what was found:
//   "4:15: expected ',' or end of line after operand, found 'v3'"
//   "7:5: value v9 is used but never defined"
// The parser checks syntax, names (values, blocks, registers, stack slots, opcodes)
// and single definition; types and dominance are the verifier's (ssa/verifier.h).
// Comments run from ';' to the end of the line.
#ifndef REGALLOC_SSA_PARSER_H_
#define REGALLOC_SSA_PARSER_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ssa/ir.h"
#include "targets/target.h"

namespace regalloc {

// Parses any number of functions.
absl::StatusOr<std::vector<Function>> ParseModule(absl::string_view text, const Target& target);
// Parses exactly one function.
absl::StatusOr<Function> ParseFunction(absl::string_view text, const Target& target);

}  // namespace regalloc

#endif  // REGALLOC_SSA_PARSER_H_
