#include "check/heap_counter.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace regalloc {
namespace {

std::atomic<size_t> live{0};
std::atomic<size_t> peak{0};
std::atomic<size_t> calls{0};

// Each block carries its size in a header of the strictest fundamental alignment.
constexpr size_t kHeader = alignof(std::max_align_t);

void* Allocate(size_t n) {
  void* p = std::malloc(n + kHeader);
  if (p == nullptr) return nullptr;
  *static_cast<size_t*>(p) = n;
  calls.fetch_add(1, std::memory_order_relaxed);
  size_t now = live.fetch_add(n, std::memory_order_relaxed) + n;
  size_t seen = peak.load(std::memory_order_relaxed);
  while (now > seen && !peak.compare_exchange_weak(seen, now, std::memory_order_relaxed)) {
  }
  return static_cast<char*>(p) + kHeader;
}

void Free(void* q) {
  if (q == nullptr) return;
  void* p = static_cast<char*>(q) - kHeader;
  live.fetch_sub(*static_cast<size_t*>(p), std::memory_order_relaxed);
  std::free(p);
}

}  // namespace

size_t HeapCounter::Live() { return live.load(std::memory_order_relaxed); }
size_t HeapCounter::Peak() { return peak.load(std::memory_order_relaxed); }
size_t HeapCounter::Allocations() { return calls.load(std::memory_order_relaxed); }
void HeapCounter::ResetPeak() { peak.store(live.load(std::memory_order_relaxed), std::memory_order_relaxed); }

}  // namespace regalloc

// The replaceable global allocation functions (aligned forms keep the library's
// own, which pair with their own deletes).
void* operator new(size_t n) {
  void* p = regalloc::Allocate(n);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void* operator new[](size_t n) { return operator new(n); }
void* operator new(size_t n, const std::nothrow_t&) noexcept { return regalloc::Allocate(n); }
void* operator new[](size_t n, const std::nothrow_t&) noexcept { return regalloc::Allocate(n); }
void operator delete(void* p) noexcept { regalloc::Free(p); }
void operator delete[](void* p) noexcept { regalloc::Free(p); }
void operator delete(void* p, size_t) noexcept { regalloc::Free(p); }
void operator delete[](void* p, size_t) noexcept { regalloc::Free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { regalloc::Free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { regalloc::Free(p); }
