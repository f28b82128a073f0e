/* Division: x86 `div` reads and writes fixed registers (rdx:rax). */
long divmod(long a, long b, long *rem) {
  *rem = a % b;
  return a / b;
}

unsigned udiv_sum(const unsigned *a, int n, unsigned d) {
  unsigned s = 0;
  for (int i = 0; i < n; i++) s += a[i] / d + a[i] % (d + 1);
  return s;
}

int gcd(int a, int b) {
  while (b != 0) {
    int t = a % b;
    a = b;
    b = t;
  }
  return a;
}
