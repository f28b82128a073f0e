// Hashing: an open-addressing hash table of 64-bit keys (murmur-style mixing),
// inserts, lookups and deletions. Usage: hash [rounds]; prints a checksum.
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>

static uint64_t mix(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

typedef struct {
  uint64_t* keys;
  uint32_t* values;
  unsigned char* used;
  size_t mask;
  size_t count;
} Table;

static void insert(Table* t, uint64_t key, uint32_t value) {
  size_t i = mix(key) & t->mask;
  while (t->used[i] && t->keys[i] != key) i = (i + 1) & t->mask;
  if (!t->used[i]) t->count++;
  t->used[i] = 1;
  t->keys[i] = key;
  t->values[i] = value;
}

static int lookup(const Table* t, uint64_t key, uint32_t* value) {
  size_t i = mix(key) & t->mask;
  while (t->used[i]) {
    if (t->keys[i] == key) {
      *value = t->values[i];
      return 1;
    }
    i = (i + 1) & t->mask;
  }
  return 0;
}

int main(int argc, char** argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 12;
  const size_t size = 1 << 20;
  Table t;
  t.keys = malloc(size * sizeof(uint64_t));
  t.values = malloc(size * sizeof(uint32_t));
  t.used = malloc(size);
  t.mask = size - 1;
  uint64_t sum = 0;
  for (int r = 0; r < rounds; r++) {
    for (size_t i = 0; i < size; i++) t.used[i] = 0;
    t.count = 0;
    uint64_t seed = 1234567 + r;
    for (uint32_t i = 0; i < size / 2; i++) {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      insert(&t, seed >> 20, i);
    }
    seed = 1234567 + r;
    for (uint32_t i = 0; i < size; i++) {
      uint32_t v;
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      uint64_t key = (i & 1) ? seed >> 19 : seed >> 20;
      if (lookup(&t, key, &v)) sum += v ^ i;
    }
    sum += t.count;
  }
  printf("%llu\n", (unsigned long long)sum);
  return 0;
}
