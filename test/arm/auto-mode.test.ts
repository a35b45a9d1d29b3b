// mode "auto" away from the header entry point: refused until a proof gives the mode, then the mode
// of the code a whole-program map walked at its proven tier (ARM or Thumb), never a guess.
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../src/config/config.js';
import { Services } from '../../src/services.js';
import { analysisTools } from '../../src/tools/analysis/index.js';
import { armTools } from '../../src/tools/arm/index.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { loadProgramTruth } from '../kit/arm/index.js';
import { inProcess } from '../kit/in-process.js';
import { makeWorkspace } from '../kit/mcp-harness.js';
import { programRomBytes } from '../kit/program-rom.js';

let root: string;
before(async () => {
  root = await makeWorkspace('re-mcp-auto-mode-');
  await mkdir(join(root, 'roms'));
  await writeFile(join(root, 'roms/program.nds'), programRomBytes());
});
after(() => rm(root, { recursive: true, force: true }));

test('auto is the mode a proven walk gave the code, once a map has walked it', async () => {
  const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
  const t = inProcess([...armTools, ...analysisTools], services, {
    rom: 'roms/program.nds',
    processor: 'arm9',
  });
  const truth = loadProgramTruth('arm9-program');
  const thumb = truth.functions.find((f) => f.name === 'main')!;
  assert.equal(thumb.mode, 'thumb');

  // No proof yet: refused, and the refusal says where auto is proven.
  const e = await t.fails(
    'nds_disassemble_range',
    { address: thumb.address, mode: 'auto' },
    'invalid-argument',
  );
  assert.match(e.message, /nds_program_map/);
  const strict = ['program-entry', 'direct-call', 'constant-register-call'];
  await t.ok('nds_program_map', { evidence: strict });
  // An ARM function the walk proved (not the entry point), by the map's own list.
  const listed = await t.ok('nds_discover_functions', {
    scope: 'program',
    evidence: strict,
    lowestTier: 'proven',
  });
  const armId = listed.functions.find(
    (f: any) =>
      f.identity.mode === 'arm' && Number.parseInt(f.identity.address.slice(2), 16) !== truth.loadAddress,
  ).identity;
  const arm = {
    name: `arm ${armId.address}`,
    address: Number.parseInt(armId.address.slice(2), 16),
    mode: 'arm',
  };
  for (const f of [thumb, arm]) {
    const d = await t.ok('nds_disassemble_range', { address: f.address, mode: 'auto', maxInstructions: 4 });
    assert.equal(d.source.mode, f.mode, f.name);
    const explicit = await t.ok('nds_disassemble_range', {
      address: f.address,
      mode: f.mode,
      maxInstructions: 4,
    });
    assert.deepEqual(d.instructions, explicit.instructions);
    const cfg = await t.ok('nds_analyze_control_flow', { address: f.address, mode: 'auto', maxBlocks: 2 });
    assert.equal(cfg.source.mode, f.mode);
  }
  // Bytes no proven walk reached stay refused (a literal pool, here: past the entry function's code).
  const data = truth.sections.find((s) => s.name === '.rodata');
  if (data) await t.fails('nds_disassemble_range', { address: data.vma, mode: 'auto' }, 'invalid-argument');
});
