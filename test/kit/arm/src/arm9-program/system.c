/* System layer of the ARM9 kit program (compiled as ARM): interrupt table and installation, FIFO
 * handlers, newlib system calls dispatched through a device table, the exception hook. */
#include "system.h"
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#define REG32(a) (*(volatile uint32_t *)(a))
#define REG_IME REG32(0x04000208)
#define REG_IE REG32(0x04000210)
#define REG_IF REG32(0x04000214)
#define REG_DISPSTAT (*(volatile uint16_t *)0x04000004)
#define REG_VCOUNT (*(volatile uint16_t *)0x04000006)
/* The BIOS jumps to the word at DTCM + 0x3FFC on an interrupt, and to 0x02FFFD9C on an exception. */
#define BIOS_IRQ_SLOT (*(void (*volatile *)(void))0x0b003ffc)
#define BIOS_EXCEPTION_SLOT (*(void (*volatile *)(void))0x02fffd9c)

extern void irq_dispatch(void);
extern void exc_abort(void);

struct irq_entry irq_table[8];
volatile uint32_t irq_flags_seen;
volatile uint32_t exception_code;
static volatile uint32_t ticks;

static void tick_handler(void) { ticks++; }

void irq_init(void) {
  REG_IME = 0;
  memset(irq_table, 0, sizeof irq_table);
  BIOS_IRQ_SLOT = irq_dispatch;
  REG_IE = 0;
  REG_IF = ~0u;
  irq_set(IRQ_TIMER1, tick_handler);
  REG_IME = 1;
}

void irq_set(uint32_t mask, irq_handler handler) {
  int i;
  for (i = 0; i < 7; i++) {
    if (irq_table[i].mask == mask || irq_table[i].mask == 0) break;
  }
  irq_table[i].mask = mask;
  irq_table[i].handler = handler;
  REG_IE |= mask;
}

void irq_clear(uint32_t mask) {
  for (int i = 0; i < 7; i++) {
    if (irq_table[i].mask == mask) {
      irq_table[i].handler = 0;
      break;
    }
  }
  REG_IE &= ~mask;
}

void irq_enable(uint32_t mask) {
  if (mask & IRQ_VBLANK) REG_DISPSTAT |= 1 << 3;
  if (mask & IRQ_HBLANK) REG_DISPSTAT |= 1 << 4;
  REG_IE |= mask;
}

uint32_t system_ticks(void) { return ticks; }

void wait_vblank(void) {
  /* DeSmuME runs the kit without interrupts being serviced: poll the line counter instead. */
  while (REG_VCOUNT >= 192) {
  }
  while (REG_VCOUNT < 192) {
  }
}

/* FIFO-style channels: the handler table lives in BSS; handlers arrive as arguments. */
static struct {
  fifo_handler handler;
  void *user;
} fifo_handlers[16];

void fifo_set_handler(int channel, fifo_handler handler, void *user) {
  if (channel < 0 || channel >= 16) return;
  fifo_handlers[channel].handler = handler;
  fifo_handlers[channel].user = user;
}

void fifo_deliver(int channel, uint32_t value) {
  if (channel < 0 || channel >= 16 || !fifo_handlers[channel].handler) return;
  fifo_handlers[channel].handler(value, fifo_handlers[channel].user);
}

/* The console device: writes land in a buffer a debugger can read. */
char console_buffer[1024];
unsigned console_length;

static long con_write(struct _reent *r, void *fd, const char *ptr, size_t len) {
  (void)r;
  (void)fd;
  for (size_t i = 0; i < len; i++) {
    if (console_length >= sizeof console_buffer) console_length = 0;
    console_buffer[console_length++] = ptr[i];
  }
  return (long)len;
}

static long con_read(struct _reent *r, void *fd, char *ptr, size_t len) {
  (void)fd;
  (void)ptr;
  (void)len;
  r->_errno = EIO;
  return -1;
}

static int con_open(struct _reent *r, void *file, const char *path, int flags, int mode) {
  (void)r;
  (void)file;
  (void)path;
  (void)flags;
  (void)mode;
  return 0;
}

static int con_close(struct _reent *r, void *fd) {
  (void)r;
  (void)fd;
  return 0;
}

static long null_write(struct _reent *r, void *fd, const char *ptr, size_t len) {
  (void)r;
  (void)fd;
  (void)ptr;
  return (long)len;
}

static const devoptab_t dotab_console = {"con", 0, con_open, con_close, con_write, con_read};
static const devoptab_t dotab_null = {"null", 0, con_open, con_close, null_write, 0};
const devoptab_t *devoptab_list[4] = {&dotab_console, &dotab_console, &dotab_console, &dotab_null};

void console_flush(void) { console_length = 0; }

/* newlib's system calls. */
extern char end[];
static char *heap_top;

void *_sbrk(ptrdiff_t incr) {
  char *limit = (char *)0x02300000;
  if (!heap_top) heap_top = end;
  if (heap_top + incr > limit) {
    errno = ENOMEM;
    return (void *)-1;
  }
  char *old = heap_top;
  heap_top += incr;
  return old;
}

int _write(int fd, const char *ptr, int len) {
  if (fd < 0 || fd > 3 || !devoptab_list[fd]->write_r) {
    errno = EBADF;
    return -1;
  }
  return (int)devoptab_list[fd]->write_r(_REENT, 0, ptr, (size_t)len);
}

int _read(int fd, char *ptr, int len) {
  if (fd < 0 || fd > 3 || !devoptab_list[fd]->read_r) {
    errno = EBADF;
    return -1;
  }
  return (int)devoptab_list[fd]->read_r(_REENT, 0, ptr, (size_t)len);
}

int _close(int fd) {
  if (fd < 0 || fd > 3) return -1;
  return devoptab_list[fd]->close_r(_REENT, 0);
}

int _fstat(int fd, struct stat *st) {
  (void)fd;
  memset(st, 0, sizeof *st);
  st->st_mode = S_IFCHR;
  return 0;
}

int _isatty(int fd) { return fd >= 0 && fd <= 2; }
int _lseek(int fd, int offset, int whence) {
  (void)fd;
  (void)offset;
  (void)whence;
  return 0;
}
int _getpid(void) { return 1; }
int _kill(int pid, int sig) {
  (void)pid;
  exception_code = 0x100u + (uint32_t)sig;
  return -1;
}

void _exit(int code) {
  exception_code = 0x200u + (uint32_t)code;
  for (;;) wait_vblank();
}

/* The exception hook: the BIOS enters it after a CPU exception. */
void guru_meditation(void) {
  static const char text[] = "guru meditation\n";
  _write(2, text, sizeof text - 1);
  for (;;) wait_vblank();
}

void install_exception_handler(void (*handler)(void)) { BIOS_EXCEPTION_SLOT = handler; }

/* The C++ runtime's random device asks for entropy: the kit has none. */
int getentropy(void *buffer, size_t length) {
  (void)buffer;
  (void)length;
  errno = ENOSYS;
  return -1;
}
