// Search semantics on synthetic ROMs built by the test kit: the layout the builder reports is the
// ground truth for offsets and ownership; expected hit lists come from the naive reference.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ReMcpError } from '../../src/core/errors.js';
import { bufferSource, type NdsRomModel, parseNdsRom } from '../../src/formats/nds/index.js';
import type { PatternInput } from '../../src/search/pattern.js';
import { type SearchRequest, type SearchResult, searchRom } from '../../src/search/search.js';
import type { ScopeInput } from '../../src/search/search-scope.js';
import { buildRom, type RomSpec } from '../kit/rom-builder.js';
import { memoryIo } from './memory-io.js';
import { naiveSearch, toNaive } from './naive.js';

const fill = (length: number, byte: number) => new Uint8Array(length).fill(byte);
const ascii = (s: string) => new TextEncoder().encode(s);

function withBytes(base: Uint8Array, at: number, bytes: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(base);
  out.set(bytes, at);
  return out;
}

// File "a/left.bin" is exactly 0x200 bytes so "a/right.bin" starts right where it ends (the builder
// aligns to 0x200): a pattern can straddle the two.
const spec: RomSpec = {
  title: 'SEARCHTEST',
  arm9: { code: withBytes(fill(0x1000, 0x11), 0x100, [0x1e, 0xff, 0x2f, 0xe1]), ramAddress: 0x02000000 },
  arm7: { code: withBytes(fill(0x400, 0x22), 0x10, [0x1e, 0xff, 0x2f, 0xe1]), ramAddress: 0x037f8000 },
  arm9Overlays: [
    // Uncompressed, file larger than ramSize: bytes past the initialized prefix have no runtime address.
    {
      id: 0,
      ramAddress: 0x02100000,
      data: withBytes(withBytes(fill(0x300, 0x33), 0x80, [0xc0, 0xff, 0xee]), 0xff, [0xba, 0xbe]),
      ramSize: 0x100,
    },
    {
      id: 5,
      ramAddress: 0x02100000,
      data: withBytes(fill(0x800, 0x44), 0x40, ascii('PACKED!')),
      compress: true,
    },
  ],
  files: [
    { path: 'a/left.bin', data: withBytes(fill(0x200, 0x55), 0x1fe, [0xde, 0xad]) },
    { path: 'a/right.bin', data: withBytes(fill(0x200, 0x66), 0, [0xbe, 0xef, 0xaa, 0xaa, 0xaa]) },
    {
      path: 'b/strings.bin',
      data: (() => {
        const d = fill(0x100, 0x77);
        // 0x1234 LE at 0x10 (aligned 4 in the ROM: files start 0x200-aligned) and at 0x21 (odd).
        d.set([0x34, 0x12], 0x10);
        d.set([0x34, 0x12], 0x21);
        d.set([0xfe, 0xff, 0xff, 0xff], 0x30); // -2 as i32 LE; 0xFFFFFFFE unsigned
        d.set([0x12, 0x34], 0x40); // 0x1234 BE
        d.set([0x48, 0, 0x69, 0], 0x50); // "Hi" UTF-16LE
        return d;
      })(),
    },
  ],
};

const { bytes, layout } = buildRom(spec);
const model: NdsRomModel = parseNdsRom(bufferSource(bytes));

async function search(pattern: PatternInput, scope: ScopeInput, more: Partial<SearchRequest> = {}) {
  return searchRom(model, memoryIo(bytes), {
    pattern,
    scope,
    offset: 0,
    limit: 1000,
    maxScanBytes: 512 * 1024 * 1024,
    contextBytes: 0,
    ...more,
  });
}

const sig = (signature: string): PatternInput => ({ kind: 'byte-signature', signature });
const file = (path: string) => layout.files.find((f) => f.path === path)!;
const offsets = (r: SearchResult) => r.matches.map((m) => m.romOffset);
const WHOLE: ScopeInput = { kind: 'whole-rom' };
const comps = (...components: Extract<ScopeInput, { kind: 'components' }>['components']): ScopeInput => ({
  kind: 'components',
  components,
});

test('overlapping wildcard hits: AA AA in AA AA AA gives two hits, relative 0 and 1', async () => {
  const right = file('a/right.bin');
  const r = await search(sig('AA AA'), comps({ kind: 'path', path: 'a/right.bin' }));
  assert.deepEqual(offsets(r), [right.start + 2, right.start + 3]);
  const w = await search(sig('AA ?? AA'), comps({ kind: 'file', fileId: right.fileId }));
  assert.deepEqual(offsets(w), [right.start + 2]);
  assert.equal(w.matches[0]!.bytes, 'aaaaaa', 'wildcard hits echo their actual bytes');
});

test('components keep boundaries; whole-rom crosses them; owners name both files', async () => {
  const left = file('a/left.bin');
  const right = file('a/right.bin');
  assert.equal(left.end, right.start, 'the builder placed the two files back to back');
  const pattern = sig('DE AD BE EF');
  const both = await search(
    pattern,
    comps({ kind: 'path', path: 'a/left.bin' }, { kind: 'path', path: 'a/right.bin' }),
  );
  assert.equal(both.discoveredMatches, 0, 'adjacent components never authorize a straddling match');
  assert.equal(both.status, 'complete');
  assert.equal(both.scope.scopeBytes, 0x400, 'the touching files are one scanned segment');
  const whole = await search(pattern, WHOLE);
  assert.deepEqual(offsets(whole), naiveSearch(bytes, toNaive('DE AD BE EF')));
  assert.deepEqual(offsets(whole), [left.end - 2]);
  const fileOwners = whole.matches[0]!.owners.filter((o) => o.kind === 'file').map((o) => o.path);
  assert.deepEqual(fileOwners, ['a/left.bin', 'a/right.bin']);
});

test('overlapping selections are scanned once and each hit is reported once', async () => {
  const r = await search(
    sig('1E FF 2F E1'),
    comps({ kind: 'arm9' }, { kind: 'arm9' }, { kind: 'arm7' }, { kind: 'arm9' }),
  );
  assert.deepEqual(offsets(r), [layout.arm9.rom.start + 0x100, layout.arm7.rom.start + 0x10]);
  assert.equal(r.scannedBytes, layout.arm9.rom.end - layout.arm9.rom.start + 0x400);
  const main9 = r.matches[0]!.owners.find((o) => o.kind === 'main')!;
  assert.equal(main9.runtimeAddress, 0x02000100);
  const main7 = r.matches[1]!.owners.find((o) => o.kind === 'main')!;
  assert.equal(main7.runtimeAddress, 0x037f8010);
});

test('integers: endianness, signedness and alignment against the absolute offset', async () => {
  const s = file('b/strings.bin').start;
  const scope = comps({ kind: 'path', path: 'b/strings.bin' });
  const int = (
    value: number,
    width: 16 | 32,
    endianness: 'little' | 'big',
    signed: boolean,
    alignment: 1 | 2 | 4 = 1,
  ) => search({ kind: 'integer', value, width, endianness, signed, alignment }, scope);
  assert.deepEqual(offsets(await int(0x1234, 16, 'little', false)), [s + 0x10, s + 0x21]);
  assert.deepEqual(offsets(await int(0x1234, 16, 'little', false, 2)), [s + 0x10]);
  assert.deepEqual(offsets(await int(0x1234, 16, 'little', false, 4)), [s + 0x10]);
  assert.deepEqual(offsets(await int(0x1234, 16, 'big', false)), [s + 0x40]);
  assert.deepEqual(offsets(await int(-2, 32, 'little', true)), [s + 0x30]);
  assert.deepEqual(offsets(await int(0xfffffffe, 32, 'little', false)), [s + 0x30]);
  assert.deepEqual(offsets(await int(-2, 32, 'big', true)), []);
});

test('UTF-16LE and ASCII are exact', async () => {
  const s = file('b/strings.bin').start;
  assert.deepEqual(offsets(await search({ kind: 'utf16le', text: 'Hi' }, WHOLE)), [s + 0x50]);
  assert.deepEqual(offsets(await search({ kind: 'utf16le', text: 'hi' }, WHOLE)), []);
  const title = await search({ kind: 'ascii', text: 'SEARCHTEST' }, WHOLE);
  assert.deepEqual(offsets(title), [0]);
  assert.ok(title.matches[0]!.owners.some((o) => o.kind === 'header' && o.field === 'title'));
});

test('overlay ownership: runtime address only inside the initialized prefix; never for compressed storage', async () => {
  const ov0 = layout.overlays.find((o) => o.id === 0)!;
  const hit = await search(sig('C0 FF EE'), comps({ kind: 'overlay', processor: 'arm9', id: 0 }));
  assert.deepEqual(offsets(hit), [ov0.file.start + 0x80]);
  const owner = hit.matches[0]!.owners.find((o) => o.kind === 'overlay')!;
  assert.equal(owner.runtimeAddress, 0x02100080);
  assert.equal(owner.compressed, false);
  // Past ramSize (0x100) the stored bytes are not loaded: no runtime address.
  // The span [0xff, 0x101) straddles the end of the initialized prefix.
  const past = await search(sig('BA BE'), comps({ kind: 'overlay', processor: 'arm9', id: 0 }));
  assert.deepEqual(offsets(past), [ov0.file.start + 0xff]);
  assert.equal(past.matches[0]!.owners.find((o) => o.kind === 'overlay')!.runtimeAddress, null);

  const ov5 = layout.overlays.find((o) => o.id === 5)!;
  assert.ok(ov5.compressed);
  const stored = bytes.slice(ov5.file.start, ov5.file.start + 6);
  const c = await search(
    sig([...stored].map((b) => b.toString(16).padStart(2, '0')).join(' ')),
    comps({ kind: 'overlay', processor: 'arm9', id: 5 }),
  );
  assert.ok(c.discoveredMatches >= 1);
  assert.equal(c.matches[0]!.romOffset, ov5.file.start);
  const cOwner = c.matches[0]!.owners.find((o) => o.kind === 'overlay')!;
  assert.equal(cOwner.compressed, true);
  assert.equal(cOwner.runtimeAddress, null);
  assert.ok(c.scope.components[0]!.includes('overlay:5'));
});

test('context bytes are clipped to the containing component, or to the ROM for whole-rom', async () => {
  const left = file('a/left.bin');
  const scoped = await search(sig('DE AD'), comps({ kind: 'path', path: 'a/left.bin' }), { contextBytes: 4 });
  assert.deepEqual(scoped.matches[0]!.context, {
    before: '55555555',
    after: '',
    clippedTo: { start: left.start, end: left.end },
  });
  const whole = await search(sig('DE AD'), WHOLE, { contextBytes: 4 });
  assert.equal(whole.matches[0]!.context!.after, 'beefaaaa');
  const atStart = await search({ kind: 'ascii', text: 'SEARCH' }, WHOLE, { contextBytes: 64 });
  assert.equal(atStart.matches[0]!.context!.before, '');
});

test('paging: offset is a match index; nextOffset only when later matches were found', async () => {
  const all = await search(sig('55 55'), comps({ kind: 'path', path: 'a/left.bin' }));
  const expected = naiveSearch(bytes, toNaive('55 55')).filter(
    (s) => s >= file('a/left.bin').start && s + 2 <= file('a/left.bin').end,
  );
  assert.deepEqual(offsets(all), expected);
  const p1 = await search(sig('55 55'), comps({ kind: 'path', path: 'a/left.bin' }), {
    offset: 10,
    limit: 100,
  });
  assert.deepEqual(offsets(p1), expected.slice(10, 110));
  assert.equal(p1.nextOffset, 110);
  assert.equal(p1.matches[0]!.index, 10);
  const last = await search(sig('55 55'), comps({ kind: 'path', path: 'a/left.bin' }), {
    offset: expected.length - 3,
    limit: 100,
  });
  assert.equal(last.returned, 3);
  assert.equal(last.nextOffset, null);
  const beyond = await search(sig('55 55'), comps({ kind: 'path', path: 'a/left.bin' }), { offset: 99_999 });
  assert.equal(beyond.returned, 0);
  assert.equal(beyond.discoveredMatches, expected.length);
});

test('truncation: scan-byte-limit stops coverage, match-count-limit stops discovery', async () => {
  const arm9 = layout.arm9.rom;
  const budget = await search(sig('1E FF 2F E1'), WHOLE, { maxScanBytes: arm9.start + 0x100 + 3 });
  assert.equal(budget.status, 'truncated');
  assert.deepEqual(budget.truncationReasons, ['scan-byte-limit']);
  assert.equal(budget.discoveredMatches, 0, 'a hit needing an unscanned byte is not established');
  assert.equal(budget.scannedBytes, arm9.start + 0x103);
  const enough = await search(sig('1E FF 2F E1'), WHOLE, { maxScanBytes: arm9.start + 0x104 });
  assert.equal(enough.discoveredMatches, 1);
  assert.equal(enough.nextOffset, null);

  // 0x30000 bytes of one value hold far more than 100,000 overlapping one-byte hits.
  const big = buildRom({ ...spec, files: [{ path: 'z.bin', data: fill(0x30000, 0x99) }] });
  const bigModel = parseNdsRom(bufferSource(big.bytes));
  const r = await searchRom(bigModel, memoryIo(big.bytes), {
    pattern: sig('99'),
    scope: WHOLE,
    offset: 99_990,
    limit: 100,
    maxScanBytes: 512 * 1024 * 1024,
    contextBytes: 0,
  });
  assert.equal(r.status, 'truncated');
  assert.deepEqual(r.truncationReasons, ['match-count-limit']);
  assert.equal(r.discoveredMatches, 100_000);
  assert.equal(r.returned, 10);
  assert.equal(r.nextOffset, null);
  assert.equal(r.matches.at(-1)!.romOffset, naiveSearch(big.bytes, [0x99])[99_999]);
});

test('invalid patterns and scopes are typed errors', async () => {
  const cases: Array<[PatternInput, ScopeInput, string]> = [
    [sig('GG'), WHOLE, 'invalid-argument'],
    [sig('A? 12'), WHOLE, 'invalid-argument'],
    [sig('?? ??'), WHOLE, 'invalid-argument'],
    [sig(' '), WHOLE, 'invalid-argument'],
    [sig(Array(4097).fill('00').join(' ')), WHOLE, 'limit-exceeded'],
    [
      { kind: 'integer', value: 70000, width: 16, endianness: 'little', signed: false },
      WHOLE,
      'invalid-argument',
    ],
    [sig('00'), comps({ kind: 'overlay', processor: 'arm9', id: 77 }), 'not-found'],
    [sig('00'), comps({ kind: 'overlay', processor: 'arm7', id: 0 }), 'not-found'],
    [sig('00'), comps({ kind: 'path', path: '/a/left.bin' }), 'not-found'],
    [sig('00'), comps({ kind: 'path', path: 'a/LEFT.bin' }), 'not-found'],
    [sig('00'), comps({ kind: 'file', fileId: 999 }), 'not-found'],
    [sig('00'), comps(), 'invalid-argument'],
  ];
  for (const [pattern, scope, code] of cases) {
    await assert.rejects(search(pattern, scope), (e: unknown) => {
      assert.ok(e instanceof ReMcpError, String(e));
      assert.equal(e.code, code, `${JSON.stringify(pattern).slice(0, 60)} ${JSON.stringify(scope)}`);
      return true;
    });
  }
});

test('a truncated search gives a resume point; resuming from it finds exactly the rest', async () => {
  // Chained budget-truncated scans, whatever the budget, add up to the one complete answer: nothing
  // lost at a cut (a pattern straddling it is found by the next call), nothing found twice.
  for (const [signature, budgetBytes] of [
    ['DE AD BE EF', 0x123],
    ['55 55', 0x200],
    ['1E FF 2F E1', 0x1001],
    ['?? 12', 0x777],
  ] as const) {
    const whole = naiveSearch(bytes, toNaive(signature));
    const found: number[] = [];
    let from = 0;
    for (let calls = 0; ; calls++) {
      assert.ok(calls < 10_000);
      const r = await search(sig(signature), WHOLE, { maxScanBytes: budgetBytes, startRomOffset: from });
      found.push(...r.matches.map((m) => m.romOffset));
      if (r.status === 'complete') {
        assert.equal(r.resumeRomOffset, null);
        break;
      }
      assert.deepEqual(r.truncationReasons, ['scan-byte-limit']);
      assert.ok(r.resumeRomOffset !== null && r.resumeRomOffset > from, 'progress');
      from = r.resumeRomOffset;
    }
    assert.deepEqual(found, whole, signature);
  }
  // Match-count truncation resumes just after the last match kept.
  const big = buildRom({ ...spec, files: [{ path: 'z.bin', data: fill(0x30000, 0x99) }] });
  const bigModel = parseNdsRom(bufferSource(big.bytes));
  const req = {
    pattern: sig('99'),
    scope: WHOLE,
    offset: 0,
    limit: 1,
    maxScanBytes: 512 * 1024 * 1024,
    contextBytes: 0,
  };
  const first = await searchRom(bigModel, memoryIo(big.bytes), req);
  const all = naiveSearch(big.bytes, [0x99]);
  assert.deepEqual(first.truncationReasons, ['match-count-limit']);
  assert.equal(first.resumeRomOffset, all[99_999] + 1);
  const next = await searchRom(bigModel, memoryIo(big.bytes), {
    ...req,
    startRomOffset: first.resumeRomOffset!,
  });
  assert.equal(next.matches[0].romOffset, all[100_000]);
});
