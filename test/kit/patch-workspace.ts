// A workspace for nds_patch_apply tests: a kit ROM at roms/game.nds, the rebuild tools in-process over
// a memory budget whose peak reservation is recorded (test/hardening/patch-bombs.test.ts,
// test/rebuild/apply-stream.test.ts). The caller removes `root`.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/config.js';
import { Services } from '../../src/services.js';
import { rebuildTools } from '../../src/tools/rebuild/index.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { inProcess } from './in-process.js';
import { makeWorkspace } from './mcp-harness.js';
import { peakTrackedBudget } from './memory.js';
import { buildRom } from './rom-builder.js';

export async function patchWorkspace(prefix: string, budget: number, arm9Code: Uint8Array) {
  const root = await makeWorkspace(prefix);
  await mkdir(join(root, 'roms'));
  const { bytes: rom } = buildRom({
    arm9: { code: arm9Code, ramAddress: 0x02000000, entry: 0x02000000 },
    arm7: { code: new Uint8Array(1024).fill(0x22), ramAddress: 0x02380000, entry: 0x02380000 },
  });
  await writeFile(join(root, 'roms/game.nds'), rom);
  const { memory, peak } = peakTrackedBudget(budget);
  const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root), memory);
  return {
    root,
    rom,
    memory,
    peak,
    services,
    ...inProcess(rebuildTools, services, { rom: 'roms/game.nds' }),
  };
}
