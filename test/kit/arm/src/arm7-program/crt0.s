@ Start-up code of the realistic ARM7 kit program, in the shape of newer devkitARM ARM7 binaries: the
@ binary is loaded into main RAM at 0x02380000 and runs from ARM7 WRAM, so the first thing it does is
@ copy its own body there (one call of the copy routine with constant arguments r1 = load address,
@ r2 = run start, r4 = run end), then clear BSS, run the static constructors through a BX-register
@ helper (ARMv4T has no BLX) and enter main with LR = exit.
        .syntax unified
        .arch armv4t
        .section .text.entry, "ax", %progbits
        .arm
        .global _start
        .type _start, %function
_start:
        mov     r0, #0x04000000         @ IME = 0
        mov     r1, #0
        str     r1, [r0, #0x208]
        mov     r0, #0x12               @ IRQ mode stack
        msr     cpsr_c, r0
        ldr     sp, =__sp_irq
        mov     r0, #0x13               @ supervisor mode stack
        msr     cpsr_c, r0
        ldr     sp, =__sp_svc
        mov     r0, #0x1f               @ system mode
        msr     cpsr_c, r0
        ldr     sp, =__sp_usr

        ldr     r1, =__arm7_lma
        ldr     r2, =__arm7_start
        ldr     r4, =__arm7_end
        bl      copy_mem_check

        ldr     r0, =__bss_start__
        ldr     r1, =__bss_end__
        sub     r1, r1, r0
        bl      clear_mem

        ldr     r3, =__libc_init_array
        bl      call_via_r3
        mov     r0, #0
        mov     r1, #0
        ldr     r3, =main
        ldr     lr, =exit
        bx      r3

        .type call_via_r3, %function
call_via_r3:
        bx      r3

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

        .section .arm7.text._init, "ax", %progbits
        .global _init
        .type _init, %function
_init:
        bx      lr
        .global _fini
        .type _fini, %function
_fini:
        bx      lr
