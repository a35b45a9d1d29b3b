@ Hand-written ITCM code (ARM): the interrupt dispatcher the system code installs in the BIOS IRQ slot
@ (DTCM + 0x3FFC), and the small exception handlers the vector table names. The dispatcher calls the
@ handler registered for the highest pending source through MOV LR, PC; BX Rn, as libnds does.
        .syntax unified
        .arch armv5te
        .section .itcm, "ax", %progbits
        .arm
        .global irq_dispatch
        .type irq_dispatch, %function
irq_dispatch:
        stmfd   sp!, {r4-r6, lr}
        mov     r4, #0x04000000
        ldr     r5, [r4, #0x210]        @ IE
        ldr     r6, [r4, #0x214]        @ IF
        ands    r5, r5, r6
        beq     2f
        ldr     r2, =irq_table
1:      ldr     r1, [r2], #8            @ mask of this entry
        cmp     r1, #0
        beq     3f
        tst     r1, r5
        beq     1b
        str     r1, [r4, #0x214]        @ acknowledge
        ldr     r0, =irq_flags_seen
        ldr     r3, [r0]
        orr     r3, r3, r1
        str     r3, [r0]
        ldr     r1, [r2, #-4]           @ its handler
        cmp     r1, #0
        beq     2f
        mov     lr, pc
        bx      r1
2:      ldmfd   sp!, {r4-r6, lr}
        bx      lr
3:      str     r5, [r4, #0x214]        @ unhandled sources: acknowledge all
        b       2b
        .ltorg

        .global exc_undefined
        .type exc_undefined, %function
exc_undefined:
        mov     r0, #1
        b       exc_common
        .global exc_swi
        .type exc_swi, %function
exc_swi:
        movs    pc, lr
        .global exc_abort
        .type exc_abort, %function
exc_abort:
        mov     r0, #2
        b       exc_common
        .global exc_fiq
        .type exc_fiq, %function
exc_fiq:
        subs    pc, lr, #4
        .type exc_common, %function
exc_common:
        ldr     r1, =exception_code
        str     r0, [r1]
        ldr     r3, =guru_meditation
        bx      r3
        .ltorg

@ An ITCM copy loop the game calls directly (BL from main RAM into ITCM).
        .global itcm_fast_copy
        .type itcm_fast_copy, %function
itcm_fast_copy:
        cmp     r2, #0
        bxle    lr
1:      ldr     r3, [r1], #4
        str     r3, [r0], #4
        subs    r2, r2, #4
        bgt     1b
        bx      lr
