// A store of 200,000 names (the store's maximum): importing them, setting one more name and listing
// are done in slices, so the event loop keeps turning throughout; the store is written one name a line
// and read back a line at a time; a store in the layout older versions wrote (pretty-printed JSON) is
// still read, and the next change rewrites it in the line layout.
import assert from 'node:assert/strict';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadConfig } from '../../src/config/config.js';
import { SYMBOL_STORE_LIMITS } from '../../src/extract/symbol-store.js';
import { Services } from '../../src/services.js';
import { extractTools } from '../../src/tools/extract/index.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { inProcess } from '../kit/in-process.js';
import { makeWorkspace } from '../kit/mcp-harness.js';
import { programRomBytes } from '../kit/program-rom.js';

const root = await makeWorkspace('re-mcp-store-load-');
after(() => rm(root, { recursive: true, force: true }));
await mkdir(join(root, 'roms'));
await writeFile(join(root, 'roms/program.nds'), programRomBytes());
const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
const { ok, fails } = inProcess(extractTools, services, { rom: 'roms/program.nds' });

/** Counts event-loop turns (setImmediate) while `work` runs. */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let running = true;
  let last = performance.now();
  let longest = 0;
  const spin = () => {
    if (!running) return;
    turns++;
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    setImmediate(spin);
  };
  setImmediate(spin);
  try {
    return { value: await work(), turns };
  } finally {
    running = false;
    console.log(`# ${turns} turns, longest ${longest.toFixed(0)} ms without one`);
  }
}

const N = SYMBOL_STORE_LIMITS.maxSymbols.max;
const hex = (n: number) => `0x${n.toString(16).padStart(8, '0')}`;

test('200,000 names: import, set and list run in slices; the store is one name a line', async () => {
  // Unmapped addresses (RAM past the program): each its own place, no overlay question.
  const lines = Array.from({ length: N - 1 }, (_, i) => `${hex(0x02300000 + i * 4)} name_${i}`);
  await writeFile(join(root, 'many.txt'), `${lines.join('\n')}\n`);
  const imported = await turnsDuring(() =>
    ok('nds_symbols', { action: 'import', file: 'many.txt', format: 'plain' }),
  );
  assert.equal(imported.value.changes.added, N - 1);
  assert.equal(imported.value.total, N - 1);
  assert.ok(imported.turns > 10, `the event loop turned ${imported.turns} times during the import`);
  const set = await turnsDuring(() =>
    ok('nds_symbols', { action: 'set', address: '0x02200000', name: 'last_one' }),
  );
  assert.equal(set.value.total, N);
  assert.ok(set.turns > 10, `the event loop turned ${set.turns} times during the set`);
  // One more is refused: the store's maximum.
  await fails(
    'nds_symbols',
    { action: 'set', address: '0x02200010', name: 'one_too_many' },
    'limit-exceeded',
  );
  const r = await services.workspace.resolveExisting(imported.value.store, 'file');
  const text = await readFile(r.absolute, 'utf8');
  const body = text.split('\n');
  assert.match(body[0]!, /^\{"version":1,"sourceSha256":"[0-9a-f]{64}","symbols":\[$/);
  assert.equal(body.length, N + 3); // header, N names, closing line, final newline
  assert.deepEqual(JSON.parse(text).symbols.length, N);
  const listed = await ok('nds_symbols', { action: 'list', contains: 'name_199990' });
  assert.deepEqual(
    listed.symbols.map((s: { name: string }) => s.name),
    ['name_199990'],
  );
});

test('a store in the older pretty-printed layout is read, and rewritten one name a line on the next change', async () => {
  const store = (await ok('nds_symbols', { action: 'list' })).store as string;
  const r = await services.workspace.resolveExisting(store, 'file');
  const doc = JSON.parse(await readFile(r.absolute, 'utf8'));
  doc.symbols = doc.symbols.slice(0, 3);
  await writeFile(r.absolute, `${JSON.stringify(doc, null, 1)}\n`);
  const listed = await ok('nds_symbols', { action: 'list', limit: 10 });
  assert.equal(listed.total, 3);
  await ok('nds_symbols', { action: 'set', address: '0x02200004', name: 'after' });
  const text = await readFile(r.absolute, 'utf8');
  assert.equal(text.split('\n').length, 4 + 3);
  assert.equal((await ok('nds_symbols', { action: 'list', limit: 10 })).total, 4);
  // A name holding the closing line's characters does not end the read early.
  await ok('nds_symbols', { action: 'set', address: '0x02200008', name: ']}' });
  assert.equal((await ok('nds_symbols', { action: 'list', contains: ']}' })).symbols.length, 1);
  assert.equal((await ok('nds_symbols', { action: 'list', limit: 10 })).total, 5);
});
