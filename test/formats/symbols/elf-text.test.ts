// The symbol file formats (src/formats/symbols): the kit program's ELF read against its own truth
// (objdump's function list), every text format written and read back to the same names, and hostile
// files (junk, control characters, duplicates, huge counts, truncated or lying ELF headers) reported
// line by line or refused, never thrown past the parser or read out of bounds.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ElfError, parseElfSymbols } from '../../../src/formats/symbols/elf.js';
import { parseSymbolText, writeSymbolText } from '../../../src/formats/symbols/text.js';
import { badName, type RawSymbol, SYMBOL_LIMITS } from '../../../src/formats/symbols/types.js';
import { ARM_KIT_BUILD_DIR, loadArmProgram, loadProgramTruth } from '../../kit/arm/index.js';
import { rng } from '../../kit/rng.js';

const elfOf = (name: 'arm9-program' | 'arm7-program' | 'arm9-idioms') =>
  new Uint8Array(readFileSync(join(ARM_KIT_BUILD_DIR, `${name}.elf`)));

test('ELF: every function of the kit programs with its address, mode and size', () => {
  for (const name of ['arm9-program', 'arm7-program'] as const) {
    const truth = loadProgramTruth(name);
    const parsed = parseElfSymbols(elfOf(name));
    assert.equal(parsed.cut, 0);
    const byName = new Map<string, RawSymbol[]>();
    for (const s of parsed.symbols) byName.set(s.name, [...(byName.get(s.name) ?? []), s]);
    let checked = 0;
    for (const f of truth.functions) {
      // A name may stand twice at one address (an alias with and without a size).
      const at = byName.get(f.name)?.filter((s) => s.address === f.address) ?? [];
      assert.ok(at.length > 0, `${name}: ${f.name} at 0x${f.address.toString(16)}`);
      assert.ok(
        at.some((s) => s.mode === f.mode),
        `${f.name}: ${JSON.stringify(at)} vs ${f.mode}`,
      );
      // The size is the symbol's own or, for an alias the ELF gives none, its sibling's at that address.
      if (f.size > 0)
        assert.ok(
          parsed.symbols.some((s) => s.address === f.address && s.size === f.size),
          `${f.name}: size ${f.size}`,
        );
      checked++;
    }
    assert.ok(checked > 100, `${checked} functions`);
    // Mapping symbols are no names.
    assert.ok(!parsed.symbols.some((s) => /^\$[atd]/.test(s.name)));
  }
});

test('ELF: a label takes the mode of the mapping symbol covering it; objects are data', () => {
  const p = loadArmProgram('arm9-idioms');
  const parsed = parseElfSymbols(elfOf('arm9-idioms'));
  const get = (n: string) => parsed.symbols.find((s) => s.name === n);
  assert.equal(get('table_op_b')?.mode, 'thumb');
  assert.equal(get('table_op_a')?.mode, 'arm');
  // site_load_msg_table is a plain label inside ARM code.
  assert.equal(get('site_load_msg_table')?.mode, 'arm');
  assert.equal(get('site_load_msg_table')?.address, p.symbols.site_load_msg_table!.address);
  assert.equal(get('msg_table')?.mode, 'data');
});

test('ELF: truncated, lying or foreign files are refused with a reason, never read out of bounds', () => {
  const good = elfOf('arm9-idioms');
  const refuse = (b: Uint8Array, why: RegExp) =>
    assert.throws(
      () => parseElfSymbols(b),
      (e: unknown) => e instanceof ElfError && why.test(e.message),
    );
  refuse(new Uint8Array(10), /not an ELF/);
  refuse(new TextEncoder().encode('0x02000000 main\n'), /not an ELF/);
  const b64 = good.slice();
  b64[4] = 2;
  refuse(b64, /32-bit/);
  const big = good.slice();
  big[5] = 2;
  refuse(big, /little-endian/);
  const x86 = good.slice();
  new DataView(x86.buffer).setUint16(18, 3, true);
  refuse(x86, /not an ARM/);
  const shoff = good.slice();
  new DataView(shoff.buffer).setUint32(32, 0xfffffff0, true);
  refuse(shoff, /past the file/);
  refuse(good.subarray(0, good.length - 200), /past the file/);
  // Random corruption: a refusal or a result, nothing else.
  const rand = rng(0xe1f);
  for (let i = 0; i < 3000; i++) {
    const b = good.slice();
    for (let k = 0; k < 1 + Math.floor(rand() * 8); k++)
      b[Math.floor(rand() * b.length)] = Math.floor(rand() * 256);
    try {
      const r = parseElfSymbols(b);
      for (const s of r.symbols) assert.equal(badName(s.name), null);
    } catch (e) {
      assert.ok(e instanceof ElfError, String(e));
    }
  }
});

const sample: RawSymbol[] = [
  {
    address: 0x02000000,
    name: '_start',
    mode: 'arm',
    size: 0x40,
    comment: null,
    processor: 'arm9',
    overlayId: null,
    line: 0,
  },
  {
    address: 0x02000b78,
    name: 'main',
    mode: 'thumb',
    size: 312,
    comment: 'the game loop, "quoted", and, commas',
    processor: 'arm9',
    overlayId: null,
    line: 0,
  },
  {
    address: 0x020f0000,
    name: 'g_player',
    mode: 'data',
    size: 16,
    comment: null,
    processor: 'arm9',
    overlayId: null,
    line: 0,
  },
  {
    address: 0x02200010,
    name: 'ov3_func',
    mode: 'arm',
    size: null,
    comment: null,
    processor: 'arm9',
    overlayId: 3,
    line: 0,
  },
  {
    address: 0x03800000,
    name: 'arm7_main',
    mode: null,
    size: null,
    comment: null,
    processor: 'arm7',
    overlayId: null,
    line: 0,
  },
];
const key = (s: RawSymbol, fields: (keyof RawSymbol)[]) => fields.map((f) => String(s[f])).join('|');

test('text formats: what is written reads back to the same names, places and modes', () => {
  const cases: Array<[Parameters<typeof writeSymbolText>[0], (keyof RawSymbol)[]]> = [
    ['csv', ['address', 'name', 'mode', 'processor', 'overlayId', 'size', 'comment']],
    ['plain', ['address', 'name', 'mode']],
    ['symbols-txt', ['address', 'name', 'mode', 'size']],
    ['nosgba', ['address', 'name', 'mode']],
  ];
  for (const [format, fields] of cases) {
    const text = writeSymbolText(format, sample);
    const back = parseSymbolText(format, text);
    assert.deepEqual(back.skipped, [], `${format}: ${text}`);
    const want = sample
      .map((s) => ({ ...s, size: format === 'symbols-txt' || format === 'csv' ? s.size : null }))
      .map((s) => key(s, fields))
      .sort();
    // no$gba's .byt: directive says data; its size is not read back.
    assert.deepEqual(back.symbols.map((s) => key(s, fields)).sort(), want, format);
  }
});

test('text formats read what other tools write', () => {
  const sym = parseSymbolText(
    'nosgba',
    '; no$gba symbols\r\n02000000 .arm\r\n02000000 _start\r\n02000800 .thumb\r\n02000800 Thumb_Func\r\n020F0000 .byt:0010\r\n020F0000 gBuffer\r\n',
  );
  assert.deepEqual(
    sym.symbols.map((s) => [s.address, s.name, s.mode]),
    [
      [0x02000000, '_start', 'arm'],
      [0x02000800, 'Thumb_Func', 'thumb'],
      [0x020f0000, 'gBuffer', 'data'],
    ],
  );
  const decomp = parseSymbolText(
    'symbols-txt',
    'func_02000800 kind:function(thumb,size=0x24) addr:0x02000800\ndata_020f0000 kind:data(any) addr:0x020f0000 // a comment\n',
  );
  assert.deepEqual(
    decomp.symbols.map((s) => [s.name, s.mode, s.size]),
    [
      ['func_02000800', 'thumb', 0x24],
      ['data_020f0000', 'data', null],
    ],
  );
  const plain = parseSymbolText('plain', '# names\n2000000 entry\nmain 0x02000b78 thumb\n');
  assert.deepEqual(
    plain.symbols.map((s) => [s.address, s.name, s.mode]),
    [
      [0x02000000, 'entry', null],
      [0x02000b78, 'main', 'thumb'],
    ],
  );
});

test('junk lines, bad names and control characters are reported by line, never stored', () => {
  const text = [
    '0x02000000 good',
    'not a line at all here',
    '0x02000004 bad\u0007name',
    '0x02000008 rtl\u202eeman',
    '0xZZ nope',
    `0x0200000c ${'x'.repeat(SYMBOL_LIMITS.nameChars.max + 1)}`,
    '0x02000010 zero\u200bwidth',
    '0x02000014 ok2 sideways',
  ].join('\n');
  const r = parseSymbolText('plain', text);
  assert.deepEqual(
    r.symbols.map((s) => s.name),
    ['good'],
  );
  assert.deepEqual(
    r.skipped.map((s) => s.line),
    [2, 3, 4, 5, 6, 7, 8],
  );
  const csv = parseSymbolText('csv', 'address,name\n0x02000000,"unterminated\n0x1,ok,arm9\n');
  assert.deepEqual(
    csv.skipped.map((s) => s.line),
    [2, 3],
  );
});

test('a file with more names than the bound is read to the bound and the rest counted', () => {
  const n = SYMBOL_LIMITS.maxSymbols.max + 25;
  const text = Array.from({ length: n }, (_, i) => `${(0x02000000 + i * 4).toString(16)} f${i}`).join('\n');
  const r = parseSymbolText('plain', text);
  assert.equal(r.symbols.length, SYMBOL_LIMITS.maxSymbols.max);
  assert.equal(r.cut, 25);
});
