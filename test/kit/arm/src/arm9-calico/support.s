@ What newlib and the C++ runtime expect from the start files (main RAM code of the calico-style
@ program): _init and _fini (called by __libc_init_array / __libc_fini_array) and the DSO handle.
        .syntax unified
        .arch armv5te
        .section .text._init, "ax", %progbits
        .arm
        .global _init
        .type _init, %function
_init:
        bx      lr
        .global _fini
        .type _fini, %function
_fini:
        bx      lr

        .data
        .global __dso_handle
        .hidden __dso_handle
        .type __dso_handle, %object
__dso_handle:
        .word   0
