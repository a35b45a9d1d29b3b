// The start-up copies kept beside the maps (src/analysis/program-map/copies-file.ts): written once,
// read back by a fresh service (equal to a new detection), and every damaged, stale or foreign file
// refused with its reason, the copies then found again.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  copiesPath,
  decodeCopiesFile,
  encodeCopiesFile,
} from '../../../src/analysis/program-map/copies-file.js';
import { getProgramMaps } from '../../../src/analysis/program-map/service.js';
import { loadConfig } from '../../../src/config/config.js';
import { engineId } from '../../../src/engine.js';
import { getRomStore } from '../../../src/roms/rom-store.js';
import { Services } from '../../../src/services.js';
import { Workspace } from '../../../src/workspace/workspace.js';
import { makeWorkspace } from '../../kit/mcp-harness.js';
import { kitRomBytes } from '../../kit/program-rom.js';
import { rng } from '../../kit/rng.js';

const root = await makeWorkspace('re-mcp-copies-file-');
after(() => rm(root, { recursive: true, force: true }));
await mkdir(join(root, 'roms'));
// The calico-style ARM9 copies its main code below its load address at start-up.
await writeFile(join(root, 'roms/calico.nds'), kitRomBytes('arm9-calico', 'arm7-blocksds'));

const fresh = (cache = 'on') =>
  new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root, RE_MCP_MAP_CACHE: cache }), new Workspace(root));
async function copiesVia(services: Services) {
  const store = getRomStore(services);
  return store.withRom('roms/calico.nds', async (rom) => ({
    found: await getProgramMaps(services).copied(store, rom, 'arm9'),
    id: {
      engine: engineId(),
      sha256: rom.identity.sha256,
      size: rom.identity.size,
      processor: 'arm9' as const,
    },
  }));
}

test('the copies are written once and a fresh service reads the same copies back', async () => {
  const first = await copiesVia(fresh());
  assert.ok(first.found.copies.length > 0, 'the calico layout copies code');
  const path = join(root, copiesPath(first.id));
  const inode = (await stat(path)).ino;
  const again = await copiesVia(fresh());
  assert.deepEqual(again.found, first.found);
  // An atomic write replaces the file: the same inode means it was only read.
  assert.equal((await stat(path)).ino, inode, 'read back, not written again');
  // What a detection without the kept file finds is the same.
  const detected = await copiesVia(fresh('off'));
  assert.deepEqual(detected.found, first.found);
});

test('damaged, stale and foreign files are refused with their reason', async () => {
  const { found, id } = await copiesVia(fresh());
  const good = encodeCopiesFile(id, found);
  assert.deepEqual(decodeCopiesFile(good, id), found);
  const reseal = (body: string) => {
    return `${body}\n${createHash('sha256').update(body).digest('hex')}\n`;
  };
  const body = good.split('\n')[0]!;
  const cases: [string, string, RegExp][] = [
    ['truncated', good.slice(0, good.length >> 1), /lines|checksum/],
    ['one byte changed', good.replace('"copies"', '"copiez"'), /checksum/],
    ['another engine', encodeCopiesFile({ ...id, engine: '0'.repeat(64) }, found), /another version/],
    ['another ROM', encodeCopiesFile({ ...id, sha256: 'f'.repeat(64) }, found), /another ROM/],
    ['another processor', encodeCopiesFile({ ...id, processor: 'arm7' }, found), /another ROM/],
    ['not JSON', reseal('{"format":'), /not JSON/],
    [
      'a copy with a negative size',
      reseal(body.replace(/"size":(\d+),"source"/, '"size":-1,"source"')),
      /malformed/,
    ],
    ['no copies', reseal(body.replace(/"copies":\{/, '"copies":null,"x":{')), /malformed/],
  ];
  for (const [what, text, why] of cases) {
    const r = decodeCopiesFile(text, id);
    assert.equal(typeof r, 'string', what);
    assert.match(r as string, why, what);
  }
  // Resealed random damage: refused or read as well-formed copies, never thrown.
  const r = rng(4711);
  for (let k = 0; k < 200; k++) {
    const chars = [...body];
    for (let i = 0, n = 1 + Math.floor(r() * 3); i < n; i++)
      chars[Math.floor(r() * chars.length)] = String.fromCharCode(32 + Math.floor(r() * 95));
    const out = decodeCopiesFile(reseal(chars.join('')), id);
    assert.ok(typeof out === 'string' || Array.isArray(out.copies));
  }
});

test('a refused file is replaced by the copies found again', async () => {
  const { found, id } = await copiesVia(fresh());
  const path = join(root, copiesPath(id));
  await writeFile(path, 'garbage\n');
  const again = await copiesVia(fresh());
  assert.deepEqual(again.found, found);
  assert.deepEqual(decodeCopiesFile(await readFile(path, 'utf8'), id), found, 'written anew');
});
