/* The ARM9 interpreter kit program's main (Thumb): installs the interrupt handler, initialises the
 * modules through a table of their init functions (which register the shell commands), runs a
 * start-up script of monitor commands, then the K8 machine in time slices. */
#include "cpu.h"
#include "shell.h"
#include "system.h"
#include <stdio.h>

struct cpu machine;
unsigned char machine_ram[65536];
int itcm_run_slice(struct cpu *c, int budget);
void events_broadcast(int arg);
void devices_destroy(void);

struct module {
  const char *name;
  void (*init)(void);
};
static struct module modules[] = {
    {"commands", commands_register},
    {"debug", debug_commands_register},
};

static const char *const startup_script[] = {
    "ver",  "load",    "reset",  "devices 0 1 3", "run 400", "regs",  "disasm 400",
    "dump 300", "crc 0 800", "script", "flags", "stats", "event 1 1", "step 3",
};

static volatile int frames;
static void on_vblank(void) { frames++; }

int main(void) {
  irq_init();
  irq_set(IRQ_VBLANK, on_vblank);
  irq_enable(IRQ_VBLANK);
  for (unsigned i = 0; i < sizeof modules / sizeof modules[0]; i++) {
    printf("init %s\n", modules[i].name);
    modules[i].init();
  }
  printf("%d commands\n", shell_count());
  int failures = 0;
  for (unsigned i = 0; i < sizeof startup_script / sizeof startup_script[0]; i++)
    if (shell_exec(startup_script[i]) < 0) failures++;
  events_broadcast(0);
  int total = 0;
  for (int slice = 0; slice < 16 && !machine.halted; slice++) total += itcm_run_slice(&machine, 1000);
  printf("%d cycles, %d failures\n", total, failures);
  devices_destroy();
  return failures;
}
