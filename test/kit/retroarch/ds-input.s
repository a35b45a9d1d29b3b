@ re-mcp DS input test program (ARM9, ARMv5TE, no BIOS calls, loaded and entered at 0x02000000).
@ Turns on the LCDs and 2D engine A with engine A on the upper screen in VRAM framebuffer mode (bank A
@ mapped to LCDC), then every loop: reads KEYINPUT, mirrors it to main RAM and paints the first 16
@ rows of the framebuffer red while A is held, blue otherwise (a screenshot tells which).
@
@ Layout the tests rely on (keep in sync with test/kit/retroarch/roms.ts):
@   0x02100000  u16 LE   KEYINPUT as last read (a clear bit is a pressed button)
@   framebuffer rows 0..15 of the upper screen: BGR555 0x001F (red) while A is held, 0x7C00 (blue) else
    .syntax unified
    .arch armv5te
    .arm
    .section .text
    .global _start
_start:
    ldr     r0, =0x04000304      @ POWCNT1: LCDs on, 2D engine A on, engine A to the upper screen
    ldr     r1, =0x8003
    strh    r1, [r0]
    ldr     r0, =0x04000240      @ VRAMCNT_A: enabled, LCDC (plain framebuffer memory)
    mov     r1, #0x80
    strb    r1, [r0]
    ldr     r0, =0x04000000      @ DISPCNT: display mode 2 (VRAM framebuffer), bank A
    ldr     r1, =0x00020000
    str     r1, [r0]
    ldr     r7, =0x02100000
loop:
    ldr     r2, =0x04000130      @ KEYINPUT
    ldrh    r3, [r2]
    strh    r3, [r7]
    tst     r3, #1
    ldreq   r4, =0x801f          @ A held: red
    ldrne   r4, =0xfc00          @ else: blue
    ldr     r5, =0x06800000
    mov     r6, #0x2000          @ 16 rows x 256 pixels x 2 bytes
fill:
    strh    r4, [r5], #2
    subs    r6, r6, #2
    bne     fill
    b       loop
    .pool
