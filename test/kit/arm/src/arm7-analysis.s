@ ARM7 (ARMv4T) analysis fixture: no BLX exists on this processor, so ARM->Thumb interworking goes
@ through BX with a register (the callee's mode is then NOT provable from this instruction). Direct
@ BL calls, a literal pool, a conditional loop, and real compiler output (arm7-analysis-c.c, ARM).

        .syntax unified
        .arch armv4t
        .section .text.entry, "ax", %progbits

        .arm
        .global _start
        .type _start, %function
_start:
        ldr     sp, =0x0380fd00         @ literal pool load
        mov     r0, #5
        bl      arm7_count              @ direct call, ARM -> ARM
        ldr     r0, =arm7_table
        mov     r1, #4
        bl      c7_sum                  @ direct call into compiled C (ARM)
        ldr     r3, =arm7_thumb_fn      @ bit 0 set: a Thumb function
        mov     lr, pc
        .global arm7_bx_call
arm7_bx_call:
        bx      r3                      @ ARMv4T interworking call: register-indirect
        .global arm7_idle
arm7_idle:
        b       arm7_idle
        .ltorg

        .text
        .arm
        .global arm7_count
        .type arm7_count, %function
arm7_count:
        mov     r1, #0
        .global arm7_count_loop
arm7_count_loop:
        add     r1, r1, #3
        subs    r0, r0, #1
        bgt     arm7_count_loop         @ conditional backward branch
        mov     r0, r1
        bx      lr

        .thumb
        .global arm7_thumb_fn
        .type arm7_thumb_fn, %function
        .thumb_func
arm7_thumb_fn:
        push    {lr}
        movs    r0, #9
        bl      arm7_thumb_leaf         @ direct call, Thumb -> Thumb
        pop     {r1}
        bx      r1                      @ ARMv4T Thumb return (POP {PC} does not interwork on v4T)

        .global arm7_thumb_leaf
        .type arm7_thumb_leaf, %function
        .thumb_func
arm7_thumb_leaf:
        lsls    r0, r0, #1
        bx      lr

        .section .rodata
        .align  2
        .global arm7_table
arm7_table:
        .word   1, 2, 3, 4
