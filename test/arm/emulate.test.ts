// The interpreter over unknown values (src/arm/emulate.ts): instruction semantics on hand-encoded
// ARM and Thumb, what an unknown value stops, provenance of loaded bytes, the ARMv4T/ARMv5TE split,
// and the start-up copy detection run on the kit's real crt0 code (checked against the ELF sections).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { detectCopies } from '../../src/analysis/evidence/copied-code.js';
import {
  assumeCondition,
  type CoprocessorWrite,
  conditionAt,
  type EmuMemory,
  type EmuState,
  emulate,
  emuState,
} from '../../src/arm/emulate.js';
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
  opts: {
    thumb?: boolean;
    regs?: Record<number, number>;
    steps?: number;
    processor?: 'arm9' | 'arm7';
    join?: boolean;
    onMcr?: (w: CoprocessorWrite) => void;
  } = {},
) {
  const state: EmuState = emuState(BASE, opts.thumb ?? false, opts.regs ?? {});
  const mem = memory(BASE, code);
  const r = emulate(state, {
    processor: opts.processor ?? 'arm9',
    memory: mem,
    maxSteps: opts.steps ?? 64,
    stopAt: (pc) => pc >= BASE + code.length,
    ...(opts.join ? { unknownCondition: 'join' as const } : {}),
    ...(opts.onMcr ? { system: 'skip' as const, onCoprocessorWrite: opts.onMcr } : {}),
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
    // Every loaded section whose run address differs from its load address is copied whole: code
    // sections as code, the DTCM's data as data.
    const moved = truth.sections.filter((s) => s.vma !== s.lma && s.size > 0);
    assert.ok(moved.length > 0, name);
    for (const s of moved) {
      const list = s.code ? found.copies : found.dataCopies;
      const covering = list.filter((c) => c.start < s.vma + s.size && c.start + c.size > s.vma);
      const bytes = covering.reduce(
        (n, c) => n + Math.min(c.start + c.size, s.vma + s.size) - Math.max(c.start, s.vma),
        0,
      );
      assert.equal(bytes, s.size, `${name} ${s.name}: ${bytes} of ${s.size} bytes copied`);
      for (const c of covering) assert.equal(c.start - c.source, s.vma - s.lma, `${name} ${s.name} source`);
    }
    // No code copy is claimed that no section is.
    for (const c of found.copies) {
      assert.ok(
        moved.some((s) => c.start >= s.vma && c.start + c.size <= s.vma + s.size),
        `${name}: copy at 0x${c.start.toString(16)} is no section`,
      );
    }
  }
});

test('an unknown condition stops at its instruction; joined, a non-branch makes what it changes unknown', () => {
  const code = arm(
    0xe3a00005, // mov r0, #5
    0xe3a01007, // mov r1, #7
    0xe3520000, // cmp r2, #0 (r2 unknown)
    0x13a00009, // movne r0, #9
    0x15801000, // strne r1, [r0]   -- r0 unknown after the join: the store address is unknown
  );
  const stopped = run(code);
  assert.deepEqual([stopped.r.stop, stopped.r.pc], ['unknown-condition', BASE + 12]);
  const joined = run(code.subarray(0, 16), { join: true, regs: { 3: 0x02100000 } });
  assert.equal(joined.r.stop, 'stopped');
  assert.equal(joined.state.r[0], null, 'r0 is 5 or 9');
  assert.equal(joined.state.r[1], 7, 'r1 untouched');
  // A conditional store to a known address: the byte becomes unknown, not the stored value.
  const store = run(arm(0xe3a01007, 0xe3520000, 0x15831000), { join: true, regs: { 3: 0x02100000 } });
  assert.equal(store.r.stop, 'stopped');
  assert.deepEqual(store.mem.stored.get(0x02100000), { value: null, source: null });
});

test('a conditional branch on an unknown flag is never joined: it stops where the caller may take a way', () => {
  const code = arm(
    0xe3520000, // cmp r2, #0
    0x1a000000, // bne +8 (to the mov r4)
    0xe3a03001, // mov r3, #1
    0xe3a04002, // mov r4, #2
  );
  const { r, state, mem } = run(code, { join: true });
  assert.deepEqual([r.stop, r.pc], ['unknown-condition', BASE + 4]);
  const cond = conditionAt(mem, r.pc, false);
  assert.equal(cond, 1); // NE
  assert.ok(assumeCondition(state.flags, cond!, true));
  assert.equal(state.flags.z, false);
  const again = emulate(state, {
    processor: 'arm9',
    memory: mem,
    maxSteps: 8,
    stopAt: (pc) => pc >= BASE + 16,
  });
  assert.equal(again.stop, 'stopped');
  assert.deepEqual([state.r[3], state.r[4]], [null, 2], 'the branch was taken');
  // A known flag is never overridden.
  assert.equal(assumeCondition({ n: null, z: true, c: null, v: null }, 1, true), false);
  const both = { n: null, z: null, c: true, v: null };
  assert.ok(assumeCondition(both, 8, false)); // HI false with C known set: Z must be set
  assert.equal(both.z, true);
});

test('long multiplies and SWP run exactly; an MCR reports the value it writes', () => {
  const { state } = run(
    arm(
      0xe0810392, // umull r0, r1, r2, r3
      0xe0c54392, // smull r4, r5, r2, r3
      0xe0a76392, // umlal r6, r7, r2, r3
    ),
    { regs: { 2: 0xffffffff, 3: 0xfffffffe, 6: 5, 7: 1 } },
  );
  // 0xffffffff * 0xfffffffe = 0xfffffffd_00000002; signed: (-1) * (-2) = 2.
  assert.deepEqual([state.r[0], state.r[1]], [0x00000002, 0xfffffffd]);
  assert.deepEqual([state.r[4], state.r[5]], [2, 0]);
  assert.deepEqual([state.r[6], state.r[7]], [7, 0xfffffffe]);
  const swp = run(arm(0xe1021091), { regs: { 1: 0x11223344, 2: BASE } }); // swp r1, r1, [r2]
  assert.equal(swp.state.r[1], 0xe1021091, 'the loaded word (the instruction itself)');
  assert.deepEqual(swp.mem.stored.get(BASE)?.value, 0x44);
  const writes: CoprocessorWrite[] = [];
  run(arm(0xe3a0020b, 0xe380000a, 0xee090f11), { onMcr: (w) => writes.push(w) }); // mov r0, #0xb0000000; orr r0, #0xa; mcr p15, 0, r0, c9, c1, 0
  assert.deepEqual(writes, [{ cp: 15, opc1: 0, crn: 9, crm: 1, opc2: 0, value: 0xb000000a }]);
});
