#include "targets/type.h"

namespace regalloc {

absl::string_view TypeName(Type type) {
  switch (type) {
    case Type::kI32: return "i32";
    case Type::kI64: return "i64";
    case Type::kF32: return "f32";
    case Type::kF64: return "f64";
    case Type::kV128: return "v128";
    case Type::kI8: return "i8";
    case Type::kF80: return "f80";
  }
  return "?";
}

std::optional<Type> ParseType(absl::string_view name) {
  for (int i = 0; i < kNumTypes; ++i) {
    Type t = static_cast<Type>(i);
    if (TypeName(t) == name) return t;
  }
  return std::nullopt;
}

int TypeSize(Type t) {
  switch (t) {
    case Type::kI8: return 1;
    case Type::kI32: case Type::kF32: return 4;
    case Type::kI64: case Type::kF64: return 8;
    case Type::kV128: case Type::kF80: return 16;
  }
  return 8;
}

}  // namespace regalloc
