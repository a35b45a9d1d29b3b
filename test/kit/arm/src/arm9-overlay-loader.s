@ ARM9 target for the resized-overlay boot test: an overlay manager in the way a game's is. For each
@ entry of the ROM's ARM9 overlay table (at most loader_max_overlays), read over the cartridge bus
@ with command B7 (the table's offset and size come from the header copy the boot leaves at
@ 0x027FFE00), it:
@   1. fills the overlay's runtime range [ram, ram + ramSize + bssSize) with 0xEEEEEEEE, the bytes an
@      overlay that used the range before would have left;
@   2. reads the overlay's FAT entry and copies the stored file from the cartridge to its RAM address;
@   3. when the table flags it compressed, decodes it in place backward from the file's end (BLZ, as
@      the SDK's MI_UncompressBackward does);
@   4. zero-fills the BSS [ram + ramSize, + bssSize);
@   5. calls the overlay's first instruction (ARM) with r0 = the overlay's 32-byte result block.
@ Per overlay, the loader records in its result block what it read from the table and the FAT; the
@ overlay itself writes three words there (see overlay_image). Then it stops at loader_done.
@
@ Result block (loader_results + 32 * table index):
@   +0 the overlay's value word   +4 its tail word (last word of the image)   +8 the word right past
@   the image (BSS: 0 when the loader zeroed from the table's RAM size)   +12 table RAM size
@   +16 table BSS size   +20 stored file length (FAT)   +24 table flags byte   +28 0x600DF00D when called
@
@ The overlay images (sections .ovl_base, .ovl_big, .ovl_small, .ovl_full, .ovl_noise, all linked at
@ 0x02200000 and position-independent) are not part of the main binary: build.sh writes each alone.

        .syntax unified
        .arch armv5te
        .section .text.entry, "ax", %progbits

        .arm
        .global _start
        .type _start, %function
_start:
        ldr     sp, =0x02380000
        @ Give the ARM9 the slot-1 bus (EXMEMCNT bit 11 clear) and enable the ROM interface.
        ldr     r0, =0x04000204
        ldrh    r1, [r0]
        bic     r1, r1, #0x800
        strh    r1, [r0]
        ldr     r0, =0x040001a1
        mov     r1, #0x80
        strb    r1, [r0]
        ldr     r0, =0x027ffe50
        ldr     r4, [r0]                @ r4 = ROM offset of the ARM9 overlay table
        ldr     r5, [r0, #4]            @ r5 = its size in bytes
        mov     r5, r5, lsr #5          @ entries
        ldr     r0, =loader_max_overlays
        ldr     r0, [r0]
        cmp     r5, r0
        movgt   r5, r0
        ldr     r6, =loader_results
        mov     r7, #0
1:      cmp     r7, r5
        bge     2f
        add     r0, r4, r7, lsl #5
        ldr     r1, =loader_entry
        mov     r2, #32
        bl      card_read
        ldr     r0, =loader_entry
        add     r1, r6, r7, lsl #5
        bl      load_overlay
        add     r7, r7, #1
        b       1b
2:
        .global loader_done
loader_done:
        b       loader_done
        .ltorg

        .text
        .arm
@ r0 = a copy of one 32-byte overlay table entry, r1 = its result block. Loads and calls the overlay.
        .global load_overlay
        .type load_overlay, %function
load_overlay:
        push    {r4-r9, lr}
        mov     r4, r0
        mov     r5, r1
        ldr     r6, [r4, #4]            @ RAM address
        ldr     r7, [r4, #8]            @ RAM size
        ldr     r8, [r4, #12]           @ BSS size
        str     r7, [r5, #12]
        str     r8, [r5, #16]
        ldrb    r0, [r4, #31]
        str     r0, [r5, #24]
        @ 1. stale bytes over the whole runtime range
        mov     r0, r6
        add     r1, r7, r8
        ldr     r2, =0xeeeeeeee
        bl      fill_words
        @ 2. FAT entry of the overlay's file, then the file itself
        ldr     r0, =0x027ffe48
        ldr     r0, [r0]
        ldr     r1, [r4, #24]
        add     r0, r0, r1, lsl #3
        ldr     r1, =loader_fat_entry
        mov     r2, #8
        bl      card_read
        ldr     r0, =loader_fat_entry
        ldr     r1, [r0, #4]
        ldr     r0, [r0]
        sub     r9, r1, r0              @ stored length
        str     r9, [r5, #20]
        mov     r1, r6
        add     r2, r9, #3
        bic     r2, r2, #3
        bl      card_read
        @ 3. BLZ-decode in place when the table says compressed
        ldrb    r0, [r4, #31]
        tst     r0, #1
        addne   r0, r6, r9
        blne    blz_decode_backward
        @ 4. BSS
        add     r0, r6, r7
        mov     r1, r8
        mov     r2, #0
        bl      fill_words
        @ 5. call it
        ldr     r0, =0x600df00d
        str     r0, [r5, #28]
        mov     r0, r5
        blx     r6
        pop     {r4-r9, pc}
        .ltorg

@ Fills r1 bytes (rounded down to words) at r0 with the word r2.
        .global fill_words
        .type fill_words, %function
fill_words:
        subs    r1, r1, #4
        strge   r2, [r0], #4
        bgt     fill_words
        bx      lr

@ BLZ in-place backward decoding; r0 = end of the compressed blob in RAM. The footer's last word is
@ the extra size (0: not coded, nothing to do), the word before it holds the header length (top
@ byte) and the compressed length. Tokens are read downward from end - header length until the
@ compressed region's start; the output grows downward from end + extra size.
        .global blz_decode_backward
        .type blz_decode_backward, %function
blz_decode_backward:
        push    {r4-r7, lr}
        ldr     r1, [r0, #-4]
        cmp     r1, #0
        beq     9f
        ldr     r2, [r0, #-8]
        add     r3, r0, r1              @ r3 = write pointer
        sub     r4, r0, r2, lsr #24     @ r4 = read pointer
        bic     r2, r2, #0xff000000
        sub     r5, r0, r2              @ r5 = start of the compressed region
1:      cmp     r4, r5
        ble     9f
        ldrb    r6, [r4, #-1]!          @ flag byte, most significant bit first
        mov     r7, #8
2:      cmp     r4, r5
        ble     9f
        tst     r6, #0x80
        bne     3f
        ldrb    r1, [r4, #-1]!          @ literal
        strb    r1, [r3, #-1]!
        b       5f
3:      ldrb    r1, [r4, #-1]!          @ match: high byte (length - 3, distance - 3 bits 8..11)
        ldrb    r2, [r4, #-1]!          @ low byte of distance - 3
        orr     r2, r2, r1, lsl #8
        bic     r2, r2, #0xf000
        add     r2, r2, #3              @ distance
        mov     r1, r1, lsr #4
        add     r1, r1, #3              @ length
4:      sub     r3, r3, #1
        ldrb    r0, [r3, r2]
        strb    r0, [r3]
        subs    r1, r1, #1
        bne     4b
5:      mov     r6, r6, lsl #1
        subs    r7, r7, #1
        bne     2b
        b       1b
9:      pop     {r4-r7, pc}

@ Copies r2 bytes (a multiple of 4) from ROM offset r0 to RAM r1 with B7 block reads of 0x200 bytes
@ (every block is drained whole; only the words still wanted are stored).
        .global card_read
        .type card_read, %function
card_read:
        push    {r4-r7, lr}
        mov     r4, r0
        mov     r5, r1
        mov     r6, r2
1:      cmp     r6, #0
        ble     9f
        ldr     r1, =0x040001a8
        mov     r2, #0xb7
        strb    r2, [r1]
        mov     r2, r4, lsr #24
        strb    r2, [r1, #1]
        mov     r2, r4, lsr #16
        strb    r2, [r1, #2]
        mov     r2, r4, lsr #8
        strb    r2, [r1, #3]
        strb    r4, [r1, #4]
        mov     r2, #0
        strb    r2, [r1, #5]
        strb    r2, [r1, #6]
        strb    r2, [r1, #7]
        ldr     r1, =0x040001a4
        ldr     r2, =0xa1000000
        str     r2, [r1]
        ldr     r3, =0x04100010
2:      ldr     r2, [r1]
        tst     r2, #0x800000
        beq     3f
        ldr     r0, [r3]
        cmp     r6, #0
        strgt   r0, [r5], #4
        subgt   r6, r6, #4
3:      tst     r2, #0x80000000
        bne     2b
        add     r4, r4, #0x200
        b       1b
9:      pop     {r4-r7, pc}
        .ltorg

        .section .rodata
        .align  2
        .global loader_max_overlays
        .type loader_max_overlays, %object
loader_max_overlays:
        .word   4

        .bss
        .align  2
        .global loader_results
        .type loader_results, %object
loader_results:
        .space  4 * 32
        .global loader_entry
        .type loader_entry, %object
loader_entry:
        .space  32
        .global loader_fat_entry
        .type loader_fat_entry, %object
loader_fat_entry:
        .space  8

@ An overlay image: called with r0 = its result block, it stores its value word, its tail word (the
@ image's last word) and the word right past the image (the first BSS word), then returns. No
@ absolute addresses: the same bytes run wherever the table puts them. `pad` sets the image size
@ (7 instructions + value + pad + tail). A non-zero `noise` fills the pad with xorshift32 words from
@ that seed instead of zeros: bytes BLZ cannot shrink.
        .macro  overlay_image value, tail, pad, noise=0
        .arm
        ldr     r1, 1f
        str     r1, [r0]
        ldr     r1, 2f
        str     r1, [r0, #4]
        ldr     r1, 3f
        str     r1, [r0, #8]
        bx      lr
1:      .word   \value
        .if     \noise
        .set    ovl_noise_x, \noise
        .rept   (\pad) / 4
        .set    ovl_noise_x, (ovl_noise_x ^ (ovl_noise_x << 13)) & 0xffffffff
        .set    ovl_noise_x, ovl_noise_x ^ (ovl_noise_x >> 17)
        .set    ovl_noise_x, (ovl_noise_x ^ (ovl_noise_x << 5)) & 0xffffffff
        .word   ovl_noise_x
        .endr
        .else
        .space  \pad
        .endif
2:      .word   \tail
3:
        .endm

@ The overlay as first built: 0x200 bytes.
        .section .ovl_base, "ax", %progbits
        overlay_image 0xba5e0001, 0xba5e00ff, 0x200 - 36
@ A larger replacement: 0x600 bytes (the BSS of the original absorbs the growth).
        .section .ovl_big, "ax", %progbits
        overlay_image 0xb1600002, 0xb16000ff, 0x600 - 36
@ A smaller replacement: 0x80 bytes.
        .section .ovl_small, "ax", %progbits
        overlay_image 0x5a110003, 0x5a1100ff, 0x80 - 36
@ A replacement that fills the original's whole runtime range (RAM 0x200 + BSS 0x600): 0x800 bytes.
        .section .ovl_full, "ax", %progbits
        overlay_image 0xf0110004, 0xf01100ff, 0x800 - 36
@ A replacement BLZ cannot compress (a pseudo-random pad): 0x400 bytes.
        .section .ovl_noise, "ax", %progbits
        overlay_image 0x40150005, 0x401500ff, 0x400 - 36, 0x2545f491
