// A hint that the cache line holding `p` will be read soon. Any address will
// do: a prefetch never faults.
//
// Not __builtin_prefetch alone: GCC 12's dead-code elimination drops a
// __builtin_prefetch that sits under a condition in a loop (an `if (sparse)
// prefetch(row)` in a walk over nodes compiled to nothing), so on x86-64 the
// instruction is written out.
#ifndef REGALLOC_BASE_PREFETCH_H_
#define REGALLOC_BASE_PREFETCH_H_

namespace regalloc {

inline void Prefetch(const void* p) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p);
#endif
}

}  // namespace regalloc

#endif  // REGALLOC_BASE_PREFETCH_H_
