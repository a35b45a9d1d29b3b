@ _init and _fini of the BlocksDS-style ARM7 program (called by newlib's __libc_init_array and
@ __libc_fini_array), in the .init and .fini sections the start files use: the first code of the
@ copied body.
        .syntax unified
        .arch armv4t
        .section .init, "ax", %progbits
        .arm
        .global _init
        .type _init, %function
_init:
        bx      lr
        .size _init, . - _init
        .section .fini, "ax", %progbits
        .arm
        .global _fini
        .type _fini, %function
_fini:
        bx      lr
        .size _fini, . - _fini
