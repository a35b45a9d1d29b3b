/* The kit program's small system layer, shaped like libnds + libsysbase: interrupts, a FIFO-style
 * message channel with registered handlers, a device table that newlib's system calls dispatch
 * through, and the exception hook. */
#ifndef KIT_SYSTEM_H
#define KIT_SYSTEM_H
#include <stddef.h>
#include <stdint.h>
#include <sys/reent.h>

typedef void (*irq_handler)(void);
typedef void (*fifo_handler)(uint32_t value, void *user);

#define IRQ_VBLANK (1u << 0)
#define IRQ_HBLANK (1u << 1)
#define IRQ_TIMER0 (1u << 3)
#define IRQ_TIMER1 (1u << 4)
#define IRQ_FIFO (1u << 18)

struct irq_entry {
  uint32_t mask;
  irq_handler handler;
};
extern struct irq_entry irq_table[8];
extern volatile uint32_t irq_flags_seen;
extern volatile uint32_t exception_code;

void irq_init(void);
void irq_set(uint32_t mask, irq_handler handler);
void irq_clear(uint32_t mask);
void irq_enable(uint32_t mask);

void fifo_set_handler(int channel, fifo_handler handler, void *user);
void fifo_deliver(int channel, uint32_t value);

typedef struct devoptab {
  const char *name;
  size_t struct_size;
  int (*open_r)(struct _reent *r, void *file, const char *path, int flags, int mode);
  int (*close_r)(struct _reent *r, void *fd);
  long (*write_r)(struct _reent *r, void *fd, const char *ptr, size_t len);
  long (*read_r)(struct _reent *r, void *fd, char *ptr, size_t len);
} devoptab_t;
extern const devoptab_t *devoptab_list[4];

void guru_meditation(void);
void install_exception_handler(void (*handler)(void));
void console_flush(void);
extern char console_buffer[1024];
extern unsigned console_length;
uint32_t system_ticks(void);
void wait_vblank(void);
#endif
