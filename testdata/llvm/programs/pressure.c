// Register pressure past every register file: twenty strided walks at once,
// each with its own pointer, stride and float sum, so that allocators spill
// pointers and strides and move values between stack slots (a 32-bit stride
// moved through a register that holds a live 64-bit pointer must not cut the
// pointer). Usage: pressure [rounds]; prints a checksum.
#include <stdio.h>
#include <stdlib.h>

#define N 20
#define EACH(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) \
  X(10) X(11) X(12) X(13) X(14) X(15) X(16) X(17) X(18) X(19)

static float* ptrs[N];
static int incs[N];
static float results[N];

__attribute__((noinline)) static void walk(int n) {
#define DECLARE(i) int inc##i = incs[i]; float* p##i = ptrs[i]; float r##i = 0;
  EACH(DECLARE)
  while (n--) {
#define STEP(i) r##i += *p##i; p##i += inc##i;
    EACH(STEP)
  }
#define OUT(i) results[i] = r##i;
  EACH(OUT)
}

int main(int argc, char** argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 1;
  enum { kIter = 64 };
  float* input = malloc(sizeof(float) * kIter * N * N);
  for (int i = 0; i < kIter * N * N; i++) input[i] = (float)(i % 97) * 0.5f;
  double sum = 0;
  for (int r = 0; r < rounds; r++) {
    for (int i = 0; i < N; i++) {
      ptrs[i] = input + i + r % 3;
      incs[i] = i + 1;
    }
    walk(kIter);
    for (int i = 0; i < N; i++) sum += results[i] * (i + 1);
  }
  printf("%.3f\n", sum);
  free(input);
  return 0;
}
