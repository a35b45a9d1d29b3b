// The five structural tools through the shared pipeline (input and output schemas enforced), plus one
// end-to-end session through the stdio server.
import assert from 'node:assert/strict';
import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadConfig } from '../../../src/config/config.js';
import { formatAddress as A, formatRange } from '../../../src/core/vocabulary.js';
import { Services } from '../../../src/services.js';
import { ndsStructureTools } from '../../../src/tools/nds/index.js';
import { Workspace } from '../../../src/workspace/workspace.js';
import { fullSpec, OV } from '../../formats/nds/specs.js';
import { inProcess } from '../../kit/in-process.js';
import { makeWorkspace, startServer } from '../../kit/mcp-harness.js';
import { invalidProgramRomBytes } from '../../kit/program-rom.js';
import { buildRom } from '../../kit/rom-builder.js';
import { NO_ROMS, sharedRomPath } from '../../kit/shared-data.js';

const root = await makeWorkspace('re-mcp-ndstools-');
after(() => rm(root, { recursive: true, force: true }));
const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
await mkdir(join(root, 'roms'));
const built = buildRom({ ...fullSpec, appended: { length: 100, seed: 4 } });
await writeFile(join(root, 'roms/game.nds'), built.bytes);
await writeFile(join(root, 'roms/bad.nds'), invalidProgramRomBytes());
if (!NO_ROMS) await copyFile(sharedRomPath('matrix.nds'), join(root, 'roms/matrix.nds'));

const { call, ok } = inProcess(ndsStructureTools, services);

test('every tool is static-profile, read-only and takes `rom`', () => {
  assert.deepEqual(ndsStructureTools.map((t) => t.name).sort(), [
    'nds_inspect_rom',
    'nds_list_files',
    'nds_list_overlays',
    'nds_read_bytes',
    'nds_resolve_rom_offset',
    'nds_resolve_runtime_address',
  ]);
  for (const t of ndsStructureTools) {
    assert.deepEqual(t.profiles, ['static']);
    assert.equal(t.annotations.readOnlyHint, true);
    assert.ok('rom' in t.input.shape);
  }
});

test('nds_inspect_rom summarizes the model', async () => {
  const s = await ok('nds_inspect_rom', { rom: 'roms/game.nds' });
  assert.equal(s.size, built.bytes.length);
  assert.equal(s.counts.files, built.layout.files.length);
  assert.equal(s.counts.arm9Overlays, 3);
  assert.equal(s.counts.arm7Overlays, 2);
  assert.equal(s.counts.unnamedFiles, built.layout.files.filter((f) => f.path === null).length);
  assert.deepEqual(s.sizes.appended, built.layout.appended && formatRange(built.layout.appended));
  assert.equal(s.header.headerCrc.ok, true);
  assert.equal(s.moduleParams.status, 'valid');
  assert.ok(Number(s.runtimeRanges.arm9.overlayEnvelope.start) <= OV);
});

test('nds_inspect_rom on a real homebrew ROM', { skip: NO_ROMS }, async () => {
  const m = await ok('nds_inspect_rom', { rom: 'roms/matrix.nds' });
  assert.equal(m.arm9.romOffset, '0x00000200');
});

test('nds_list_files paginates with a total and filters by path prefix', async () => {
  const total = built.layout.files.length;
  const p1 = await ok('nds_list_files', { rom: 'roms/game.nds', limit: 3 });
  assert.equal(p1.total, total);
  assert.equal(p1.files.length, 3);
  assert.equal(p1.nextOffset, 3);
  assert.deepEqual(p1.files[0].overlays, [{ processor: 'arm9', id: 0 }]);
  const last = await ok('nds_list_files', { rom: 'roms/game.nds', offset: total - 1 });
  assert.equal(last.nextOffset, null);
  assert.equal(last.files.length, 1);
  const data = await ok('nds_list_files', { rom: 'roms/game.nds', pathPrefix: 'data/' });
  assert.deepEqual(
    data.files.map((f: { path: string }) => f.path).sort(),
    built.layout.files
      .filter((f) => f.path?.startsWith('data/'))
      .map((f) => f.path)
      .sort(),
  );
  // A page past the end is empty and says so (never "entries N..N-1").
  const past = await call('nds_list_files', { rom: 'roms/game.nds', offset: total + 5 });
  assert.deepEqual([past.structuredContent.files, past.structuredContent.nextOffset], [[], null]);
  assert.match(past.content[0]!.text, new RegExp(`no entries at offset ${total + 5} \\(${total} in all\\)`));
  const tooMany = await call('nds_list_files', { rom: 'roms/game.nds', limit: 1001 });
  assert.equal(tooMany.isError, true);
  assert.equal(tooMany.structuredContent.error.code, 'invalid-argument');
});

test('nds_list_overlays reports overlaps and compression', async () => {
  const s = await ok('nds_list_overlays', { rom: 'roms/game.nds', processor: 'arm9' });
  assert.equal(s.total, 3);
  const [o0, o1, o2] = s.overlays;
  assert.deepEqual(o0.overlapsWith, [1]);
  assert.deepEqual(o1.overlapsWith, [0]);
  assert.equal(o2.overlapCount, 0);
  assert.equal(o1.compressed, true);
  assert.equal(o1.fileBacked, null);
  const both = await ok('nds_list_overlays', { rom: 'roms/game.nds' });
  assert.equal(both.total, 5);
});

test('the resolvers: hex addresses, ambiguity, ROM offsets, bounds', async () => {
  const r = await ok('nds_resolve_runtime_address', {
    rom: 'roms/game.nds',
    processor: 'arm9',
    address: `0x${(OV + 4).toString(16)}`,
  });
  assert.equal(r.status, 'ambiguous');
  assert.equal(r.candidates.length, 2);
  assert.equal(r.address, `0x${(OV + 4).toString(16).padStart(8, '0')}`);
  const one = await ok('nds_resolve_runtime_address', {
    rom: 'roms/game.nds',
    processor: 'arm9',
    address: OV + 4,
    overlayId: 0,
  });
  assert.equal(one.status, 'resolved');
  const oneText = await call('nds_resolve_runtime_address', {
    rom: 'roms/game.nds',
    processor: 'arm9',
    address: OV + 4,
    overlayId: 0,
  });
  assert.match(
    oneText.content[0]!.text,
    /resolved .*\(1 candidate\(s\) of other overlays excluded by overlayId 0\)/,
  );
  const ov0 = built.layout.overlays[0]!;
  const back = await ok('nds_resolve_rom_offset', { rom: 'roms/game.nds', offset: ov0.file.start + 4 });
  assert.ok(
    back.owners.some(
      (o: { kind: string; runtimeAddress?: string }) =>
        o.kind === 'overlay' && o.runtimeAddress === A(OV + 4),
    ),
  );
  const entry = await ok('nds_resolve_rom_offset', { rom: 'roms/game.nds', offset: '0x26' });
  assert.deepEqual(
    entry.owners.map((o: { kind: string; field?: string; range: unknown }) => [o.kind, o.field, o.range]),
    [['header', 'arm9EntryAddress', formatRange({ start: 0x24, end: 0x28 })]],
  );
  const past = await call('nds_resolve_rom_offset', { rom: 'roms/game.nds', offset: built.bytes.length });
  assert.equal(past.structuredContent.error.code, 'invalid-argument');
});

test('typed errors: invalid ROM names the field, escapes and missing files are refused', async () => {
  const bad = await call('nds_inspect_rom', { rom: 'roms/bad.nds' });
  assert.equal(bad.structuredContent.error.code, 'invalid-rom');
  assert.equal(bad.structuredContent.error.details.field, 'arm9RomOffset');
  assert.equal(
    (await call('nds_inspect_rom', { rom: '../x.nds' })).structuredContent.error.code,
    'workspace-escape',
  );
  assert.equal(
    (await call('nds_inspect_rom', { rom: 'roms/none.nds' })).structuredContent.error.code,
    'not-found',
  );
});

test('e2e: the stdio server serves the NDS tools', async () => {
  const h = await startServer({ workspace: root });
  try {
    const s = await h.ok<{ counts: { files: number } }>('nds_inspect_rom', { rom: 'roms/game.nds' });
    assert.equal(s.counts.files, built.layout.files.length);
    const r = await h.ok<{ status: string }>('nds_resolve_runtime_address', {
      rom: 'roms/game.nds',
      processor: 'arm7',
      address: 0x05000000,
    });
    assert.equal(r.status, 'unmapped');
    const e = await h.fail('nds_list_files', { rom: 'roms/bad.nds' });
    assert.equal(e.code, 'invalid-rom');
  } finally {
    await h.close();
  }
});
