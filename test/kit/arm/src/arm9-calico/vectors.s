@ Exception vectors of the calico-style ARM9 kit program, in two parts as calico lays them out: the
@ eight vectors (.vectors, run at 0 through the ITCM mirror) branch to one-instruction stubs at the
@ start of .itcm, each of which loads its handler's address from the word table after them.
        .syntax unified
        .arch armv5te
        .section .vectors, "ax", %progbits
        .arm
        b       itcm_vec_reset
        b       itcm_vec_undef
        b       itcm_vec_swi
        b       itcm_vec_pabort
        b       itcm_vec_dabort
        b       itcm_vec_undef          @ reserved slot
        b       itcm_vec_irq
        b       itcm_vec_fiq

        .section .itcm, "ax", %progbits
        .arm
itcm_vec_reset:  ldr pc, itcm_vec_table
itcm_vec_undef:  ldr pc, itcm_vec_table + 4
itcm_vec_swi:    ldr pc, itcm_vec_table + 8
itcm_vec_pabort: ldr pc, itcm_vec_table + 12
itcm_vec_dabort: ldr pc, itcm_vec_table + 16
itcm_vec_irq:    ldr pc, itcm_vec_table + 20
itcm_vec_fiq:    ldr pc, itcm_vec_table + 24
itcm_vec_table:
        .word   0xffff0000              @ reset: the BIOS
        .word   exc_undefined
        .word   exc_swi
        .word   exc_abort
        .word   exc_abort
        .word   irq_dispatch
        .word   exc_fiq
