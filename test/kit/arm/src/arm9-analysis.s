@ ARM9 (ARMv5TE) analysis fixture. Every construct the ARM decoder, CFG and reference analyses must
@ recognise appears here at least once, at an address the manifest names, so tests can state ground
@ truth without guessing: direct BL calls, BLX label interworking (ARM->Thumb and Thumb->ARM), literal
@ pools in both modes (one Thumb load placed at a halfword-odd address so the word-aligned PC matters),
@ ADR in both modes, ADD/SUB Rd,PC,#imm, conditional branches, loops, indirect calls (BLX Rn) through
@ a function-pointer table, functions reached only through that table, and several return shapes
@ (BX LR, POP {..,PC}, LDMFD SP!,{..,PC}, MOV PC,LR, LDR PC,[SP],#4).
@ The C part (arm9-analysis-c.c) adds real compiler output in Thumb.

        .syntax unified
        .arch armv5te
        .section .text.entry, "ax", %progbits

        .arm
        .global _start
        .type _start, %function
_start:
        mov     sp, #0x02300000
        .global literal_arm
literal_arm:
        ldr     r2, =0x0badf00d         @ literal pool load (ARM): LDR r2, [pc, #imm]
        mov     r0, #16
        bl      arm_sum                 @ direct call, ARM -> ARM
        .global call_blx_thumb
call_blx_thumb:
        blx     thumb_worker            @ direct call with mode switch, ARM -> Thumb
        .global call_c_thumb
call_c_thumb:
        ldr     r0, =data_blob
        mov     r1, #8
        bl      c_checksum              @ BL to a Thumb C function: the linker turns it into BLX
        .global adr_arm
adr_arm:
        adr     r4, fn_table            @ pc-relative address (ADD r4, pc, #imm)
        .global sub_pc_arm
sub_pc_arm:
        sub     r5, pc, #8              @ SUB Rd, PC, #imm: address of this instruction
        ldr     r6, [r4]                @ first table entry: arm_ptr_only
        .global call_indirect_arm
call_indirect_arm:
        blx     r6                      @ indirect call
        ldr     r6, [r4, #4]            @ second entry: thumb_ptr_only (bit 0 set)
        blx     r6                      @ indirect call with a mode switch known only at run time
        ldr     r0, =c_apply_target
        mov     r1, #3
        bl      c_apply                 @ Thumb C function that calls through a pointer
        .global arm_idle
arm_idle:
        b       arm_idle                @ loop forever (unconditional branch to itself)
        .ltorg
        .global fn_table
fn_table:                               @ data in code: two function pointers (ADR needs the same section)
        .word   arm_ptr_only
        .word   thumb_ptr_only

        .text
        .arm
        @ sum r0 + (r0-1) + ... + 1 with a conditional early exit and a counted loop
        .global arm_sum
        .type arm_sum, %function
arm_sum:
        mov     r1, #0
        cmp     r0, #0
        .global arm_sum_beq
arm_sum_beq:
        beq     arm_sum_done            @ conditional forward branch
        .global arm_sum_loop
arm_sum_loop:
        add     r1, r1, r0
        subs    r0, r0, #1
        .global arm_sum_bne
arm_sum_bne:
        bne     arm_sum_loop            @ conditional backward branch (loop)
        .global arm_sum_done
arm_sum_done:
        mov     r0, r1
        bx      lr                      @ return

        @ reached only through fn_table: no direct call names it
        .global arm_ptr_only
        .type arm_ptr_only, %function
arm_ptr_only:
        stmfd   sp!, {r4, lr}
        ldr     r4, arm_word            @ literal load by label: LDR r4, [pc, #imm]
        bl      arm_leaf
        add     r0, r0, r4
        ldmfd   sp!, {r4, pc}           @ return through a load into PC

        .global arm_leaf
        .type arm_leaf, %function
arm_leaf:
        str     lr, [sp, #-4]!
        movs    r0, r0, lsl #1
        movmi   r0, #0                  @ conditional non-branch instruction
        ldr     pc, [sp], #4            @ return: LDR PC

        .global arm_old_return
        .type arm_old_return, %function
arm_old_return:
        add     r0, r0, #1
        mov     pc, lr                  @ return: MOV PC, LR

        .global arm_word
arm_word:
        .word   0x12345678

        .thumb
        .global thumb_worker
        .type thumb_worker, %function
        .thumb_func
        .align  2
thumb_worker:
        push    {r4, r5, lr}
        movs    r4, #0
        movs    r2, #0                  @ shifts the next load to an address = 2 (mod 4)
        .global thumb_literal_odd
thumb_literal_odd:
        ldr     r5, thumb_word          @ at an address = 2 (mod 4): Thumb PC is word-aligned
        .global thumb_literal_even
thumb_literal_even:
        ldr     r0, thumb_word          @ at an address = 0 (mod 4)
        .global thumb_adr
thumb_adr:
        adr     r1, thumb_word          @ ADD r1, pc, #imm
        .global thumb_loop
thumb_loop:
        adds    r4, r4, #1
        cmp     r4, #4
        .global thumb_blt
thumb_blt:
        blt     thumb_loop              @ conditional backward branch
        bl      thumb_leaf              @ direct call, Thumb -> Thumb
        .global thumb_call_blx_arm
thumb_call_blx_arm:
        blx     arm_old_return          @ direct call with mode switch, Thumb -> ARM
        ldr     r3, =fn_table
        ldr     r3, [r3, #4]
        .global thumb_call_indirect
thumb_call_indirect:
        blx     r3                      @ indirect call from Thumb
        adds    r0, r0, r5
        pop     {r4, r5, pc}            @ return: POP {.., PC}

        .global thumb_leaf
        .type thumb_leaf, %function
        .thumb_func
thumb_leaf:
        cmp     r0, #0
        .global thumb_beq
thumb_beq:
        beq     thumb_leaf_zero         @ conditional forward branch
        subs    r0, r0, #1
        .global thumb_b
thumb_b:
        b       thumb_leaf_ret          @ unconditional branch
thumb_leaf_zero:
        movs    r0, #7
thumb_leaf_ret:
        bx      lr                      @ return: BX LR

        @ reached only through fn_table
        .global thumb_ptr_only
        .type thumb_ptr_only, %function
        .thumb_func
thumb_ptr_only:
        movs    r0, #42
        mov     r1, lr
        bx      r1                      @ return through a register other than LR

        .align  2
        .global thumb_word
thumb_word:
        .word   0xCAFEF00D
        .ltorg

        .section .rodata
        .align  2
        .global data_blob
data_blob:
        .byte   1, 2, 3, 4, 5, 6, 7, 8
