/* Sub-registers: bytes and shorts read and written through narrower views. */
unsigned char checksum8(const unsigned char *p, int n) {
  unsigned char c = 0;
  for (int i = 0; i < n; i++) c = (unsigned char)((c << 1) ^ p[i]);
  return c;
}

short widen_narrow(short a, signed char b, long c) {
  int x = a * b;
  long y = c + x;
  return (short)(y >> 3);
}

unsigned long zero_extend(unsigned int a, unsigned int b) {
  unsigned long x = a;
  unsigned long y = b;
  return (x << 32) | y;
}

int count_bytes(const char *s, char c) {
  int n = 0;
  for (; *s; s++) n += *s == c;
  return n;
}
