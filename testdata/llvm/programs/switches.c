// Switches: jump tables in loops, cases that share a destination, a join that
// many cases reach with different values, a switch inside a switch. Built to
// make allocators put moves on the edges out of a jump table's block.
// Usage: switches [rounds]; prints a checksum.
#include <stdio.h>
#include <stdlib.h>

static unsigned state = 12345u;
static unsigned next(void) {
  state = state * 1103515245u + 12345u;
  return state >> 8;
}

// Many values live across a dense switch in a loop; every case updates a
// different subset and all meet at the loop's latch.
__attribute__((noinline)) static unsigned long mix(const unsigned char* ops, int n, unsigned long seed) {
  unsigned long a = seed, b = seed ^ 0x9e3779b9u, c = seed * 7, d = seed + 13, e = 1, f = 2, g = 3, h = 4;
  for (int i = 0; i < n; i++) {
    switch (ops[i] & 15) {
      case 0: a += b; break;
      case 1: b ^= c << 3; break;
      case 2: c = c * 31 + d; break;
      case 3: d -= a >> 2; break;
      case 4: e += f * g; break;
      case 5: f ^= h + a; break;
      case 6: g = (g << 5) | (g >> 59); break;
      case 7: h += e ^ d; break;
      case 8: a = b + c + d; b = e; break;
      case 9: case 10: e = f - g; f = h; break;
      case 11: g ^= a; h ^= b; a ^= c; break;
      case 12: return a + b + c + d + e + f + g + h + i;
      default: d += 1; h -= 1; break;
    }
  }
  return a ^ b ^ c ^ d ^ e ^ f ^ g ^ h;
}

// Every case produces a different value into one join (a phi fed by a jump table).
__attribute__((noinline)) static long pick(int k, long x, long y, long z) {
  long r;
  switch (k) {
    case 0: r = x + y; break;
    case 1: r = x - z; break;
    case 2: r = y * z; break;
    case 3: r = x ^ y ^ z; break;
    case 4: r = (x << 3) + z; break;
    case 5: r = y; break;
    case 6: r = z - y; break;
    case 7: r = x * 5; break;
    default: r = -1; break;
  }
  return r * 3 + x;
}

// A switch within a switch, with a loop around both; doubles across it.
__attribute__((noinline)) static double nested(int n) {
  double s = 0.5, t = 1.25, u = 2.0;
  for (int i = 0; i < n; i++) {
    unsigned r = next();
    switch (r % 6) {
      case 0:
        switch ((r >> 4) % 5) {
          case 0: s += t; break;
          case 1: t *= 1.0001; break;
          case 2: u -= s * 0.001; break;
          case 3: s = s * 0.5 + u; break;
          default: t += 1.0; break;
        }
        break;
      case 1: u += 0.25; break;
      case 2: s -= t * 0.01; break;
      case 3: t = u - s; break;
      case 4: u *= 0.999; break;
      default: s += (double)(r & 7); break;
    }
  }
  return s + t * 2 + u * 3;
}

int main(int argc, char** argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 1;
  enum { kOps = 4096 };
  unsigned char* ops = malloc(kOps);
  unsigned long total = 0;
  double dsum = 0;
  for (int r = 0; r < rounds; r++) {
    for (int i = 0; i < kOps; i++) ops[i] = (unsigned char)(next() % 13 == 12 && i < kOps - 8 ? next() : next() % 12);
    total += mix(ops, kOps, (unsigned long)r);
    for (int k = 0; k < 2000; k++) total += (unsigned long)pick(k % 10, k, r, k ^ r);
    dsum += nested(2000);
  }
  printf("%lu %.6f\n", total, dsum);
  free(ops);
  return 0;
}
