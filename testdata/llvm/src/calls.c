/* Calls: values live across calls, many arguments, results used twice, recursion. */
extern long ext(long a, long b);
extern int ext8(int a, int b, int c, int d, int e, int f, int g, int h);
extern void sink(const char *p);

long across_calls(long x, long y) {
  long a = ext(x, y);
  long b = ext(y, a);
  long c = ext(a, b);
  return a + b + c + x + y;
}

int many_args(int a, int b, int c, int d) {
  return ext8(a, b, c, d, a + b, b + c, c + d, d + a) + ext8(d, c, b, a, 1, 2, 3, 4);
}

unsigned fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

void log_twice(const char *p, int n) {
  for (int i = 0; i < n; i++) {
    sink(p);
    sink(p + i);
  }
}
