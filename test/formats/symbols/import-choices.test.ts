// The choices an import makes (src/formats/symbols/elf.ts and detect.ts): in an ELF file a FUNC or
// OBJECT symbol is the name of its address over the untyped labels there (each beaten label reported),
// absolute symbols (SHN_ABS) and mapping symbols are never names; the kit programs' ELF files read that
// way against their own truth. A file's format is told from its content when the caller does not say:
// ELF by its magic, every text format by what its parser reads, ambiguous text resolved to the
// grammar that reads it identically, junk refused with what each parser made of it; hostile inputs
// (floods of labels at one address, of absolute symbols, huge or binary text) end in bounded, typed
// answers.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { DETECT_LIMITS, detectSymbolFormat } from '../../../src/formats/symbols/detect.js';
import { parseElfSymbols } from '../../../src/formats/symbols/elf.js';
import { writeSymbolText } from '../../../src/formats/symbols/text.js';
import { type RawSymbol, SYMBOL_LIMITS } from '../../../src/formats/symbols/types.js';
import { ARM_KIT_BUILD_DIR } from '../../kit/arm/index.js';
import { elf } from '../../kit/hostile-elf.js';
import { rng } from '../../kit/rng.js';

const STT_NOTYPE = 0;
const STT_OBJECT = 1;
const STT_FUNC = 2;
const SHN_ABS = 0xfff1;

/** readelf's view of an ELF's symbol table: [value, type, ndx, name]. */
function readelfSymbols(path: string): { value: number; type: string; ndx: string; name: string }[] {
  const out = execFileSync('arm-none-eabi-readelf', ['-s', '-W', path], { encoding: 'utf8' });
  return out
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f.length >= 8 && /^\d+:$/.test(f[0]!))
    .map((f) => ({ value: Number.parseInt(f[1]!, 16), type: f[3]!, ndx: f[6]!, name: f[7]! }));
}

test('kit ELF files: every FUNC is named, no label beats a FUNC or OBJECT, no absolute symbol is a name', () => {
  for (const program of ['arm9-program', 'arm7-program', 'arm9-overlays'] as const) {
    const path = join(ARM_KIT_BUILD_DIR, `${program}.elf`);
    const parsed = parseElfSymbols(new Uint8Array(readFileSync(path)));
    const names = new Set(parsed.symbols.map((s) => s.name));
    const table = readelfSymbols(path);
    const typedAt = new Set(
      table.filter((s) => s.type === 'FUNC' || s.type === 'OBJECT').map((s) => `${s.ndx}:${s.value & ~1}`),
    );
    let funcs = 0;
    let beaten = 0;
    let absolute = 0;
    for (const s of table) {
      if (s.type === 'FUNC' && s.ndx !== 'UND') {
        assert.ok(names.has(s.name), `${program}: FUNC ${s.name}`);
        funcs++;
      }
      if (s.ndx === 'ABS' && !/^\$/.test(s.name) && s.type !== 'FILE') {
        assert.ok(!names.has(s.name), `${program}: absolute ${s.name} is a name`);
        absolute++;
      }
      if (s.type === 'NOTYPE' && !/^\$/.test(s.name) && typedAt.has(`${s.ndx}:${s.value}`)) {
        assert.ok(
          !parsed.symbols.some((x) => x.name === s.name && x.address === s.value),
          `${program}: label ${s.name} beside a typed symbol`,
        );
        assert.ok(
          parsed.skipped.some((k) => k.why.startsWith(`label ${s.name}: the function or object `)),
          `${program}: ${s.name} reported`,
        );
        beaten++;
      }
    }
    assert.ok(!parsed.symbols.some((s) => /^\$[atd](\.|$)/.test(s.name)), 'mapping symbols');
    if (program === 'arm9-program') {
      // The three the issue saw: the FUNC, not the label, names each address; the linker's constants go.
      assert.ok(funcs > 100 && beaten >= 1 && absolute >= 5, `${funcs} ${beaten} ${absolute}`);
      const at = (a: number) => parsed.symbols.filter((s) => s.address === a).map((s) => s.name);
      const udiv = table.find((s) => s.name === '__udivsi3')!.value;
      assert.ok(table.some((s) => s.name === '.udivsi3_skip_div0_test' && s.value === udiv));
      assert.ok(!at(udiv).includes('.udivsi3_skip_div0_test'));
      assert.ok(at(udiv).includes('__udivsi3'));
      for (const constant of ['__itcm_lma', '__sp_irq', '__binary_end'])
        assert.ok(!names.has(constant), constant);
    }
  }
});

test('synthetic ELF: the typed symbol wins at its address and section, whatever the order; other places keep their labels', () => {
  const strtab = new TextEncoder().encode('\u0000label\u0000func\u0000object\u0000other\u0000constant\u0000');
  const [label, func, object, other, constant] = [1, 7, 12, 19, 25];
  const parsed = parseElfSymbols(
    elf(
      [
        { name: label, value: 0x02000010, type: STT_NOTYPE, shndx: 1 },
        { name: func, value: 0x02000011, type: STT_FUNC, shndx: 1 }, // Thumb: the same address
        { name: label, value: 0x02000020, type: STT_NOTYPE, shndx: 1 },
        { name: object, value: 0x02000020, type: STT_OBJECT, shndx: 1 },
        // The same address in another section (an overlay): that label stays.
        { name: other, value: 0x02000010, type: STT_NOTYPE, shndx: 2 },
        { name: constant, value: 0x02000030, type: STT_NOTYPE, shndx: SHN_ABS },
        { name: constant, value: 0x02000034, type: STT_OBJECT, shndx: SHN_ABS },
      ],
      strtab,
    ),
  );
  assert.deepEqual(
    parsed.symbols.map((s) => [s.name, s.address, s.mode]),
    [
      ['func', 0x02000010, 'thumb'],
      ['object', 0x02000020, 'data'],
      ['other', 0x02000010, null],
    ],
  );
  assert.deepEqual(
    parsed.skipped.map((s) => s.why),
    [
      'label label: the function or object func names this address',
      'label label: the function or object object names this address',
    ],
  );
});

test('hostile ELF: a flood of labels at one FUNC and of absolute symbols ends in one name and bounded reports', () => {
  const strtab = new TextEncoder().encode('\u0000l\u0000f\u0000');
  const flood = 120_000;
  const symbols = [
    ...Array.from({ length: flood }, () => ({ name: 1, value: 0x02000000, type: STT_NOTYPE, shndx: 1 })),
    { name: 3, value: 0x02000000, type: STT_FUNC, shndx: 1 },
    ...Array.from({ length: flood }, (_, i) => ({ name: 3, value: i, type: STT_FUNC, shndx: SHN_ABS })),
  ];
  const parsed = parseElfSymbols(elf(symbols, strtab));
  assert.deepEqual(
    parsed.symbols.map((s) => s.name),
    ['f'],
  );
  // Every beaten label is accounted for: the first ones listed, the rest counted; absolutes are silent.
  assert.equal(parsed.skipped.length, SYMBOL_LIMITS.skippedKept.max);
  assert.equal(parsed.skipped.length + parsed.skippedMore, flood);
});

/** Three names as each text format writes them. */
const sample: RawSymbol[] = (
  [
    [0x02000000, '_start', 'arm', 0x40],
    [0x02000b78, 'main', 'thumb', 312],
    [0x020f0000, 'g_player', 'data', 16],
  ] as const
).map(([address, name, mode, size]) => ({
  address,
  name,
  mode,
  size,
  comment: null,
  processor: 'arm9',
  overlayId: null,
  line: 0,
}));

test('the format is told from the content: ELF by its magic, each text format by what its parser reads', () => {
  const text = (s: string) => new TextEncoder().encode(s);
  assert.deepEqual(detectSymbolFormat(readFileSync(join(ARM_KIT_BUILD_DIR, 'arm9-calls.elf'))), {
    format: 'elf',
  });
  // A broken ELF is still ELF (its parser says what is wrong).
  assert.deepEqual(detectSymbolFormat(text('\u007fELF junk')), { format: 'elf' });
  for (const format of ['nosgba', 'symbols-txt', 'plain', 'csv'] as const)
    assert.deepEqual(detectSymbolFormat(text(writeSymbolText(format, sample))), { format }, format);
  // Eight-digit two-column lines read alike as no$gba and plain: no$gba (it also knows `.arm` lines).
  assert.deepEqual(detectSymbolFormat(text('02000000 main\n02000010 loop\n')), { format: 'nosgba' });
  assert.deepEqual(detectSymbolFormat(text('; no$gba\n02000000 .thumb\n02000000 main\n')), {
    format: 'nosgba',
  });
  assert.deepEqual(detectSymbolFormat(text('# names\n0x02000000 main thumb\nloop 0x02000010\n')), {
    format: 'plain',
  });
  assert.deepEqual(detectSymbolFormat(text('0x02000000,main\n0x02000010,loop,thumb\n')), { format: 'csv' });
  // A few bad lines among good ones do not hide the format.
  assert.deepEqual(detectSymbolFormat(text('0x02000000 main\nnot a line at all\n0x02000004 b\n')), {
    format: 'plain',
  });
  for (const junk of [
    '',
    '\n\n',
    'hello world, this is prose\nand more of it\n',
    '\u0000\u0001\u0002\u0003',
  ]) {
    const r = detectSymbolFormat(text(junk));
    assert.ok('why' in r && /cannot be told .*give format/.test(r.why), JSON.stringify(junk));
  }
});

test('hostile text: huge, binary and degenerate files are judged on a bounded sample', () => {
  const big = new Uint8Array(64 * 1024 * 1024).fill(0x41);
  const r = detectSymbolFormat(big);
  assert.ok('why' in r);
  // The sample is cut at its last whole line: the first lines decide.
  const lines = new TextEncoder().encode('0x02000000 main\n'.repeat(10_000));
  assert.ok(lines.length > DETECT_LIMITS.bytes.max);
  assert.deepEqual(detectSymbolFormat(lines), { format: 'plain' });
  const rand = rng(0xde7);
  for (let i = 0; i < 200; i++) {
    const b = new Uint8Array(1 + Math.floor(rand() * 4096)).map(() => Math.floor(rand() * 256));
    if (b[0] === 0x7f) b[0] = 0;
    const d = detectSymbolFormat(b);
    assert.ok('format' in d ? d.format !== 'elf' : /give format/.test(d.why));
  }
  assert.ok('why' in detectSymbolFormat(new TextEncoder().encode('\n'.repeat(1_000_000))));
});
