/* The K8 bus of the ARM9 interpreter kit program (ARM): 64 KiB of RAM with I/O pages whose handlers
 * are registered at run time (reads and writes of such a page go through a function pointer, as a
 * tail call), a write watch, and the trace hook. Several functions start with a test of a global
 * before their frame is pushed (GCC's shrink-wrapping: a literal load is the first instruction). */
#include "cpu.h"
#include <stdio.h>
#include <string.h>

static uint8_t (*io_read[256])(uint16_t);
static void (*io_write[256])(uint16_t, uint8_t);
static uint8_t *bus_ram;
volatile int trace_enabled;
volatile int watch_enabled;
static uint16_t watch_address;
static unsigned watch_hits;
static unsigned trace_count;
static char trace_line[64];

uint8_t bus_read8(struct cpu *c, uint16_t addr) {
  uint8_t (*r)(uint16_t) = io_read[addr >> 8];
  if (r) return r(addr);
  return c->ram[addr];
}

static __attribute__((noinline)) void watch_report(uint16_t addr, uint8_t value) {
  watch_hits++;
  printf("watch %04x <- %02x (%u)\n", addr, value, watch_hits);
}

/* A write watch: tested first thing, the frame only when it is on. */
void bus_watch_check(uint16_t addr, uint8_t value) {
  if (!watch_enabled) return;
  if (addr == watch_address) watch_report(addr, value);
}

void bus_write8(struct cpu *c, uint16_t addr, uint8_t value) {
  void (*w)(uint16_t, uint8_t) = io_write[addr >> 8];
  if (watch_enabled) bus_watch_check(addr, value);
  if (w) {
    w(addr, value);
    return;
  }
  c->ram[addr] = value;
}

uint16_t bus_read16(struct cpu *c, uint16_t addr) {
  uint8_t lo = bus_read8(c, addr);
  return (uint16_t)(lo | bus_read8(c, (uint16_t)(addr + 1)) << 8);
}

void bus_map_io(int page, uint8_t (*read)(uint16_t), void (*write)(uint16_t, uint8_t)) {
  if (page < 0 || page > 255) return;
  io_read[page] = read;
  io_write[page] = write;
}

void bus_reset(struct cpu *c, uint8_t *ram) {
  bus_ram = ram;
  c->ram = ram;
  memset(io_read, 0, sizeof io_read);
  memset(io_write, 0, sizeof io_write);
  watch_hits = 0;
}

void bus_set_watch(uint16_t addr) {
  watch_address = addr;
  watch_enabled = 1;
}

/* Traced instructions: formatted only when tracing is on. */
void trace_instruction(struct cpu *c, uint8_t op) {
  if (!trace_enabled) return;
  trace_count++;
  cpu_disassemble(c, c->last_pc, trace_line, sizeof trace_line);
  if ((trace_count & 15) == 0) puts(trace_line);
  (void)op;
}

/* A checksum of a RAM range, refused when no RAM is attached yet. */
unsigned bus_checksum(uint16_t from, uint16_t to) {
  if (!bus_ram) return 0;
  unsigned sum = 0;
  for (unsigned a = from; a < to; a++) sum = (sum << 1 | sum >> 31) ^ bus_ram[a];
  printf("checksum %04x-%04x: %08x\n", from, to, sum);
  return sum;
}
