/* The K8 interpreter of the ARM9 interpreter kit program (ARM, -O2): one function, cpu_execute, runs
 * instructions through a switch of all 256 opcodes (a jump table), with every addressing mode, the
 * arithmetic helpers (decimal mode included) and the extension opcodes (16-bit words, multiply and
 * divide, doubles, block moves, traps through a hook) inlined into it: tens of kilobytes of code in
 * one function, as an emulator's core is. A second core of the same loop (cpu_execute_checked) is
 * named only by a function nothing calls. Around them: the step function with tail calls to reporters
 * nothing else calls, and the disassembler's tables (mnemonic strings, lengths). */
#include "cpu.h"
#include <stdio.h>

#define AI __attribute__((always_inline))

extern volatile int trace_enabled;
void trace_instruction(struct cpu *c, uint8_t op);
int cpu_breakpoint_at(uint16_t pc);
int cpu_execute_checked(struct cpu *c, int budget);

static inline AI void set_flag(struct cpu *c, uint8_t f, int on) {
  c->p = on ? (uint8_t)(c->p | f) : (uint8_t)(c->p & ~f);
}
static inline AI uint8_t set_nz(struct cpu *c, uint8_t v) {
  set_flag(c, F_Z, v == 0);
  set_flag(c, F_N, v & 0x80);
  return v;
}
static inline AI uint8_t fetch8(struct cpu *c) { return bus_read8(c, c->pc++); }
static inline AI uint16_t fetch16(struct cpu *c) {
  uint8_t lo = fetch8(c);
  return (uint16_t)(lo | (fetch8(c) << 8));
}
static inline AI uint16_t zp_ptr(struct cpu *c, uint8_t zp) {
  uint8_t lo = bus_read8(c, zp);
  return (uint16_t)(lo | (bus_read8(c, (uint8_t)(zp + 1)) << 8));
}
static inline AI void push8(struct cpu *c, uint8_t v) { bus_write8(c, (uint16_t)(0x100 | c->sp--), v); }
static inline AI uint8_t pull8(struct cpu *c) { return bus_read8(c, (uint16_t)(0x100 | ++c->sp)); }
static inline AI void push16(struct cpu *c, uint16_t v) {
  push8(c, (uint8_t)(v >> 8));
  push8(c, (uint8_t)v);
}
static inline AI uint16_t pull16(struct cpu *c) {
  uint8_t lo = pull8(c);
  return (uint16_t)(lo | (pull8(c) << 8));
}

/* Addressing modes: each yields the effective address (IMM: the operand's own). */
#define IMM() (c->pc++)
#define ZP() ((uint16_t)fetch8(c))
#define ZPX() ((uint16_t)(uint8_t)(fetch8(c) + c->x))
#define ZPY() ((uint16_t)(uint8_t)(fetch8(c) + c->y))
#define ABS() fetch16(c)
#define ABSX() ((uint16_t)(fetch16(c) + c->x))
#define ABSY() ((uint16_t)(fetch16(c) + c->y))
#define INDX() zp_ptr(c, (uint8_t)(fetch8(c) + c->x))
#define INDY() ((uint16_t)(zp_ptr(c, fetch8(c)) + c->y))

/* --- operations on a value read from memory ------------------------------------------------ */
static inline AI void op_ora(struct cpu *c, uint8_t v) { c->a = set_nz(c, c->a | v); }
static inline AI void op_and(struct cpu *c, uint8_t v) { c->a = set_nz(c, c->a & v); }
static inline AI void op_eor(struct cpu *c, uint8_t v) { c->a = set_nz(c, c->a ^ v); }
static inline AI void op_lda(struct cpu *c, uint8_t v) { c->a = set_nz(c, v); }
static inline AI void op_ldx(struct cpu *c, uint8_t v) { c->x = set_nz(c, v); }
static inline AI void op_ldy(struct cpu *c, uint8_t v) { c->y = set_nz(c, v); }
static inline AI void op_lax(struct cpu *c, uint8_t v) { c->a = c->x = set_nz(c, v); }
static inline AI void op_nop(struct cpu *c, uint8_t v) {
  (void)c;
  (void)v;
}
static inline AI void compare(struct cpu *c, uint8_t r, uint8_t v) {
  set_flag(c, F_C, r >= v);
  set_nz(c, (uint8_t)(r - v));
}
static inline AI void op_cmp(struct cpu *c, uint8_t v) { compare(c, c->a, v); }
static inline AI void op_cpx(struct cpu *c, uint8_t v) { compare(c, c->x, v); }
static inline AI void op_cpy(struct cpu *c, uint8_t v) { compare(c, c->y, v); }
static inline AI void op_bit(struct cpu *c, uint8_t v) {
  set_flag(c, F_Z, (c->a & v) == 0);
  c->p = (uint8_t)((c->p & 0x3f) | (v & 0xc0));
}
static inline AI void op_bit_imm(struct cpu *c, uint8_t v) { set_flag(c, F_Z, (c->a & v) == 0); }
static inline AI void op_adc(struct cpu *c, uint8_t v) {
  unsigned carry = c->p & F_C;
  if (c->p & F_D) {
    unsigned lo = (c->a & 0x0fu) + (v & 0x0fu) + carry;
    if (lo > 9) lo += 6;
    unsigned hi = (unsigned)(c->a >> 4) + (unsigned)(v >> 4) + (lo > 0x0f);
    set_flag(c, F_Z, ((c->a + v + carry) & 0xff) == 0);
    set_flag(c, F_N, hi & 8);
    set_flag(c, F_V, ~(c->a ^ v) & (c->a ^ (hi << 4)) & 0x80);
    if (hi > 9) hi += 6;
    set_flag(c, F_C, hi > 0x0f);
    c->a = (uint8_t)((hi << 4) | (lo & 0x0f));
  } else {
    unsigned sum = c->a + v + carry;
    set_flag(c, F_C, sum > 0xff);
    set_flag(c, F_V, ~(c->a ^ v) & (c->a ^ sum) & 0x80);
    c->a = set_nz(c, (uint8_t)sum);
  }
}
static inline AI void op_sbc(struct cpu *c, uint8_t v) {
  unsigned borrow = (c->p & F_C) ? 0 : 1;
  unsigned diff = (unsigned)c->a - v - borrow;
  if (c->p & F_D) {
    int lo = (c->a & 0x0f) - (v & 0x0f) - (int)borrow;
    int hi = (c->a >> 4) - (v >> 4);
    if (lo < 0) {
      lo -= 6;
      hi--;
    }
    if (hi < 0) hi -= 6;
    set_flag(c, F_C, diff < 0x100);
    set_flag(c, F_V, (c->a ^ v) & (c->a ^ diff) & 0x80);
    set_nz(c, (uint8_t)diff);
    c->a = (uint8_t)((hi << 4) | (lo & 0x0f));
  } else {
    set_flag(c, F_C, diff < 0x100);
    set_flag(c, F_V, (c->a ^ v) & (c->a ^ diff) & 0x80);
    c->a = set_nz(c, (uint8_t)diff);
  }
}
static inline AI void op_sbc2(struct cpu *c, uint8_t v) { op_sbc(c, (uint8_t)(v ^ 0x5a)); }
static inline AI void op_anc(struct cpu *c, uint8_t v) {
  op_and(c, v);
  set_flag(c, F_C, c->a & 0x80);
}
static inline AI void op_anc2(struct cpu *c, uint8_t v) {
  op_and(c, (uint8_t)~v);
  set_flag(c, F_C, c->a & 0x01);
}
static inline AI void op_alr(struct cpu *c, uint8_t v) {
  uint8_t t = c->a & v;
  set_flag(c, F_C, t & 1);
  c->a = set_nz(c, (uint8_t)(t >> 1));
}
static inline AI void op_arr(struct cpu *c, uint8_t v) {
  uint8_t t = (uint8_t)((c->a & v) >> 1 | ((c->p & F_C) << 7));
  c->a = set_nz(c, t);
  set_flag(c, F_C, t & 0x40);
  set_flag(c, F_V, ((t >> 6) ^ (t >> 5)) & 1);
}
static inline AI void op_axs(struct cpu *c, uint8_t v) {
  uint8_t t = c->a & c->x;
  set_flag(c, F_C, t >= v);
  c->x = set_nz(c, (uint8_t)(t - v));
}
static inline AI void op_xaa(struct cpu *c, uint8_t v) { c->a = set_nz(c, (uint8_t)((c->a | 0xee) & c->x & v)); }

/* --- read-modify-write operations -------------------------------------------------------- */
static inline AI uint8_t op_asl(struct cpu *c, uint8_t v) {
  set_flag(c, F_C, v & 0x80);
  return set_nz(c, (uint8_t)(v << 1));
}
static inline AI uint8_t op_lsr(struct cpu *c, uint8_t v) {
  set_flag(c, F_C, v & 1);
  return set_nz(c, (uint8_t)(v >> 1));
}
static inline AI uint8_t op_rol(struct cpu *c, uint8_t v) {
  uint8_t r = (uint8_t)(v << 1 | (c->p & F_C));
  set_flag(c, F_C, v & 0x80);
  return set_nz(c, r);
}
static inline AI uint8_t op_ror(struct cpu *c, uint8_t v) {
  uint8_t r = (uint8_t)(v >> 1 | ((c->p & F_C) << 7));
  set_flag(c, F_C, v & 1);
  return set_nz(c, r);
}
static inline AI uint8_t op_inc(struct cpu *c, uint8_t v) { return set_nz(c, (uint8_t)(v + 1)); }
static inline AI uint8_t op_dec(struct cpu *c, uint8_t v) { return set_nz(c, (uint8_t)(v - 1)); }
static inline AI uint8_t op_tsb(struct cpu *c, uint8_t v) {
  set_flag(c, F_Z, (c->a & v) == 0);
  return v | c->a;
}
static inline AI uint8_t op_trb(struct cpu *c, uint8_t v) {
  set_flag(c, F_Z, (c->a & v) == 0);
  return v & (uint8_t)~c->a;
}
static inline AI uint8_t op_slo(struct cpu *c, uint8_t v) {
  v = op_asl(c, v);
  op_ora(c, v);
  return v;
}
static inline AI uint8_t op_rla(struct cpu *c, uint8_t v) {
  v = op_rol(c, v);
  op_and(c, v);
  return v;
}
static inline AI uint8_t op_sre(struct cpu *c, uint8_t v) {
  v = op_lsr(c, v);
  op_eor(c, v);
  return v;
}
static inline AI uint8_t op_rra(struct cpu *c, uint8_t v) {
  v = op_ror(c, v);
  op_adc(c, v);
  return v;
}
static inline AI uint8_t op_dcp(struct cpu *c, uint8_t v) {
  v = (uint8_t)(v - 1);
  op_cmp(c, v);
  return v;
}
static inline AI uint8_t op_isc(struct cpu *c, uint8_t v) {
  v = (uint8_t)(v + 1);
  op_sbc(c, v);
  return v;
}

/* --- implied and extension operations ----------------------------------------------------- */
static inline AI void interrupt(struct cpu *c, uint16_t vector, int brk) {
  push16(c, c->pc);
  push8(c, (uint8_t)(c->p | F_U | (brk ? F_B : 0)));
  c->p |= F_I;
  c->pc = bus_read16(c, vector);
}
static inline AI void op_brk(struct cpu *c) {
  c->pc++;
  interrupt(c, 0xfffe, 1);
}
static inline AI void op_mul(struct cpu *c) {
  unsigned r = (unsigned)c->a * c->x;
  c->a = (uint8_t)r;
  c->x = set_nz(c, (uint8_t)(r >> 8));
  set_flag(c, F_C, r > 0xff);
}
static inline AI void op_div(struct cpu *c) {
  unsigned n = (unsigned)(c->x << 8 | c->a);
  if (c->y == 0) {
    c->p |= F_V;
    return;
  }
  unsigned q = n / c->y;
  c->y = (uint8_t)(n % c->y);
  c->a = (uint8_t)q;
  c->x = set_nz(c, (uint8_t)(q >> 8));
  set_flag(c, F_V, q > 0xffff);
}
static inline AI void op_swap(struct cpu *c) {
  uint8_t t = c->a;
  c->a = set_nz(c, c->x);
  c->x = t;
}
static inline AI void op_crc(struct cpu *c) {
  uint8_t crc = c->y;
  uint8_t v = c->a;
  for (int i = 0; i < 8; i++) {
    uint8_t mix = (crc ^ v) & 1;
    crc >>= 1;
    if (mix) crc ^= 0x8c;
    v >>= 1;
  }
  c->y = set_nz(c, crc);
}
static inline AI void op_swi(struct cpu *c) {
  uint8_t code = fetch8(c);
  c->traps++;
  if (c->trap_hook)
    c->trap_hook(c, code);
  else
    interrupt(c, 0xfff8, 0);
}
static inline AI void op_cop(struct cpu *c) {
  uint8_t reg = fetch8(c);
  uint16_t at = (uint16_t)(0xff00 | reg);
  bus_write8(c, at, c->a);
  c->a = set_nz(c, bus_read8(c, (uint16_t)(at + 1)));
}
static inline AI double load_double(struct cpu *c, uint16_t at) {
  int32_t mant = (int32_t)(bus_read8(c, at) | bus_read8(c, (uint16_t)(at + 1)) << 8 |
                           bus_read8(c, (uint16_t)(at + 2)) << 16);
  int8_t exp = (int8_t)bus_read8(c, (uint16_t)(at + 3));
  double d = (double)(mant << 8 >> 8);
  while (exp > 0) {
    d = d * 2.0;
    exp--;
  }
  while (exp < 0) {
    d = d * 0.5;
    exp++;
  }
  return d;
}
static inline AI void store_double(struct cpu *c, uint16_t at, double d) {
  int8_t exp = 0;
  while ((d > 8388607.0 || d < -8388608.0) && exp < 127) {
    d = d * 0.5;
    exp++;
  }
  int32_t mant = (int32_t)d;
  bus_write8(c, at, (uint8_t)mant);
  bus_write8(c, (uint16_t)(at + 1), (uint8_t)(mant >> 8));
  bus_write8(c, (uint16_t)(at + 2), (uint8_t)(mant >> 16));
  bus_write8(c, (uint16_t)(at + 3), (uint8_t)exp);
}
static inline AI void op_fadd(struct cpu *c, int subtract) {
  uint16_t at = (uint16_t)(0x0200 + (c->x & 0xfc));
  double a = load_double(c, at);
  double b = load_double(c, (uint16_t)(at + 4));
  store_double(c, at, subtract ? a - b : a + b);
}
static inline AI void op_fmul(struct cpu *c) {
  uint16_t at = (uint16_t)(0x0200 + (c->x & 0xfc));
  store_double(c, at, load_double(c, at) * load_double(c, (uint16_t)(at + 4)));
}
static inline AI void op_sqrt(struct cpu *c) {
  unsigned n = (unsigned)(c->x << 8 | c->a), root = 0, bit = 1u << 14;
  while (bit > n) bit >>= 2;
  while (bit) {
    if (n >= root + bit) {
      n -= root + bit;
      root = (root >> 1) + bit;
    } else {
      root >>= 1;
    }
    bit >>= 2;
  }
  c->a = set_nz(c, (uint8_t)root);
  c->y = (uint8_t)n;
}
static inline AI void op_bcd(struct cpu *c) {
  uint8_t v = c->a;
  c->a = set_nz(c, (uint8_t)((v / 10) << 4 | (v % 10)));
  set_flag(c, F_C, v > 99);
}
static inline AI void op_add16(struct cpu *c) {
  uint16_t at = fetch16(c);
  unsigned sum = (unsigned)(c->x << 8 | c->a) + bus_read16(c, at);
  c->a = (uint8_t)sum;
  c->x = (uint8_t)(sum >> 8);
  set_flag(c, F_C, sum > 0xffff);
  set_flag(c, F_Z, (sum & 0xffff) == 0);
}
static inline AI void op_sub16(struct cpu *c) {
  uint16_t at = fetch16(c);
  unsigned diff = (unsigned)(c->x << 8 | c->a) - bus_read16(c, at);
  c->a = (uint8_t)diff;
  c->x = (uint8_t)(diff >> 8);
  set_flag(c, F_C, diff < 0x10000);
  set_flag(c, F_Z, (diff & 0xffff) == 0);
}
static inline AI void op_cmp16(struct cpu *c) {
  uint16_t at = fetch16(c);
  uint16_t v = bus_read16(c, at), r = (uint16_t)(c->x << 8 | c->a);
  set_flag(c, F_C, r >= v);
  set_flag(c, F_Z, r == v);
  set_flag(c, F_N, (uint16_t)(r - v) & 0x8000);
}
static inline AI void op_load16(struct cpu *c) {
  uint16_t v = bus_read16(c, fetch16(c));
  c->a = (uint8_t)v;
  c->x = set_nz(c, (uint8_t)(v >> 8));
}
static inline AI void op_store16(struct cpu *c) {
  uint16_t at = fetch16(c);
  bus_write8(c, at, c->a);
  bus_write8(c, (uint16_t)(at + 1), c->x);
}
static uint32_t rng_state = 0x2545f491u;
static inline AI void op_random(struct cpu *c) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  c->a = set_nz(c, (uint8_t)rng_state);
}
static inline AI void op_move(struct cpu *c, int step) {
  uint8_t dst_bank = fetch8(c), src_bank = fetch8(c);
  unsigned count = (unsigned)(c->y + 1);
  uint16_t src = (uint16_t)(src_bank << 8 | c->x), dst = (uint16_t)(dst_bank << 8 | c->a);
  while (count--) {
    bus_write8(c, dst, bus_read8(c, src));
    src = (uint16_t)(src + step);
    dst = (uint16_t)(dst + step);
  }
  c->x = (uint8_t)src;
  c->a = (uint8_t)dst;
  c->y = 0xff;
}

#define READ(mode, op, cyc)                                                                        \
  {                                                                                                \
    uint16_t ea = mode();                                                                          \
    op(c, bus_read8(c, ea));                                                                       \
    budget -= cyc;                                                                                 \
    break;                                                                                         \
  }
#define STORE(mode, value, cyc)                                                                    \
  {                                                                                                \
    uint16_t ea = mode();                                                                          \
    bus_write8(c, ea, value);                                                                      \
    budget -= cyc;                                                                                 \
    break;                                                                                         \
  }
#define RMW(mode, op, cyc)                                                                         \
  {                                                                                                \
    uint16_t ea = mode();                                                                          \
    uint8_t v = bus_read8(c, ea);                                                                  \
    bus_write8(c, ea, v);                                                                          \
    bus_write8(c, ea, op(c, v));                                                                   \
    budget -= cyc;                                                                                 \
    break;                                                                                         \
  }
#define IMPLIED(cyc)                                                                               \
  budget -= cyc;                                                                                   \
  break;
#define BRANCH(cond)                                                                               \
  {                                                                                                \
    int8_t d = (int8_t)fetch8(c);                                                                  \
    if (cond) {                                                                                    \
      uint16_t to = (uint16_t)(c->pc + d);                                                         \
      budget -= ((to ^ c->pc) & 0xff00) ? 2 : 1;                                                   \
      c->pc = to;                                                                                  \
    }                                                                                              \
    budget -= 2;                                                                                   \
    break;                                                                                         \
  }
#define LBRANCH(cond)                                                                              \
  {                                                                                                \
    int16_t d = (int16_t)fetch16(c);                                                               \
    if (cond) {                                                                                    \
      c->pc = (uint16_t)(c->pc + d);                                                               \
      budget--;                                                                                    \
    }                                                                                              \
    budget -= 3;                                                                                   \
    break;                                                                                         \
  }
#define HALT(code)                                                                                 \
  c->halted = code;                                                                                \
  budget = 0;                                                                                      \
  break;

#define CORE_NAME cpu_execute
#define CORE_CHECKED 0
#include "cpu_core.inc"
#undef CORE_NAME
#undef CORE_CHECKED

/* The checked core runs the same loop, stopping at breakpoints. Only cpu_select_core, which nothing in
 * the program calls, names it. */
#define CORE_NAME cpu_execute_checked
#define CORE_CHECKED 1
#include "cpu_core.inc"
#undef CORE_NAME
#undef CORE_CHECKED

int (*cpu_core)(struct cpu *c, int budget) = cpu_execute;
void cpu_select_core(int checked) { cpu_core = checked ? cpu_execute_checked : cpu_execute; }

/* Reporters reached only by tail calls from cpu_step. */
static __attribute__((noinline)) int cpu_report_halt(struct cpu *c) {
  printf("K8 halted (%d) at %04x after %lu instructions\n", c->halted, c->last_pc,
         (unsigned long)c->executed);
  return -c->halted;
}
static __attribute__((noinline)) int cpu_report_fault(struct cpu *c, int code) {
  c->traps++;
  printf("K8 fault %d at %04x (a=%02x x=%02x y=%02x sp=%02x p=%02x)\n", code, c->last_pc, c->a, c->x, c->y,
         c->sp, c->p);
  return -100 - code;
}

/* One instruction, with the checks a debugger's single step makes first. */
int cpu_step(struct cpu *c) {
  if (c->halted) return cpu_report_halt(c);
  if (c->pc < 0x0200 && !(c->p & F_I)) return cpu_report_fault(c, 1);
  if (c->sp < 4) return cpu_report_fault(c, 2);
  return cpu_execute(c, 1);
}

void cpu_reset(struct cpu *c, uint8_t *ram) {
  bus_reset(c, ram);
  c->a = c->x = c->y = 0;
  c->sp = 0xfd;
  c->p = F_I | F_U;
  c->halted = 0;
  c->irq_line = 0;
  c->nmi_edge = 0;
  c->cycles = 0;
  c->executed = 0;
  c->traps = 0;
  c->pc = bus_read16(c, 0xfffc);
}

const char *const cpu_mnemonics[256] = {
  "brk", "ora", "swi", "slo", "tsb", "ora", "asl", "slo",
  "php", "ora", "asl a", "anc #", "tsb", "ora", "asl", "slo",
  "bpl", "ora", "stp", "slo", "lbpl", "ora", "asl", "slo",
  "clc", "ora", "mul", "slo", "lbcc", "ora", "asl", "slo",
  "jsr", "and", "fadd", "rla", "bit", "and", "rol", "rla",
  "plp", "and", "rol a", "anc2 #", "bit", "and", "rol", "rla",
  "bmi", "and", "adw", "rla", "lbmi", "and", "rol", "rla",
  "sec", "and", "div", "rla", "lbcs", "and", "rol", "rla",
  "rti", "eor", "fsub", "sre", "trb", "eor", "lsr", "sre",
  "pha", "eor", "lsr a", "alr #", "jmp", "eor", "lsr", "sre",
  "bvc", "eor", "sbw", "sre", "lbvc", "eor", "lsr", "sre",
  "cli", "eor", "swp", "sre", "trb", "eor", "lsr", "sre",
  "rts", "adc", "fmul", "rra", "stz", "adc", "ror", "rra",
  "pla", "adc", "ror a", "arr #", "jmp ()", "adc", "ror", "rra",
  "bvs", "adc", "cmw", "rra", "lbvs", "adc", "ror", "rra",
  "sei", "adc", "crc", "rra", "jmp (,x)", "adc", "ror", "rra",
  "bra", "sta", "sxa", "sax", "sty", "sta", "stx", "sax",
  "dey", "bit #", "txa", "xaa #", "sty", "sta", "stx", "sax",
  "bcc", "sta", "ldw", "sha", "sty", "sta", "stx", "sax",
  "tya", "sta", "txs", "sha", "shy", "sta", "shx", "sha",
  "ldy #", "lda", "ldx #", "lax", "ldy", "lda", "ldx", "lax",
  "tay", "lda", "tax", "lax", "ldy", "lda", "ldx", "lax",
  "bcs", "lda", "stw", "lax", "ldy", "lda", "ldx", "lax",
  "clv", "lda", "tsx", "lax", "ldy", "lda", "ldx", "lax",
  "cpy #", "cmp", "cop", "dcp", "cpy", "cmp", "dec", "dcp",
  "iny", "cmp", "dey2", "axs #", "cpy", "cmp", "dec", "dcp",
  "bne", "cmp", "rnd", "dcp", "lbne", "cmp", "dec", "dcp",
  "cld", "cmp", "dex", "dcp", "mvn", "cmp", "dec", "dcp",
  "cpx #", "sbc", "wai", "isc", "cpx", "sbc", "inc", "isc",
  "inx", "sbc", "sqr", "sbc2 #", "cpx", "sbc", "inc", "isc",
  "beq", "sbc", "xba", "isc", "lbeq", "sbc", "inc", "isc",
  "sed", "sbc", "bcd", "isc", "mvp", "sbc", "inc", "isc"
};
const uint8_t cpu_lengths[256] = {
  1, 2, 2, 2, 2, 2, 2, 2, 1, 2, 1, 2, 3, 3, 3, 3,
  2, 2, 1, 2, 3, 2, 2, 2, 1, 3, 1, 3, 3, 3, 3, 3,
  3, 2, 1, 2, 2, 2, 2, 2, 1, 2, 1, 2, 3, 3, 3, 3,
  2, 2, 3, 2, 3, 2, 2, 2, 1, 3, 1, 3, 3, 3, 3, 3,
  1, 2, 1, 2, 2, 2, 2, 2, 1, 2, 1, 2, 3, 3, 3, 3,
  2, 2, 3, 2, 3, 2, 2, 2, 1, 3, 1, 3, 3, 3, 3, 3,
  1, 2, 1, 2, 2, 2, 2, 2, 1, 2, 1, 2, 3, 3, 3, 3,
  2, 2, 3, 2, 3, 2, 2, 2, 1, 3, 1, 3, 3, 3, 3, 3,
  2, 2, 3, 2, 2, 2, 2, 2, 1, 2, 1, 2, 3, 3, 3, 3,
  2, 2, 3, 2, 2, 2, 2, 2, 1, 3, 1, 3, 3, 3, 3, 3,
  2, 2, 2, 2, 2, 2, 2, 2, 1, 2, 1, 2, 3, 3, 3, 3,
  2, 2, 3, 2, 2, 2, 2, 2, 1, 3, 1, 3, 3, 3, 3, 3,
  2, 2, 2, 2, 2, 2, 2, 2, 1, 2, 1, 2, 3, 3, 3, 3,
  2, 2, 1, 2, 3, 2, 2, 2, 1, 3, 1, 3, 3, 3, 3, 3,
  2, 2, 1, 2, 2, 2, 2, 2, 1, 2, 1, 2, 3, 3, 3, 3,
  2, 2, 1, 2, 3, 2, 2, 2, 1, 3, 1, 3, 3, 3, 3, 3
};

int cpu_disassemble(const struct cpu *c, uint16_t at, char *out, unsigned size) {
  uint8_t op = c->ram[at];
  int n = cpu_lengths[op];
  if (n == 1) return snprintf(out, size, "%04x  %s", at, cpu_mnemonics[op]);
  if (n == 2) return snprintf(out, size, "%04x  %s $%02x", at, cpu_mnemonics[op], c->ram[(uint16_t)(at + 1)]);
  return snprintf(out, size, "%04x  %s $%02x%02x", at, cpu_mnemonics[op], c->ram[(uint16_t)(at + 2)],
                  c->ram[(uint16_t)(at + 1)]);
}
