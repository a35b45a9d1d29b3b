// nds_find_xrefs on code the start-up copies elsewhere (the kit's realistic ARM9 copies .itcm from
// main RAM into ITCM): a target where the copy runs is owned by the copy (ownership copied, with where
// its bytes are stored and the copy as evidence), never "unmapped", in both scopes and by name; the
// ROM offset of the stored bytes keeps its static owner and says where they run; an ITCM address no
// copy fills stays unmapped, and main code that runs where stored stays resolved.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatAddress } from '../../../src/core/vocabulary.js';
import { analysisTools } from '../../../src/tools/analysis/index.js';
import { extractTools } from '../../../src/tools/extract/index.js';
import { truthFunction } from '../../kit/arm/index.js';
import { a9, fn, itcm, itcmWorkspace, romOffset, stored } from '../../kit/itcm-program.js';

const { ok } = await itcmWorkspace('re-mcp-xrefs-copied-', [...analysisTools, ...extractTools]);
const copyWords = new RegExp(
  `^code copy of ${itcm.size} bytes from ${formatAddress(itcm.lma)} to ${formatAddress(itcm.vma)}`,
);

test('an ITCM run address is owned by the copy in program scope, with its callers', async () => {
  const x = await ok('nds_find_xrefs', {
    processor: 'arm9',
    address: formatAddress(fn.address),
    scope: 'program',
  });
  assert.equal(x.target.ownership, 'copied');
  assert.equal(x.target.storedAt, formatAddress(stored));
  assert.match(x.target.copy, copyWords);
  // main reaches it through the linker's veneer: BX PC, then (its ARM half) `b itcm_fast_copy`.
  const veneer = truthFunction(a9, '__itcm_fast_copy_from_thumb');
  const branch = x.xrefs.find((r: any) => r.from === formatAddress(veneer.address + 4));
  assert.ok(branch, JSON.stringify(x.xrefs));
  assert.equal(branch.component, 'main');
});

test('the bounded scope and a name say the same owner', async () => {
  await ok('nds_symbols', {
    action: 'set',
    processor: 'arm9',
    address: formatAddress(fn.address),
    name: 'fastCopy',
  });
  const x = await ok('nds_find_xrefs', { processor: 'arm9', address: 'fastCopy+4' });
  assert.equal(x.target.address, formatAddress(fn.address + 4));
  assert.equal(x.target.name, 'fastCopy+0x4');
  assert.equal(x.target.ownership, 'copied');
  assert.equal(x.target.storedAt, formatAddress(stored + 4));
});

test('the ROM offset of the stored bytes keeps its static owner and gives where they run', async () => {
  const x = await ok('nds_find_xrefs', { processor: 'arm9', romOffset: formatAddress(romOffset) });
  assert.equal(x.target.address, formatAddress(stored));
  assert.equal(x.target.ownership, 'resolved');
  assert.equal(x.target.storedAt, undefined);
  assert.equal(x.target.runsAt, formatAddress(fn.address));
  assert.equal(x.target.runsAtName, 'fastCopy');
  assert.match(x.target.copy, copyWords);
});

test('no copy there: ITCM stays unmapped, main code stays resolved, with no copy fields', async () => {
  const empty = await ok('nds_find_xrefs', { processor: 'arm9', address: '0x01ffa000' });
  assert.equal(empty.target.ownership, 'unmapped');
  assert.equal(empty.target.copy, undefined);
  const main = await ok('nds_find_xrefs', {
    processor: 'arm9',
    address: formatAddress(truthFunction(a9, 'main').address),
  });
  assert.equal(main.target.ownership, 'resolved');
  assert.deepEqual(
    [main.target.storedAt, main.target.runsAt, main.target.copy],
    [undefined, undefined, undefined],
  );
});
