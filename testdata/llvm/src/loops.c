/* Loops: counted, nested, while with early exit, a reduction kept in registers. */
int sum_array(const int *a, int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += a[i];
  return s;
}

long matmul_trace(const long *a, const long *b, int n) {
  long t = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      long s = 0;
      for (int k = 0; k < n; k++) s += a[i * n + k] * b[k * n + j];
      if (i == j) t += s;
    }
  return t;
}

int find_first(const int *a, int n, int key) {
  int i = 0;
  while (i < n) {
    if (a[i] == key) return i;
    i++;
  }
  return -1;
}

unsigned collatz_steps(unsigned x) {
  unsigned steps = 0;
  while (x != 1) {
    x = (x & 1) ? 3 * x + 1 : x / 2;
    steps++;
  }
  return steps;
}
