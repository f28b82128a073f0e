// Counts the heap a test binary holds: linking this library replaces the global
// operator new and delete with ones that track the bytes live and their peak, so
// that a test can bound the memory a phase takes (an allocation counter, exact
// and independent of the machine, where an address-space limit is neither).
//
//   HeapCounter::ResetPeak();
//   RunSomething();
//   EXPECT_LT(HeapCounter::Peak() - before, 64 << 20);
#ifndef REGALLOC_CHECK_HEAP_COUNTER_H_
#define REGALLOC_CHECK_HEAP_COUNTER_H_

#include <cstddef>

namespace regalloc {

class HeapCounter {
 public:
  // Bytes allocated with operator new and not yet deleted.
  static size_t Live();
  // The largest Live() since the last ResetPeak() (or the start).
  static size_t Peak();
  // Starts a new peak at the bytes live now.
  static void ResetPeak();
  // Calls of operator new so far (a warm allocator should add none per function).
  static size_t Allocations();
};

}  // namespace regalloc

#endif  // REGALLOC_CHECK_HEAP_COUNTER_H_
