// Names follow builds: the kit program's ELF names imported, one ITCM function patched (its first
// instruction becomes a branch), the build's rebuilt ROM and the same patch applied as BPS each get the
// source's names, all but the patched function's (its bytes changed; listed as dropped with why), with
// the main program's names carried although its executable changed (their bytes did not). A second
// build carries nothing new (already named); a ROM with no names carries nothing.
import assert from 'node:assert/strict';
import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../src/config/config.js';
import { Services } from '../../src/services.js';
import { extractTools } from '../../src/tools/extract/index.js';
import { rebuildTools } from '../../src/tools/rebuild/index.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { ARM_KIT_BUILD_DIR } from '../kit/arm/index.js';
import { inProcess } from '../kit/in-process.js';
import { makeWorkspace } from '../kit/mcp-harness.js';
import { programRomBytes } from '../kit/program-rom.js';

let root: string;
let w: ReturnType<typeof inProcess>;
let total: number;

before(async () => {
  root = await makeWorkspace('re-mcp-rebuild-names-');
  await mkdir(join(root, 'roms'));
  await writeFile(join(root, 'roms/p.nds'), programRomBytes());
  await copyFile(join(ARM_KIT_BUILD_DIR, 'arm9-program.elf'), join(root, 'p.elf'));
  const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
  w = inProcess([...extractTools, ...rebuildTools], services, { rom: 'roms/p.nds' });
  total = (await w.ok('nds_symbols', { action: 'import', file: 'p.elf' })).total;
});
after(() => rm(root, { recursive: true, force: true }));

async function names(rom: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (let offset = 0; ; ) {
    const r = await w.ok('nds_symbols', { rom, action: 'list', offset, limit: 500 });
    for (const s of r.symbols) out.set(`${s.name}@${s.address}`, s.component);
    if (r.nextOffset === null) return out;
    offset = r.nextOffset;
  }
}

test('a build and its patch applied carry every name whose bytes still hold', async () => {
  const d = await w.ok('nds_mutation_draft', {
    name: 'itcm-branch',
    operations: [
      {
        op: 'patch',
        component: { kind: 'arm9' },
        address: 'itcm_fast_copy',
        assembly: 'b main',
        mode: 'arm',
      },
    ],
  });
  const b = await w.ok('nds_mutation_build', { manifest: d.manifest });
  const source = await names('roms/p.nds');
  assert.equal(source.size, total);
  for (const [rom, carriedBy] of [
    [b.rom, b.names],
    [null, null],
  ] as const) {
    let out: string;
    let n: typeof b.names;
    if (rom === null) {
      // The patch makes the rebuilt ROM's bytes again, so the same store: removed first, to see it made.
      await rm(join(root, b.names.store));
      const p = await w.ok('nds_patch_apply', { patch: b.patches.bps });
      assert.equal(p.outputSha256, b.outputSha256);
      assert.equal(p.names.store, b.names.store);
      out = p.output;
      n = p.names;
    } else {
      out = rom;
      n = carriedBy;
    }
    assert.equal(n.dropped, 1, JSON.stringify(n.droppedNames));
    assert.equal(n.droppedNames[0].name, 'itcm_fast_copy');
    assert.match(n.droppedNames[0].why, /4 byte\(s\) at its address changed/);
    assert.equal(n.carried, total - 1);
    const got = await names(out);
    assert.equal(got.size, total - 1);
    for (const [key, component] of source) {
      if (key.startsWith('itcm_fast_copy@')) assert.equal(got.has(key), false);
      else assert.equal(got.get(key), component, key);
    }
  }
  // Built again (reused): the names are already there.
  const again = await w.ok('nds_mutation_build', { manifest: d.manifest });
  assert.equal(again.names.carried, 0);
  assert.equal(again.names.alreadyNamed, total - 1);
});

test('a patch whose result is no readable ROM is applied; its names are said not carried', async () => {
  // IPS: the ARM9 ROM offset (header 0x20) pointed past the file.
  const ips = Buffer.concat([
    Buffer.from('PATCH'),
    Buffer.from([0x00, 0x00, 0x20, 0x00, 0x04, 0xf0, 0xff, 0xff, 0x7f]),
    Buffer.from('EOF'),
  ]);
  await writeFile(join(root, 'broken.ips'), ips);
  const p = await w.ok('nds_patch_apply', { patch: 'broken.ips' });
  assert.equal(p.names.carried, 0);
  assert.equal(p.names.dropped, total);
  assert.match(p.names.notCarried, /^invalid-rom: /);
});
