// A small bytecode interpreter (a switch in a loop) running a program that
// counts the primes below a limit by trial division. Usage: interp [limit];
// prints the count and the instructions executed.
#include <stdio.h>
#include <stdlib.h>

enum { PUSH, LOAD, STORE, ADD, MUL, MOD, LT, JZ, JMP, HALT };

static long executed;

static long run(const int* code, long* vars) {
  long stack[16];
  int sp = 0, pc = 0;
  for (;;) {
    executed++;
    switch (code[pc++]) {
      case PUSH: stack[sp++] = code[pc++]; break;
      case LOAD: stack[sp++] = vars[code[pc++]]; break;
      case STORE: vars[code[pc++]] = stack[--sp]; break;
      case ADD: sp--; stack[sp - 1] += stack[sp]; break;
      case MUL: sp--; stack[sp - 1] *= stack[sp]; break;
      case MOD: sp--; stack[sp - 1] = stack[sp] ? stack[sp - 1] % stack[sp] : 0; break;
      case LT: sp--; stack[sp - 1] = stack[sp - 1] < stack[sp]; break;
      case JZ: sp--; pc = stack[sp] ? pc + 1 : code[pc]; break;
      case JMP: pc = code[pc]; break;
      case HALT: return vars[0];
    }
  }
}

static int code[256];
static int size;
static int emit(int op) { code[size] = op; return size++; }
static int emit2(int op, int arg) { emit(op); return emit(arg); }

int main(int argc, char** argv) {
  long limit = argc > 1 ? atol(argv[1]) : 400000;
  enum { COUNT, N, D, LIMIT };
  long vars[4] = {0, 2, 0, limit};
  // for (n = 2; n < limit; n++) { for (d = 2; d * d < n + 1; d++) if (n % d == 0) goto next; count++; next:; }
  int outer = size;
  emit2(LOAD, N); emit2(LOAD, LIMIT); emit(LT);
  int exit_jump = emit2(JZ, 0);
  emit2(PUSH, 2); emit2(STORE, D);
  int inner = size;
  emit2(LOAD, D); emit2(LOAD, D); emit(MUL); emit2(LOAD, N); emit2(PUSH, 1); emit(ADD); emit(LT);
  int prime_jump = emit2(JZ, 0);
  emit2(LOAD, N); emit2(LOAD, D); emit(MOD);
  int composite_jump = emit2(JZ, 0);
  emit2(LOAD, D); emit2(PUSH, 1); emit(ADD); emit2(STORE, D); emit2(JMP, inner);
  code[prime_jump] = size;
  emit2(LOAD, COUNT); emit2(PUSH, 1); emit(ADD); emit2(STORE, COUNT);
  code[composite_jump] = size;
  emit2(LOAD, N); emit2(PUSH, 1); emit(ADD); emit2(STORE, N); emit2(JMP, outer);
  code[exit_jump] = size;
  emit(HALT);
  long count = run(code, vars);
  printf("%ld %ld\n", count, executed);
  return 0;
}
