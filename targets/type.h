// Value types of the IR. They live with the targets because a target maps each
// type to a register class (or rejects it: ARMv7 has no i64 registers).
#ifndef REGALLOC_TARGETS_TYPE_H_
#define REGALLOC_TARGETS_TYPE_H_

#include <cstdint>
#include <optional>
#include "absl/strings/string_view.h"

namespace regalloc {

enum class Type : uint8_t {
  kI32,
  kI64,
  kF32,
  kF64,
  kV128,
  kI8,   // after the first five, so that the numbers dumps store for them stay put
  kF80,  // x87 extended precision (x86-64 long double), kept in 16 bytes: moved,
         // loaded, stored and passed, read and written by opaque instructions only
};
inline constexpr int kNumTypes = 7;

// "i32", "i64", "f32", "f64", "v128", "i8", "f80".
absl::string_view TypeName(Type type);
// Inverse of TypeName; nullopt for anything else.
std::optional<Type> ParseType(absl::string_view name);

inline bool IsInteger(Type t) { return t == Type::kI8 || t == Type::kI32 || t == Type::kI64; }
inline bool IsFloat(Type t) { return t == Type::kF32 || t == Type::kF64; }
// Size in bytes of a value of this type (and of its stack slot).
int TypeSize(Type t);

}  // namespace regalloc

#endif  // REGALLOC_TARGETS_TYPE_H_
