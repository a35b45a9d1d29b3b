@ The calico-style ARM9 kit program's bootstub: the header's entry point, right after the 2 KiB secure
@ area. It runs where the binary is loaded and refers to itself only PC-relatively. It sets up the CPU
@ (interrupts masked, TCMs placed and enabled, the mode stacks), copies .crt0 from the bytes after it
@ to its run address in main RAM (32-byte blocks: the linker script aligns .crt0's size), and jumps
@ there through a register with r0 = its module header (the load list's source and extent) and
@ LR = the crt0 routine that enters main (crt0_startup returns there, since .main's copy overwrites
@ this stub).
        .syntax unified
        .arch armv5te
        .section .bootstub, "ax", %progbits
        .arm
        .global bootstub_start
        .type bootstub_start, %function
bootstub_start:
        b       bootstub_setup
bootstub_header:
        .ascii  "MOD9"
        .word   __loadlist_lma          @ where the load list's sources start
        .word   __loadlist_start        @ the records
        .word   __loadlist_end
bootstub_setup:
        msr     cpsr_c, #0xd3           @ supervisor mode, IRQ and FIQ masked
        ldr     r12, =0x00002078        @ control register: MPU, caches and TCMs off
        mcr     p15, 0, r12, c1, c0, 0
        mov     r0, #0
        mcr     p15, 0, r0, c7, c5, 0   @ invalidate the instruction cache
        mcr     p15, 0, r0, c7, c6, 0   @ invalidate the data cache
        mcr     p15, 0, r0, c7, c10, 4  @ drain the write buffer
        ldr     r0, =0x02ff000a         @ DTCM: 16 KiB at 0x02FF0000
        mcr     p15, 0, r0, c9, c1, 0
        mov     r0, #0x20               @ ITCM: 32 KiB, mirrored over 32 MiB from 0
        mcr     p15, 0, r0, c9, c1, 1
        orr     r12, r12, #0x50000      @ both TCMs on
        mcr     p15, 0, r12, c1, c0, 0
        ldr     sp, =__sp_svc
        mov     r11, #0x04000000        @ IME = 0
        strb    r11, [r11, #0x208]
        msr     cpsr_c, #0xd2           @ IRQ mode stack
        ldr     sp, =__sp_irq
        msr     cpsr_c, #0x1f           @ system mode: the program runs here
        ldr     sp, =__sp_usr

        adr     r12, bootstub_crt0      @ copy .crt0 to where it runs
        ldmia   r12, {r0-r2}
bootstub_copy:
        ldmia   r0!, {r3-r10}
        stmia   r1!, {r3-r10}
        cmp     r1, r2
        bne     bootstub_copy

        adr     r0, bootstub_header
        ldr     lr, =crt0_enter_main
        ldr     r12, =crt0_startup
        bx      r12
bootstub_crt0:
        .word   __crt0_lma
        .word   __crt0_start
        .word   __crt0_end
        .ltorg
        .size bootstub_start, . - bootstub_start
