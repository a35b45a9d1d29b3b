@ An ARM-mode mixer of the ARM7 kit program, called from Thumb through a pointer (its address is in
@ the mixers table).
        .syntax unified
        .arch armv4t
        .text
        .arm
        .global mix_arm
        .type mix_arm, %function
mix_arm:
        ldr     r2, [r0]                @ volume
        mul     r3, r1, r2
        mov     r0, r3, asr #6
        cmp     r0, #0x8000
        movge   r0, #0x7f00
        bx      lr
