/* Two-address forms: x86 `add`, `sub`, `shl` and `imul` overwrite their first source. */
long mix(long a, long b, long c) {
  long x = a + b;
  long y = a - c;
  long z = (x << 3) ^ (y >> 2);
  return z * a + x * y - b;
}

unsigned hash(const unsigned char *p, int n) {
  unsigned h = 2166136261u;
  for (int i = 0; i < n; i++) {
    h ^= p[i];
    h *= 16777619u;
  }
  return h;
}
