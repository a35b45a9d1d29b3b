@ re-mcp GBA test ROM (ARM, no BIOS calls). Writes a recognisable marker to EWRAM, fills a 2 KiB
@ EWRAM scratch area with a known pattern, paints the backdrop red (so screenshots are not blank) and
@ counts frames by polling VCOUNT (the first line of VBlank, 160), so the counter moves exactly once per
@ emulated frame without needing interrupts.
@
@ Layout the tests rely on (keep in sync with test/kit/retroarch/roms.ts):
@   0x02000000  16 bytes  "RE-MCP GBA TEST\0"
@   0x02000010  u32 LE    frame counter
@   0x02000014  u16 LE    KEYINPUT as read in the last frame (a clear bit is a pressed button)
@   0x02000018  u32 LE    frames in which A was seen pressed
@   0x0200001C  u32 LE    frames in which any button was seen pressed
@   0x02000100  2048 B    scratch, filled with byte i = (i * 7 + 3) & 0xFF at boot, then never touched
    .arm
    .section .text
    .global _start
_start:
    b       reset
    .fill   156, 1, 0            @ logo area (mGBA's HLE BIOS does not check it)
    .ascii  "REMCPTEST   "       @ 0xA0 title (12)
    .ascii  "RMCP"               @ 0xAC game code
    .ascii  "01"                 @ 0xB0 maker
    .byte   0x96                 @ 0xB2 fixed value
    .byte   0, 0                 @ 0xB3 unit, 0xB4 device
    .fill   7, 1, 0              @ 0xB5 reserved
    .byte   0                    @ 0xBC version
    .byte   0                    @ 0xBD complement check (patched by build-roms.mjs)
    .fill   2, 1, 0              @ 0xBE reserved
reset:
    ldr     r0, =0x02000000
    adr     r1, marker
    ldmia   r1, {r2-r5}
    stmia   r0, {r2-r5}
    @ the input words start at zero
    mov     r2, #0
    str     r2, [r0, #20]
    str     r2, [r0, #24]
    str     r2, [r0, #28]
    @ scratch pattern
    add     r1, r0, #0x100
    mov     r2, #0
fill:
    mov     r3, r2, lsl #3       @ i*8
    sub     r3, r3, r2           @ i*7
    add     r3, r3, #3
    strb    r3, [r1, r2]
    add     r2, r2, #1
    cmp     r2, #0x800
    bne     fill
    @ backdrop colour: palette entry 0 = red (BGR555 0x001F), display on in mode 0
    ldr     r1, =0x05000000
    mov     r2, #0x1F
    strh    r2, [r1]
    mov     r1, #0x04000000
    mov     r2, #0
    strh    r2, [r1]
    mov     r6, #0
    ldr     r7, =0x04000006      @ VCOUNT
wait_vblank:
    ldrh    r8, [r7]
    cmp     r8, #160
    bne     wait_vblank
    add     r6, r6, #1
    str     r6, [r0, #16]
    @ input: mirror KEYINPUT, count the frames A (bit 0) and any of the ten buttons are held
    ldr     r9, =0x04000130
    ldrh    r10, [r9]
    strh    r10, [r0, #20]
    tst     r10, #1
    ldreq   r11, [r0, #24]
    addeq   r11, r11, #1
    streq   r11, [r0, #24]
    ldr     r9, =0x3ff
    and     r10, r10, r9
    cmp     r10, r9
    ldrne   r11, [r0, #28]
    addne   r11, r11, #1
    strne   r11, [r0, #28]
wait_leave:
    ldrh    r8, [r7]
    cmp     r8, #160
    beq     wait_leave
    b       wait_vblank
    .align  2
marker:
    .ascii  "RE-MCP GBA TEST\0"
    .pool
