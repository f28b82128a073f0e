// The text format's printer. Canonical output, which the parser reads back to an
// identical function: `print(parse(text)) == text` for canonical text.
//
//   function %sum(i64, i64) -> i64 {
//   block0(v0@%rdi: i64, v1@%rsi: i64):
//       v2@reuse0 = add v0, v1@any
//       ret v2@%rax
//   }
//
// Constraints print only where they differ from the default (`Reg`), positions only
// where they differ from the operand kind's default (Early uses, Late defs), and
// locations as `[%rbx]` / `[ss2]` once assigned.
#ifndef REGALLOC_SSA_PRINTER_H_
#define REGALLOC_SSA_PRINTER_H_

#include <string>

#include "absl/types/span.h"
#include "ssa/ir.h"
#include "targets/target.h"

namespace regalloc {

std::string PrintFunction(const Function& func, const Target& target);
// Functions separated by one blank line.
std::string PrintModule(absl::Span<const Function> funcs, const Target& target);
// One instruction without indentation or newline: "v2 = add v0, v1".
std::string PrintInst(const Function& func, Inst inst, const Target& target);
// An operand, its value and stack slot named as `func` names them.
std::string PrintOperand(const Function& func, const Operand& op, const Target& target);
// "%rax", "ss3", or "none".
std::string PrintLocation(const Function& func, Location loc, const Target& target);
// The same with ids for names (for an operand or location outside a function).
std::string PrintOperand(const Operand& op, const Target& target);
std::string PrintLocation(Location loc, const Target& target);
// The text of a const's immediate: a signed decimal for integer types, the
// shortest round-tripping decimal for floats.
std::string PrintImmediate(Type type, int64_t bits);

}  // namespace regalloc

#endif  // REGALLOC_SSA_PRINTER_H_
