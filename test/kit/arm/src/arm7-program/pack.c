/* -Os Thumb for ARMv4T: this switch goes through __gnu_thumb1_case_uqi. */
int pack_command(int op, int value) {
  switch (op) {
  case 0: return value;
  case 1: return value << 1;
  case 2: return value << 2;
  case 3: return value + 100;
  case 4: return value - 100;
  case 5: return value & 0x7f;
  case 6: return value | 0x80;
  case 7: return -value;
  case 8: return value * 5;
  case 9: return value >> 3;
  case 10: return ~value;
  default: return 0;
  }
}
