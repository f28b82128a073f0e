/* long double: x87 values on x86-64 (LLVM's fp0-fp6, our f80), quad precision
   through library calls on AArch64. */
long double horner_ld(const long double* c, int n, long double x) {
  long double r = 0;
  for (int i = n - 1; i >= 0; i--) r = r * x + c[i];
  return r;
}

long double mix_ld(long double a, long double b, double d, int k) {
  long double s = a * b + d;
  long double t = a - b;
  for (int i = 0; i < k; i++) {
    s = s / (a + i) + t * d;
    t = t * 0.5L + s;
  }
  return s + t;
}
