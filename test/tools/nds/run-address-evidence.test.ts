// Bytes the start-up copies elsewhere, seen where they are stored: the kit's realistic ARM9 copies
// .itcm from main RAM into ITCM. A search hit in them, a byte window of them and a ROM offset of them
// give the run address (and its stored name) beside the storage address, with the copy as evidence;
// bytes that run where they are stored get no run address.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatAddress } from '../../../src/core/vocabulary.js';
import { extractTools } from '../../../src/tools/extract/index.js';
import { ndsStructureTools } from '../../../src/tools/nds/index.js';
import { searchTools } from '../../../src/tools/search/index.js';
import { a9, built, fn, itcm, itcmWorkspace, romOffset, stored } from '../../kit/itcm-program.js';

const { call } = await itcmWorkspace('re-mcp-run-evidence-', [
  ...ndsStructureTools,
  ...searchTools,
  ...extractTools,
]);

test('a ROM offset in copied code gives where it runs and the copy', async () => {
  const r = await call('nds_resolve_rom_offset', { offset: formatAddress(romOffset) });
  assert.ok(!r.isError, r.content[0]?.text);
  const main = r.structuredContent.owners.find((o: any) => o.kind === 'main');
  assert.equal(main.runtimeAddress, formatAddress(stored));
  assert.equal(main.runsAt, formatAddress(fn.address));
  assert.match(
    main.copy,
    new RegExp(`code copy of \\d+ bytes from ${formatAddress(itcm.lma)} to ${formatAddress(itcm.vma)}`),
  );
  assert.match(r.content[0]!.text, new RegExp(`runs at ${formatAddress(fn.address)}`));
  // Code that runs in place: no run address.
  const inPlace = await call('nds_resolve_rom_offset', {
    offset: formatAddress(built.layout.arm9.rom.start + 0x100),
  });
  const o = inPlace.structuredContent.owners.find((x: any) => x.kind === 'main');
  assert.equal(o.runsAt, undefined);
  assert.equal(o.copy, undefined);
});

test('a stored name at the run address is shown beside it', async () => {
  const set = await call('nds_symbols', {
    action: 'set',
    processor: 'arm9',
    address: formatAddress(fn.address),
    name: 'fastCopyInItcm',
  });
  assert.ok(!set.isError, set.content[0]?.text);
  const r = await call('nds_resolve_rom_offset', { offset: formatAddress(romOffset + 4) });
  const main = r.structuredContent.owners.find((o: any) => o.kind === 'main');
  assert.equal(main.runsAt, formatAddress(fn.address + 4));
  assert.equal(main.runsAtName, 'fastCopyInItcm+0x4');
});

test('a byte window over the copy gives each row its run address and the copy in a note', async () => {
  const offset = stored - a9.loadAddress - 16;
  const r = await call('nds_read_bytes', { region: { kind: 'arm9' }, offset, length: 48 });
  assert.ok(!r.isError, r.content[0]?.text);
  const rows = r.structuredContent.rows;
  assert.equal(rows[1].runtimeAddress, formatAddress(stored));
  assert.equal(rows[1].runsAt, formatAddress(fn.address));
  assert.equal(rows[2].runsAt, formatAddress(fn.address + 16));
  const note = r.structuredContent.notes.find((n: string) => n.includes('start-up code copy'));
  assert.ok(note, JSON.stringify(r.structuredContent.notes));
  assert.match(note, new RegExp(`runs at ${formatAddress(fn.address - 16)}\\.\\.`));
});

test('a search hit in the copy gives its run address', async () => {
  const bytes = a9.bytes.subarray(stored - a9.loadAddress, stored - a9.loadAddress + 12);
  const r = await call('nds_search_pattern', {
    pattern: {
      kind: 'byte-signature',
      signature: Buffer.from(bytes).toString('hex').replace(/(..)/g, '$1 ').trim(),
    },
    scope: { kind: 'components', components: [{ kind: 'arm9' }] },
  });
  assert.ok(!r.isError, r.content[0]?.text);
  const hit = r.structuredContent.matches.find((m: any) => m.romOffset === formatAddress(romOffset));
  assert.ok(hit, JSON.stringify(r.structuredContent.matches));
  const main = hit.owners.find((o: any) => o.kind === 'main');
  assert.equal(main.runsAt, formatAddress(fn.address));
  assert.match(r.content[0]!.text, new RegExp(`runs at ${formatAddress(fn.address)}`));
});

test('a runtime address where a copy runs names the copy and where its bytes are stored', async () => {
  const r = await call('nds_resolve_runtime_address', {
    processor: 'arm9',
    address: formatAddress(fn.address + 4),
  });
  assert.ok(!r.isError, r.content[0]?.text);
  const s = r.structuredContent;
  // Statically nothing holds ITCM; the copy does once start-up is over.
  assert.equal(s.status, 'unmapped');
  assert.equal(s.copied.storedAt, formatAddress(stored + 4));
  assert.match(s.copied.copy, /^code copy of \d+ bytes from /);
  assert.match(r.content[0]!.text, new RegExp(`copies from ${formatAddress(stored + 4)}`));
  // Main code that runs where it is stored, and ITCM no copy fills: no copy.
  for (const address of [formatAddress(a9.loadAddress + 0x100), '0x01ffa000']) {
    const o = await call('nds_resolve_runtime_address', { processor: 'arm9', address });
    assert.equal(o.structuredContent.copied, null, address);
  }
});
