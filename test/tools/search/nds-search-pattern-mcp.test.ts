// The three tools through the built stdio server: wiring, schemas, progress and typed refusals.
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type Harness, makeWorkspace, startServer } from '../../kit/mcp-harness.js';
import { buildRom } from '../../kit/rom-builder.js';
import { naiveSearch } from '../../search/naive.js';

let harness: Harness;
let root: string;
let bytes: Uint8Array;

before(async () => {
  root = await makeWorkspace('re-mcp-search-e2e-');
  // 20 MiB of generated appended data: more than two 8 MiB chunks, so progress is reported.
  const built = buildRom({
    arm9: { code: new Uint8Array(0x800).fill(0x11) },
    arm7: { code: new Uint8Array(0x400).fill(0x22) },
    arm9Overlays: [{ id: 3, ramAddress: 0x02200000, data: new Uint8Array(0x200).fill(0x33) }],
    files: [{ path: 'dir/a.bin', data: new Uint8Array(0x100).fill(0x44) }],
    appended: { length: 20 * 1024 * 1024, seed: 9 },
  });
  bytes = built.bytes;
  await mkdir(join(root, 'roms'));
  await writeFile(join(root, 'roms', 'big.nds'), bytes);
  harness = await startServer({ workspace: root });
});
after(async () => {
  await harness?.close();
  await rm(root, { recursive: true, force: true });
});

test('nds_search_pattern over the server: hits equal the reference, progress is reported', async () => {
  const needle = [...bytes.subarray(15_000_000, 15_000_005)];
  const signature = needle.map((b, i) => (i === 2 ? '??' : b.toString(16).padStart(2, '0'))).join(' ');
  const updates: unknown[] = [];
  const result = await harness.call(
    'nds_search_pattern',
    {
      rom: 'roms/big.nds',
      pattern: { kind: 'byte-signature', signature },
      scope: { kind: 'whole-rom' },
      limit: 1000,
    },
    { onprogress: (p) => updates.push(p) },
  );
  assert.notEqual(result.isError, true, JSON.stringify(result.content));
  const s = result.structuredContent as {
    status: string;
    discoveredMatches: number;
    matches: Array<{ romOffset: string }>;
  };
  const expected = naiveSearch(
    bytes,
    needle.map((b, i) => (i === 2 ? null : b)),
  );
  assert.equal(s.status, 'complete');
  assert.equal(s.discoveredMatches, expected.length);
  assert.deepEqual(
    s.matches.map((m) => Number(m.romOffset)),
    expected.slice(0, 1000),
  );
  assert.ok(updates.length >= 2, `progress updates: ${updates.length}`);
});

test('a truncated scan resumes from its resumeRomOffset string; the chain finds exactly the whole answer', async () => {
  // The appended data repeats, so this needle has tens of thousands of hits spread over the ROM: each
  // call's hits continue exactly where the previous call's ended (counts and first page checked).
  const needle = [...bytes.subarray(15_000_000, 15_000_005)];
  const signature = needle.map((b) => b.toString(16).padStart(2, '0')).join(' ');
  const expected = naiveSearch(bytes, needle);
  let before = 0;
  let resume: string | undefined;
  let calls = 0;
  for (;;) {
    calls++;
    assert.ok(calls < 20);
    const s = await harness.ok<{
      status: string;
      truncationReasons: string[];
      discoveredMatches: number;
      resumeRomOffset: string | null;
      matches: Array<{ romOffset: string }>;
    }>('nds_search_pattern', {
      rom: 'roms/big.nds',
      pattern: { kind: 'byte-signature', signature },
      scope: { kind: 'whole-rom' },
      limit: 100,
      maxScanBytes: 6 * 1024 * 1024 + 1,
      ...(resume === undefined ? {} : { startRomOffset: resume }),
    });
    assert.deepEqual(
      s.matches.map((m) => Number(m.romOffset)),
      expected.slice(before, before + Math.min(100, s.discoveredMatches)),
      `call ${calls}`,
    );
    before += s.discoveredMatches;
    if (s.status === 'complete') {
      assert.equal(s.resumeRomOffset, null);
      break;
    }
    assert.deepEqual(s.truncationReasons, ['scan-byte-limit']);
    assert.match(s.resumeRomOffset ?? '', /^0x[0-9a-f]{8}$/);
    resume = s.resumeRomOffset!;
  }
  assert.ok(calls >= 3, `${calls} calls`);
  assert.equal(before, expected.length);
});

test('component scope and owners through the server', async () => {
  const s = await harness.ok<{
    matches: Array<{ owners: Array<{ kind: string; runtimeAddress?: string | null }> }>;
  }>('nds_search_pattern', {
    rom: 'roms/big.nds',
    pattern: { kind: 'integer', value: 0x3333, width: 16, endianness: 'big', signed: false, alignment: 4 },
    scope: { kind: 'components', components: [{ kind: 'overlay', processor: 'arm9', id: 3 }] },
    limit: 1,
  });
  const owner = s.matches[0]!.owners.find((o) => o.kind === 'overlay')!;
  assert.equal(owner.runtimeAddress, '0x02200000');
});

test('malformed patterns, scopes and bounds are typed refusals', async () => {
  const base = { rom: 'roms/big.nds', pattern: { kind: 'ascii', text: 'x' }, scope: { kind: 'whole-rom' } };
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ ...base, pattern: { kind: 'byte-signature', signature: 'A? 00' } }, 'invalid-argument'],
    [{ ...base, pattern: { kind: 'byte-signature', signature: 'zz' } }, 'invalid-argument'],
    [{ ...base, pattern: { kind: 'byte-signature', signature: '?? ??' } }, 'invalid-argument'],
    [{ ...base, pattern: { kind: 'ascii', text: '' } }, 'invalid-argument'],
    [{ ...base, pattern: { kind: 'ascii', text: 'x'.repeat(4097) } }, 'invalid-argument'],
    [
      { ...base, pattern: { kind: 'integer', value: 300, width: 8, endianness: 'little', signed: false } },
      'invalid-argument',
    ],
    [{ ...base, pattern: { kind: 'integer', value: 3, width: 8, signed: false } }, 'invalid-argument'],
    [{ ...base, pattern: { kind: 'regex', text: '.*' } }, 'invalid-argument'],
    [{ ...base, scope: { kind: 'whole-rom', start: 0 } }, 'invalid-argument'],
    [{ ...base, scope: { kind: 'range', start: 0, end: 10 } }, 'invalid-argument'],
    [{ ...base, scope: { kind: 'components', components: [] } }, 'invalid-argument'],
    [
      { ...base, scope: { kind: 'components', components: [{ kind: 'overlay', processor: 'arm9', id: 4 }] } },
      'not-found',
    ],
    [
      { ...base, scope: { kind: 'components', components: [{ kind: 'path', path: 'dir/A.bin' }] } },
      'not-found',
    ],
    [{ ...base, offset: 100_000 }, 'invalid-argument'],
    [{ ...base, limit: 1001 }, 'invalid-argument'],
    [{ ...base, maxScanBytes: 512 * 1024 * 1024 + 1 }, 'invalid-argument'],
    [{ ...base, contextBytes: 65 }, 'invalid-argument'],
  ];
  for (const [args, code] of cases) {
    const error = await harness.fail('nds_search_pattern', args);
    assert.equal(error.code, code, `${JSON.stringify(args).slice(0, 120)}: ${error.message}`);
  }
});

test('extraction accepts canonical selectors only; caller offsets, lengths and destinations are refused', async () => {
  const ok = await harness.ok<{ artifact: string; sha256: string }>('nds_extract_component', {
    rom: 'roms/big.nds',
    component: { kind: 'path', path: 'dir/a.bin' },
  });
  assert.match(ok.artifact, /^analysis\/generated\/nds\/[0-9a-f]{16}\/components\/files\/file_\d{5}_a\.bin$/);
  const refusals: Array<Record<string, unknown>> = [
    { rom: 'roms/big.nds', component: { kind: 'arm9', offset: 0 } },
    { rom: 'roms/big.nds', component: { kind: 'file', fileId: 1, length: 4 } },
    { rom: 'roms/big.nds', component: { kind: 'range', start: 0, end: 16 } },
    { rom: 'roms/big.nds', component: { kind: 'arm9' }, destination: 'out.bin' },
    { rom: 'roms/big.nds', component: { kind: 'arm9' }, outputPath: '/tmp/x' },
  ];
  for (const args of refusals) {
    const error = await harness.fail('nds_extract_component', args);
    assert.equal(error.code, 'invalid-argument', JSON.stringify(args));
  }
  const bundle = await harness.ok<{ directory: string; files: number }>('nds_extract_analysis_bundle', {
    rom: 'roms/big.nds',
  });
  assert.equal(bundle.files, 7, 'arm9, arm7, one overlay, three maps and the manifest');
  assert.ok(ok.artifact.startsWith(`${bundle.directory}/`));
});
