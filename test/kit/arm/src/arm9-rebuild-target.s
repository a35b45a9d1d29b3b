@ ARM9 target for the rebuild boot test. It copies two values into main RAM (.bss at 0x02100000):
@ - result_constant: the word rebuild_constant stored in this ARM9 binary (a v1 edit changes it);
@ - result_file_word: the first word of NitroFS file <target_file_id>, read from the cartridge with
@   the B7 data-read command: first the file's FAT entry (the FAT offset comes from the header copy
@   the boot leaves at 0x027FFE00), then the file's first block. A v2 rebuild that moves the file and
@   the FAT changes what this reads.
@ - result_thumb: what the Thumb function thumb_answer returns (called from ARM through BLX; a patch
@   of it shows a Thumb code change taking effect).
@ Then it stops at rebuild_done (a breakpoint target) and spins.

        .syntax unified
        .arch armv5te
        .section .text.entry, "ax", %progbits

        .arm
        .global _start
        .type _start, %function
_start:
        ldr     sp, =0x02380000
        ldr     r0, =rebuild_constant
        ldr     r1, [r0]
        ldr     r0, =result_constant
        str     r1, [r0]
        @ Give the ARM9 the slot-1 bus (EXMEMCNT bit 11 clear) and enable the ROM interface.
        ldr     r0, =0x04000204
        ldrh    r1, [r0]
        bic     r1, r1, #0x800
        strh    r1, [r0]
        ldr     r0, =0x040001a1
        mov     r1, #0x80
        strb    r1, [r0]
        @ FAT entry of the target file: ROM address fat + 8 * id.
        ldr     r0, =0x027ffe48
        ldr     r0, [r0]
        ldr     r1, =target_file_id
        ldr     r1, [r1]
        add     r0, r0, r1, lsl #3
        bl      card_read_word
        ldr     r1, =result_file_start
        str     r0, [r1]
        bl      card_read_word
        ldr     r1, =result_file_word
        str     r0, [r1]
        blx     thumb_answer
        ldr     r1, =result_thumb
        str     r0, [r1]
        .global rebuild_done
rebuild_done:
        b       rebuild_done
        .ltorg

@ r0 = ROM address (4-aligned) -> r0 = the word there. Reads one 0x200-byte block with command B7
@ and keeps its first word.
        .text
        .arm
        .global card_read_word
        .type card_read_word, %function
card_read_word:
        push    {r4, r5, lr}
        ldr     r1, =0x040001a8
        mov     r2, #0xb7
        strb    r2, [r1]
        mov     r2, r0, lsr #24
        strb    r2, [r1, #1]
        mov     r2, r0, lsr #16
        strb    r2, [r1, #2]
        mov     r2, r0, lsr #8
        strb    r2, [r1, #3]
        strb    r0, [r1, #4]
        mov     r2, #0
        strb    r2, [r1, #5]
        strb    r2, [r1, #6]
        strb    r2, [r1, #7]
        ldr     r1, =0x040001a4
        ldr     r2, =0xa1000000
        str     r2, [r1]
        ldr     r3, =0x04100010
        mov     r4, #0
        mov     r5, #0
1:      ldr     r2, [r1]
        tst     r2, #0x800000
        beq     2f
        ldr     r0, [r3]
        cmp     r5, #0
        moveq   r4, r0
        add     r5, r5, #1
2:      tst     r2, #0x80000000
        bne     1b
        mov     r0, r4
        pop     {r4, r5, pc}
        .ltorg

@ A Thumb function: returns 0x2a (a value no card read gives).
        .thumb
        .global thumb_answer
        .type thumb_answer, %function
        .thumb_func
thumb_answer:
        push    {r4, lr}
        movs    r0, #0x2a
        pop     {r4, pc}
        .arm

        .section .rodata
        .align  2
        .global rebuild_constant
        .type rebuild_constant, %object
rebuild_constant:
        .word   0x11223344
        .global target_file_id
        .type target_file_id, %object
target_file_id:
        .word   1

        .bss
        .align  2
        .global result_constant
        .type result_constant, %object
result_constant:
        .space  4
        .global result_file_start
        .type result_file_start, %object
result_file_start:
        .space  4
        .global result_file_word
        .type result_file_word, %object
result_file_word:
        .space  4
        .global result_thumb
        .type result_thumb, %object
result_thumb:
        .space  4
