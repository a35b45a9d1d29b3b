@ Start-up code of the BlocksDS-style ARM7 kit program, written here in the shape of a BlocksDS ARM7
@ crt0 (labels without a FUNC type, as that crt0 has them). It runs where the header loads it, in main
@ RAM. After the mode stacks it copies a small position-independent routine (the ARM7/ARM9
@ handshake) to the start of WRAM and calls it there through a register; then it copies the whole
@ program body over it, from a load address computed PC-relatively (a word holding the distance from
@ itself), clears BSS, runs the static constructors through a `bx r3` stub and finally falls into that
@ stub to enter main with LR = exit.
        .syntax unified
        .arch armv4t
        .section .crt0, "ax", %progbits
        .arm
        .global _start
_start:
        mov     r0, #0x04000000         @ IME = 0
        mov     r1, #0
        str     r1, [r0, #0x208]
        mov     r0, #0x12               @ IRQ mode stack
        msr     cpsr, r0
        ldr     sp, =__sp_irq
        mov     r0, #0x13               @ supervisor mode stack
        msr     cpsr, r0
        ldr     sp, =__sp_svc
        mov     r0, #0x1f               @ system mode
        msr     cpsr, r0
        ldr     sp, =__sp_usr

        adr     r1, handshake           @ the handshake runs from WRAM
        ldr     r2, =__arm7_start__
        mov     r3, #(handshake_end - handshake)
        mov     r8, r2
        bl      copy_words
        mov     r3, r8
        bl      call_r3

        adr     r0, body_offset         @ the body's load address: this word's address + its value
        ldr     r1, [r0]
        add     r1, r1, r0
        ldr     r2, =__arm7_start__
        ldr     r4, =__arm7_end__
        bl      copy_words_until

        ldr     r0, =__bss_start__
        ldr     r1, =__bss_end__
        sub     r1, r1, r0
        bl      zero_words

        ldr     r3, =__libc_init_array
        bl      call_r3

        mov     r0, #0                  @ argc
        mov     r1, #0                  @ argv
        ldr     r3, =main
        ldr     lr, =exit
        mov     r12, #0x04000000        @ tell the ARM9 the ARM7 is up
        mov     r9, #0
        str     r9, [r12, #0x180]
        @ falls into the stub: main is entered through r3
call_r3:
        bx      r3
body_offset:
        .word   __arm7_lma__ - .
        .ltorg

@ The handshake (position-independent: it runs from its WRAM copy): step the IPC sync register
@ through an exchange with the ARM9 and return the ARM9's last value in r10.
handshake:
        push    {lr}
        mov     r12, #0x04000000
        mov     r9, #0x0
        bl      ipc_wait_for
        mov     r9, #(0x9 << 8)
        str     r9, [r12, #0x180]
        mov     r9, #0xa
        bl      ipc_wait_for
        mov     r9, #(0xb << 8)
        str     r9, [r12, #0x180]
ipc_wait_change:
        ldr     r10, [r12, #0x180]
        and     r10, r10, #0xf
        cmp     r10, #0xa
        beq     ipc_wait_change
        pop     {lr}
        bx      lr
ipc_wait_for:
        ldr     r10, [r12, #0x180]
        and     r10, r10, #0xf
        cmp     r10, r9
        bne     ipc_wait_for
        bx      lr
handshake_end:

@ zero_words(r0 = start, r1 = length in bytes, rounded up to words)
zero_words:
        mov     r2, #3
        add     r1, r1, r2
        bics    r1, r1, r2
        bxeq    lr
        mov     r2, #0
zero_loop:
        stmia   r0!, {r2}
        subs    r1, r1, #4
        bne     zero_loop
        bx      lr

@ copy_words_until(r1 = source, r2 = destination, r4 = destination end): nothing when the source is
@ the destination; otherwise falls into copy_words with r3 = the length.
copy_words_until:
        cmp     r1, r2
        bxeq    lr
        sub     r3, r4, r2
@ copy_words(r1 = source, r2 = destination, r3 = length in bytes, rounded up to words)
copy_words:
        mov     r0, #3
        add     r3, r3, r0
        bics    r3, r3, r0
        bxeq    lr
copy_loop:
        ldmia   r1!, {r0}
        stmia   r2!, {r0}
        subs    r3, r3, #4
        bne     copy_loop
        bx      lr
        .ltorg
