// Reinterprets the bits of one trivially copyable type as another of the same size
// (C++20's std::bit_cast, for C++17): float immediates are stored as integer bits.
//
//   double d = BitCast<double>(uint64_t{0x3ff0000000000000});   // 1.0
#ifndef REGALLOC_BASE_BIT_CAST_H_
#define REGALLOC_BASE_BIT_CAST_H_

#include <cstring>
#include <type_traits>

namespace regalloc {

template <typename To, typename From>
To BitCast(const From& from) {
  static_assert(sizeof(To) == sizeof(From), "BitCast needs types of one size");
  static_assert(std::is_trivially_copyable_v<To> && std::is_trivially_copyable_v<From>, "BitCast needs plain data");
  To to;
  std::memcpy(&to, &from, sizeof to);
  return to;
}

}  // namespace regalloc

#endif  // REGALLOC_BASE_BIT_CAST_H_
