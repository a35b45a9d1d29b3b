@ Hand-written part of the calico-style crt0 (runs in main RAM at its .crt0 address): word copy and
@ word fill for the load list, the cache maintenance after it, and the routine the bootstub set as
@ crt0_startup's return address, which enters main with LR = exit.
        .syntax unified
        .arch armv5te
        .section .crt0, "ax", %progbits
        .arm

@ crt0_copy32(dst = r0, src = r1, size = r2): whole words; size is a multiple of 4, maybe 0.
        .global crt0_copy32
        .type crt0_copy32, %function
crt0_copy32:
        subs    r2, r2, #4
        ldrcs   r3, [r1], #4
        strcs   r3, [r0], #4
        bhi     crt0_copy32
        bx      lr
        .size crt0_copy32, . - crt0_copy32

@ crt0_fill32(dst = r0, value = r1, size = r2)
        .global crt0_fill32
        .type crt0_fill32, %function
crt0_fill32:
        subs    r2, r2, #4
        strcs   r1, [r0], #4
        bhi     crt0_fill32
        bx      lr
        .size crt0_fill32, . - crt0_fill32

@ Clean and invalidate the data cache line by line (4 segments x 64 lines), drain the write buffer,
@ invalidate the instruction cache: the copied code is visible to instruction fetches after this.
        .global crt0_sync_caches
        .type crt0_sync_caches, %function
crt0_sync_caches:
        mov     r1, #0
1:      mov     r0, #0
2:      orr     r2, r1, r0
        mcr     p15, 0, r2, c7, c14, 2
        add     r0, r0, #0x20
        cmp     r0, #0x800
        bne     2b
        adds    r1, r1, #0x40000000
        bne     1b
        mcr     p15, 0, r1, c7, c10, 4
        mcr     p15, 0, r1, c7, c5, 0
        bx      lr
        .size crt0_sync_caches, . - crt0_sync_caches

        .global crt0_enter_main
        .type crt0_enter_main, %function
crt0_enter_main:
        mov     r0, #0                  @ argc
        mov     r1, #0                  @ argv
        ldr     r3, =main
        ldr     lr, =exit
        bx      r3
        .size crt0_enter_main, . - crt0_enter_main
        .ltorg
