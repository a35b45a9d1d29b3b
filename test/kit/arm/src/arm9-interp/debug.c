/* Debugging commands of the ARM9 interpreter kit program (Thumb): registered by
 * debug_commands_register (reached only through main's module table), each handler a Thumb function
 * whose address (with bit 0 set) is a literal of that function. */
#include "cpu.h"
#include "script.h"
#include "shell.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int devices_create(const uint8_t *kinds, int n);
void devices_list(void);
void devices_tick(int cycles);
int events_dispatch(void *const *table, int index, int arg);

static unsigned breakpoints[8];
static int breakpoint_count;

/* Asked by the checked core before each instruction (Thumb, called from ARM). */
int cpu_breakpoint_at(uint16_t pc) {
  for (int i = 0; i < breakpoint_count; i++)
    if (breakpoints[i] == pc) return 1;
  return 0;
}

static int dbg_break(int argc, char **argv) {
  if (argc < 2 || breakpoint_count >= 8) return -1;
  breakpoints[breakpoint_count++] = (unsigned)strtoul(argv[1], 0, 16);
  return 0;
}
static int dbg_delete(int argc, char **argv) {
  (void)argv;
  if (argc < 2) breakpoint_count = 0;
  else if (breakpoint_count > 0) breakpoint_count--;
  return 0;
}
static int dbg_list(int argc, char **argv) {
  (void)argc;
  (void)argv;
  for (int i = 0; i < breakpoint_count; i++) printf("#%d %04x\n", i, breakpoints[i]);
  return breakpoint_count;
}
static int dbg_until(int argc, char **argv) {
  unsigned to = argc > 1 ? (unsigned)strtoul(argv[1], 0, 16) : breakpoints[0];
  (void)argv;
  for (int n = 0; n < 10000 && machine.pc != to && !machine.halted; n++) cpu_execute(&machine, 1);
  return machine.pc == to ? 0 : -1;
}
static int dbg_devices(int argc, char **argv) {
  (void)argv;
  if (argc > 1) {
    uint8_t kinds[4];
    int n = 0;
    for (int i = 1; i < argc && n < 4; i++) kinds[n++] = (uint8_t)atoi(argv[i]);
    devices_create(kinds, n);
  }
  devices_list();
  return 0;
}
static int dbg_tick(int argc, char **argv) {
  devices_tick(argc > 1 ? atoi(argv[1]) : 1);
  return 0;
}
static int32_t script_host(int which, int32_t arg) {
  switch (which) {
    case 0: return machine.a;
    case 1: return (int32_t)machine.pc;
    case 2: machine.a = (uint8_t)arg; return 0;
    default: return -1;
  }
}
static int dbg_script(int argc, char **argv) {
  static const uint8_t demo[] = {1, 6, 1, 7, 7, 27, 33, 1, 10, 45, 33, 3, 0, 61, 33, 0};
  (void)argc;
  (void)argv;
  return script_run(demo, sizeof demo, script_host);
}
static int dbg_event(int argc, char **argv);
static int dbg_mem(int argc, char **argv) {
  (void)argc;
  (void)argv;
  unsigned used = 0;
  for (unsigned i = 0; i < sizeof machine_ram; i++) used += machine_ram[i] != 0;
  printf("%u bytes in use\n", used);
  return (int)used;
}

static int on_event_reset(int arg) { return machine.pc = (uint16_t)arg; }
static int on_event_irq(int arg) { return machine.irq_line = (uint8_t)arg; }
static int on_event_tick(int arg) {
  devices_tick(arg);
  return 0;
}
static void *const event_handlers[] = {(void *)on_event_reset, (void *)on_event_irq, (void *)on_event_tick};

static int dbg_event(int argc, char **argv) {
  int which = argc > 1 ? atoi(argv[1]) : 0;
  return events_dispatch(event_handlers, which % 3, argc > 2 ? atoi(argv[2]) : 0);
}

void debug_commands_register(void) {
  register_cmd("break", dbg_break);
  register_cmd("delete", dbg_delete);
  register_cmd("list", dbg_list);
  register_cmd("until", dbg_until);
  register_cmd("devices", dbg_devices);
  register_cmd("tick", dbg_tick);
  register_cmd("script", dbg_script);
  register_cmd("event", dbg_event);
  register_cmd("mem", dbg_mem);
}
