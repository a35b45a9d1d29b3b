// A component whose table puts it at an address unaligned for its code (a corrupt or hostile overlay
// table can): the walk still gives every aligned instruction its own place, splits blocks there and
// never reads a fractional block index (found by the tool fuzz campaign on a mutated real ROM).
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { EVIDENCE_IDS } from '../../../src/analysis/evidence/index.js';
import type { ProgramMap } from '../../../src/analysis/program-map/map.js';
import { getProgramMaps } from '../../../src/analysis/program-map/service.js';
import { loadConfig } from '../../../src/config/config.js';
import { getRomStore } from '../../../src/roms/rom-store.js';
import { Services } from '../../../src/services.js';
import { Workspace } from '../../../src/workspace/workspace.js';
import { makeWorkspace } from '../../kit/mcp-harness.js';
import { buildRom } from '../../kit/rom-builder.js';

const words = (...w: number[]) => {
  const b = new Uint8Array(w.length * 4);
  const v = new DataView(b.buffer);
  for (const [i, x] of w.entries()) v.setUint32(i * 4, x >>> 0, true);
  return b;
};
const OVERLAY = 0x02300002; // two bytes off ARM alignment
const FN = 0x02300004;
// main: bl FN; b .
const main = words(0xeb000000 | (((FN - 0x02000008) / 4) & 0xffffff), 0xeafffffe);
// FN: mov r0,#0; l: add r0,r0,#1; cmp r0,#10; blt l; bx lr (the loop branch splits the first block)
const overlay = cat(new Uint8Array(2), words(0xe3a00000, 0xe2800001, 0xe350000a, 0xbafffffc, 0xe12fff1e));
function cat(...parts: Uint8Array[]) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

let root: string;
let map: ProgramMap;
before(async () => {
  root = await makeWorkspace('re-mcp-unaligned-');
  await mkdir(join(root, 'roms'));
  const rom = buildRom({
    arm9: { code: main, ramAddress: 0x02000000, entry: 0x02000000 },
    arm7: { code: words(0xeafffffe), ramAddress: 0x037f8000, entry: 0x037f8000 },
    arm9Overlays: [{ id: 0, ramAddress: OVERLAY, data: overlay }],
  });
  await writeFile(join(root, 'roms/unaligned.nds'), rom.bytes);
  const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
  const store = getRomStore(services);
  map = await store.withRom('roms/unaligned.nds', (h) =>
    getProgramMaps(services).map(store, h, {
      processor: 'arm9',
      evidence: EVIDENCE_IDS,
      maxCodeBytes: 1 << 20,
      maxSeconds: 60,
    }),
  );
});
after(() => rm(root, { recursive: true, force: true }));

test('an overlay at an unaligned address: its function is walked, the loop head splits its block', () => {
  const f = map.functions.find((x) => x.address === FN);
  assert.ok(f, JSON.stringify(map.functions.map((x) => x.address.toString(16))));
  assert.equal(f.mode, 'arm');
  assert.equal(f.tier, 'proven');
  // Every instruction of the loop belongs to that function, the split block head included.
  for (const a of [FN, FN + 4, FN + 8, FN + 12, FN + 16])
    assert.deepEqual(
      map.holders(a, 'proven').flatMap((h) => h.functions.map((x) => x.fn.address)),
      [FN],
      a.toString(16),
    );
  const walker = map.built.walker;
  const comp = map.set.list.find((c) => c.kind === 'overlay')!;
  assert.equal(comp.start, OVERLAY);
  assert.equal(walker.blockAt(comp, 'arm', FN + 4)?.start, FN + 4, 'the loop head starts a block');
  assert.equal(walker.blockAt(comp, 'arm', FN + 2), null, 'no block at an unaligned address');
  assert.equal(map.built.status, 'complete');
});
