// Status propagation macros. Debian's abseil (20220623) ships no public
// ABSL_RETURN_IF_ERROR / ASSIGN_OR_RETURN, so the project defines them once, here.
//
//   RA_RETURN_IF_ERROR(Verify(func));
//   RA_ASSIGN_OR_RETURN(Function f, ParseFunction(text));
#ifndef REGALLOC_BASE_STATUS_MACROS_H_
#define REGALLOC_BASE_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define RA_STATUS_CONCAT_INNER_(a, b) a##b
#define RA_STATUS_CONCAT_(a, b) RA_STATUS_CONCAT_INNER_(a, b)

// Returns from the enclosing function when `expr` (an absl::Status) is not OK.
#define RA_RETURN_IF_ERROR(expr)                          \
  do {                                                    \
    ::absl::Status ra_status_ = (expr);                   \
    if (!ra_status_.ok()) return ra_status_;              \
  } while (0)

// Evaluates `rexpr` (an absl::StatusOr<T>); on error returns its status, otherwise
// moves the value into `lhs` (which may be a declaration). Expands to several
// statements: use braces around it in an `if`.
#define RA_ASSIGN_OR_RETURN(lhs, rexpr) \
  RA_ASSIGN_OR_RETURN_IMPL_(RA_STATUS_CONCAT_(ra_statusor_, __LINE__), lhs, rexpr)

#define RA_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                              \
  if (!statusor.ok()) return statusor.status();         \
  lhs = std::move(statusor).value()

#endif  // REGALLOC_BASE_STATUS_MACROS_H_
