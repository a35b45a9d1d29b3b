@ Start-up code of the realistic ARM9 kit program, written here in the shape devkitARM/libnds
@ programs have: the header entry is _start at 0x02000000 (ARM); it sets the mode stacks in DTCM, moves
@ DTCM to 0x0B000000 through CP15, copies the exception vectors, the ITCM code and the DTCM data from
@ their load addresses in main RAM to where they run (three calls of one copy routine with constant
@ arguments: r1 = load address, r2 = run start, r4 = run end), clears BSS, runs the static
@ constructors (__libc_init_array through a register) and enters main with LR = exit.
        .syntax unified
        .arch armv5te
        .section .text.entry, "ax", %progbits
        .arm
        .global _start
        .type _start, %function
_start:
        mov     r0, #0x04000000         @ IME = 0
        str     r0, [r0, #0x208]
        ldr     r0, =0x0b00000a         @ DTCM at 0x0B000000, 16 KiB
        mcr     p15, 0, r0, c9, c1, 0
        mov     r0, #0x20               @ ITCM at 0, 32 MiB mirror
        mcr     p15, 0, r0, c9, c1, 1
        mrc     p15, 0, r0, c1, c0, 0
        orr     r0, r0, #0x50000        @ ITCM and DTCM enable
        mcr     p15, 0, r0, c1, c0, 0
        mov     r0, #0x12               @ IRQ mode stack
        msr     cpsr_c, r0
        ldr     sp, =__sp_irq
        mov     r0, #0x13               @ supervisor mode stack
        msr     cpsr_c, r0
        ldr     sp, =__sp_svc
        mov     r0, #0x1f               @ system mode: the program runs here
        msr     cpsr_c, r0
        ldr     sp, =__sp_usr

        ldr     r1, =__vectors_lma
        ldr     r2, =__vectors_start
        ldr     r4, =__vectors_end
        bl      copy_mem_check
        ldr     r1, =__itcm_lma
        ldr     r2, =__itcm_start
        ldr     r4, =__itcm_end
        bl      copy_mem_check
        ldr     r1, =__dtcm_lma
        ldr     r2, =__dtcm_start
        ldr     r4, =__dtcm_end
        bl      copy_mem_check

        ldr     r0, =__bss_start__
        ldr     r1, =__bss_end__
        sub     r1, r1, r0
        bl      clear_mem

        ldr     r3, =__libc_init_array
        blx     r3

        mov     r0, #0                  @ argc
        mov     r1, #0                  @ argv
        ldr     r3, =main
        ldr     lr, =exit
        bx      r3

@ Word copy of [r1, r1 + (r4 - r2)) to r2; nothing to do when r4 == r2.
        .type copy_mem_check, %function
copy_mem_check:
        sub     r3, r4, r2
        mov     r0, #3
        add     r3, r3, r0
        bics    r3, r3, r0
        bxeq    lr
1:      ldmia   r1!, {r0}
        stmia   r2!, {r0}
        subs    r3, r3, #4
        bne     1b
        bx      lr

@ Word fill of r1 bytes at r0 with zero.
        .type clear_mem, %function
clear_mem:
        mov     r2, #3
        add     r1, r1, r2
        bics    r1, r1, r2
        bxeq    lr
        mov     r2, #0
1:      stmia   r0!, {r2}
        subs    r1, r1, #4
        bne     1b
        bx      lr
        .ltorg

@ newlib's __libc_init_array calls _init and __libc_fini_array calls _fini: nothing to do here.
        .section .text._init, "ax", %progbits
        .global _init
        .type _init, %function
_init:
        bx      lr
        .global _fini
        .type _fini, %function
_fini:
        bx      lr

@ The C++ runtime registers static destructors against this handle (crtbegin.o has it elsewhere).
        .data
        .global __dso_handle
        .hidden __dso_handle
        .type __dso_handle, %object
__dso_handle:
        .word   0
