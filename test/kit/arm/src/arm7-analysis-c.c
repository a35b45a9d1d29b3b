/* Real compiler output for the ARM7 analysis fixture, built as ARM for the ARM7TDMI (ARMv4T). */

int c7_sum(const int *values, int n) {
  int total = 0;
  for (int i = 0; i < n; i++) {
    if (values[i] > 2) total += values[i];
    else total -= 1;
  }
  return total;
}
