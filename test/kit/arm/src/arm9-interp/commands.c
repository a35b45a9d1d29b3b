/* The commands of the ARM9 interpreter kit program (ARM). Each handler is reached only through the
 * shell's table: commands_register puts their addresses there with register_cmd("name", handler) (the
 * addresses are literal-pool words of commands_register, which itself is reached only through the
 * module table main walks). The handlers use helpers nothing else calls. */
#include "cpu.h"
#include "shell.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned bus_checksum(uint16_t from, uint16_t to);
void bus_set_watch(uint16_t addr);
extern volatile int trace_enabled;
extern volatile int watch_enabled;
static int verbose = 1;
static unsigned command_runs;

static unsigned arg_number(int argc, char **argv, int i, unsigned otherwise) {
  return argc > i ? (unsigned)strtoul(argv[i], 0, 16) : otherwise;
}
static __attribute__((noinline)) void print_row(uint16_t at, int n) {
  printf("%04x:", at);
  for (int i = 0; i < n; i++) printf(" %02x", machine_ram[(uint16_t)(at + i)]);
  putchar('\n');
}
static __attribute__((noinline)) int report(const char *what, unsigned value) {
  command_runs++;
  if (!verbose) return 0;
  return printf("%s = %x\n", what, value);
}
static int compare_bytes(const void *a, const void *b) {
  return *(const unsigned char *)a - *(const unsigned char *)b;
}

static int cmd_help(int argc, char **argv) {
  (void)argc;
  (void)argv;
  printf("%d commands\n", shell_count());
  return 0;
}

static int cmd_regs(int argc, char **argv) {
  (void)argc;
  (void)argv;
  printf("a=%02x x=%02x y=%02x sp=%02x p=%02x pc=%04x\n", machine.a, machine.x, machine.y, machine.sp, machine.p, machine.pc);
  return 0;
}

static int cmd_step(int argc, char **argv) {
  (void)argc;
  (void)argv;
  int n = (int)arg_number(argc, argv, 1, 1);
  while (n-- > 0)
    if (cpu_step(&machine) < 0) return -1;
  return 0;
}

static int cmd_run(int argc, char **argv) {
  (void)argc;
  (void)argv;
  return report("cycles", (unsigned)cpu_execute(&machine, (int)arg_number(argc, argv, 1, 1000)));
}

static int cmd_reset(int argc, char **argv) {
  (void)argc;
  (void)argv;
  cpu_reset(&machine, machine_ram);
  return report("pc", machine.pc);
}

static int cmd_peek(int argc, char **argv) {
  (void)argc;
  (void)argv;
  return report("value", machine_ram[(uint16_t)arg_number(argc, argv, 1, 0)]);
}

static int cmd_poke(int argc, char **argv) {
  (void)argc;
  (void)argv;
  machine_ram[(uint16_t)arg_number(argc, argv, 1, 0)] = (uint8_t)arg_number(argc, argv, 2, 0);
  return 0;
}

static int cmd_dump(int argc, char **argv) {
  (void)argc;
  (void)argv;
  uint16_t at = (uint16_t)arg_number(argc, argv, 1, 0);
  for (int r = 0; r < 4; r++) print_row((uint16_t)(at + 16 * r), 16);
  return 0;
}

static int cmd_fill(int argc, char **argv) {
  (void)argc;
  (void)argv;
  memset(machine_ram + (uint16_t)arg_number(argc, argv, 1, 0), (int)arg_number(argc, argv, 3, 0), arg_number(argc, argv, 2, 1) & 0xff);
  return 0;
}

static int cmd_copy(int argc, char **argv) {
  (void)argc;
  (void)argv;
  memmove(machine_ram + (uint16_t)arg_number(argc, argv, 2, 0), machine_ram + (uint16_t)arg_number(argc, argv, 1, 0), arg_number(argc, argv, 3, 1) & 0xff);
  return 0;
}

static int cmd_find(int argc, char **argv) {
  (void)argc;
  (void)argv;
  uint8_t v = (uint8_t)arg_number(argc, argv, 1, 0);
  void *p = memchr(machine_ram, v, sizeof machine_ram);
  return report("found", p ? (unsigned)((uint8_t *)p - machine_ram) : 0xffffffffu);
}

static int cmd_crc(int argc, char **argv) {
  (void)argc;
  (void)argv;
  return report("crc", bus_checksum((uint16_t)arg_number(argc, argv, 1, 0), (uint16_t)arg_number(argc, argv, 2, 0x100)));
}

static int cmd_watch(int argc, char **argv) {
  (void)argc;
  (void)argv;
  bus_set_watch((uint16_t)arg_number(argc, argv, 1, 0));
  return 0;
}

static int cmd_unwatch(int argc, char **argv) {
  (void)argc;
  (void)argv;
  watch_enabled = 0;
  return 0;
}

static int cmd_trace(int argc, char **argv) {
  (void)argc;
  (void)argv;
  trace_enabled = 1;
  return 0;
}

static int cmd_untrace(int argc, char **argv) {
  (void)argc;
  (void)argv;
  trace_enabled = 0;
  return 0;
}

static int cmd_irq(int argc, char **argv) {
  (void)argc;
  (void)argv;
  machine.irq_line = (uint8_t)arg_number(argc, argv, 1, 1);
  return 0;
}

static int cmd_nmi(int argc, char **argv) {
  (void)argc;
  (void)argv;
  machine.nmi_edge = 1;
  return 0;
}

static int cmd_halt(int argc, char **argv) {
  (void)argc;
  (void)argv;
  machine.halted = 3;
  return 0;
}

static int cmd_resume(int argc, char **argv) {
  (void)argc;
  (void)argv;
  machine.halted = 0;
  return report("pc", machine.pc);
}

static int cmd_push(int argc, char **argv) {
  (void)argc;
  (void)argv;
  machine_ram[0x100 | machine.sp--] = (uint8_t)arg_number(argc, argv, 1, 0);
  return 0;
}

static int cmd_pop(int argc, char **argv) {
  (void)argc;
  (void)argv;
  return report("pop", machine_ram[0x100 | ++machine.sp]);
}

static int cmd_sp(int argc, char **argv) {
  (void)argc;
  (void)argv;
  if (argc > 1) {
    machine.sp = (uint8_t)arg_number(argc, argv, 1, 0xfd);
  }
  return report("sp", machine.sp);
}

static int cmd_pc(int argc, char **argv) {
  (void)argc;
  (void)argv;
  if (argc > 1) {
    machine.pc = (uint16_t)arg_number(argc, argv, 1, 0);
  }
  return report("pc", machine.pc);
}

static int cmd_flags(int argc, char **argv) {
  (void)argc;
  (void)argv;
  char f[9];
  for (int i = 0; i < 8; i++) f[i] = (machine.p & (0x80 >> i)) ? "NV-BDIZC"[i] : '.';
  f[8] = 0;
  puts(f);
  return 0;
}

static int cmd_disasm(int argc, char **argv) {
  (void)argc;
  (void)argv;
  char line[48];
  uint16_t at = (uint16_t)arg_number(argc, argv, 1, machine.pc);
  for (int i = 0; i < 8; i++) {
    cpu_disassemble(&machine, at, line, sizeof line);
    puts(line);
    at = (uint16_t)(at + cpu_lengths[machine_ram[at]]);
  }
  return 0;
}

static int cmd_load(int argc, char **argv) {
  (void)argc;
  (void)argv;
  static const uint8_t demo[] = {0xa9, 0x10, 0x69, 0x22, 0x8d, 0x00, 0x03, 0xe8, 0xd0, 0xf7, 0x12};
  memcpy(machine_ram + 0x0400, demo, sizeof demo);
  machine_ram[0xfffc] = 0x00;
  machine_ram[0xfffd] = 0x04;
  return 0;
}

static int cmd_save(int argc, char **argv) {
  (void)argc;
  (void)argv;
  return report("saved", bus_checksum(0, 0x800));
}

static int cmd_bank(int argc, char **argv) {
  (void)argc;
  (void)argv;
  return report("bank", arg_number(argc, argv, 1, 0) & 7);
}

static int cmd_map(int argc, char **argv) {
  (void)argc;
  (void)argv;
  return report("map", arg_number(argc, argv, 1, 0) << 8);
}

static int cmd_unmap(int argc, char **argv) {
  (void)argc;
  (void)argv;
  bus_map_io((int)arg_number(argc, argv, 1, 0), 0, 0);
  return 0;
}

static int cmd_stats(int argc, char **argv) {
  (void)argc;
  (void)argv;
  printf("%lu instructions, %ld cycles, %lu traps, %u commands run\n", (unsigned long)machine.executed, (long)machine.cycles, (unsigned long)machine.traps, command_runs);
  return 0;
}

static int cmd_clock(int argc, char **argv) {
  (void)argc;
  (void)argv;
  return report("clock", (unsigned)machine.cycles / 1000u);
}

static int cmd_sleep(int argc, char **argv) {
  (void)argc;
  (void)argv;
  for (volatile unsigned i = 0; i < arg_number(argc, argv, 1, 10); i++) {
  }
  return 0;
}

static int cmd_echo(int argc, char **argv) {
  (void)argc;
  (void)argv;
  for (int i = 1; i < argc; i++) printf("%s%c", argv[i], i + 1 < argc ? ' ' : '\n');
  return 0;
}

static int cmd_calc(int argc, char **argv) {
  (void)argc;
  (void)argv;
  long a = strtol(argc > 1 ? argv[1] : "0", 0, 0), b = strtol(argc > 3 ? argv[3] : "0", 0, 0);
  char op = argc > 2 ? argv[2][0] : '+';
  long r = op == '*' ? a * b : op == '/' ? (b ? a / b : 0) : op == '-' ? a - b : a + b;
  return report("calc", (unsigned)r);
}

static int cmd_hex(int argc, char **argv) {
  (void)argc;
  (void)argv;
  return report("hex", (unsigned)strtoul(argc > 1 ? argv[1] : "0", 0, 10));
}

static int cmd_dec(int argc, char **argv) {
  (void)argc;
  (void)argv;
  printf("%lu\n", strtoul(argc > 1 ? argv[1] : "0", 0, 16));
  return 0;
}

static int cmd_bits(int argc, char **argv) {
  (void)argc;
  (void)argv;
  unsigned v = arg_number(argc, argv, 1, 0), n = 0;
  while (v) {
    n += v & 1;
    v >>= 1;
  }
  return report("bits", n);
}

static int cmd_rand(int argc, char **argv) {
  (void)argc;
  (void)argv;
  return report("rand", (unsigned)rand());
}

static int cmd_sort(int argc, char **argv) {
  (void)argc;
  (void)argv;
  qsort(machine_ram + 0x300, arg_number(argc, argv, 1, 16) & 0xff, 1, compare_bytes);
  return 0;
}

static int cmd_uniq(int argc, char **argv) {
  (void)argc;
  (void)argv;
  unsigned n = 0;
  for (int i = 1; i < 256; i++) n += machine_ram[0x300 + i] != machine_ram[0x2ff + i];
  return report("uniq", n);
}

static int cmd_time(int argc, char **argv) {
  (void)argc;
  (void)argv;
  return report("time", (unsigned)(machine.executed * 3u / 2u));
}

static int cmd_ver(int argc, char **argv) {
  (void)argc;
  (void)argv;
  puts("K8 monitor 1.0");
  return 0;
}

static int cmd_quit(int argc, char **argv) {
  (void)argc;
  (void)argv;
  machine.halted = 4;
  return report("quit", 0);
}

void commands_register(void) {
  register_cmd("help", cmd_help);
  register_cmd("regs", cmd_regs);
  register_cmd("step", cmd_step);
  register_cmd("run", cmd_run);
  register_cmd("reset", cmd_reset);
  register_cmd("peek", cmd_peek);
  register_cmd("poke", cmd_poke);
  register_cmd("dump", cmd_dump);
  register_cmd("fill", cmd_fill);
  register_cmd("copy", cmd_copy);
  register_cmd("find", cmd_find);
  register_cmd("crc", cmd_crc);
  register_cmd("watch", cmd_watch);
  register_cmd("unwatch", cmd_unwatch);
  register_cmd("trace", cmd_trace);
  register_cmd("untrace", cmd_untrace);
  register_cmd("irq", cmd_irq);
  register_cmd("nmi", cmd_nmi);
  register_cmd("halt", cmd_halt);
  register_cmd("resume", cmd_resume);
  register_cmd("push", cmd_push);
  register_cmd("pop", cmd_pop);
  register_cmd("sp", cmd_sp);
  register_cmd("pc", cmd_pc);
  register_cmd("flags", cmd_flags);
  register_cmd("disasm", cmd_disasm);
  register_cmd("load", cmd_load);
  register_cmd("save", cmd_save);
  register_cmd("bank", cmd_bank);
  register_cmd("map", cmd_map);
  register_cmd("unmap", cmd_unmap);
  register_cmd("stats", cmd_stats);
  register_cmd("clock", cmd_clock);
  register_cmd("sleep", cmd_sleep);
  register_cmd("echo", cmd_echo);
  register_cmd("calc", cmd_calc);
  register_cmd("hex", cmd_hex);
  register_cmd("dec", cmd_dec);
  register_cmd("bits", cmd_bits);
  register_cmd("rand", cmd_rand);
  register_cmd("sort", cmd_sort);
  register_cmd("uniq", cmd_uniq);
  register_cmd("time", cmd_time);
  register_cmd("ver", cmd_ver);
  register_cmd("quit", cmd_quit);
}
