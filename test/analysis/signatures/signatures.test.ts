// Signatures of real compiled code: an object GCC compiles here gives each function its bytes with the
// relocated ones masked (the call, the address words) and what they name (the callee, the string);
// the same code linked at two addresses into two different programs matches itself in both, with its
// references agreeing; the set file round-trips; damaged objects and archives, and damaged set files,
// settle as a set or a typed refusal.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { applySteps, type ProgramMemory } from '../../../src/analysis/signatures/apply.js';
import { imageItemSteps } from '../../../src/analysis/signatures/from-image.js';
import { isLinkerStub } from '../../../src/analysis/signatures/relocs.js';
import {
  buildSetSteps,
  decodeSetSteps,
  encodeSetSteps,
  patternOf,
} from '../../../src/analysis/signatures/set.js';
import type { SignatureSet } from '../../../src/analysis/signatures/types.js';
import { runSteps } from '../../../src/core/cooperative.js';
import { ReMcpError } from '../../../src/core/errors.js';
import { rng } from '../../kit/rng.js';
import { objectKit } from '../../kit/signature-objects.js';

const { dir, compile, link, setOf, cleanup } = objectKit('re-mcp-signatures-');
after(cleanup);

const LIB = [
  'extern int puts(const char *);',
  'extern int counter;',
  'static int scale(int x) { return x * 3 + counter; }',
  '__attribute__((noinline)) int lib_entry(int a) { puts("library says hello"); return scale(a) + scale(a >> 2); }',
  '__attribute__((target("thumb"))) int lib_thumb(int a, int b) { return lib_entry(a) ^ (b * 0x1234567); }',
].join('\n');

const libObject = () => compile('lib', LIB);

test('an object: calls and address words masked, naming their callee, the string and the variable', () => {
  const set = setOf([libObject()]);
  const entry = set.items.find((i) => i.names[0] === 'lib_entry')!;
  const thumb = set.items.find((i) => i.names[0] === 'lib_thumb')!;
  assert.equal(entry.mode, 'arm');
  assert.equal(thumb.mode, 'thumb');
  const calls = entry.refs.filter((r) => r.kind === 'call').map((r) => r.target);
  assert.ok(calls.includes('puts'), JSON.stringify(entry.refs));
  const text = entry.refs.find((r) => r.content !== null);
  assert.ok(text, 'the string is named by its bytes');
  assert.equal(new TextDecoder().decode(text!.content!), 'library says hello\u0000');
  // Every ref's bytes are masked; the rest compared.
  for (const r of entry.refs) for (let i = r.at; i < r.at + 4; i++) assert.equal(entry.mask[i], 0);
  assert.ok(patternOf(entry).includes('..'));
  assert.ok(thumb.refs.some((r) => r.kind === 'call' && r.target === 'lib_entry'));
});

test('the same object linked into two different programs at two addresses: named in both, references agreeing', () => {
  const lib = libObject();
  const set = setOf([lib]);
  const a = compile(
    'app-a',
    'int counter = 5; int puts(const char *s) { return *s; }\nextern int lib_thumb(int, int);\nint main(void) { return lib_thumb(1, 2); }',
  );
  const b = compile(
    'app-b',
    'int pad[64]; int counter = 9; int other(int x) { return x * 7; }\nint puts(const char *s) { return s[1] + other(2); }\nextern int lib_entry(int);\nint main(void) { return lib_entry(3) + other(4); }',
    ['-mthumb'],
  );
  for (const [name, base, objs] of [
    ['prog-a', 0x02000000, [a, lib]],
    ['prog-b', 0x02100000, [b, lib]],
  ] as const) {
    const p = link(name, base, [...objs]);
    const r = runSteps(applySteps(set, p.functions, p.memory));
    const at = (n: string) => p.functions.find((f) => f.name === n)!.address;
    for (const n of ['lib_entry', 'lib_thumb']) {
      const prop = r.proposals.find((x) => x.address === at(n));
      assert.ok(prop, `${name}: ${n} proposed`);
      assert.equal(prop.name, n, `${name}: ${JSON.stringify(prop)}`);
      assert.equal(prop.tier, 'strong');
    }
    // lib_entry's string is there: that reference agrees. (lib_thumb's call reaches lib_entry
    // through a veneer the linker added: not checkable, and not held against it.)
    const e = r.proposals.find((x) => x.name === 'lib_entry')!;
    assert.ok(e.candidates[0]!.refsAgreed >= 1, JSON.stringify(e));
    // Nothing of the program's own code is named.
    for (const own of ['main', 'puts', 'other'])
      assert.equal(
        r.proposals.find((x) => x.address === p.functions.find((f) => f.name === own)?.address)?.name ?? null,
        null,
      );
  }
});

test('a reference that disagrees rules the match out', () => {
  const set = setOf([libObject()]);
  const entry = set.items.find((i) => i.names[0] === 'lib_entry')!;
  // The string it loads, changed in the program: the match goes.
  const a = compile(
    'app-c',
    'int counter = 5; int puts(const char *s) { return *s; }\nextern int lib_entry(int);\nint main(void) { return lib_entry(1); }',
  );
  const p = link('prog-c', 0x02000000, [a, join(dir, 'lib.o')]);
  const strRef = entry.refs.find((r) => r.content !== null)!;
  const f = p.functions.find((x) => x.name === 'lib_entry')!;
  const word = new DataView(f.bytes.buffer, f.bytes.byteOffset).getUint32(
    f.address - f.start + strRef.at,
    true,
  );
  const memory: ProgramMemory = {
    read(address, length) {
      const real = p.memory.read(address, length);
      if (real === null || address !== word) return real;
      const changed = real.slice();
      changed[0] ^= 0xff;
      return changed;
    },
  };
  const r = runSteps(applySteps(set, p.functions, memory));
  assert.equal(
    r.proposals.find((x) => x.address === f.address),
    undefined,
  );
  assert.ok(r.counts.contradicted >= 1);
});

test('functions too short or too alike to tell apart are named by their caller and by their place in the object', () => {
  const tiny = compile(
    'tiny',
    [
      'extern int counter;',
      '__attribute__((noinline)) int tiny_a(void) { return 1; }',
      '__attribute__((noinline)) int tiny_b(void) { return 2; }',
      '__attribute__((noinline)) int tiny_c(void) { return 1; }',
      '__attribute__((noinline)) int big(int x) { int s = 0; for (int i = 0; i < x; i++) s += (i * counter) ^ (s >> 3); return s + tiny_a(); }',
    ].join('\n'),
  );
  const set = setOf([tiny]);
  // The set file keeps each item's place in its object.
  const text = runSteps(encodeSetSteps(set));
  const back = runSteps(decodeSetSteps(text));
  assert.deepEqual(
    back.items.map((i) => i.place),
    set.items.map((i) => i.place),
  );
  assert.ok(set.items.every((i) => i.place !== undefined));
  // Each function's place has its section's length and alignment (version 2).
  assert.ok(set.items.every((i) => i.kind !== 'function' || (i.place?.span?.align ?? 0) >= 2));
  const first = /"place":\[[\d,]+\]/;
  for (const bad of [
    '[1]',
    '[-1,0]',
    '[0,"x"]',
    '"0,0"',
    '[0,0,64]',
    '[0,0,64,3]',
    '[0,0,64,8192]',
    '[0,0,1,2]',
  ])
    assert.throws(
      () => runSteps(decodeSetSteps(text.replace(first, `"place":${bad}`))),
      (e: unknown) => e instanceof ReMcpError && e.code === 'invalid-argument',
      bad,
    );
  // A version 1 file has places of two numbers and is read as before; four are version 2's.
  const v1 = text
    .replace('"version":2', '"version":1')
    .replace(/"place":\[(\d+),(\d+),\d+,\d+\]/g, '"place":[$1,$2]');
  assert.ok(
    runSteps(decodeSetSteps(v1)).items.every((i) => i.place !== undefined && i.place.span === undefined),
  );
  assert.throws(
    () => runSteps(decodeSetSteps(text.replace('"version":2', '"version":1'))),
    (e: unknown) => e instanceof ReMcpError && e.code === 'invalid-argument',
  );
  const app = compile(
    'app-tiny',
    'int counter = 3;\nextern int big(int);\nextern int tiny_b(void);\nint main(void) { return big(4) + tiny_b(); }',
  );
  const p = link('prog-tiny', 0x02000000, [app, tiny]);
  const r = runSteps(applySteps(set, p.functions, p.memory));
  const at = (n: string) => p.functions.find((f) => f.name === n)!.address;
  const named = (n: string) => r.proposals.find((x) => x.address === at(n));
  assert.equal(named('big')?.name, 'big');
  assert.equal(named('big')?.tier, 'strong');
  // tiny_a and tiny_c have the same 8 bytes: big's call names one, the object's layout the other;
  // tiny_b is too short to stand alone: its place names it.
  for (const [n, why] of [
    ['tiny_a', /called as tiny_a by big/],
    ['tiny_c', /placed -?\d+ bytes from/],
    ['tiny_b', /placed -?\d+ bytes from/],
  ] as const) {
    const prop = named(n);
    assert.equal(prop?.name, n, `${n}: ${JSON.stringify(prop)}`);
    assert.equal(prop.tier, 'supported');
    assert.ok(
      prop.reasons.some((x) => why.test(x)),
      prop.reasons.join('; '),
    );
  }
  assert.equal(r.proposals.find((x) => x.address === at('main'))?.name ?? null, null);
});

test("a linker's stubs are told from code (they are carried only by what they reach)", () => {
  const le = (...words: number[]) => new Uint8Array(new Uint32Array(words).buffer);
  assert.equal(isLinkerStub(le(0x46c04778, 0xea000000), 'thumb'), true, 'bx pc; nop');
  assert.equal(isLinkerStub(le(0xe7fd4778, 0xeafffcf6), 'thumb'), true, 'bx pc; b .-2');
  assert.equal(isLinkerStub(le(0xe59fc000, 0xe12fff1c, 0x02000001), 'arm'), true, 'ldr ip, [pc]; bx ip');
  assert.equal(isLinkerStub(le(0xe51ff004, 0x02000000), 'arm'), true, 'ldr pc, [pc, #-4]');
  assert.equal(isLinkerStub(le(0xb5104778), 'thumb'), false, 'bx pc then push: not a stub');
  assert.equal(isLinkerStub(le(0xe92d4010, 0xe12fff1e), 'arm'), false, 'push; bx lr');
  assert.equal(isLinkerStub(le(0x46c04778).subarray(0, 2), 'thumb'), false, 'too short');
});

/** One flat image at `base` holding `words` (little-endian), as a builder and an applier read it. */
function flatImage(base: number, words: number[]) {
  const bytes = new Uint8Array(new Uint32Array(words).buffer);
  return {
    bytes,
    read: (address: number, length: number) =>
      address >= base && address + length <= base + bytes.length
        ? bytes.subarray(address - base, address - base + length)
        : null,
    isAddress: (value: number) => value >= base && value < base + bytes.length,
  };
}
/** ARM `b target` at `at`. */
const armB = (at: number, target: number) => (0xea000000 | (((target - at - 8) >> 2) & 0xffffff)) >>> 0;
/** Five distinct ARM instructions then `bx lr`: a function of 24 bytes. */
const body = (k: number) => [
  0xe3a00000 + k,
  0xe2800001 + k * 16,
  0xe0800001,
  0xe1a01000 + k,
  0xe0210002,
  0xe12fff1e,
];

test("a linker's stubs are carried by what they reach, never by their place", () => {
  // Program A: f at 0x1000, g at 0x1018; Thumb stubs to f (0x1030) and g (0x1038); an ARM stub by
  // address word to g (0x1040).
  const A = 0x1000;
  const a = flatImage(A, [
    ...body(1),
    ...body(2),
    0x46c04778,
    armB(0x1034, 0x1000),
    0x46c04778,
    armB(0x103c, 0x1018),
    0xe59fc000,
    0xe12fff1c,
    0x1018,
  ]);
  const places = [
    { names: ['f'], address: 0x1000, mode: 'arm' as const, size: 24 },
    { names: ['g'], address: 0x1018, mode: 'arm' as const, size: 24 },
    { names: ['__f_from_thumb'], address: 0x1030, mode: 'thumb' as const, size: 8 },
    { names: ['__g_from_thumb'], address: 0x1038, mode: 'thumb' as const, size: 8 },
    { names: ['__g_from_arm'], address: 0x1040, mode: 'arm' as const, size: 12 },
  ];
  const { items, skipped } = runSteps(imageItemSteps(a, places, 'a'));
  assert.deepEqual(skipped, []);
  const stub = items.find((i) => i.names[0] === '__f_from_thumb')!;
  assert.equal(stub.place, undefined, 'a stub has no place for the neighbour walk');
  assert.deepEqual(
    stub.refs.map((r) => [r.at, r.kind, r.target]),
    [[4, 'call', 'f']],
  );
  assert.deepEqual([...stub.mask], [1, 1, 1, 1, 0, 0, 0, 0]);
  const set: SignatureSet = { name: 't', sources: [], items };
  // Program B, moved and reordered: g at 0x2000, f at 0x2018, an unnamed h at 0x2030; the stubs in
  // another order (g, h, f), and the ARM stub to f now.
  const B = 0x2000;
  const b = flatImage(B, [
    ...body(2),
    ...body(1),
    ...body(3),
    0x46c04778,
    armB(0x204c, 0x2000),
    0x46c04778,
    armB(0x2054, 0x2030),
    0x46c04778,
    armB(0x205c, 0x2018),
    0xe59fc000,
    0xe12fff1c,
    0x2018,
  ]);
  const fn = (address: number, mode: 'arm' | 'thumb', size: number) => ({
    key: address.toString(16),
    address,
    mode,
    end: address + size,
    bytes: b.bytes,
    start: B,
  });
  const functions = [
    fn(0x2000, 'arm', 24),
    fn(0x2018, 'arm', 24),
    fn(0x2030, 'arm', 24),
    fn(0x2048, 'thumb', 8),
    fn(0x2050, 'thumb', 8),
    fn(0x2058, 'thumb', 8),
    fn(0x2060, 'arm', 12),
  ];
  const r = runSteps(applySteps(set, functions, b));
  const named = new Map(r.proposals.filter((p) => p.name !== null).map((p) => [p.address, p.name]));
  assert.deepEqual(
    named,
    new Map([
      [0x2000, 'g'],
      [0x2018, 'f'],
      [0x2048, '__g_from_thumb'],
      [0x2058, '__f_from_thumb'],
    ]),
  );
  // The stub to the unnamed h and the ARM stub that reaches f (A's reached g) name nothing.
  for (const at of [0x2050, 0x2060]) {
    const p = r.proposals.find((x) => x.address === at);
    assert.equal(p?.name ?? null, null, `0x${at.toString(16)}`);
  }
});

test('the set file round-trips; damaged set files are typed refusals', () => {
  const set = setOf([libObject()]);
  const text = runSteps(encodeSetSteps(set));
  const back = runSteps(decodeSetSteps(text));
  assert.equal(runSteps(encodeSetSteps(back)), text);
  assert.deepEqual(
    back.items.map((i) => [i.key, patternOf(i), i.refs.length]),
    set.items.map((i) => [i.key, patternOf(i), i.refs.length]),
  );
  const r = rng(4501);
  for (let k = 0; k < 400; k++) {
    const chars = [...text];
    for (let i = 0, n = 1 + Math.floor(r() * 4); i < n; i++)
      chars[Math.floor(r() * chars.length)] = String.fromCharCode(32 + Math.floor(r() * 95));
    try {
      runSteps(decodeSetSteps(chars.join('')));
    } catch (error) {
      assert.ok(error instanceof ReMcpError && error.code === 'invalid-argument', String(error));
    }
  }
  for (let n = 0; n < text.length; n += 97)
    assert.throws(
      () => runSteps(decodeSetSteps(text.slice(0, n))),
      (e: unknown) => e instanceof ReMcpError && e.code === 'invalid-argument',
    );
});

test('damaged objects and archives build a set or are typed refusals', () => {
  const obj = new Uint8Array(readFileSync(libObject()));
  const archivePath = join(dir, 'lib.a');
  rmSync(archivePath, { force: true });
  execFileSync('arm-none-eabi-ar', ['rcs', archivePath, join(dir, 'lib.o'), join(dir, 'app-a.o')]);
  const ar = new Uint8Array(readFileSync(archivePath));
  const r = rng(4502);
  let built = 0;
  for (const [what, good] of [
    ['object', obj],
    ['archive', ar],
  ] as const) {
    for (let k = 0; k < 300; k++) {
      const b = good.slice();
      for (let i = 0, n = 1 + Math.floor(r() * 8); i < n; i++)
        b[Math.floor(r() * b.length)] = Math.floor(r() * 256);
      try {
        runSteps(buildSetSteps('fuzz', [{ path: what, sha256: '0'.repeat(64), bytes: b }]));
        built++;
      } catch (error) {
        assert.ok(error instanceof ReMcpError, `${what} ${k}: ${String(error)}`);
      }
    }
  }
  assert.ok(built > 0);
});
