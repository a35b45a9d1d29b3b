// The program maps kept in the workspace (map-store.ts, map-file.ts, map-file-walk.ts): a map read
// back by a new process answers every question exactly as the map that was built (kit layouts with
// start-up copies, overlays, the interpreter, and the corpus when RE_MCP_TEST_ROMS is set); a damaged,
// truncated, tampered, stale or foreign file is refused with its reason and the map built again; and
// no file, however hostile, makes reading it throw.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { EVIDENCE_IDS } from '../../../src/analysis/evidence/index.js';
import type { MapCall } from '../../../src/analysis/program-map/call-store.js';
import { loadComponents } from '../../../src/analysis/program-map/components.js';
import { ProgramMap } from '../../../src/analysis/program-map/map.js';
import { readMapFile } from '../../../src/analysis/program-map/map-file.js';
import { builtFromFile } from '../../../src/analysis/program-map/map-file-walk.js';
import { MapStore } from '../../../src/analysis/program-map/map-store.js';
import { getProgramMaps, ProgramMapService } from '../../../src/analysis/program-map/service.js';
import { TIERS } from '../../../src/analysis/program-map/types.js';
import { loadConfig } from '../../../src/config/config.js';
import { engineId } from '../../../src/engine.js';
import { getRomStore } from '../../../src/roms/rom-store.js';
import { Services } from '../../../src/services.js';
import { Workspace } from '../../../src/workspace/workspace.js';
import { makeWorkspace } from '../../kit/mcp-harness.js';
import { kitRomBytes, programRomBytes } from '../../kit/program-rom.js';

const root = await makeWorkspace('re-mcp-map-store-');
after(() => rm(root, { recursive: true, force: true }));
await mkdir(join(root, 'roms'));
await writeFile(join(root, 'roms/layouts.nds'), kitRomBytes('arm9-calico', 'arm7-blocksds'));
await writeFile(join(root, 'roms/interp.nds'), kitRomBytes('arm9-interp', 'arm7-program'));
await writeFile(join(root, 'roms/program.nds'), programRomBytes());
const ROMS: [string, 'arm9' | 'arm7'][] = [
  ['roms/layouts.nds', 'arm9'],
  ['roms/layouts.nds', 'arm7'],
  ['roms/interp.nds', 'arm9'],
  ['roms/program.nds', 'arm9'],
  ['roms/program.nds', 'arm7'],
];
const corpus = process.env.RE_MCP_TEST_ROMS;
if (corpus) {
  for (const f of (await readdir(corpus)).sort()) {
    if (!f.endsWith('.nds') || f.endsWith('.sc.nds')) continue;
    await copyFile(join(corpus, f), join(root, 'roms', f));
    ROMS.push([`roms/${f}`, 'arm9'], [`roms/${f}`, 'arm7']);
  }
}

const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
const store = getRomStore(services);

/** A new process's map service (nothing kept in memory), with what its store reports. */
function freshService() {
  const refused: string[] = [];
  const failed: string[] = [];
  const written: string[] = [];
  const files = new MapStore(services.workspace, {
    refused: (_p, why) => refused.push(why),
    failed: (_p, e) => failed.push(String(e)),
    written: (p) => written.push(p),
  });
  return { maps: new ProgramMapService(services.memory, files), refused, failed, written };
}

async function mapWith(
  maps: ProgramMapService,
  rom: string,
  processor: 'arm9' | 'arm7',
): Promise<ProgramMap> {
  return store.withRom(rom, (r) =>
    maps.map(store, r, { processor, evidence: EVIDENCE_IDS, maxCodeBytes: 64 << 20, maxSeconds: 600 }),
  );
}

/** What a call says (it is a view over the map's columns). */
const callFacts = (c: MapCall) => [
  c.id,
  c.at,
  c.comp,
  c.mode,
  c.tier,
  c.kind,
  c.target,
  c.targetMode,
  c.targetComp,
  c.via,
  c.viaMode,
  c.register,
  c.definedAt,
  c.slot,
  c.conditional,
  c.unresolved,
  c.block,
  c.continuation,
];

/** Every answer the map gives, as one text: bytes, functions, calls, blocks, xrefs and holders. */
function answers(map: ProgramMap): string {
  const h = createHash('sha256');
  // A component is named by its index (its bytes are hashed once, below).
  const put = (v: unknown) =>
    h.update(
      JSON.stringify(v, (_k, x) =>
        x && typeof x === 'object' && (x as { cls?: unknown }).cls instanceof Uint8Array
          ? `component ${(x as { index: number }).index}`
          : x,
      ),
    );
  for (const c of map.set.list) {
    put([c.kind, c.overlayId, c.start, c.end]);
    h.update(c.cls);
    h.update(c.tier);
    put(map.componentBytes(c));
  }
  put([map.status, map.truncation, map.blockCount, map.callCount, map.orphanCode, map.secondaryEntries]);
  put(map.refusals());
  for (const t of TIERS) put(map.coverage(t));
  for (const t of TIERS) put(map.gaps(t).map((g) => [g.component.index, g.start, g.end]));
  const calls = map.callsMadeBy(map.functions);
  for (const [i, f] of map.functions.entries()) {
    put(f);
    put(map.callSitesOf(f).map(callFacts));
    put(calls[i]!.map(callFacts));
    for (const t of TIERS) put(map.xrefs(f.address, t));
    for (const at of [f.address, f.address + 6])
      put(
        map
          .holders(at, 'heuristic')
          .map((x) => [
            x.component.index,
            x.byteClass,
            x.tier,
            x.functions.map((y) => [y.fn.key, y.via, y.block?.id, y.block?.start, y.block?.end]),
          ]),
      );
  }
  return h.digest('hex');
}

test('a map read back answers exactly as the map built, on every kit layout (and the corpus)', async (t) => {
  const first = freshService();
  const built = new Map<string, string>();
  for (const [rom, processor] of ROMS) {
    const map = await mapWith(first.maps, rom, processor);
    assert.equal(map.built.keptFile, null, `${rom} ${processor}: built`);
    built.set(`${rom}:${processor}`, answers(map));
  }
  assert.deepEqual(first.failed, []);
  assert.equal(first.written.length, ROMS.length, 'every complete map written');
  const second = freshService();
  for (const [rom, processor] of ROMS) {
    const started = Date.now();
    const map = await mapWith(second.maps, rom, processor);
    t.diagnostic(`${rom} ${processor}: read back in ${Date.now() - started} ms (built in ${map.millis} ms)`);
    assert.match(
      map.built.keptFile ?? '',
      /^analysis\/generated\/nds\/[0-9a-f]{16}\/program-maps\/arm[79]-[0-9a-f]{16}\.map$/,
    );
    assert.equal(answers(map), built.get(`${rom}:${processor}`), `${rom} ${processor}: the same answers`);
  }
  assert.deepEqual([second.refused, second.failed, second.written], [[], [], []]);
});

test('the start-up copies come back with the map: the ARM tools see them without running start-up again', async () => {
  const svc = freshService();
  const map = await mapWith(svc.maps, 'roms/layouts.nds', 'arm9');
  assert.notEqual(map.built.keptFile, null);
  const copies = await store.withRom('roms/layouts.nds', (r) => svc.maps.copied(store, r, 'arm9'));
  const fresh = await store.withRom('roms/layouts.nds', (r) =>
    new ProgramMapService().copied(store, r, 'arm9'),
  );
  assert.ok(fresh.copies.length > 0);
  assert.deepEqual(copies, fresh);
});

/** The file of the interpreter's ARM9 map, its path and bytes. */
async function interpFile(): Promise<{ path: string; bytes: Buffer }> {
  const sha256 = await store.withRom('roms/interp.nds', async (r) => r.identity.sha256);
  const rel = MapStore.path({ engine: '', sha256, size: 0, processor: 'arm9', evidence: [...EVIDENCE_IDS] });
  return { path: join(root, rel), bytes: await readFile(join(root, rel)) };
}

/** The body with a right checksum after it (a file changed on purpose, not by accident). */
function resealed(body: Uint8Array): Buffer {
  return Buffer.concat([body, createHash('sha256').update(body).digest()]);
}

/** Writes `bytes` as the interpreter's map file, maps it in a new service, and restores the file. */
async function readBackWith(bytes: Uint8Array) {
  const { path, bytes: good } = await interpFile();
  await writeFile(path, bytes);
  try {
    const svc = freshService();
    const map = await mapWith(svc.maps, 'roms/interp.nds', 'arm9');
    return { svc, map };
  } finally {
    await writeFile(path, good);
  }
}

test('a damaged, truncated, stale or foreign file is refused with its reason and the map built again', async () => {
  const { bytes: good } = await interpFile();
  const body = good.subarray(0, good.length - 32);
  const expected = answers(await mapWith(freshService().maps, 'roms/interp.nds', 'arm9'));
  const header = readMapFile(body, {
    engine: engineId(),
    sha256: (await store.withRom('roms/interp.nds', async (r) => r.identity)).sha256,
    size: (await store.withRom('roms/interp.nds', async (r) => r.identity)).size,
    processor: 'arm9',
    evidence: [...EVIDENCE_IDS].sort(),
  });
  assert.notEqual(typeof header, 'string', String(header));
  const headerText = (b: Uint8Array) =>
    Buffer.from(b)
      .subarray(16, 16 + Buffer.from(b).readUInt32LE(12))
      .toString();
  const withHeader = (change: (h: Record<string, unknown>) => void) => {
    const h = JSON.parse(headerText(body));
    change(h);
    const json = Buffer.from(JSON.stringify(h));
    const oldLength = body.readUInt32LE(12);
    const pad = (n: number) => (8 - (n % 8)) % 8;
    const head = Buffer.alloc(16 + json.length + pad(16 + json.length));
    body.copy(head, 0, 0, 12);
    head.writeUInt32LE(json.length, 12);
    json.copy(head, 16);
    return resealed(Buffer.concat([head, body.subarray(16 + oldLength + pad(16 + oldLength))]));
  };
  const flipped = Buffer.from(good);
  flipped[Math.floor(flipped.length / 2)]! ^= 0x40;
  const cases: [string, Uint8Array, RegExp][] = [
    ['a flipped bit', flipped, /checksum/],
    ['a truncated file', good.subarray(0, good.length - 1000), /checksum/],
    ['an empty file', new Uint8Array(0), /shorter/],
    ['another engine', withHeader((h) => (h.engine = '0'.repeat(64))), /another version/],
    ['another ROM', withHeader((h) => (h.sha256 = 'f'.repeat(64))), /another ROM/],
    [
      'another format',
      resealed(Buffer.concat([body.subarray(0, 8), Buffer.from([1, 0, 0, 0]), body.subarray(12)])),
      /format 1/,
    ],
    ['hostile copies', withHeader((h) => (h.copies = { copies: [{ start: 'x' }] })), /copies/],
    ['no components', withHeader((h) => (h.components = 7)), /components/],
    [
      'a longer section',
      withHeader((h) => ((h.sections as { length: number }[])[0]!.length += 1)),
      /past the end|length|after/,
    ],
  ];
  for (const [what, bytes, why] of cases) {
    const { svc, map } = await readBackWith(bytes);
    assert.equal(map.built.keptFile, null, `${what}: built again`);
    assert.equal(svc.refused.length, 1, `${what}: one refusal (${svc.refused.join('; ')})`);
    assert.match(svc.refused[0]!, why, what);
    assert.equal(answers(map), expected, `${what}: the answers of a build`);
    assert.equal(svc.written.length, 1, `${what}: the file written anew`);
  }
});

test('a walk laid out wrongly is refused, not followed: an edge list that loops, a block outside its component, a body out of order, a summary that does not add up', async () => {
  const { bytes: good } = await interpFile();
  const body = Buffer.from(good.subarray(0, good.length - 32));
  const h = JSON.parse(body.subarray(16, 16 + body.readUInt32LE(12)).toString());
  const pad = (n: number) => (8 - (n % 8)) % 8;
  const offsets = new Map<string, number>();
  let at = 16 + body.readUInt32LE(12) + pad(16 + body.readUInt32LE(12));
  const size = { i32: 4, u32: 4, f64: 8, u8: 1, u16: 2 } as Record<string, number>;
  for (const s of h.sections) {
    offsets.set(s.name, at);
    at += s.length * size[s.type]! + pad(s.length * size[s.type]!);
  }
  const loop = Buffer.from(body);
  loop.writeInt32LE(0, offsets.get('edge.next')!);
  const outside = Buffer.from(body);
  outside.writeInt32LE(0x7fffffff, offsets.get('block.end')!);
  // The first body's blocks, one after the other, made to descend; its entry named again by the next.
  const descending = Buffer.from(body);
  descending.writeInt32LE(0x7fffffff, offsets.get('body.blocks')!);
  const twice = Buffer.from(body);
  twice.writeInt32LE(body.readInt32LE(offsets.get('body.entry')!), offsets.get('body.entry')! + 4);
  // The summary's counts of component 0 one byte more than the component has; a run out of order.
  const counted = Buffer.from(body);
  counted.writeUInt32LE(
    body.readUInt32LE(offsets.get('summary.0.counts')!) + 1,
    offsets.get('summary.0.counts')!,
  );
  const runs = Buffer.from(body);
  runs.writeInt32LE(0x7fffffff, offsets.get('summary.0.starts')!);
  for (const [bytes, why] of [
    [loop, /edge 0 loops/],
    [outside, /block 0 outside/],
    [descending, /body 0 with a block out of range or order/],
    [twice, /body 1 names no entry or one twice/],
    [counted, /summary of component 0 counts another size/],
    [runs, /summary of component 0 with a run out of range/],
  ] as const) {
    const { svc, map } = await readBackWith(resealed(bytes));
    assert.equal(map.built.keptFile, null);
    assert.match(svc.refused.join(';') || String(map.built.keptFile), why);
  }
});

test('fuzz: random damage to a resealed file never makes reading it throw or hang', async () => {
  const { bytes: good } = await interpFile();
  const body = good.subarray(0, good.length - 32);
  let seed = 0x5eed;
  const rand = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed;
  };
  const counts = { refused: 0, accepted: 0 };
  await store.withRom('roms/interp.nds', async (rom) => {
    const id = {
      engine: engineId(),
      sha256: rom.identity.sha256,
      size: rom.identity.size,
      processor: 'arm9' as const,
      evidence: [...EVIDENCE_IDS].sort(),
    };
    for (let i = 0; i < 200; i++) {
      const bytes = Buffer.from(body);
      const n = 1 + (rand() % 8);
      for (let k = 0; k < n; k++) bytes[rand() % bytes.length] = rand() & 0xff;
      const contents = readMapFile(bytes, id);
      if (typeof contents === 'string') {
        counts.refused++;
        continue;
      }
      const copies = contents.header.copies;
      const set = await loadComponents(
        store,
        rom,
        'arm9',
        copies?.copies ?? [],
        undefined,
        copies?.dataCopies ?? [],
      );
      const built = await builtFromFile(contents, set, 'fuzz');
      if (typeof built === 'string') {
        counts.refused++;
        continue;
      }
      counts.accepted++;
      // Whatever a tampered file says that passes the checks, asking the map never throws.
      answers(await ProgramMap.of(built, set, rom.identity.sha256));
    }
  });
  assert.equal(counts.refused + counts.accepted, 200);
  assert.ok(counts.refused > 0, JSON.stringify(counts));
});

test('RE_MCP_MAP_CACHE=off keeps nothing; the service the server uses keeps maps by default', async () => {
  assert.equal(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }).mapCache, true);
  assert.equal(loadConfig({ RE_MCP_WORKSPACE_ROOT: root, RE_MCP_MAP_CACHE: 'off' }).mapCache, false);
  assert.throws(() => loadConfig({ RE_MCP_WORKSPACE_ROOT: root, RE_MCP_MAP_CACHE: 'maybe' }), /on or off/);
  const other = await makeWorkspace('re-mcp-map-store-off-');
  try {
    await mkdir(join(other, 'roms'));
    await writeFile(join(other, 'roms/p.nds'), programRomBytes());
    for (const [setting, kept] of [
      ['off', false],
      ['on', true],
    ] as const) {
      const s = new Services(
        loadConfig({ RE_MCP_WORKSPACE_ROOT: other, RE_MCP_MAP_CACHE: setting }),
        new Workspace(other),
      );
      const st = getRomStore(s);
      await st.withRom('roms/p.nds', (r) =>
        getProgramMaps(s).map(st, r, {
          processor: 'arm7',
          evidence: EVIDENCE_IDS,
          maxCodeBytes: 1 << 20,
          maxSeconds: 60,
        }),
      );
      const listed = await readdir(join(other, 'analysis/generated'), { recursive: true }).catch(() => []);
      assert.equal(
        listed.some((f) => String(f).endsWith('.map')),
        kept,
        setting,
      );
    }
  } finally {
    await rm(other, { recursive: true, force: true });
  }
});
