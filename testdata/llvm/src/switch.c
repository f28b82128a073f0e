/* Switches: a compare tree, a jump table (an opaque branch with a target per destination). */
int small_switch(int x, int y) {
  switch (x) {
    case 1: return y + 5;
    case 7: return y * 3;
    case 100: return y - 9;
    default: return x + y;
  }
}

int dense_switch(int op, int a, int b) {
  switch (op) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    case 3: return a & b;
    case 4: return a | b;
    case 5: return a ^ b;
    case 6: return a << (b & 31);
    case 7: return a >> (b & 31);
    default: return 0;
  }
}
