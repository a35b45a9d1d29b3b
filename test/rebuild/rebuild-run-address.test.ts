// Patches of code the start-up copies elsewhere (the kit's realistic ARM9 copies .itcm from main RAM
// into ITCM): nds_mutation_draft assembles them where they run, whether the patch names the run
// address (`address`) or the stored bytes (`offset`), gives both addresses with the copy as evidence,
// and makes the bytes GNU as makes at the run address; an address that is only where the copy is stored
// is refused with the run address (the draft's and nds_assemble's); a patch half inside the copy, an
// address outside the component, or offset and address together are refused, and nothing is written.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { formatAddress } from '../../src/core/vocabulary.js';
import { rebuildTools } from '../../src/tools/rebuild/index.js';
import { truthFunction } from '../kit/arm/index.js';
import { a9, built, fn, gnuAt as gnuIn, itcm, itcmWorkspace, stored } from '../kit/itcm-program.js';

const { root, call } = await itcmWorkspace('re-mcp-run-address-', rebuildTools);
const target = truthFunction(a9, 'main').address;
/** GNU as + ld: `source` linked to run at `address`, as bytes. */
const gnuAt = (address: number, source: string) => gnuIn(root, address, source);

async function manifests(): Promise<string[]> {
  return readdir(join(root, 'analysis/generated/manifests'), { recursive: true }).catch(() => []);
}

test('a patch at an ITCM run address is assembled there and stored where the copy comes from', async () => {
  const source = `b ${formatAddress(target)}`;
  const r = await call('nds_mutation_draft', {
    name: 'itcm-run',
    operations: [
      {
        op: 'patch',
        id: 'b',
        component: { kind: 'arm9' },
        address: formatAddress(fn.address),
        assembly: source,
        mode: 'arm',
      },
    ],
  });
  assert.ok(!r.isError, r.content[0]?.text);
  const s = r.structuredContent;
  assert.equal(s.assembled[0].address, formatAddress(fn.address));
  assert.equal(s.assembled[0].hex, gnuAt(fn.address, source));
  // Not what the storage address would give: a branch is relative to where it runs.
  assert.notEqual(s.assembled[0].hex, gnuAt(stored, source));
  assert.equal(s.assembled[0].instructions[0].targetAddress ?? formatAddress(target), formatAddress(target));
  const p = s.placed[0];
  assert.equal(p.storedAddress, formatAddress(stored));
  assert.equal(p.runAddress, formatAddress(fn.address));
  assert.equal(p.offset, formatAddress(stored - a9.loadAddress));
  assert.equal(p.copy.kind, 'code');
  assert.equal(p.copy.runStart, formatAddress(itcm.vma));
  assert.equal(p.copy.storedStart, formatAddress(itcm.lma));
  assert.match(r.content[0]!.text, new RegExp(`runs at ${formatAddress(fn.address)}`));
  // The manifest edits the stored bytes.
  const m = JSON.parse(await readFile(join(root, s.manifest), 'utf8'));
  assert.equal(m.operations[0].offset, stored - a9.loadAddress);
  assert.equal(m.operations[0].replacement, s.assembled[0].hex);
});

test('a patch by its stored offset is assembled at the run address too', async () => {
  const source = `b ${formatAddress(target)}`;
  const r = await call('nds_mutation_draft', {
    name: 'itcm-offset',
    operations: [
      {
        op: 'patch',
        component: { kind: 'arm9' },
        offset: formatAddress(stored - a9.loadAddress),
        assembly: source,
        mode: 'arm',
      },
    ],
  });
  assert.ok(!r.isError, r.content[0]?.text);
  assert.equal(r.structuredContent.assembled[0].address, formatAddress(fn.address));
  assert.equal(r.structuredContent.assembled[0].hex, gnuAt(fn.address, source));
  assert.equal(r.structuredContent.placed[0].runAddress, formatAddress(fn.address));
});

test('code that runs where it is stored keeps one address, with no copy', async () => {
  const r = await call('nds_mutation_draft', {
    name: 'in-place',
    operations: [
      { op: 'patch', component: { kind: 'arm9' }, address: formatAddress(target), replacement: '00bf' },
    ],
  });
  assert.ok(!r.isError, r.content[0]?.text);
  const p = r.structuredContent.placed[0];
  assert.equal(p.storedAddress, formatAddress(target));
  assert.equal(p.runAddress, formatAddress(target));
  assert.equal(p.copy, null);
});

test('the storage address of copied code is refused, naming where it runs', async () => {
  const before = await manifests();
  const r = await call('nds_mutation_draft', {
    name: 'itcm-stored',
    operations: [
      {
        op: 'patch',
        component: { kind: 'arm9' },
        address: formatAddress(stored),
        assembly: 'bx lr',
        mode: 'arm',
      },
    ],
  });
  assert.equal(r.isError, true);
  assert.match(r.content[0]!.text, new RegExp(`give ${formatAddress(fn.address)}`));
  const a = await call('nds_assemble', {
    processor: 'arm9',
    mode: 'arm',
    address: formatAddress(stored),
    source: 'bx lr',
  });
  assert.equal(a.isError, true);
  assert.match(a.content[0]!.text, new RegExp(`give ${formatAddress(fn.address)}`));
  const ok = await call('nds_assemble', {
    processor: 'arm9',
    mode: 'arm',
    address: formatAddress(fn.address),
    source: `b ${formatAddress(target)}`,
  });
  assert.ok(!ok.isError, ok.content[0]?.text);
  assert.equal(ok.structuredContent.hex, gnuAt(fn.address, `b ${formatAddress(target)}`));
  assert.deepEqual(await manifests(), before);
});

test('hostile placements are refused with typed errors and write nothing', async () => {
  const before = await manifests();
  const bad: [string, Record<string, unknown>, RegExp][] = [
    // Four bytes across the start of the copied bytes: half run in ITCM, half nowhere.
    [
      'straddle',
      {
        op: 'patch',
        component: { kind: 'arm9' },
        offset: formatAddress(itcm.lma - a9.loadAddress - 2),
        replacement: '00000000',
      },
      /partly in bytes the start-up copies/,
    ],
    [
      'both',
      { op: 'patch', component: { kind: 'arm9' }, offset: 0, address: '0x02000000', replacement: '00' },
      /offset or address/,
    ],
    ['neither', { op: 'patch', component: { kind: 'arm9' }, replacement: '00' }, /offset or address/],
    [
      'outside',
      { op: 'patch', component: { kind: 'arm9' }, address: '0x02fff000', replacement: '00' },
      /not in the component/,
    ],
    [
      'below',
      { op: 'patch', component: { kind: 'arm9' }, address: '0x00000000', replacement: '00' },
      /not in the component/,
    ],
    [
      'arm7 in arm9',
      { op: 'patch', component: { kind: 'arm7' }, address: formatAddress(fn.address), replacement: '00' },
      /not in the component/,
    ],
    [
      'file',
      { op: 'patch', component: { kind: 'file', fileId: 0 }, address: '0x02000000', replacement: '00' },
      /main executable or an overlay|no file|not/,
    ],
    [
      'junk',
      { op: 'patch', component: { kind: 'arm9' }, address: 'itcm!', replacement: '00' },
      /no name "itcm!"/,
    ],
    [
      'huge',
      { op: 'patch', component: { kind: 'arm9' }, address: '0x1ffffffff', replacement: '00' },
      /expected|invalid/i,
    ],
  ];
  for (const [why, op, message] of bad) {
    const r = await call('nds_mutation_draft', { name: `bad-${why.replace(/ /g, '-')}`, operations: [op] });
    assert.equal(r.isError, true, why);
    assert.match(r.content[0]!.text, message, why);
  }
  assert.deepEqual(await manifests(), before);
});

test('validate and build show both addresses of a patch of copied code, as the draft does', async () => {
  const d = await call('nds_mutation_draft', {
    name: 'itcm-shown',
    operations: [
      {
        op: 'patch',
        id: 'itcm',
        component: { kind: 'arm9' },
        address: formatAddress(fn.address + 4),
        assembly: 'nop',
        mode: 'arm',
      },
      {
        op: 'patch',
        id: 'main',
        component: { kind: 'arm9' },
        address: formatAddress(target),
        replacement: '00bf',
      },
    ],
  });
  assert.ok(!d.isError, d.content[0]?.text);
  const line = `itcm: stored at ${formatAddress(stored + 4)}, runs at ${formatAddress(fn.address + 4)} (start-up code copy)`;
  for (const tool of ['nds_mutation_validate', 'nds_mutation_build']) {
    const r = await call(tool, { manifest: d.structuredContent.manifest });
    assert.ok(!r.isError, r.content[0]?.text);
    // The same placements as the draft's, for a manifest read back from its file.
    assert.deepEqual(r.structuredContent.placed, d.structuredContent.placed, tool);
    const [itcmPatch, mainPatch] = r.structuredContent.placed;
    assert.equal(itcmPatch.storedAddress, formatAddress(stored + 4));
    assert.equal(itcmPatch.runAddress, formatAddress(fn.address + 4));
    assert.equal(itcmPatch.copy.storedStart, formatAddress(itcm.lma));
    assert.equal(mainPatch.runAddress, mainPatch.storedAddress);
    assert.equal(mainPatch.copy, null);
    assert.ok(r.content[0]!.text.includes(line), `${tool}: ${r.content[0]!.text}`);
    assert.ok(!r.content[0]!.text.includes('main: stored'), tool);
  }
});

test('a hand-written patch across the start of the copy validates, said to run in no one place', async () => {
  const offset = itcm.lma - a9.loadAddress - 2;
  const original = Buffer.from(a9.bytes.subarray(offset, offset + 4)).toString('hex');
  await mkdir(join(root, 'm'), { recursive: true });
  await writeFile(
    join(root, 'm/straddle.json'),
    JSON.stringify({
      formatVersion: 1,
      source: { sha256: createHash('sha256').update(built.bytes).digest('hex'), size: built.bytes.length },
      operations: [
        { op: 'patch', id: 'across', component: { kind: 'arm9' }, offset, original, replacement: '00000000' },
      ],
    }),
  );
  const r = await call('nds_mutation_validate', { manifest: 'm/straddle.json' });
  assert.ok(!r.isError, r.content[0]?.text);
  assert.equal(r.structuredContent.placed.length, 1);
  const [p] = r.structuredContent.placed;
  assert.equal(p.storedAddress, formatAddress(itcm.lma - 2));
  assert.equal(p.runAddress, null);
  assert.match(p.why, /partly in bytes the start-up copies elsewhere/);
  assert.match(r.content[0]!.text, /across: stored at 0x[0-9a-f]{8}, runs in no one place: /);
});

/**
 * Writes m/<name>.json: one patch `guarded` rewriting the four arm9 bytes at `offset` with themselves,
 * its runtime guard at `runtimeAddress`; returns the manifest's path.
 */
async function guardedManifest(name: string, offset: number, runtimeAddress: number): Promise<string> {
  const word = Buffer.from(a9.bytes.subarray(offset, offset + 4)).toString('hex');
  await mkdir(join(root, 'm'), { recursive: true });
  await writeFile(
    join(root, `m/${name}.json`),
    JSON.stringify({
      formatVersion: 1,
      source: { sha256: createHash('sha256').update(built.bytes).digest('hex'), size: built.bytes.length },
      operations: [
        {
          op: 'patch',
          id: 'guarded',
          component: { kind: 'arm9' },
          offset,
          original: word,
          replacement: word,
          runtimeAddress: formatAddress(runtimeAddress),
        },
      ],
    }),
  );
  return `m/${name}.json`;
}

test('a runtime guard at the run address of copied code holds where the start-up copy proves it', async () => {
  const offset = stored - a9.loadAddress;
  // At the run address (ITCM): the copy the start-up makes proves the stored bytes run there.
  const atRun = await guardedManifest('guard-run', offset, fn.address);
  const line = `guarded: stored at ${formatAddress(stored)}, runs at ${formatAddress(fn.address)} (start-up code copy); runtime guard ${formatAddress(fn.address)} holds by that copy`;
  for (const tool of ['nds_mutation_validate', 'nds_mutation_build', 'nds_mutation_verify']) {
    const r = await call(tool, { manifest: atRun });
    assert.ok(!r.isError, `${tool}: ${r.content[0]?.text}`);
    if (tool === 'nds_mutation_verify') continue;
    const [p] = r.structuredContent.placed;
    assert.equal(p.storedAddress, formatAddress(stored), tool);
    assert.equal(p.runAddress, formatAddress(fn.address), tool);
    assert.equal(p.copy.storedStart, formatAddress(itcm.lma), tool);
    assert.deepEqual(p.runtimeGuard, { address: formatAddress(fn.address), holds: 'where-copied' }, tool);
    assert.ok(r.content[0]!.text.includes(line), `${tool}: ${r.content[0]!.text}`);
  }
  // Guarded where it loads, it validates too, and the answer gives where it runs.
  const atLoad = await guardedManifest('guard-stored', offset, stored);
  const ok = await call('nds_mutation_validate', { manifest: atLoad });
  assert.ok(!ok.isError, ok.content[0]?.text);
  assert.equal(ok.structuredContent.placed[0].runAddress, formatAddress(fn.address));
  assert.deepEqual(ok.structuredContent.placed[0].runtimeGuard, {
    address: formatAddress(stored),
    holds: 'where-loaded',
  });
  assert.ok(!ok.content[0]!.text.includes('runtime guard'), ok.content[0]!.text);
});

test('a runtime guard no start-up copy proves is still refused, saying why', async () => {
  const offset = stored - a9.loadAddress;
  const write = guardedManifest;
  const refused: [string, RegExp][] = [
    // Copied bytes guarded at another ITCM address than the one the copy puts them at.
    [
      await write('guard-elsewhere', offset, fn.address + 4),
      new RegExp(
        `does not load at ${formatAddress(fn.address + 4)} \\(it loads at ${formatAddress(stored)}\\), and no start-up copy proves it runs there: the start-up copies them to ${formatAddress(fn.address)} \\(code copy of \\d+ bytes from ${formatAddress(itcm.lma)} to ${formatAddress(itcm.vma)}`,
      ),
    ],
    // Bytes no copy takes (main code, run where stored), guarded at an ITCM address.
    [
      await write('guard-uncopied', target - a9.loadAddress, fn.address),
      /and no start-up copy proves it runs there: no start-up copy the program map found takes these bytes anywhere/,
    ],
    // Four bytes across the start of the copy: half of them run nowhere.
    [
      await write('guard-straddle', itcm.lma - a9.loadAddress - 2, itcm.vma - 2),
      /and no start-up copy proves it runs there: .*partly in bytes the start-up copies elsewhere/,
    ],
  ];
  for (const [manifest, message] of refused) {
    for (const tool of ['nds_mutation_validate', 'nds_mutation_build']) {
      const r = await call(tool, { manifest });
      assert.equal(r.isError, true, `${tool} ${manifest}`);
      assert.equal(r.structuredContent.error.code, 'invalid-argument');
      assert.match(r.content[0]!.text, message, `${tool} ${manifest}`);
      assert.match(r.content[0]!.text, /operation "guarded": the runtime guard failed/);
    }
  }
});
