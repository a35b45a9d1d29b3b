// The string index (extract/string-list.ts): the first call for a ROM and listing scans and keeps the
// matching strings' places; every later page comes from it. Each page served from the index equals the
// same page found by a scan without it (index: false), byte for byte, on the kit's ROM (main code,
// a compressed overlay, NitroFS files) and on every ROM of the real corpus, for several listings;
// a later page scans nothing (no scan progress); a page past what an index holds is found by a scan;
// the index holds its share of the memory budget and goes under pressure.
import assert from 'node:assert/strict';
import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../src/config/config.js';
import { stringIndexing } from '../../src/extract/string-index.js';
import { listStrings, type StringListRequest } from '../../src/extract/string-list.js';
import { getRomStore } from '../../src/roms/rom-store.js';
import { Services } from '../../src/services.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { loadArmProgram } from '../kit/arm/index.js';
import { makeWorkspace } from '../kit/mcp-harness.js';
import { buildRom } from '../kit/rom-builder.js';
import { INVALID_SHARED_ROM, NO_ROMS, sharedRomNames, sharedRomPath } from '../kit/shared-data.js';

const idioms = loadArmProgram('arm9-idioms');
const idle = loadArmProgram('arm7-idle');
const text = (s: string) => new TextEncoder().encode(s);
const words = Array.from({ length: 300 }, (_, i) => `string number ${i} of the kit\0`).join('');
const built = buildRom({
  arm9: { code: idioms.bytes, ramAddress: idioms.loadAddress, entry: idioms.entry },
  arm7: { code: idle.bytes, ramAddress: idle.loadAddress, entry: idle.entry },
  files: [
    { path: 'text/many.txt', data: text(words) },
    { path: 'text/sjis.bin', data: Uint8Array.of(0x82, 0xa0, 0x82, 0xa2, 0x82, 0xa4, 0x41, 0x42, 0) },
  ],
  arm9Overlays: [{ id: 0, ramAddress: 0x02300000, data: text(words.slice(0, 3000)), compress: true }],
});

let root: string;
const fresh = () => new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));

before(async () => {
  root = await makeWorkspace('re-mcp-strings-index-');
  await mkdir(join(root, 'roms'));
  await writeFile(join(root, 'roms/kit.nds'), built.bytes);
  for (const name of sharedRomNames().filter((n) => n !== INVALID_SHARED_ROM))
    await copyFile(sharedRomPath(name), join(root, 'roms', name));
});
after(() => rm(root, { recursive: true, force: true }));

type Listing = Pick<StringListRequest, 'area' | 'encodings' | 'minLength' | 'contains'>;

const LISTINGS: Listing[] = [
  { area: 'all', encodings: ['ascii', 'sjis', 'utf16le'], minLength: 4, contains: null },
  { area: 'arm9', encodings: ['ascii', 'sjis', 'utf16le'], minLength: 3, contains: null },
  { area: 'files', encodings: ['sjis', 'utf16le'], minLength: 4, contains: null },
  { area: 'all', encodings: ['ascii'], minLength: 5, contains: 'E' },
];

async function page(
  services: Services,
  rom: string,
  listing: Listing,
  offset: number,
  limit: number,
  extra: Partial<StringListRequest> = {},
) {
  const store = getRomStore(services);
  let scanning = 0;
  const result = await store.withRom(`roms/${rom}`, (h) =>
    listStrings(services, store, h, {
      ...listing,
      offset,
      limit,
      maxScanBytes: 512 * 1024 * 1024,
      references: false,
      onProgress: (_done, _total, message) => {
        if (message.startsWith('scanning')) scanning++;
      },
      ...extra,
    }),
  );
  return { result, scanning };
}

/** Every page of `listing` from the index equals the page a scan finds; returns the page count. */
async function compareAllPages(rom: string, listing: Listing, limit: number): Promise<number> {
  const services = fresh();
  let pages = 0;
  for (let offset = 0, matching = 1; offset < matching + limit; offset += limit) {
    const indexed = await page(services, rom, listing, offset, limit);
    const scanned = await page(fresh(), rom, listing, offset, limit, { index: false });
    assert.deepEqual(indexed.result, scanned.result, `${rom} ${JSON.stringify(listing)} offset ${offset}`);
    // Only the first page scans; every other one is read from the index.
    if (offset > 0) assert.equal(indexed.scanning, 0, `${rom} offset ${offset} scanned again`);
    else assert.ok(indexed.scanning > 0 || indexed.result.totalBytes === 0);
    matching = indexed.result.matching;
    pages++;
  }
  return pages;
}

test('the kit ROM: every page from the index is the page a scan finds; later pages scan nothing', async () => {
  let pages = 0;
  for (const listing of LISTINGS)
    for (const limit of [7, 256]) pages += await compareAllPages('kit.nds', listing, limit);
  assert.ok(pages > 40, String(pages));
  // The kit holds what the listings are about: many strings, a decoded overlay, a Shift-JIS run.
  const all = await page(fresh(), 'kit.nds', LISTINGS[0]!, 0, 256);
  assert.ok(all.result.matching > 300, String(all.result.matching));
  assert.ok(all.result.strings.some((s) => s.component === 'arm9 overlay 0' && s.romOffset === null));
  const sjis = await page(fresh(), 'kit.nds', LISTINGS[2]!, 0, 256);
  assert.ok(
    sjis.result.strings.some((s) => s.encoding === 'sjis'),
    JSON.stringify(sjis.result.strings),
  );
});

test('the real ROMs: every page from the index is the page a scan finds', { skip: NO_ROMS }, async () => {
  const roms = sharedRomNames().filter((n) => n !== INVALID_SHARED_ROM);
  assert.ok(roms.length >= 5);
  for (const rom of roms)
    for (const listing of LISTINGS.slice(0, 2)) await compareAllPages(rom, listing, 256);
});

test('a page past what an index holds is found by a scan, the same as without an index', async () => {
  const kept = stringIndexing.maxStrings;
  stringIndexing.maxStrings = 10;
  try {
    const services = fresh();
    const listing = LISTINGS[0]!;
    const first = await page(services, 'kit.nds', listing, 0, 4);
    assert.ok(first.result.matching > 20);
    // Inside the index: no scan.
    const inside = await page(services, 'kit.nds', listing, 4, 6);
    assert.equal(inside.scanning, 0);
    // Straddling its end and past it: scanned, and equal to the scan without an index.
    for (const offset of [8, 15, first.result.matching - 3, first.result.matching + 5]) {
      const past = await page(services, 'kit.nds', listing, offset, 5);
      const scanned = await page(fresh(), 'kit.nds', listing, offset, 5, { index: false });
      assert.deepEqual(past.result, scanned.result, `offset ${offset}`);
      if (offset < first.result.matching) assert.ok(past.scanning > 0, `offset ${offset}`);
    }
  } finally {
    stringIndexing.maxStrings = kept;
  }
});

test('a kept index holds its share of the memory budget and goes when a reservation needs the room', async () => {
  const services = fresh();
  const listing = LISTINGS[0]!;
  await page(services, 'kit.nds', listing, 0, 10);
  const held = services.memory.reserved;
  assert.ok(held > 0, 'the index holds nothing of the budget');
  assert.equal((await page(services, 'kit.nds', listing, 10, 10)).scanning, 0);
  // A call needing all of the budget makes the index go.
  const all = await services.memory.reserve(services.memory.totalBytes, 'everything');
  assert.equal(services.memory.reserved, services.memory.totalBytes);
  all.release();
  assert.equal(services.memory.reserved, 0);
  // The next page scans again (and keeps a new index).
  assert.ok((await page(services, 'kit.nds', listing, 10, 10)).scanning > 0);
  assert.equal(services.memory.reserved, held);
});
