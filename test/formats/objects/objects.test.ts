// The ar and ARM ELF object readers on real files (Debian's newlib libc.a and libgcc.a, an object GCC
// compiles here), checked against binutils' own listing (arm-none-eabi-ar t, readelf), and on hostile
// input: every truncation, random damage, oversized counts and sizes, overlapping sections, names
// without terminators, with control characters or far too long. Each answer is a result or a typed
// invalid-argument ReMcpError, never anything else, never a hang.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ReMcpError } from '../../../src/core/errors.js';
import { parseArchive } from '../../../src/formats/objects/ar.js';
import {
  ET_REL,
  parseElfObject,
  SHT_REL,
  SHT_SYMTAB,
  STT_FUNC,
} from '../../../src/formats/objects/elf-object.js';
import { rng } from '../../kit/rng.js';

const gcc = (args: string[]) => execFileSync('arm-none-eabi-gcc', args, { encoding: 'utf8' }).trim();
const LIBC = gcc(['-mthumb', '-print-file-name=libc.a']);
const LIBGCC = gcc(['-mthumb', '-print-libgcc-file-name']);
const dir = mkdtempSync(join(tmpdir(), 're-mcp-objects-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A small object GCC makes here: ARM and Thumb code, a call, a string, a table of addresses. */
function compiled(): Uint8Array {
  const src = join(dir, 'unit.c');
  writeFileSync(
    src,
    [
      'extern int puts(const char *);',
      'static int helper(int x) { return x * 3 + 1; }',
      'int (*const table[])(int) = { helper, 0 };',
      'int entry(int a) { puts("hello from unit"); return helper(a) + table[0](a); }',
      '__attribute__((target("thumb"))) int thumbed(int a) { return entry(a) ^ 0x5a5a; }',
    ].join('\n'),
  );
  const obj = join(dir, 'unit.o');
  execFileSync('arm-none-eabi-gcc', [
    '-mcpu=arm946e-s',
    '-marm',
    '-mthumb-interwork',
    '-O2',
    '-c',
    '-o',
    obj,
    src,
  ]);
  return new Uint8Array(readFileSync(obj));
}

test('libc.a: every member binutils lists, in order, each an ARM relocatable object', () => {
  const bytes = new Uint8Array(readFileSync(LIBC));
  const listed = execFileSync('arm-none-eabi-ar', ['t', LIBC], { encoding: 'utf8', maxBuffer: 1 << 24 })
    .split('\n')
    .filter((l) => l.length > 0);
  const ar = parseArchive(bytes);
  assert.deepEqual(
    ar.members.map((m) => m.name),
    listed,
  );
  assert.deepEqual(ar.skipped, []);
  for (const m of ar.members.slice(0, 80)) {
    const o = parseElfObject(m.bytes);
    assert.equal(o.type, ET_REL, m.name);
    assert.deepEqual(o.problems, [], m.name);
  }
});

test('libgcc.a: long member names through the names table', () => {
  const ar = parseArchive(new Uint8Array(readFileSync(LIBGCC)));
  const listed = execFileSync('arm-none-eabi-ar', ['t', LIBGCC], { encoding: 'utf8', maxBuffer: 1 << 24 })
    .split('\n')
    .filter((l) => l.length > 0);
  assert.deepEqual(
    ar.members.map((m) => m.name),
    listed,
  );
  assert.ok(
    listed.some((n) => n.length > 15),
    'the archive has names longer than a header holds',
  );
});

test('an object GCC compiles: sections, symbols and relocations as readelf lists them', () => {
  const bytes = compiled();
  const o = parseElfObject(bytes);
  const obj = join(dir, 'unit.o');
  const readelf = execFileSync('arm-none-eabi-readelf', ['-W', '-s', '-r', '-S', obj], { encoding: 'utf8' });
  // Functions by name and Thumb bit.
  const fn = (name: string) => o.symbols.find((s) => s.name === name && s.type === STT_FUNC);
  assert.equal((fn('entry')!.value & 1) === 0, true);
  assert.equal(fn('thumbed')!.value & 1, 1);
  assert.ok(o.sections.some((s) => s.type === SHT_SYMTAB));
  // Relocation counts per section, as readelf counts them.
  const counts = [
    ...readelf.matchAll(/Relocation section '([^']+)' at offset 0x[0-9a-f]+ contains (\d+) entr/g),
  ];
  assert.ok(counts.length > 0);
  for (const [, name, n] of counts) {
    const rel = o.sections.find((s) => s.name === name)!;
    assert.equal(rel.type, SHT_REL);
    assert.equal(o.relocations.get(rel.info)?.length, Number(n), name);
  }
  // The call from entry to puts is an R_ARM_CALL (28) naming puts.
  const text = o.sections.find((s) => s.name === '.text')!;
  const puts = o.symbols.find((s) => s.name === 'puts')!;
  assert.ok(o.relocations.get(text.index)!.some((r) => r.type === 28 && r.symbol === puts.index));
});

/** Runs `parse` on `bytes`: a value, or a typed invalid-argument refusal; anything else fails. */
function settles(parse: (b: Uint8Array) => unknown, bytes: Uint8Array, what: string): 'read' | 'refused' {
  try {
    parse(bytes);
    return 'read';
  } catch (error) {
    assert.ok(error instanceof ReMcpError, `${what}: ${String(error)}`);
    assert.equal(error.code, 'invalid-argument', what);
    return 'refused';
  }
}

test('hostile objects: every truncation and random damage settle as a result or a typed refusal', () => {
  const good = compiled();
  const outcomes = { read: 0, refused: 0 };
  for (let n = 0; n <= good.length; n += n < 128 ? 1 : 7)
    outcomes[settles(parseElfObject, good.subarray(0, n), `cut ${n}`)]++;
  const r = rng(45);
  for (let k = 0; k < 600; k++) {
    const b = good.slice();
    for (let i = 0, flips = 1 + Math.floor(r() * 8); i < flips; i++)
      b[Math.floor(r() * b.length)] = Math.floor(r() * 256);
    outcomes[settles(parseElfObject, b, `damage ${k}`)]++;
  }
  assert.ok(outcomes.read > 0 && outcomes.refused > 0, JSON.stringify(outcomes));
});

test('hostile objects: oversized counts and sizes, overlapping sections, unterminated and long names', () => {
  const good = compiled();
  const dv = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);
  const shoff = dv(good).getUint32(32, true);
  const shnum = dv(good).getUint16(48, true);
  const cases: [string, (b: Uint8Array) => void][] = [
    ['section count 0xffff', (b) => dv(b).setUint16(48, 0xffff, true)],
    [
      'extended count huge',
      (b) => {
        dv(b).setUint16(48, 0);
        dv(b).setUint32(shoff + 20, 0xffffffff, true);
      },
    ],
    ['section headers past the end', (b) => dv(b).setUint32(32, 0xfffffff0, true)],
    ['header size 0', (b) => dv(b).setUint16(46, 0, true)],
    ['names table index out of range', (b) => dv(b).setUint16(50, 0xfffe, true)],
  ];
  for (let i = 1; i < shnum; i++) {
    const at = shoff + i * 40;
    cases.push([`section ${i} size 0xffffffff`, (b) => dv(b).setUint32(at + 20, 0xffffffff, true)]);
    cases.push([`section ${i} offset past the end`, (b) => dv(b).setUint32(at + 16, 0x7fffffff, true)]);
    cases.push([
      `section ${i} over the headers`,
      (b) => {
        dv(b).setUint32(at + 16, 0, true);
        dv(b).setUint32(at + 20, b.length, true);
      },
    ]);
    cases.push([
      `section ${i} link and info huge`,
      (b) => {
        dv(b).setUint32(at + 24, 0xffffffff, true);
        dv(b).setUint32(at + 28, 0xffffffff, true);
      },
    ]);
    cases.push([`section ${i} name offset huge`, (b) => dv(b).setUint32(at, 0xffffffff, true)]);
  }
  for (const [what, damage] of cases) {
    const b = good.slice();
    damage(b);
    settles(parseElfObject, b, what);
  }
  // A string table whose every byte is a control character or 'A' and never ends: names unread, kept null.
  const o = parseElfObject(good);
  const strtab = o.sections.find((s) => s.index === o.sections.find((t) => t.type === SHT_SYMTAB)!.link)!;
  const b = good.slice();
  const start = strtab.data.byteOffset - good.byteOffset;
  for (let i = 0; i < strtab.size; i++) b[start + i] = i % 3 === 0 ? 0x01 : 0x41;
  const hostile = parseElfObject(b);
  assert.ok(hostile.symbols.slice(1).every((s) => s.name === null || !s.name.includes('\u0000')));
  assert.ok(hostile.symbols.slice(1).some((s) => s.name === null));
});

/** An archive of the given members (GNU layout, long names through `//`). */
function archive(members: { name: string; bytes: Uint8Array }[]): Uint8Array {
  const enc = new TextEncoder();
  const parts: Uint8Array[] = [enc.encode('!<arch>\n')];
  const header = (name: string, size: number) =>
    enc.encode(
      `${name.padEnd(16)}${'0'.padEnd(12)}${'0'.padEnd(6)}${'0'.padEnd(6)}${'644'.padEnd(8)}${String(size).padEnd(10)}\`\n`,
    );
  const long: string[] = [];
  const names = members.map((m) => {
    if (m.name.length < 16) return `${m.name}/`;
    const at = long.join('').length;
    long.push(`${m.name}/\n`);
    return `/${at}`;
  });
  if (long.length > 0) {
    const table = enc.encode(long.join(''));
    parts.push(header('//', table.length), table);
    if (table.length % 2) parts.push(enc.encode('\n'));
  }
  members.forEach((m, i) => {
    parts.push(header(names[i]!, m.bytes.length), m.bytes);
    if (m.bytes.length % 2) parts.push(enc.encode('\n'));
  });
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

test('hostile archives: truncation, damage, sizes past the end, names out of the table, control characters', () => {
  const obj = compiled();
  const good = archive([
    { name: 'unit.o', bytes: obj },
    { name: 'a-rather-long-member-name.o', bytes: obj.subarray(0, 101) },
  ]);
  const ar = parseArchive(good);
  assert.deepEqual(
    ar.members.map((m) => [m.name, m.bytes.length]),
    [
      ['unit.o', obj.length],
      ['a-rather-long-member-name.o', 101],
    ],
  );
  for (let n = 0; n <= good.length; n += n < 200 ? 1 : 11)
    settles(parseArchive, good.subarray(0, n), `cut ${n}`);
  const r = rng(4545);
  for (let k = 0; k < 600; k++) {
    const b = good.slice();
    for (let i = 0, flips = 1 + Math.floor(r() * 6); i < flips; i++)
      b[8 + Math.floor(r() * 200)] = Math.floor(r() * 256);
    settles(parseArchive, b, `damage ${k}`);
  }
  const enc = new TextEncoder();
  const oversize = good.slice();
  oversize.set(enc.encode('9999999999'), 8 + 48);
  assert.ok(parseArchive(oversize).skipped.some((s) => /past the file/.test(s.why)));
  const outside = archive([{ name: 'x'.repeat(20), bytes: obj.subarray(0, 10) }]);
  const idx = new TextDecoder().decode(outside).indexOf('/0 ');
  outside.set(enc.encode('/9999 '), idx);
  assert.ok(parseArchive(outside).skipped.some((s) => /names table/.test(s.why)));
  const control = archive([{ name: 'bad\u0007name.o', bytes: obj.subarray(0, 10) }]);
  assert.equal(parseArchive(control).members.length, 0);
  const thin = enc.encode('!<thin>\n');
  assert.throws(
    () => parseArchive(thin),
    (e: unknown) => e instanceof ReMcpError && e.code === 'invalid-argument',
  );
  // A BSD name longer than its member.
  const bsd = archive([{ name: 'z.o', bytes: obj.subarray(0, 8) }]);
  bsd.set(enc.encode('#1/400          '), 8);
  assert.ok(parseArchive(bsd).skipped.length === 1);
});
