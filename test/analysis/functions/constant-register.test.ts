// The constant-register-call evidence rule on hand-made decoded instructions: what proves a call and
// every way the definition can be spoiled.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { constantRegisterCalls } from '../../../src/analysis/functions/constant-register.js';
import type { CodeSpan } from '../../../src/arm/cfg.js';
import type { DecodedInstruction } from '../../../src/arm/types.js';

// One span: code at 0x100.., the literal word 0x02001235 (a Thumb entry) at 0x200.
const bytes = new Uint8Array(0x200);
bytes.set([0x35, 0x12, 0x00, 0x02], 0x100);
const span: CodeSpan = { component: 'main', overlayId: null, start: 0x100, bytes };
const ins = (address: number, mnemonic: string, operands: string, extra: Partial<DecodedInstruction> = {}) =>
  ({ address, size: 4, bytes: '', mnemonic, operands, ...extra }) as DecodedInstruction;
const load = (reg: string, extra: Partial<DecodedInstruction> = {}) =>
  ins(0x100, 'ldr', `${reg}, [pc, #0xf8]`, {
    pcRelative: { kind: 'literal-pool', address: 0x200 },
    ...extra,
  });
const blx = (reg: string, at = 0x108) => ins(at, 'blx', reg, { flow: 'call-indirect' });

test('LDR Rn,=f then BLX Rn: a Thumb call from bit 0 of the loaded word', () => {
  const [c] = constantRegisterCalls([load('r3'), ins(0x104, 'mov', 'r0, #1'), blx('r3')], span);
  assert.deepEqual(c, {
    at: 0x108,
    via: 'blx',
    register: 'r3',
    definedAt: 0x100,
    value: 0x02001235,
    target: 0x02001234,
    targetMode: 'thumb',
    slot: 0x200,
  });
});

test('ADR Rn then MOV LR,PC; BX Rn: an ARM call at the built address', () => {
  const adr = ins(0x100, 'add', 'ip, pc, #8', {
    pcRelative: { kind: 'pc-relative-address', address: 0x110 },
  });
  const [c] = constantRegisterCalls(
    [adr, ins(0x104, 'mov', 'lr, pc'), ins(0x108, 'bx', 'ip', { flow: 'branch-indirect' })],
    span,
  );
  assert.equal(c?.via, 'mov-lr-pc-bx');
  assert.equal(c?.target, 0x110);
  assert.equal(c?.targetMode, 'arm');
});

test('no proof when the register is rewritten, loaded conditionally, in a register range, across a call, or not a general register', () => {
  const none = (list: DecodedInstruction[]) => assert.deepEqual(constantRegisterCalls(list, span), []);
  none([load('r3'), ins(0x104, 'add', 'r3, r3, #1'), blx('r3')]);
  none([load('r3', { condition: 'ne', mnemonic: 'ldrne' }), ins(0x104, 'mov', 'r0, r0'), blx('r3')]);
  none([load('r3'), ins(0x104, 'ldm', 'r0!, {r1-r4}'), blx('r3')]);
  none([
    load('r3'),
    ins(0x104, 'bl', '#0x1000', { flow: 'call', target: 0x1000, targetMode: 'arm' }),
    blx('r3'),
  ]);
  none([load('lr'), ins(0x104, 'mov', 'r0, r0'), ins(0x108, 'bx', 'lr', { flow: 'return' })]);
  // A byte load reads one byte, not the word: not a definition of the full value.
  none([load('r3', { mnemonic: 'ldrb' }), blx('r3')]);
  // A literal slot outside the span (no backing bytes): nothing is read, nothing proven.
  none([
    ins(0x100, 'ldr', 'r3, [pc, #0x400]', { pcRelative: { kind: 'literal-pool', address: 0x508 } }),
    blx('r3'),
  ]);
});
