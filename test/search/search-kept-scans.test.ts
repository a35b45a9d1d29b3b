// Kept scans: the pages of one search after the first are read from its kept hits (search/search.ts
// ScanMemo, nds/kept-scans.ts): such a page reads no ROM chunk and is equal to the page a search
// without kept scans gives; another pattern, scope, start or scan bound is another scan. Through the
// tool: every page of nds_search_pattern on a server that keeps its scans equals the same page on a
// fresh server; kept scans hold their share of the memory budget and go under pressure.
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../src/config/config.js';
import { bufferSource, parseNdsRom } from '../../src/formats/nds/index.js';
import type { ScanResult } from '../../src/search/scan.js';
import { type ScanMemo, type SearchRequest, searchRom } from '../../src/search/search.js';
import { Services } from '../../src/services.js';
import { searchTools } from '../../src/tools/search/index.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { inProcess } from '../kit/in-process.js';
import { makeWorkspace } from '../kit/mcp-harness.js';
import { buildRom } from '../kit/rom-builder.js';
import { bufferReader } from './memory-io.js';

// 0x1E FF 2F E1 (bx lr) every 0x40 bytes of the ARM9 and in a file: a few hundred hits.
const code = new Uint8Array(0x8000).fill(0x11);
for (let i = 0; i < code.length; i += 0x40) code.set([0x1e, 0xff, 0x2f, 0xe1], i);
const file = new Uint8Array(0x2000).fill(0x22);
for (let i = 0x10; i < file.length; i += 0x100) file.set([0x1e, 0xff, 0x2f, 0xe1], i);
const built = buildRom({
  arm9: { code, ramAddress: 0x02000000 },
  arm7: { code: new Uint8Array(0x400).fill(0x33), ramAddress: 0x037f8000 },
  files: [{ path: 'data/a.bin', data: file }],
});
const model = parseNdsRom(bufferSource(built.bytes));

function mapMemo(): ScanMemo & { kept: Map<string, ScanResult> } {
  const kept = new Map<string, ScanResult>();
  return { kept, get: (k) => kept.get(k), keep: async (k, s) => void kept.set(k, s) };
}

const request = (over: Partial<SearchRequest> = {}): SearchRequest => ({
  pattern: { kind: 'byte-signature', signature: '1E FF 2F E1' },
  scope: { kind: 'whole-rom' },
  offset: 0,
  limit: 50,
  maxScanBytes: 64 * 1024 * 1024,
  contextBytes: 4,
  ...over,
});

async function search(req: SearchRequest, memo?: ScanMemo) {
  const reads: Array<[number, number]> = [];
  const result = await searchRom(
    model,
    {
      romSize: built.bytes.length,
      readChunk: bufferReader(built.bytes, reads),
      readBytes: (o, n) => built.bytes.slice(o, o + n),
      ...(memo ? { scans: memo } : {}),
    },
    req,
  );
  return { result, reads: reads.length };
}

test('a later page reads the kept scan: no chunk read, the page a fresh search gives', async () => {
  const memo = mapMemo();
  const first = await search(request(), memo);
  assert.ok(first.reads > 0);
  assert.ok(first.result.discoveredMatches > 200, String(first.result.discoveredMatches));
  assert.equal(memo.kept.size, 1);
  for (let offset = 0; offset < first.result.discoveredMatches + 50; offset += 50) {
    const kept = await search(request({ offset }), memo);
    assert.equal(kept.reads, 0, `offset ${offset} scanned again`);
    assert.deepEqual(kept.result, (await search(request({ offset }))).result, `offset ${offset}`);
  }
  assert.equal(memo.kept.size, 1);
  // Another pattern, scope, start or bound is another scan, kept apart.
  for (const other of [
    request({ pattern: { kind: 'byte-signature', signature: '1E FF ?? E1' } }),
    request({
      pattern: { kind: 'integer', value: 0xe12fff1e, width: 32, endianness: 'little', signed: false },
    }),
    request({
      pattern: {
        kind: 'integer',
        value: 0xe12fff1e,
        width: 32,
        endianness: 'little',
        signed: false,
        alignment: 4,
      },
    }),
    request({ scope: { kind: 'components', components: [{ kind: 'arm9' }] } }),
    request({ startRomOffset: 0x4000 }),
    request({ maxScanBytes: 0x5000 }),
  ]) {
    const known: number = memo.kept.size;
    const r = await search(other, memo);
    assert.ok(r.reads > 0, JSON.stringify(other));
    assert.equal(memo.kept.size, known + 1, JSON.stringify(other));
    assert.deepEqual(r.result, (await search(other)).result);
  }
});

let root: string;
before(async () => {
  root = await makeWorkspace('re-mcp-kept-scans-');
  await mkdir(join(root, 'roms'));
  await writeFile(join(root, 'roms/a.nds'), built.bytes);
});
after(() => rm(root, { recursive: true, force: true }));

const server = () => {
  const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
  return { services, tools: inProcess(searchTools, services, { rom: 'roms/a.nds' }) };
};

test('nds_search_pattern: every page from a kept scan equals the page on a fresh server', async () => {
  const { services, tools } = server();
  const args = {
    pattern: { kind: 'byte-signature', signature: '1E FF 2F E1' },
    scope: { kind: 'whole-rom' },
  };
  let pages = 0;
  for (let offset = 0, total = 1; offset < total + 64; offset += 64) {
    const kept = await tools.call('nds_search_pattern', { ...args, offset, limit: 64 });
    const fresh = await server().tools.call('nds_search_pattern', { ...args, offset, limit: 64 });
    assert.deepEqual(kept, fresh, `offset ${offset}`);
    total = kept.structuredContent.discoveredMatches;
    pages++;
  }
  assert.ok(pages >= 4, String(pages));
  // The kept scan holds its share of the budget, and goes when a reservation needs the room.
  const held = services.memory.reserved;
  assert.ok(held > 0);
  const all = await services.memory.reserve(services.memory.totalBytes, 'everything');
  all.release();
  assert.equal(services.memory.reserved, 0);
  await tools.ok('nds_search_pattern', { ...args, offset: 64, limit: 64 });
  assert.equal(services.memory.reserved, held);
});

test('a ROM rewritten with other bytes is scanned again, never answered from the old scan', async () => {
  const { tools } = server();
  const args = {
    pattern: { kind: 'byte-signature', signature: '1E FF 2F E1' },
    scope: { kind: 'whole-rom' },
  };
  const before = await tools.ok('nds_search_pattern', { ...args, limit: 1 });
  const changed = new Uint8Array(built.bytes);
  // One more hit, in the ARM9's filler.
  const at = built.layout.arm9.rom.start + 0x21;
  changed.set([0x1e, 0xff, 0x2f, 0xe1], at);
  await writeFile(join(root, 'roms/a.nds'), changed);
  try {
    const afterChange = await tools.ok('nds_search_pattern', { ...args, limit: 1 });
    assert.equal(afterChange.discoveredMatches, before.discoveredMatches + 1);
  } finally {
    await writeFile(join(root, 'roms/a.nds'), built.bytes);
  }
});
