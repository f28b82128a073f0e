/* Register classes narrower than ours: a tail call through a pointer (x86
   GR64_TC, AArch64 tcGPR64) and a read of bits 8-15 (x86 sub_8bit_hi of a
   GR32_ABCD value, %ah-style). The import pins such a value, at each of its
   operands, to one register of the class (%r11, %x17; %edx for ABCD). */
typedef long (*fn)(long);

long tail_through(fn* table, int k, long x) { return table[k](x + 1); }

unsigned second_bytes(unsigned a, unsigned b, unsigned c) {
  return ((a >> 8) & 0xff) + ((b >> 8) & 0xff) * 3 + ((c >> 8) & 0xff) * 5;
}
