// Node storage that outlives the containers using it: a std-style allocator
// over free lists by request size, for node-based containers (absl::btree_map)
// that an object clears and fills again for every function. A cleared map
// gives its nodes back to the pool, and the next inserts take them, so a warm
// object allocates nothing for them.
//
//   NodePool pool;  // declared before the maps: it must outlive them
//   absl::btree_map<K, V, std::less<K>, PoolAllocator<std::pair<const K, V>>> m{
//       PoolAllocator<std::pair<const K, V>>(&pool)};
#ifndef REGALLOC_BASE_NODE_POOL_H_
#define REGALLOC_BASE_NODE_POOL_H_

#include <cstddef>
#include <new>
#include <vector>

namespace regalloc {

class NodePool {
 public:
  NodePool() = default;
  NodePool(const NodePool&) = delete;
  NodePool& operator=(const NodePool&) = delete;
  ~NodePool() {
    for (List& l : lists_) {
      for (void* p : l.free) ::operator delete(p);
    }
  }

  void* Take(size_t bytes) {
    for (List& l : lists_) {
      if (l.bytes != bytes || l.free.empty()) continue;
      void* p = l.free.back();
      l.free.pop_back();
      return p;
    }
    return ::operator new(bytes);
  }
  void Give(void* p, size_t bytes) {
    for (List& l : lists_) {
      if (l.bytes == bytes) {
        l.free.push_back(p);
        return;
      }
    }
    lists_.push_back(List{bytes, {p}});
  }

 private:
  struct List {
    size_t bytes;
    std::vector<void*> free;
  };
  std::vector<List> lists_;  // a few sizes (a btree has two node sizes)
};

template <typename T>
struct PoolAllocator {
  using value_type = T;
  explicit PoolAllocator(NodePool* p) : pool(p) {}
  template <typename U>
  PoolAllocator(const PoolAllocator<U>& o) : pool(o.pool) {}  // rebinding
  T* allocate(size_t n) { return static_cast<T*>(pool->Take(n * sizeof(T))); }
  void deallocate(T* p, size_t n) { pool->Give(p, n * sizeof(T)); }
  friend bool operator==(const PoolAllocator& a, const PoolAllocator& b) { return a.pool == b.pool; }
  friend bool operator!=(const PoolAllocator& a, const PoolAllocator& b) { return a.pool != b.pool; }

  NodePool* pool;
};

}  // namespace regalloc

#endif  // REGALLOC_BASE_NODE_POOL_H_
