// Hostile symbol files (the adversarial pass's shapes, made here): ELF files whose names all point at
// one multi-megabyte string or into a string table with no NUL, many symbol tables over one, more
// symbols than are read; text files of a million bad lines or one enormous line. Each is read in bounded
// work (names looked for in at most NAME_BYTES_MAX + 1 bytes, skipped entries counted past the first
// ones kept), the heap stays small, and through the built server the import ends typed while the
// server goes on answering.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { NAME_BYTES_MAX, parseElfSymbols } from '../../src/formats/symbols/elf.js';
import { parseSymbolText } from '../../src/formats/symbols/text.js';
import { SYMBOL_LIMITS } from '../../src/formats/symbols/types.js';
import { elf, noTerminator, oneLongName } from '../kit/hostile-elf.js';
import { makeWorkspace, startServer } from '../kit/mcp-harness.js';
import { programRomBytes } from '../kit/program-rom.js';

/** Heap growth across `fn`, after a collection when the test runs with --expose-gc (else unmeasured). */
function heapGrowth(fn: () => void): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage().heapUsed;
  fn();
  const after = process.memoryUsage().heapUsed;
  return Math.max(0, after - before);
}

test('ELF names pointing at one 4 MB string are skipped as too long, unread, in little memory', () => {
  const file = oneLongName();
  let parsed!: ReturnType<typeof parseElfSymbols>;
  const grew = heapGrowth(() => {
    parsed = parseElfSymbols(file);
  });
  assert.equal(parsed.symbols.length, 0);
  assert.equal(parsed.skipped.length + parsed.skippedMore, 2000);
  assert.equal(parsed.skipped.length, SYMBOL_LIMITS.skippedKept.max);
  for (const s of parsed.skipped) assert.match(s.why, /name longer than 256 characters/);
  // Each name costs at most one bounded look (no decode of megabytes), so the heap hardly moves.
  assert.ok(grew < 64 * 1024 * 1024, `heap grew ${grew} bytes`);
});

test('ELF names in a string table with no NUL are outside it, each looked for in bounded bytes', () => {
  const parsed = parseElfSymbols(noTerminator());
  assert.equal(parsed.symbols.length, 0);
  assert.equal(parsed.skipped.length + parsed.skippedMore, 16_000);
  // Names within NAME_BYTES_MAX of the table's end run past it; all others are too long to read.
  const reasons = new Set(parsed.skipped.map((s) => s.why));
  assert.ok(reasons.has('name longer than 256 characters'), [...reasons].join());
});

test('a name of exactly 256 characters is read; one byte more of name is refused', () => {
  const name = (n: number) => new TextEncoder().encode(`${'é'.repeat(n)}\u0000`);
  const ok = name(256); // 512 bytes of UTF-8: inside NAME_BYTES_MAX
  const long = name(257);
  const strtab = new Uint8Array(1 + ok.length + long.length);
  strtab.set(ok, 1);
  strtab.set(long, 1 + ok.length);
  const parsed = parseElfSymbols(
    elf(
      [
        { name: 1, value: 0x02000000 },
        { name: 1 + ok.length, value: 0x02000004 },
      ],
      strtab,
    ),
  );
  assert.deepEqual(
    parsed.symbols.map((s) => s.name.length),
    [256],
  );
  assert.match(parsed.skipped[0]!.why, /longer than 256/);
  assert.ok(NAME_BYTES_MAX >= 256 * 4);
});

test('only the first of many symbol tables is read, and the rest are reported', () => {
  const strtab = new TextEncoder().encode('\u0000main\u0000');
  const parsed = parseElfSymbols(elf([{ name: 1, value: 0x02000001 }], strtab, 5000));
  assert.deepEqual(
    parsed.symbols.map((s) => [s.name, s.mode]),
    [['main', 'thumb']],
  );
  assert.match(parsed.skipped[0]!.why, /4999 more symbol table\(s\) not read/);
});

test('symbols past the cap are counted without their names being decoded', () => {
  const strtab = new TextEncoder().encode('\u0000f\u0000');
  const count = SYMBOL_LIMITS.maxSymbols.max + 5000;
  const symbols = Array.from({ length: count }, (_, i) => ({ name: 1, value: 0x02000000 + i * 4 }));
  const parsed = parseElfSymbols(elf(symbols, strtab));
  assert.equal(parsed.symbols.length, SYMBOL_LIMITS.maxSymbols.max);
  assert.equal(parsed.cut, 5000);
});

test('text symbol files: a million bad lines are counted past the first kept; an enormous line is skipped unread', () => {
  const lines = parseSymbolText('plain', 'x\n'.repeat(1_000_000));
  assert.equal(lines.symbols.length, 0);
  assert.equal(lines.skipped.length, SYMBOL_LIMITS.skippedKept.max);
  assert.equal(lines.skipped.length + lines.skippedMore, 1_000_000);
  for (const format of ['plain', 'csv', 'nosgba', 'symbols-txt'] as const) {
    const huge = `0x02000000 ok\n${'"'.repeat(4 * 1024 * 1024)}\n02000004 fine\n`;
    const text =
      format === 'csv'
        ? huge.replace('0x02000000 ok', '0x02000000,ok').replace('02000004 fine', '0x02000004,fine')
        : format === 'symbols-txt'
          ? huge
              .replace('0x02000000 ok', 'ok kind:function addr:0x02000000')
              .replace('02000004 fine', 'fine kind:label addr:0x02000004')
          : format === 'nosgba'
            ? huge.replace('0x02000000 ok', '02000000 ok')
            : huge;
    const r = parseSymbolText(format, text);
    assert.deepEqual(
      r.skipped.map((s) => [s.line, s.why]),
      [[2, `line longer than ${SYMBOL_LIMITS.lineChars.max} characters`]],
      format,
    );
    assert.deepEqual(
      r.symbols.map((s) => s.name),
      ['ok', 'fine'],
      format,
    );
  }
  // No$gba modes still reach the names at their addresses (the second pass).
  const sym = parseSymbolText('nosgba', '02000000 .thumb\n02000000 a\n02000004 b\n02000004 .arm\n');
  assert.deepEqual(
    sym.symbols.map((s) => [s.name, s.mode]),
    [
      ['a', 'thumb'],
      ['b', 'arm'],
    ],
  );
});

test('the built server imports hostile ELF files as typed results and keeps answering', async () => {
  const root = await makeWorkspace('re-mcp-hostile-elf-');
  await mkdir(join(root, 'roms'));
  await writeFile(join(root, 'roms/program.nds'), programRomBytes());
  await writeFile(join(root, 'long-name.elf'), oneLongName());
  await writeFile(join(root, 'no-nul.elf'), noTerminator());
  const h = await startServer({ workspace: root });
  try {
    for (const file of ['long-name.elf', 'no-nul.elf']) {
      const pings = Array.from({ length: 4 }, () => h.client.ping());
      const r = await h.ok<{ changes: { added: number; skipped: { why: string }[] } }>('nds_symbols', {
        rom: 'roms/program.nds',
        action: 'import',
        file,
        format: 'elf',
      });
      await Promise.all(pings);
      assert.equal(r.changes.added, 0, file);
      // 200 listed, then one line counting the rest.
      assert.equal(r.changes.skipped.length, 201, file);
      assert.match(r.changes.skipped.at(-1)!.why, /more line\(s\) skipped/);
    }
    await h.client.ping();
  } finally {
    await h.close();
  }
});
