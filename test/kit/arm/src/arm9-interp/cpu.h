/* The 8-bit CPU the ARM9 interpreter kit program emulates ("K8", 6502-like: accumulator, two index
 * registers, a page-one stack, eight flags, 64 KiB through a bus with I/O hooks). */
#ifndef KIT_CPU_H
#define KIT_CPU_H
#include <stdint.h>

#define F_C 0x01
#define F_Z 0x02
#define F_I 0x04
#define F_D 0x08
#define F_B 0x10
#define F_U 0x20
#define F_V 0x40
#define F_N 0x80

struct cpu {
  uint8_t a, x, y, sp, p;
  uint8_t halted, irq_line, nmi_edge;
  uint16_t pc;
  uint16_t last_pc;
  int32_t cycles;
  uint32_t executed;
  uint32_t traps;
  uint8_t *ram;
  void (*trap_hook)(struct cpu *c, int code);
};

uint8_t bus_read8(struct cpu *c, uint16_t addr);
void bus_write8(struct cpu *c, uint16_t addr, uint8_t value);
uint16_t bus_read16(struct cpu *c, uint16_t addr);
void bus_reset(struct cpu *c, uint8_t *ram);
void bus_map_io(int page, uint8_t (*read)(uint16_t), void (*write)(uint16_t, uint8_t));

int cpu_execute(struct cpu *c, int budget);
int cpu_step(struct cpu *c);
void cpu_reset(struct cpu *c, uint8_t *ram);
int cpu_disassemble(const struct cpu *c, uint16_t at, char *out, unsigned size);
extern const char *const cpu_mnemonics[256];
extern const uint8_t cpu_lengths[256];
#endif
