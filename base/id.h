// Strong integer ids. `Value`, `Block`, `Inst`, `PReg`, `StackSlot` are distinct
// types over a dense uint32 index, so per-entity data lives in flat vectors indexed
// by `id.index()` and one kind of id cannot be passed where another is expected.
//
//   struct ValueTag {};
//   using Value = Id<ValueTag>;
//   std::vector<Type> types(n);  types[v.index()] = Type::kI64;
#ifndef REGALLOC_BASE_ID_H_
#define REGALLOC_BASE_ID_H_

#include <cstdint>
#include <functional>
#include <limits>

namespace regalloc {

template <typename Tag>
class Id {
 public:
  static constexpr uint32_t kInvalidIndex = std::numeric_limits<uint32_t>::max();

  // The default id is invalid; `IsValid()` tells.
  constexpr Id() : index_(kInvalidIndex) {}
  constexpr explicit Id(uint32_t index) : index_(index) {}

  constexpr uint32_t index() const { return index_; }
  constexpr bool IsValid() const { return index_ != kInvalidIndex; }

  friend constexpr bool operator==(Id a, Id b) { return a.index_ == b.index_; }
  friend constexpr bool operator!=(Id a, Id b) { return a.index_ != b.index_; }
  friend constexpr bool operator<(Id a, Id b) { return a.index_ < b.index_; }
  friend constexpr bool operator>(Id a, Id b) { return a.index_ > b.index_; }
  friend constexpr bool operator<=(Id a, Id b) { return a.index_ <= b.index_; }
  friend constexpr bool operator>=(Id a, Id b) { return a.index_ >= b.index_; }

  template <typename H>
  friend H AbslHashValue(H h, Id id) {
    return H::combine(std::move(h), id.index_);
  }

 private:
  uint32_t index_;
};

}  // namespace regalloc

template <typename Tag>
struct std::hash<regalloc::Id<Tag>> {
  size_t operator()(regalloc::Id<Tag> id) const { return std::hash<uint32_t>()(id.index()); }
};

#endif  // REGALLOC_BASE_ID_H_
