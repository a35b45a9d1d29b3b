@ ARM9 (ARMv5TE) call-evidence fixture for function discovery. Ground truth by construction:
@ - proven by direct call: direct_arm (BL), direct_thumb (BLX label);
@ - proven by constant-register call (LDR Rn,=f or ADR Rn,f, nothing writes Rn, then the transfer):
@   creg_blx_thumb (BLX Rn, bit 0 set -> Thumb), creg_mov_lr_bx (MOV LR,PC; BX Rn, ARM),
@   creg_adr_arm (ADR then BLX Rn), creg_thumb_to_arm (Thumb LDR + BLX Rn, bit 0 clear -> ARM),
@   creg_thumb_bx (Thumb LDR + BX Rn), main_tail (crt0-style LDR r3,=f; LDR LR,=g; BX r3);
@ - NOT proven: ptr_only (its address only sits in a data table, loaded through another register),
@   clobbered_only (Rn rewritten between the load and the BLX), exit_fn (only loaded into LR),
@   cond_def_only (the defining load is conditional).
        .syntax unified
        .arch armv5te
        .section .text.entry, "ax", %progbits

        .arm
        .global _start
        .type _start, %function
_start:
        mov     sp, #0x02300000
        .global site_direct_arm
site_direct_arm:
        bl      direct_arm
        .global site_direct_thumb
site_direct_thumb:
        blx     direct_thumb
        ldr     r3, =creg_blx_thumb + 1 @ Thumb entry: bit 0 set
        .global site_creg_blx
site_creg_blx:
        blx     r3
        adr     r1, creg_adr_arm
        .global site_creg_adr
site_creg_adr:
        blx     r1
        ldr     r0, =ptr_table
        ldr     r0, [r0]                @ the pointer comes from data: no proof
        .global site_ptr
site_ptr:
        blx     r0
        ldr     r3, =clobbered_only
        mov     r3, #0x100              @ Rn rewritten: no proof
        .global site_clobbered
site_clobbered:
        blx     r3
        cmp     r0, #0
        ldrne   r2, =cond_def_only      @ conditional definition: no proof
        .global site_cond
site_cond:
        blx     r2
        ldr     r3, =main_tail
        ldr     lr, =exit_fn            @ crt0 style: return address set, then a tail transfer
        .global site_main_tail
site_main_tail:
        bx      r3
        .ltorg

        @ ADR needs its target in the same section
        .global creg_adr_arm
        .type creg_adr_arm, %function
creg_adr_arm:
        mov     r0, #2
        bx      lr

        .text
        .arm
        .global direct_arm
        .type direct_arm, %function
direct_arm:
        bx      lr

        .global creg_mov_lr_bx
        .type creg_mov_lr_bx, %function
creg_mov_lr_bx:
        mov     r0, #1
        bx      lr

        .global creg_thumb_to_arm
        .type creg_thumb_to_arm, %function
creg_thumb_to_arm:
        mov     r0, #3
        bx      lr

        .global ptr_only
        .type ptr_only, %function
ptr_only:
        mov     r0, #4
        bx      lr

        .global clobbered_only
        .type clobbered_only, %function
clobbered_only:
        mov     r0, #5
        bx      lr

        .global cond_def_only
        .type cond_def_only, %function
cond_def_only:
        mov     r0, #6
        bx      lr

        .global exit_fn
        .type exit_fn, %function
exit_fn:
        b       exit_fn

        .global main_tail
        .type main_tail, %function
main_tail:
        push    {r4, lr}
        .global site_message
site_message:
        ldr     r4, =message            @ data by value: the string's address in a literal slot
        mov     r0, r4
        .global site_direct_arm_2
site_direct_arm_2:
        bl      direct_arm              @ a second call site of direct_arm
        ldr     r2, =creg_mov_lr_bx
        mov     lr, pc                  @ pre-BLX call idiom (the CFG ends the block at BX)
        .global site_creg_mov_lr_bx
site_creg_mov_lr_bx:
        bx      r2
        pop     {r4, pc}
        .ltorg

        .thumb
        .global direct_thumb
        .type direct_thumb, %function
        .thumb_func
direct_thumb:
        bx      lr

        .global creg_blx_thumb
        .type creg_blx_thumb, %function
        .thumb_func
creg_blx_thumb:
        push    {r4, lr}
        ldr     r2, =creg_thumb_to_arm  @ an ARM function: bit 0 clear
        .global site_thumb_blx
site_thumb_blx:
        blx     r2
        ldr     r3, =creg_thumb_bx + 1
        .global site_thumb_bx
site_thumb_bx:
        bx      r3                      @ tail transfer to a Thumb function
        .align  2
        .ltorg

        .global creg_thumb_bx
        .type creg_thumb_bx, %function
        .thumb_func
creg_thumb_bx:
        movs    r0, #7
        bx      lr

        .section .rodata
        .align  2
        .global ptr_table
ptr_table:
        .word   ptr_only
        .global message
message:
        .asciz  "hello"
