/* A jump table on both targets: a dense switch whose cases compute different
   things. On AArch64 the table's address computation (JumpTableDest) writes an
   early-clobber scratch register before it reads the index: imported with its
   uses Late, so that no allocator puts the index in that register. */
long shift_by(long x, int n) {
  switch (n) {
    case 0: return x >> 1;
    case 1: return x >> 50;
    case 2: return x >> 43;
    case 3: return x >> 37;
    case 4: return x >> 53;
    case 5: return x >> 47;
    case 6: return x >> 56;
    case 7: return x >> 35;
    case 8: return x >> 36;
    case 9: return x >> 27;
    case 10: return x >> 34;
    case 11: return x >> 13;
    case 12: return x >> 5;
    case 13: return x >> 61;
    case 14: return x >> 22;
    case 15: return x >> 9;
    case 16: return x >> 44;
    case 17: return x >> 18;
    case 18: return x >> 29;
    case 19: return x >> 3;
    case 20: return x >> 58;
    case 21: return x >> 11;
    case 22: return x >> 40;
    case 23: return x >> 25;
    default: return x;
  }
}
