/* Arithmetic helpers of the ARM9 kit program, compiled as ARM: fixed-point math, an operator switch
 * GCC turns into an LDRLS PC jump table, a table of operator functions, and a checksum. */
#include "game.h"

int fixed_mul(int a, int b) { return (int)(((long long)a * b) >> 12); }
int fixed_div(int a, int b) { return b ? (int)(((long long)a << 12) / b) : 0; }

static int op_add(int a, int b) { return a + b; }
static int op_sub(int a, int b) { return a - b; }
static int op_mul(int a, int b) { return fixed_mul(a << 12, b << 12) >> 12; }
static int op_min(int a, int b) { return a < b ? a : b; }
static int op_max(int a, int b) { return a > b ? a : b; }
int (*const math_ops[])(int, int) = {op_add, op_sub, op_mul, op_min, op_max};

int math_eval(int op, int a, int b) {
  switch (op) {
  case 0: return a + b;
  case 1: return a - b;
  case 2: return a * b;
  case 3: return b ? a / b : 0;
  case 4: return b ? a % b : 0;
  case 5: return a & b;
  case 6: return a | b;
  case 7: return a ^ b;
  case 8: return a << (b & 31);
  case 9: return a >> (b & 31);
  case 10: return fixed_mul(a, b);
  case 11: return fixed_div(a, b);
  case 12: return math_ops[(unsigned)b % 5](a, b);
  default: return -1;
  }
}

uint32_t checksum_block(const void *data, unsigned len) {
  const unsigned char *p = data;
  uint32_t a = 1, b = 0;
  while (len--) {
    a = (a + *p++) % 65521u;
    b = (b + a) % 65521u;
  }
  return (b << 16) | a;
}
