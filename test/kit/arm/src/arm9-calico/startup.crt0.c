/* The C part of the calico-style crt0 (ARM, runs in main RAM at its .crt0 address): it copies the
 * load-list fields out of the bootstub's module header first (the copy of .main overwrites the
 * bootstub), quiets DMA and timers, walks the load list — each record {VMA start, VMA end of data,
 * VMA end of zero-fill} takes its data from the next bytes of the source, then clears the rest —
 * makes the copied code visible, resets the interrupt controller and runs the static constructors.
 * The bootstub left LR at crt0_enter_main, where this returns. */
#include <stdint.h>

struct load_record {
  uintptr_t start;
  uintptr_t end;
  uintptr_t bss_end;
};
struct module_header {
  uint32_t magic;
  uintptr_t lma;
  const struct load_record *start;
  const struct load_record *end;
};

void crt0_copy32(uintptr_t dst, uintptr_t src, uintptr_t size);
void crt0_fill32(uintptr_t dst, uint32_t value, uintptr_t size);
void crt0_sync_caches(void);
void __libc_init_array(void);

#define REG16(a) (*(volatile uint16_t *)(a))
#define REG32(a) (*(volatile uint32_t *)(a))

__attribute__((noinline)) void crt0_process_load_list(uintptr_t lma, const struct load_record *r,
                                                       const struct load_record *end) {
  for (; r != end; r++) {
    uintptr_t size = r->end - r->start;
    uintptr_t bss = r->bss_end - r->end;
    if (size != 0) {
      crt0_copy32(r->start, lma, size);
      lma += size;
    }
    if (bss != 0) crt0_fill32(r->end, 0, bss);
  }
}

void crt0_startup(const struct module_header *hdr) {
  uintptr_t lma = hdr->lma;
  const struct load_record *start = hdr->start;
  const struct load_record *end = hdr->end;
  for (unsigned i = 0; i < 4; i++) {
    REG16(0x040000ba + 12 * i) = 0; /* DMAxCNT_H */
    REG16(0x04000102 + 4 * i) = 0;  /* TMxCNT_H */
  }
  REG32(0x04000204) |= 0x8880; /* EXMEMCNT: slots and main RAM priority to the ARM7 */
  crt0_process_load_list(lma, start, end);
  crt0_sync_caches();
  REG32(0x04000210) = 0;  /* IE */
  REG32(0x04000214) = ~0u; /* IF */
  __libc_init_array();
}
