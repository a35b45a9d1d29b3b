@ Hand-written Thumb glue of the ARM9 interpreter kit program, in the style of older hand-written
@ library code: calls through a register go through libgcc's _call_via_rN helpers (BL targets of
@ one `bx rN` each), and one function starts with a literal load before its frame push.
        .syntax unified
        .arch armv5te
        .text
        .thumb

@ int events_dispatch(void *const *table, int index, int arg): calls table[index](arg).
        .global events_dispatch
        .type events_dispatch, %function
        .thumb_func
events_dispatch:
        push    {r4, lr}
        lsls    r1, r1, #2
        ldr     r3, [r0, r1]
        movs    r0, r2
        bl      _call_via_r3
        pop     {r4}
        pop     {r1}
        bx      r1
        .size events_dispatch, . - events_dispatch

@ void events_broadcast(int arg): calls every handler of the broadcast list, which ends with 0.
        .global events_broadcast
        .type events_broadcast, %function
        .thumb_func
events_broadcast:
        ldr     r3, =broadcast_list     @ a literal load before the push
        push    {r4, r5, r6, lr}
        movs    r5, r0
        movs    r4, r3
1:      ldr     r2, [r4]
        cmp     r2, #0
        beq     2f
        movs    r0, r5
        bl      _call_via_r2
        adds    r4, r4, #4
        b       1b
2:      pop     {r4, r5, r6}
        pop     {r0}
        bx      r0
        .size events_broadcast, . - events_broadcast
        .ltorg

        .data
        .align  2
        .global broadcast_list
broadcast_list:
        .word   0, 0, 0, 0, 0
