/* Real compiler output for the ARM9 analysis fixture, built as Thumb (-mthumb -O2). Loops, a call
 * through a function pointer and a callee reached only through that pointer: the decoder agreement
 * and CFG tests then see code no human arranged. No division or switch tables: nothing here may need
 * libgcc, which the kit does not link. */

int c_checksum(const unsigned char *p, int n) {
  unsigned int sum = 0x5a;
  for (int i = 0; i < n; i++) {
    sum = (sum << 3) ^ (sum >> 29) ^ p[i];
  }
  return (int)sum;
}

typedef int (*unary_fn)(int);

/* Not static and not called directly: its only use is as a pointer value. */
int c_apply_target(int x) { return x * 3 + 1; }

int c_apply(unary_fn f, int times) {
  int acc = 1;
  while (times-- > 0) {
    acc = f(acc);
  }
  return acc;
}
