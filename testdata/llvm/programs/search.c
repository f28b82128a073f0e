// String search: Boyer-Moore-Horspool and a naive scan over a generated text,
// counting every occurrence of a set of patterns. Usage: search [rounds].
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long horspool(const unsigned char* text, long n, const unsigned char* pat, long m) {
  long shift[256];
  for (int c = 0; c < 256; c++) shift[c] = m;
  for (long i = 0; i + 1 < m; i++) shift[pat[i]] = m - 1 - i;
  long found = 0;
  for (long pos = 0; pos + m <= n; pos += shift[text[pos + m - 1]]) {
    long k = m - 1;
    while (k >= 0 && text[pos + k] == pat[k]) k--;
    if (k < 0) found++;
  }
  return found;
}

static long naive(const unsigned char* text, long n, const unsigned char* pat, long m) {
  long found = 0;
  for (long pos = 0; pos + m <= n; pos++) {
    long k = 0;
    while (k < m && text[pos + k] == pat[k]) k++;
    found += k == m;
  }
  return found;
}

int main(int argc, char** argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 6;
  const long n = 4000000;
  unsigned char* text = malloc(n);
  unsigned x = 12345;
  for (long i = 0; i < n; i++) {
    x = x * 1103515245u + 12345u;
    text[i] = "acgt"[(x >> 16) & 3];
  }
  const char* patterns[] = {"acgtacg", "ttt", "gattaca", "cagtcagtca", "aaaaaa", "tgca"};
  long total = 0;
  for (int r = 0; r < rounds; r++) {
    for (int p = 0; p < 6; p++) {
      const unsigned char* pat = (const unsigned char*)patterns[p];
      long m = (long)strlen(patterns[p]);
      long a = horspool(text, n, pat, m);
      long b = naive(text, n / 4, pat, m);
      total += a * 3 + b;
    }
  }
  printf("%ld\n", total);
  return 0;
}
