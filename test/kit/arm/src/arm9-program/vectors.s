@ The ARM9 exception vectors, copied by the start-up code to the ITCM base (0x01FF8000, which ITCM's
@ 32 MiB mirror also shows at 0x00000000): each slot loads its handler's address from the word table
@ after the branches, as hand-written vector tables do.
        .syntax unified
        .arch armv5te
        .section .vectors, "ax", %progbits
        .arm
        .global __vector_table
__vector_table:
        ldr     pc, vec_reset
        ldr     pc, vec_undef
        ldr     pc, vec_swi
        ldr     pc, vec_pabort
        ldr     pc, vec_dabort
        nop
        ldr     pc, vec_irq
        ldr     pc, vec_fiq
vec_reset:  .word _start
vec_undef:  .word exc_undefined
vec_swi:    .word exc_swi
vec_pabort: .word exc_abort
vec_dabort: .word exc_abort
vec_irq:    .word irq_dispatch
vec_fiq:    .word exc_fiq
