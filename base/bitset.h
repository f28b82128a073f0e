// A fixed-capacity bit set of 256 bits: the representation of register sets and
// register-unit sets. Every target fits (x86-64 has 84 named registers, AArch64 194,
// ARMv7 96), and a fixed size keeps sets trivially copyable, allocation-free and
// fast: union, intersection and iteration are four word operations.
//
//   BitSet256 s;  s.Set(3);  s |= other;
//   for (uint32_t i : s) { ... }   // ascending order
#ifndef REGALLOC_BASE_BITSET_H_
#define REGALLOC_BASE_BITSET_H_

#include <array>
#include <cstdint>
#include <utility>

namespace regalloc {

class BitSet256 {
 public:
  // Inline where the build targets no POPCNT instruction (__builtin_popcountll
  // then calls libgcc, which profiles showed at 2% of the ssa allocator).
  static int PopCount(uint64_t x) {
#if defined(__POPCNT__) || !defined(__x86_64__)
    return __builtin_popcountll(x);
#else
    if (x == 0) return 0;
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return static_cast<int>((x * 0x0101010101010101ULL) >> 56);
#endif
  }

  static constexpr uint32_t kCapacity = 256;

  constexpr BitSet256() : words_{} {}

  // Precondition for Set/Reset/Test: i < kCapacity (callers pass dense target ids).
  void Set(uint32_t i) { words_[i >> 6] |= uint64_t{1} << (i & 63); }
  void Reset(uint32_t i) { words_[i >> 6] &= ~(uint64_t{1} << (i & 63)); }
  bool Test(uint32_t i) const { return (words_[i >> 6] >> (i & 63)) & 1; }

  bool Empty() const { return (words_[0] | words_[1] | words_[2] | words_[3]) == 0; }
  int Count() const {
    int n = 0;
    for (uint64_t w : words_) n += PopCount(w);
    return n;
  }
  bool Intersects(const BitSet256& o) const {
    return ((words_[0] & o.words_[0]) | (words_[1] & o.words_[1]) |
            (words_[2] & o.words_[2]) | (words_[3] & o.words_[3])) != 0;
  }
  bool Contains(const BitSet256& o) const {
    for (int i = 0; i < 4; ++i) {
      if ((o.words_[i] & ~words_[i]) != 0) return false;
    }
    return true;
  }
  // Index of the lowest set bit, or kCapacity when empty.
  uint32_t First() const {
    for (int i = 0; i < 4; ++i) {
      if (words_[i] != 0) return i * 64 + __builtin_ctzll(words_[i]);
    }
    return kCapacity;
  }

  BitSet256& operator|=(const BitSet256& o) {
    for (int i = 0; i < 4; ++i) words_[i] |= o.words_[i];
    return *this;
  }
  BitSet256& operator&=(const BitSet256& o) {
    for (int i = 0; i < 4; ++i) words_[i] &= o.words_[i];
    return *this;
  }
  // Removes every bit of `o`.
  BitSet256& Subtract(const BitSet256& o) {
    for (int i = 0; i < 4; ++i) words_[i] &= ~o.words_[i];
    return *this;
  }
  friend BitSet256 operator|(BitSet256 a, const BitSet256& b) { return a |= b; }
  friend BitSet256 operator&(BitSet256 a, const BitSet256& b) { return a &= b; }
  friend bool operator==(const BitSet256& a, const BitSet256& b) { return a.words_ == b.words_; }
  friend bool operator!=(const BitSet256& a, const BitSet256& b) { return !(a == b); }
  template <typename H>
  friend H AbslHashValue(H h, const BitSet256& s) {
    return H::combine(std::move(h), s.words_[0], s.words_[1], s.words_[2], s.words_[3]);
  }

  // Iterates set bits in ascending order.
  class Iterator {
   public:
    Iterator(const std::array<uint64_t, 4>* words, int word, uint64_t rest)
        : words_(words), word_(word), rest_(rest) {
      Advance();
    }
    uint32_t operator*() const { return word_ * 64 + __builtin_ctzll(rest_); }
    Iterator& operator++() {
      rest_ &= rest_ - 1;
      Advance();
      return *this;
    }
    bool operator!=(const Iterator& o) const { return word_ != o.word_ || rest_ != o.rest_; }

   private:
    void Advance() {
      while (rest_ == 0 && word_ < 3) rest_ = (*words_)[++word_];
      if (rest_ == 0) word_ = 4;
    }
    const std::array<uint64_t, 4>* words_;
    int word_;
    uint64_t rest_;
  };
  Iterator begin() const { return Iterator(&words_, 0, words_[0]); }
  Iterator end() const { return Iterator(&words_, 4, 0); }

 private:
  std::array<uint64_t, 4> words_;
};

}  // namespace regalloc

#endif  // REGALLOC_BASE_BITSET_H_
