// The interpreter over unknown values (src/arm/emulate.ts): instruction semantics on hand-encoded
// ARM and Thumb, what an unknown value stops, provenance of loaded bytes, the ARMv4T/ARMv5TE split,
// and the start-up copy detection run on the kit's real crt0 code (checked against the ELF sections).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { detectCopies } from '../../src/analysis/evidence/copied-code.js';
import { type EmuMemory, type EmuState, emulate, emuState } from '../../src/arm/emulate.js';
import { loadProgramTruth } from '../kit/arm/index.js';

/** Flat memory: `code` at `base`, scratch stores kept beside it, everything else unknown. */
function memory(base: number, code: Uint8Array, extra: Record<number, number> = {}) {
  const stored = new Map<number, { value: number | null; source: number | null }>();
  const mem: EmuMemory & { stored: typeof stored } = {
    stored,
    read8(address) {
      const s = stored.get(address);
      if (s) return s.value;
      if (address in extra) return extra[address]!;
      const o = address - base;
      return o >= 0 && o < code.length ? code[o]! : null;
    },
    write8(address, value, source) {
      stored.set(address, { value, source });
      return true;
    },
  };
  return mem;
}

const arm = (...words: number[]) =>
  new Uint8Array(words.flatMap((w) => [w & 0xff, (w >>> 8) & 0xff, (w >>> 16) & 0xff, w >>> 24]));
const thumb = (...halves: number[]) => new Uint8Array(halves.flatMap((h) => [h & 0xff, h >>> 8]));
const BASE = 0x02000000;

function run(
  code: Uint8Array,
  opts: { thumb?: boolean; regs?: Record<number, number>; steps?: number; processor?: 'arm9' | 'arm7' } = {},
) {
  const state: EmuState = emuState(BASE, opts.thumb ?? false, opts.regs ?? {});
  const mem = memory(BASE, code);
  const r = emulate(state, {
    processor: opts.processor ?? 'arm9',
    memory: mem,
    maxSteps: opts.steps ?? 64,
    stopAt: (pc) => pc >= BASE + code.length,
  });
  return { r, state, mem };
}

test('ARM data processing, shifts and flags compute exact values', () => {
  const { r, state } = run(
    arm(
      0xe3a00005, // mov r0, #5
      0xe3a01003, // mov r1, #3
      0xe0802101, // add r2, r0, r1, lsl #2   -> 17
      0xe0503005, // subs r3, r0, r5? (r5 unknown) -> r3 unknown
      0xe2504005, // subs r4, r0, #5          -> 0, Z set, C set
      0x03a06001, // moveq r6, #1
      0x13a06002, // movne r6, #2
      0xe1a07120, // lsr r7, r0, #2           -> 1
    ),
  );
  assert.equal(r.stop, 'stopped');
  assert.equal(state.r[2], 17);
  assert.equal(state.r[3], null);
  assert.equal(state.r[4], 0);
  assert.deepEqual([state.flags.z, state.flags.c, state.flags.n], [true, true, false]);
  assert.equal(state.r[6], 1);
  assert.equal(state.r[7], 1);
});

test('a condition on unknown flags, a branch to an unknown value and an unknown store address stop', () => {
  // cmp r5, #0 (r5 unknown) ; beq +0
  assert.equal(run(arm(0xe3550000, 0x0afffffe)).r.stop, 'unknown-condition');
  // bx r5
  assert.equal(run(arm(0xe12fff15)).r.stop, 'unknown-branch');
  // str r0, [r5]
  assert.equal(run(arm(0xe3a00001, 0xe5850000)).r.stop, 'unknown-address');
});

test('Thumb: literal load, BL pair, interworking BX into ARM and back', () => {
  // 0: ldr r0, [pc, #8] (-> word at 0x0c) ; 2: bl +4 (to 0x0a) ; 6: b . ; 8: nop
  // 0x0a: adds r0, #1 ; 0x0c: bx lr ... the word at 0x0c is read as the literal too.
  const code = thumb(0x4802, 0xf000, 0xf802, 0xe7fe, 0x46c0, 0x3001, 0x4770, 0x0000);
  const state = emuState(BASE, true);
  const r = emulate(state, {
    processor: 'arm9',
    memory: memory(BASE, code),
    maxSteps: 16,
    stopAt: (pc) => pc === BASE + 6,
  });
  assert.equal(r.stop, 'stopped');
  assert.equal(r.thumb, true);
  // The literal word at 0x0c is 0x00004770; +1 in the callee.
  assert.equal(state.r[0], 0x4771);
  assert.equal(state.r[14], (BASE + 6) | 1);
});

test('BLX and CLZ are ARMv5: they run on the ARM9 and are undefined on the ARM7', () => {
  const code = arm(0xe3a00010, 0xe16f1f10); // mov r0, #16 ; clz r1, r0
  const nine = run(code);
  assert.equal(nine.r.stop, 'stopped');
  assert.equal(nine.state.r[1], 27);
  assert.equal(run(code, { processor: 'arm7' }).r.stop, 'undefined');
  // Thumb BLX r0 on the ARM7
  assert.equal(
    run(thumb(0x4780), { thumb: true, regs: { 0: BASE + 0x100 }, processor: 'arm7' }).r.stop,
    'undefined',
  );
});

test('a loaded value keeps its source address through moves and stores; arithmetic drops it', () => {
  const src = 0x02100000;
  const state = emuState(BASE, false, { 4: src, 5: 0x02200000 });
  const mem = memory(
    BASE,
    arm(
      0xe5940000, // ldr r0, [r4]
      0xe1a01000, // mov r1, r0
      0xe5851000, // str r1, [r5]
      0xe2812001, // add r2, r1, #1
      0xe5852004, // str r2, [r5, #4]
    ),
    { [src]: 0x11, [src + 1]: 0x22, [src + 2]: 0x33, [src + 3]: 0x44 },
  );
  const r = emulate(state, { processor: 'arm9', memory: mem, maxSteps: 8, stopAt: (pc) => pc === BASE + 20 });
  assert.equal(r.stop, 'stopped');
  assert.equal(state.r[1], 0x44332211);
  assert.equal(state.prov[1], src);
  assert.deepEqual(mem.stored.get(0x02200000), { value: 0x11, source: src });
  assert.deepEqual(mem.stored.get(0x02200003), { value: 0x44, source: src + 3 });
  assert.deepEqual(mem.stored.get(0x02200004), { value: 0x12, source: null });
});

test('status-register and coprocessor instructions stop unless skipped; skipping clobbers what they write', () => {
  const code = arm(0xe3a00001, 0xe10f0000, 0xee110f10); // mov r0, #1 ; mrs r0, cpsr ; mrc p15, 0, r0, c1, c0, 0
  assert.equal(run(code).r.stop, 'unsupported');
  const state = emuState(BASE, false);
  const r = emulate(state, {
    processor: 'arm9',
    memory: memory(BASE, code),
    maxSteps: 8,
    stopAt: (pc) => pc === BASE + 12,
    system: 'skip',
  });
  assert.equal(r.stop, 'stopped');
  assert.equal(state.r[0], null);
});

test('the step limit bounds every run', () => {
  const r = run(arm(0xeafffffe), { steps: 100 }); // b .
  assert.deepEqual([r.r.stop, r.r.steps], ['step-limit', 100]);
});

test('start-up copies of the kit programs are found where their ELF sections say (crt0 run on the static bytes)', () => {
  for (const name of ['arm9-program', 'arm7-program'] as const) {
    const truth = loadProgramTruth(name);
    const found = detectCopies(
      { start: truth.loadAddress, bytes: truth.bytes },
      truth.loadAddress,
      truth.processor,
    );
    // Every loaded section whose run address differs from its load address is copied whole.
    const moved = truth.sections.filter((s) => s.vma !== s.lma && s.size > 0);
    assert.ok(moved.length > 0, name);
    for (const s of moved) {
      const covering = found.copies.filter((c) => c.start < s.vma + s.size && c.start + c.size > s.vma);
      const bytes = covering.reduce(
        (n, c) => n + Math.min(c.start + c.size, s.vma + s.size) - Math.max(c.start, s.vma),
        0,
      );
      assert.equal(bytes, s.size, `${name} ${s.name}: ${bytes} of ${s.size} bytes copied`);
      for (const c of covering) assert.equal(c.start - c.source, s.vma - s.lma, `${name} ${s.name} source`);
    }
    // Nothing else is claimed.
    for (const c of found.copies) {
      assert.ok(
        moved.some((s) => c.start >= s.vma && c.start + c.size <= s.vma + s.size),
        `${name}: copy at 0x${c.start.toString(16)} is no section`,
      );
    }
  }
});
