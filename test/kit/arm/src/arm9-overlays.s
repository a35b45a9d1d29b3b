@ ARM9 overlay-loading target for DeSmuME: the main program carries two overlay images and loads one at
@ a time into overlay RAM, then calls into it, forever: first overlay A (runs at 0x02200000), then
@ overlay B (runs at 0x02200080). The two runtime ranges overlap in [0x02200080, 0x02200100), where
@ ovl_a_helper and ovl_b_worker share one address: a stop there is statically ambiguous and only the
@ live bytes tell which overlay is loaded. Each overlay's entry lies outside the shared range (so the
@ main program's BL to it names one overlay) and calls its shared-range function with BL. Overlay code
@ has no literal pools (constants built with MOV/ORR) so its mapping symbols stay ARM. The loop also
@ calls a Thumb function of the main program through BLX, and an ARM function in ITCM (0x01ff8000):
@ an autoload block the ROM declares, copied there once at start by the program itself (direct boot
@ runs no SDK crt0), from its own copy of the block's bytes. The module params live in a reserved
@ hole of the main code (ovl_module_params); the ROM writer fills it.

        .syntax unified
        .arch armv5te
        .section .text.entry, "ax", %progbits

        .arm
        .global _start
        .type _start, %function
_start:
        ldr     sp, =0x02380000
        ldr     r0, =ovl_itcm_load
        ldr     r1, =0x01ff8000
        ldr     r2, =ovl_itcm_size
        bl      ovl_copy
        .global ovl_main_loop
ovl_main_loop:
        ldr     r0, =ovl_a_load
        ldr     r1, =0x02200000
        ldr     r2, =ovl_a_size
        bl      ovl_copy
        bl      ovl_a_entry
        ldr     r0, =ovl_b_load
        ldr     r1, =0x02200080
        ldr     r2, =ovl_b_size
        bl      ovl_copy
        bl      ovl_b_entry
        blx     ovl_thumb_tick
        bl      ovl_itcm_tick
        b       ovl_main_loop
        .ltorg

@ Filled by the ROM writer with the 36-byte module params (autoload list, BSS, SDK version).
        .global ovl_module_params
        .type ovl_module_params, %object
ovl_module_params:
        .space  36

        .text
        .arm
@ Copies r2 bytes (a multiple of 4) from r0 to r1, a word at a time.
        .global ovl_copy
        .type ovl_copy, %function
ovl_copy:
        subs    r2, r2, #4
        ldrge   r3, [r0], #4
        strge   r3, [r1], #4
        bgt     ovl_copy
        bx      lr

        .thumb
        .global ovl_thumb_tick
        .type ovl_thumb_tick, %function
        .thumb_func
ovl_thumb_tick:
        ldr     r0, =ovl_counter_main
        ldr     r1, [r0]
        adds    r1, r1, #1
        str     r1, [r0]
        bx      lr
        .ltorg

@ Overlay A, linked at 0x02200000 (0x100 bytes): its entry, then its helper at 0x02200080.
        .section .ovl_a, "ax", %progbits
        .arm
        .global ovl_a_entry
        .type ovl_a_entry, %function
ovl_a_entry:
        push    {lr}
        mov     r0, #0x02100000
        bl      ovl_a_helper
        pop     {pc}
        .rept   28
        mov     r0, r0
        .endr
        .global ovl_a_helper
        .type ovl_a_helper, %function
ovl_a_helper:
        ldr     r1, [r0, #4]
        add     r1, r1, #1
        str     r1, [r0, #4]
        bx      lr
        .rept   28
        mov     r0, r0
        .endr

@ Overlay B, linked at 0x02200080 (0x100 bytes): its worker at 0x02200080 (where overlay A has its
@ helper), then its entry at 0x02200100, past overlay A's end.
        .section .ovl_b, "ax", %progbits
        .arm
        .global ovl_b_worker
        .type ovl_b_worker, %function
ovl_b_worker:
        ldr     r1, [r0, #8]
        add     r1, r1, #2
        str     r1, [r0, #8]
        bx      lr
        .rept   28
        mov     r0, r0
        .endr
        .global ovl_b_entry
        .type ovl_b_entry, %function
ovl_b_entry:
        push    {lr}
        mov     r0, #0x02100000
        bl      ovl_b_worker
        pop     {pc}
        .rept   28
        mov     r0, r0
        .endr

@ The ITCM autoload block, linked at 0x01ff8000 (0x20 bytes).
        .section .itcm, "ax", %progbits
        .arm
        .global ovl_itcm_tick
        .type ovl_itcm_tick, %function
ovl_itcm_tick:
        mov     r0, #0x02100000
        ldr     r1, [r0, #12]
        add     r1, r1, #3
        str     r1, [r0, #12]
        bx      lr
        .rept   3
        mov     r0, r0
        .endr

        .bss
        .align  2
        .global ovl_counter_main
        .type ovl_counter_main, %object
ovl_counter_main:
        .space  4
        .global ovl_counter_a
        .type ovl_counter_a, %object
ovl_counter_a:
        .space  4
        .global ovl_counter_b
        .type ovl_counter_b, %object
ovl_counter_b:
        .space  4
