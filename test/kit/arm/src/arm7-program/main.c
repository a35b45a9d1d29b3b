/* The realistic ARM7 kit program (Thumb, ARMv4T): interrupt handlers installed in the BIOS IRQ slot and
 * a handler table, a message switch of 12 commands, sound channels with per-channel mixers called
 * through pointers (_call_via_rN on ARMv4T Thumb), a size-optimised switch through libgcc's
 * __gnu_thumb1_case helpers, an ARM-mode mixer, C library calls, tail calls and dead code. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REG32(a) (*(volatile uint32_t *)(a))
#define REG_IME REG32(0x04000208)
#define REG_IE REG32(0x04000210)
#define REG_IF REG32(0x04000214)
#define REG_VCOUNT (*(volatile uint16_t *)0x04000006)
#define BIOS_IRQ_SLOT (*(void (*volatile *)(void))0x0380fffc)

typedef void (*handler_fn)(void);
static handler_fn irq_handlers[8];
static volatile uint32_t irq_count;
volatile uint32_t arm7_status;
volatile uint32_t arm7_mailbox[4];

void arm7_irq_dispatch(void) {
  uint32_t pending = REG_IE & REG_IF;
  REG_IF = pending;
  irq_count++;
  for (int i = 0; i < 8; i++) {
    if ((pending & (1u << i)) && irq_handlers[i]) irq_handlers[i]();
  }
}

void set_irq_handler(int bit, handler_fn fn) {
  if (bit >= 0 && bit < 8) irq_handlers[bit] = fn;
  REG_IE |= 1u << bit;
}

static void vblank_handler(void) { arm7_status++; }
static void timer_handler(void) { arm7_mailbox[3]++; }

/* Sound channels: each has a mixer function chosen at run time. */
struct channel {
  int volume, pan, position, step;
  int (*mix)(struct channel *c, int sample);
};
static struct channel channels[4];
static int mix_silent(struct channel *c, int s) {
  (void)c;
  (void)s;
  return 0;
}
static int mix_linear(struct channel *c, int s) { return (s * c->volume) >> 7; }
static int mix_panned(struct channel *c, int s) { return (s * c->volume * (127 - c->pan)) >> 14; }
int mix_arm(struct channel *c, int s); /* ARM mode, in mixer.s */
static int (*const mixers[])(struct channel *, int) = {mix_silent, mix_linear, mix_panned, mix_arm};

int mix_all(int sample) {
  int acc = 0;
  for (int i = 0; i < 4; i++) {
    if (channels[i].mix) acc += channels[i].mix(&channels[i], sample);
    channels[i].position += channels[i].step;
  }
  return acc;
}

int handle_message(uint32_t msg);

static int process(uint32_t msg) { return handle_message(msg); } /* tail call */

int handle_message(uint32_t msg) {
  uint32_t arg = msg & 0xffff;
  switch (msg >> 16) {
  case 0: return 0;
  case 1: channels[arg & 3].volume = (int)(arg >> 2); return 1;
  case 2: channels[arg & 3].pan = (int)(arg >> 2); return 2;
  case 3: channels[arg & 3].mix = mixers[(arg >> 2) & 3]; return 3;
  case 4: channels[arg & 3].step = (int)(arg >> 2); return 4;
  case 5: return mix_all((int)arg);
  case 6: arm7_mailbox[0] = arg; return 6;
  case 7: arm7_mailbox[1] = arg * 3; return 7;
  case 8: set_irq_handler((int)(arg & 7), (arg & 8) ? timer_handler : vblank_handler); return 8;
  case 9: return (int)strlen((const char *)0x037f8000 + (arg & 0xff));
  case 10: return abs((int)(int16_t)arg);
  case 11: return (int)irq_count;
  default: return -1;
  }
}

int pack_command(int op, int value); /* -Os, in pack.c */

/* Never called. */
int arm7_unused_reset(void) {
  memset(channels, 0, sizeof channels);
  return sprintf((char *)arm7_mailbox, "%d", (int)irq_count);
}

int main(void) {
  REG_IME = 0;
  BIOS_IRQ_SLOT = arm7_irq_dispatch;
  set_irq_handler(0, vblank_handler);
  set_irq_handler(3, timer_handler);
  REG_IME = 1;
  for (int i = 0; i < 4; i++) {
    channels[i].volume = 64;
    channels[i].mix = mixers[i];
  }
  char text[24];
  snprintf(text, sizeof text, "arm7 %d", (int)sizeof channels);
  arm7_mailbox[2] = (uint32_t)strlen(text);
  for (uint32_t frame = 0;; frame++) {
    arm7_status = (uint32_t)process((frame % 13) << 16 | (frame & 0xff)) + (uint32_t)pack_command((int)(frame % 12), (int)frame);
    while (REG_VCOUNT >= 192) {
    }
    while (REG_VCOUNT < 192) {
    }
  }
}
