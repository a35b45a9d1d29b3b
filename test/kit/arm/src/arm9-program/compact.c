/* Size-optimised Thumb (-Os): GCC dispatches this switch through libgcc's __gnu_thumb1_case_uqi with
 * the offsets table right after the call, and the second one through __gnu_thumb1_case_uhi. */
#include "game.h"

int compact_opcode(int op, int value) {
  switch (op) {
  case 0: return value + 1;
  case 1: return value * 3;
  case 2: return value - 17;
  case 3: return value << 3;
  case 4: return value >> 2;
  case 5: return ~value;
  case 6: return -value;
  case 7: return value & 0xff;
  case 8: return value | 0x100;
  case 9: return value ^ 0x5a5a;
  case 10: return value * value;
  case 11: return fixed_mul(value, 3);
  default: return 0;
  }
}

static volatile int sink;
int compact_wide(int op, int value) {
  switch (op) {
  case 0: sink = value; break;
  case 1: sink = value + fixed_div(value, 7); value = sink * 2; sink += value; sink ^= 0x1234; break;
  case 2: for (int i = 0; i < value; i++) sink += i * i + (i >> 1); break;
  case 3: sink = fixed_mul(value, value) + fixed_mul(value, 3) + fixed_div(value, 9); break;
  case 4: sink = math_eval(value & 7, value, 3) + math_eval(7, value, 5) + math_eval(2, 3, value); break;
  case 5: sink = (int)checksum_block(&value, 4) ^ (int)checksum_block((const char *)&value + 1, 3); break;
  case 6: sink = fixed_div(fixed_mul(value, 9), 4) + fixed_div(value << 3, 11) - fixed_mul(value, value); break;
  case 7: sink = math_eval(12, value, value + 1) * math_eval(12, value + 2, value) + math_eval(12, 1, 2); break;
  case 8: sink = compact_opcode(value & 15, value) + compact_opcode((value >> 4) & 15, value) + 7; break;
  case 9: sink = compact_opcode(3, value) - compact_opcode(9, value) + compact_opcode(1, sink); break;
  case 10: sink = fixed_mul(sink, value) ^ fixed_div(sink, value | 1) ^ math_eval(6, sink, value); break;
  case 11: for (int i = 0; i < 8; i++) sink = compact_opcode(i, sink + value); break;
  case 12: sink = checksum_block("wide switch", 11) + (unsigned)fixed_div(value, 13) * 5u; break;
  case 13: sink = math_eval(value % 13, sink, value) + math_eval((value + 1) % 13, value, sink); break;
  case 14: sink = compact_opcode(10, compact_opcode(11, compact_opcode(4, value))); break;
  default: sink = -1; break;
  }
  return sink;
}
