/* The time slice of the ARM9 interpreter kit program (ARM): its hot loop runs from ITCM (copied there by
 * the start-up code), calls the interpreter in main RAM and leaves through a tail call into main RAM
 * when the slice overran; the reporter is reached by nothing else. */
#include "cpu.h"
#include <stdio.h>

static unsigned overruns;

static __attribute__((noinline)) int slice_overrun(struct cpu *c, int budget, int used) {
  overruns++;
  printf("slice overran by %d cycles at %04x (%u)\n", used - budget, c->pc, overruns);
  return used;
}

__attribute__((section(".itcm"), noinline)) int itcm_run_slice(struct cpu *c, int budget) {
  if (c->halted) return 0;
  int used = cpu_execute(c, budget);
  if (used > budget) return slice_overrun(c, budget, used);
  return used;
}
