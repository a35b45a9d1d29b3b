@ ARM7 idle program for live tests: counts forever in ARM7 WRAM so a test can see the ARM7 run.

        .syntax unified
        .arch armv4t
        .section .text.entry, "ax", %progbits

        .arm
        .global _start
        .type _start, %function
_start:
        ldr     r0, =arm7_counter
        mov     r1, #0
        .global arm7_idle_loop
arm7_idle_loop:
        add     r1, r1, #1
        str     r1, [r0]
        b       arm7_idle_loop
        .ltorg

        .bss
        .align  2
        .global arm7_counter
        .type arm7_counter, %object
arm7_counter:
        .space  4
