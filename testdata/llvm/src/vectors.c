/* Vectors: the vectorizer's 128-bit loops, and explicit vector types. */
typedef int v4si __attribute__((vector_size(16)));
typedef float v4sf __attribute__((vector_size(16)));

void add_arrays(int *restrict out, const int *restrict a, const int *restrict b, int n) {
  for (int i = 0; i < n; i++) out[i] = a[i] + b[i];
}

v4si vmix(v4si a, v4si b, v4si c) { return (a + b) * c - (a ^ c); }

v4sf vscale(v4sf a, float s) {
  v4sf k = {s, s, s, s};
  return a * k + a;
}

long sum_longs(const long *a, int n) {
  long s = 0;
  for (int i = 0; i < n; i++) s += a[i];
  return s;
}
