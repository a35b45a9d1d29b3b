@ ARM9 (ARMv5TE) fixture of the code idioms the whole-program map follows, one labelled case each
@ (ground truth by construction; test/analysis/program-map/idioms.test.ts says what each must give):
@ - switches: ARM `ldrls pc, [pc, rN, lsl #2]` and `addls pc, pc, rN, lsl #2` tables, a Thumb table
@   dispatched by a helper that computes its return from LR (GCC's __gnu_thumb1_case_uqi code);
@ - calls: `ldr r3, =f; bl call_via_r3` (a `bx r3` stub), `mov lr, pc` + `bx rN` / `ldr pc, [...]`,
@   `blx rN` through a register nothing proves, a Thumb-to-ARM veneer (`bx pc; nop; b f`);
@ - a Thumb BL used as a long branch into the rest of its own function (it restores the caller's frame);
@ - a tail branch to a known function entry; BX to an address the block computes (ADD IP, PC; ORR);
@ - a handler installed by address and one stored to the BIOS IRQ slot, a pointer table in data with a
@   string table beside it, a constructor table run by a loop over [start, end);
@ - a jump through `ldr pc, =label`, a tail branch to a Thumb-to-ARM veneer that nothing else reaches,
@   a call the compiler ended its function with (the next function's prologue follows it);
@ - a call that never returns followed by data, and a function nothing references.
        .syntax unified
        .arch armv5te
        .section .text.entry, "ax", %progbits

        .arm
        .global _start
        .type _start, %function
_start:
        mov     sp, #0x02300000
        bl      arm_switch_ldr
        bl      arm_switch_add
        blx     thumb_switch
        blx     thumb_stub_caller
        bl      mov_lr_pc_caller
        blx     long_branch_fn
        bl      tail_caller
        bl      tail_callee
        blx     veneer_caller
        bl      install_handlers
        bl      run_table
        bl      run_ctors
        bl      bx_computed
        bl      literal_jump
        blx     tail_to_veneer
        cmp     r0, #0
        blne    ends_in_call            @ conditional: the code after it runs either way
        bl      never_returns
        .global after_noreturn_data
after_noreturn_data:
        .word   0xe7f000f0, 0x12345678  @ data after a call that never returns: never walked

@ ---- ARM switch: LDRLS PC table ---------------------------------------------------------------
        .global arm_switch_ldr
        .type arm_switch_ldr, %function
arm_switch_ldr:
        cmp     r0, #3
        ldrls   pc, [pc, r0, lsl #2]
        b       arm_switch_ldr_default
        .global arm_switch_ldr_table
arm_switch_ldr_table:
        .word   arm_switch_ldr_case0, arm_switch_ldr_case1, arm_switch_ldr_case2, arm_switch_ldr_case3
        .global arm_switch_ldr_case0
arm_switch_ldr_case0:
        mov     r0, #10
        bx      lr
        .global arm_switch_ldr_case1
arm_switch_ldr_case1:
        mov     r0, #11
        bx      lr
        .global arm_switch_ldr_case2
arm_switch_ldr_case2:
        mov     r0, #12
        bx      lr
        .global arm_switch_ldr_case3
arm_switch_ldr_case3:
        mov     r0, #13
        bx      lr
        .global arm_switch_ldr_default
arm_switch_ldr_default:
        mov     r0, #0
        bx      lr

@ ---- ARM switch: ADDLS PC, PC, rN, LSL #2 over a branch table -----------------------------------
        .global arm_switch_add
        .type arm_switch_add, %function
arm_switch_add:
        cmp     r0, #3
        addls   pc, pc, r0, lsl #2
        b       arm_switch_add_default
        b       arm_switch_add_case0
        b       arm_switch_add_case1
        b       arm_switch_add_case2
        b       arm_switch_add_case3
        .global arm_switch_add_case0
arm_switch_add_case0:
        mov     r0, #20
        bx      lr
        .global arm_switch_add_case1
arm_switch_add_case1:
        mov     r0, #21
        bx      lr
        .global arm_switch_add_case2
arm_switch_add_case2:
        mov     r0, #22
        bx      lr
        .global arm_switch_add_case3
arm_switch_add_case3:
        mov     r0, #23
        bx      lr
        .global arm_switch_add_default
arm_switch_add_default:
        mvn     r0, #0
        bx      lr

@ ---- Thumb switch through a dispatch helper ----------------------------------------------------
        .thumb
        .global thumb_switch
        .type thumb_switch, %function
        .thumb_func
thumb_switch:
        push    {r4, lr}
        cmp     r0, #3
        bhi     thumb_switch_default
        bl      case_helper_uqi
        .global thumb_switch_table
thumb_switch_table:
        .byte   (thumb_switch_case0 - thumb_switch_table) / 2
        .byte   (thumb_switch_case1 - thumb_switch_table) / 2
        .byte   (thumb_switch_case2 - thumb_switch_table) / 2
        .byte   (thumb_switch_case3 - thumb_switch_table) / 2
        .p2align 1
        .global thumb_switch_case0
thumb_switch_case0:
        movs    r0, #30
        pop     {r4, pc}
        .global thumb_switch_case1
thumb_switch_case1:
        movs    r0, #31
        pop     {r4, pc}
        .global thumb_switch_case2
thumb_switch_case2:
        movs    r0, #32
        pop     {r4, pc}
        .global thumb_switch_case3
thumb_switch_case3:
        movs    r0, #33
        pop     {r4, pc}
        .global thumb_switch_default
thumb_switch_default:
        movs    r0, #0
        pop     {r4, pc}

        .global case_helper_uqi
        .type case_helper_uqi, %function
        .thumb_func
case_helper_uqi:
        push    {r1}
        mov     r1, lr
        lsrs    r1, r1, #1
        lsls    r1, r1, #1
        ldrb    r1, [r1, r0]
        lsls    r1, r1, #1
        add     lr, lr, r1
        pop     {r1}
        bx      lr

@ ---- ldr r3, =f; bl call_via_r3 --------------------------------------------------------------
        .global thumb_stub_caller
        .type thumb_stub_caller, %function
        .thumb_func
thumb_stub_caller:
        push    {r4, lr}
        ldr     r3, =stub_target + 1
        .global site_stub_call
site_stub_call:
        bl      call_via_r3
        pop     {r4, pc}
        .ltorg
        .global call_via_r3
        .thumb_func
call_via_r3:
        bx      r3
        nop
        .global stub_target
        .type stub_target, %function
        .thumb_func
stub_target:
        movs    r0, #7
        bx      lr

@ ---- MOV LR, PC calls, and BLX through a register nothing proves --------------------------------
        .arm
        .global mov_lr_pc_caller
        .type mov_lr_pc_caller, %function
mov_lr_pc_caller:
        push    {r4, lr}
        ldr     r3, =mlp_target
        .global site_mov_lr_bx
site_mov_lr_bx:
        mov     lr, pc
        bx      r3
        .global mov_lr_pc_after
mov_lr_pc_after:
        ldr     r2, =0x02100000
        ldr     r2, [r2]
        mov     lr, pc
        ldr     pc, [r2, #8]
        .global mov_lr_pc_after2
mov_lr_pc_after2:
        ldr     r3, [r2, #12]
        blx     r3
        .global blx_after
blx_after:
        mov     r0, #2
        pop     {r4, pc}
        .ltorg
        .global mlp_target
        .type mlp_target, %function
mlp_target:
        mov     r0, #3
        bx      lr

@ ---- A Thumb BL used as a long branch into the rest of its own function ----------------------
        .thumb
        .global long_branch_fn
        .type long_branch_fn, %function
        .thumb_func
long_branch_fn:
        push    {r4, lr}
        movs    r4, r0
        cmp     r4, #0
        beq     1f
        .global site_long_branch
site_long_branch:
        bl      long_branch_rest
1:      movs    r0, #0
        pop     {r4, pc}

@ ---- Tail call of a known function entry ------------------------------------------------------
        .arm
        .global tail_caller
        .type tail_caller, %function
tail_caller:
        mov     r0, #5
        b       tail_callee
        .global tail_callee
        .type tail_callee, %function
tail_callee:
        add     r0, r0, #1
        bx      lr

@ ---- Thumb to ARM veneer ----------------------------------------------------------------------
        .thumb
        .global veneer_caller
        .type veneer_caller, %function
        .thumb_func
veneer_caller:
        push    {r4, lr}
        .global site_veneer_call
site_veneer_call:
        bl      thumb_to_arm_veneer
        pop     {r4, pc}
        .p2align 2
        .global thumb_to_arm_veneer
        .thumb_func
thumb_to_arm_veneer:
        bx      pc
        nop
        .arm
        b       veneer_arm_target
        .global veneer_arm_target
        .type veneer_arm_target, %function
veneer_arm_target:
        mov     r0, #9
        bx      lr

@ ---- Handlers installed by address, and to the BIOS IRQ slot ------------------------------------
        .global install_handlers
        .type install_handlers, %function
install_handlers:
        push    {r4, lr}
        ldr     r0, =handler_by_address + 1
        ldr     r1, =0x02100010
        str     r0, [r1]
        ldr     r0, =irq_slot_handler
        ldr     r1, =0x0b003ffc
        str     r0, [r1]
        pop     {r4, pc}
        .ltorg
        .thumb
        .global handler_by_address
        .type handler_by_address, %function
        .thumb_func
handler_by_address:
        movs    r0, #1
        bx      lr
        .arm
        .global irq_slot_handler
        .type irq_slot_handler, %function
irq_slot_handler:
        mov     r0, #0x04000000
        bx      lr

@ ---- A pointer table in data, and a table of strings -----------------------------------------
        .global run_table
        .type run_table, %function
run_table:
        push    {r4, lr}
        .global site_load_op_table
site_load_op_table:
        ldr     r4, =op_table
        ldr     r3, [r4, r0, lsl #2]
        blx     r3
        .global site_load_msg_table
site_load_msg_table:
        ldr     r4, =msg_table
        ldr     r0, [r4, r0, lsl #2]
        pop     {r4, pc}
        .ltorg
        .global table_op_a
        .type table_op_a, %function
table_op_a:
        mov     r0, #1
        bx      lr
        .thumb
        .global table_op_b
        .type table_op_b, %function
        .thumb_func
table_op_b:
        movs    r0, #2
        bx      lr
        .arm
        .global table_op_c
        .type table_op_c, %function
table_op_c:
        mov     r0, #3
        bx      lr

@ ---- A constructor table run over [start, end) -------------------------------------------------
        .global run_ctors
        .type run_ctors, %function
run_ctors:
        push    {r4, r5, r6, lr}
        ldr     r4, =ctor_start
        ldr     r5, =ctor_end
1:      cmp     r4, r5
        bhs     2f
        ldr     r3, [r4], #4
        blx     r3
        b       1b
2:      pop     {r4, r5, r6, pc}
        .ltorg
        .global ctor_a
        .type ctor_a, %function
ctor_a:
        mov     r0, #1
        bx      lr
        .thumb
        .global ctor_b
        .type ctor_b, %function
        .thumb_func
ctor_b:
        movs    r0, #2
        bx      lr

@ ---- BX to an address the block computes --------------------------------------------------------
        .arm
        .global bx_computed
        .type bx_computed, %function
bx_computed:
        add     ip, pc, #4
        orr     ip, ip, #1
        bx      ip
        .thumb
        .global bx_computed_thumb
bx_computed_thumb:
        movs    r0, #4
        bx      lr

@ ---- LDR PC, =label: a jump inside the function ------------------------------------------------
        .arm
        .global literal_jump
        .type literal_jump, %function
literal_jump:
        ldr     pc, =literal_jump_target
        .ltorg
        .global literal_jump_target
literal_jump_target:
        mov     r0, #5
        bx      lr

@ ---- A tail branch to a Thumb-to-ARM veneer reached by nothing else ----------------------------
        .thumb
        .global tail_to_veneer
        .type tail_to_veneer, %function
        .thumb_func
tail_to_veneer:
        movs    r0, #7
        b       tail_veneer
        .p2align 2
        .global tail_veneer
        .thumb_func
tail_veneer:
        bx      pc
        nop
        .arm
        b       tail_veneer_target
        .global tail_veneer_target
        .type tail_veneer_target, %function
tail_veneer_target:
        mov     r0, #8
        bx      lr

@ ---- A function ending in a call, the next function's prologue right after it ----------------
        .global ends_in_call
        .type ends_in_call, %function
ends_in_call:
        push    {r4, lr}
        bl      returns_normally
        .global after_ending_call
        .type after_ending_call, %function
after_ending_call:
        push    {r4, lr}
        mov     r0, #6
        pop     {r4, pc}
        .global returns_normally
        .type returns_normally, %function
returns_normally:
        mov     r0, #0
        bx      lr

@ ---- The rest of long_branch_fn (reached only by its BL) --------------------------------------
        .thumb
        .global long_branch_rest
long_branch_rest:
        adds    r0, r4, #1
        pop     {r4, pc}

@ ---- A call that never returns, and a function nothing references --------------------------
        .arm
        .global never_returns
        .type never_returns, %function
never_returns:
        b       never_returns
        .global dead_function
        .type dead_function, %function
dead_function:
        push    {r4, lr}
        mov     r4, r0
        add     r0, r4, r4
        pop     {r4, pc}

        .section .rodata
        .p2align 2
        .global op_table
op_table:
        .word   table_op_a, table_op_b + 1, table_op_c
        .global msg_table
msg_table:
        .word   msg_hello, msg_bye
        .global ctor_start
ctor_start:
        .word   ctor_a, ctor_b + 1
        .global ctor_end
ctor_end:
        .global msg_hello
msg_hello:
        .asciz  "hello, idioms"
        .global msg_bye
msg_bye:
        .asciz  "bye"
