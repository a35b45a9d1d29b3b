// What the evidence classes see of each block (block-view.ts): on a real walk of the kit program, a
// class's onBlock is shown every block the walk decodes, each with that block's own instructions, call,
// component, tier and processor (one view object whose fields the walker sets per block), and an entry
// it emits carries the component and tier of the block it was emitted from.
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { EVIDENCE_CLASSES } from '../../../src/analysis/evidence/index.js';
import type { EvidenceClass } from '../../../src/analysis/evidence/registry.js';
import { buildProgramMap } from '../../../src/analysis/program-map/build.js';
import { loadComponents } from '../../../src/analysis/program-map/components.js';
import { getProgramMaps } from '../../../src/analysis/program-map/service.js';
import type { BlockView } from '../../../src/analysis/program-map/walker.js';
import { loadConfig } from '../../../src/config/config.js';
import { getRomStore } from '../../../src/roms/rom-store.js';
import { Services } from '../../../src/services.js';
import { Workspace } from '../../../src/workspace/workspace.js';
import { makeWorkspace } from '../../kit/mcp-harness.js';
import { kitRomBytes } from '../../kit/program-rom.js';

const root = await makeWorkspace('re-mcp-block-view-');
after(() => rm(root, { recursive: true, force: true }));
await mkdir(join(root, 'roms'));
await writeFile(join(root, 'roms/layouts.nds'), kitRomBytes('arm9-calico', 'arm7-blocksds'));
const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
const store = getRomStore(services);

test('every block is shown once with its own facts, and an emitted entry names where it came from', async () => {
  const seen: { view: BlockView; id: number; comp: number; first: number; last: number; tier: string }[] = [];
  const emitted: { address: number; comp: number }[] = [];
  // A class that sees every block and names the block after each call as an entry of its own.
  const watcher: EvidenceClass = {
    id: 'block-view-watcher',
    tier: 'heuristic',
    description: 'test: records the views it is shown',
    bounded: false,
    onBlock(view) {
      const ins = view.instructions;
      assert.equal(view.processor, 'arm7');
      assert.equal(ins[0]!.address, view.block.start, 'the block starts at its first instruction');
      assert.equal(ins.at(-1)!.address + ins.at(-1)!.size, view.block.end, 'and ends after its last');
      assert.equal(view.component.index, view.block.comp);
      if (view.call) assert.equal(view.call.block, view.block.id, 'the call is the block’s own');
      seen.push({
        view,
        id: view.block.id,
        comp: view.component.index,
        first: ins[0]!.address,
        last: ins.at(-1)!.address,
        tier: view.tier,
      });
      if (view.block.term === 'call' && view.call) {
        view.emit({
          component: view.component,
          address: view.block.end,
          mode: view.block.mode,
          class: 'block-view-watcher',
          classTier: 'heuristic',
          from: ins.at(-1)!.address,
        });
        emitted.push({ address: view.block.end, comp: view.component.index });
      }
    },
  };
  const built = await store.withRom('roms/layouts.nds', async (handle) => {
    const found = await getProgramMaps(services).copied(store, handle, 'arm7');
    const set = await loadComponents(store, handle, 'arm7', found.copies, undefined, found.dataCopies);
    return buildProgramMap({
      set,
      processor: 'arm7',
      entry: handle.model.arm7.entryAddress,
      classes: [...EVIDENCE_CLASSES, watcher],
      codeBytes: 1 << 22,
      deadline: Date.now() + 120_000,
    });
  });
  const w = built.walker;
  assert.ok(seen.length > 100, `${seen.length} blocks shown`);
  // One view for the walk, shown each block once.
  assert.equal(new Set(seen.map((s) => s.view)).size, 1);
  assert.equal(new Set(seen.map((s) => s.id)).size, seen.length);
  // What each call saw was that block's, not the last one's (blocks split later keep their start).
  for (const s of seen) {
    const b = w.blocks.get(s.id);
    assert.equal(b.start, s.first);
    assert.equal(w.blocks.compOf(s.id), s.comp);
  }
  // The copied WRAM component is walked (the layout copies .text there): views name it.
  assert.ok(new Set(seen.map((s) => s.comp)).size > 1, 'blocks of more than one component');
  assert.ok(emitted.length > 10);
  for (const e of emitted) {
    const entry = [...w.entries.values()].find((x) => x.comp === e.comp && x.address === e.address);
    assert.ok(entry, `an entry at 0x${e.address.toString(16)}`);
    const ev = entry.evidence.find((x) => x.class === 'block-view-watcher');
    assert.ok(ev, 'with the watcher’s evidence');
    assert.equal(ev.fromComponent, e.comp, 'from the component of the block it was emitted from');
  }
});
