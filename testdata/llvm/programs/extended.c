// long double arithmetic: on x86-64 x87 values (LLVM's fp0-fp6), more of them
// live at once than there are x87 registers, across calls and loops, returned
// in st0; on AArch64 quad precision through library calls.
// Usage: extended [rounds]; prints a checksum.
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static long double poly(const long double* c, int n, long double x) {
  long double r = 0;
  for (int i = n - 1; i >= 0; i--) r = r * x + c[i];
  return r;
}

__attribute__((noinline)) static long double scale(long double v, int k) { return v / (k + 1) + 0.25L; }

// Nine long doubles live around the loop and across a call.
__attribute__((noinline)) static long double churn(int n, long double seed) {
  long double a = seed, b = seed + 1, c = seed * 2, d = seed - 3, e = 0.5L, f = 1.5L, g = 2.5L, h = 3.5L, i = 4.5L;
  for (int k = 0; k < n; k++) {
    long double t = scale(a + b, k);
    a = b * 0.5L + t;
    b = c - d * 0.25L;
    c = d + e;
    d = e * f - g;
    e = f + t * 0.125L;
    f = g - h * 0.5L;
    g = h + i * 0.0625L;
    h = i - a * 0.03125L;
    i = t + seed;
  }
  return a + b + c + d + e + f + g + h + i;
}

int main(int argc, char** argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 1;
  long double coef[16];
  for (int k = 0; k < 16; k++) coef[k] = 1.0L / (k + 1);
  long double total = 0;
  for (int r = 0; r < rounds; r++) {
    for (int k = 0; k < 2000; k++) total += poly(coef, 16, (long double)(k % 13) / 16);
    total += churn(3000, (long double)r / 7);
  }
  printf("%.6Lf\n", total);
  return 0;
}
