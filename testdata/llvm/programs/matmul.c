// Matrix multiply: blocked double-precision C += A * B with a float check.
// Usage: matmul [rounds]; prints a checksum.
#include <stdio.h>
#include <stdlib.h>

static void multiply(int n, const double* a, const double* b, double* c) {
  const int block = 32;
  for (int ii = 0; ii < n; ii += block)
    for (int kk = 0; kk < n; kk += block)
      for (int jj = 0; jj < n; jj += block)
        for (int i = ii; i < ii + block && i < n; i++)
          for (int k = kk; k < kk + block && k < n; k++) {
            double aik = a[i * n + k];
            for (int j = jj; j < jj + block && j < n; j++) c[i * n + j] += aik * b[k * n + j];
          }
}

int main(int argc, char** argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 40;
  const int n = 384;
  double* a = malloc(n * n * sizeof(double));
  double* b = malloc(n * n * sizeof(double));
  double* c = malloc(n * n * sizeof(double));
  float trace = 0;
  for (int i = 0; i < n * n; i++) {
    a[i] = (i % 17) * 0.25 - 2.0;
    b[i] = (i % 13) * 0.5 - 3.0;
    c[i] = 0;
  }
  for (int r = 0; r < rounds; r++) {
    multiply(n, a, b, c);
    for (int i = 0; i < n; i++) trace += (float)c[i * n + i] * 0.001f;
  }
  double sum = 0;
  for (int i = 0; i < n * n; i++) sum += c[i] * ((i & 7) + 1);
  printf("%.1f %.3f\n", sum, trace);
  return 0;
}
