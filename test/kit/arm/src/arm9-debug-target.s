@ ARM9 live-debug target for DeSmuME: sets a stack in main RAM, clears two counters, then loops
@ forever calling an ARM function (counter_arm += 1) and, through BLX, a Thumb caller whose 32-bit
@ Thumb BL pair calls the Thumb function (counter_thumb += 1): step-over, step-out and mid-pair tests. Breakpoint tests stop on the exported function symbols; memory tests read the
@ counters at their fixed main-RAM addresses (.bss at 0x02100000, not part of the binary).

        .syntax unified
        .arch armv5te
        .section .text.entry, "ax", %progbits

        .arm
        .global _start
        .type _start, %function
_start:
        ldr     sp, =0x02380000
        ldr     r0, =counter_arm
        mov     r1, #0
        str     r1, [r0]
        ldr     r0, =counter_thumb
        str     r1, [r0]
        @ Patch one instruction of the loaded code (mov r0, r0 -> mov r1, r1): live memory then differs
        @ from the ROM's bytes there, for live-disassembly tests.
        ldr     r0, =debug_patch_site
        ldr     r1, =0xe1a01001
        str     r1, [r0]
        .global debug_loop
debug_loop:
        bl      debug_arm_increment
        blx     debug_thumb_caller
        b       debug_loop
        .ltorg

        .text
        .arm
        .global debug_arm_increment
        .type debug_arm_increment, %function
debug_arm_increment:
        ldr     r0, =counter_arm
        ldr     r1, [r0]
        add     r1, r1, #1
        str     r1, [r0]
        bx      lr
        .ltorg

        .global debug_patch_site
        .type debug_patch_site, %function
debug_patch_site:
        mov     r0, r0
        bx      lr

        .thumb
        .global debug_thumb_increment
        .type debug_thumb_increment, %function
        .thumb_func
debug_thumb_increment:
        ldr     r0, =counter_thumb
        ldr     r1, [r0]
        adds    r1, r1, #1
        str     r1, [r0]
        bx      lr
        .ltorg

        .thumb
        .global debug_thumb_caller
        .type debug_thumb_caller, %function
        .thumb_func
debug_thumb_caller:
        push    {lr}
        bl      debug_thumb_increment
        pop     {pc}

        .bss
        .align  2
        .global counter_arm
        .type counter_arm, %object
counter_arm:
        .space  4
        .global counter_thumb
        .type counter_thumb, %object
counter_thumb:
        .space  4
