// Function discovery on the real homebrew ROMs in ../shared/roms. Strict evidence stops in the
// libnds start-up code (the program entry and three direct callees); the constant-register extension
// follows crt0's `LDR r3, =main; LDR LR, =__libnds_exit; BX r3` into main and far beyond. main's
// address was checked by hand on basic-first-game: the crt0 loads argc/argv ([r0, #12], [r0, #16]),
// then r3 from its literal pool and LR, then BX r3 to the Thumb function at 0x02004ea0.
import assert from 'node:assert/strict';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadConfig } from '../../../src/config/config.js';
import { invokeTool } from '../../../src/mcp/invoke.js';
import type { ToolDefinition } from '../../../src/mcp/tool.js';
import { Services } from '../../../src/services.js';
import { analysisTools } from '../../../src/tools/analysis/index.js';
import { Workspace } from '../../../src/workspace/workspace.js';
import { makeWorkspace } from '../../kit/mcp-harness.js';
import { NO_ROMS, sharedRomPath } from '../../kit/shared-data.js';

const LIBNDS_ROMS = [
  'basic-first-game.nds',
  'basic-rts-part2.nds',
  'matrix.nds',
  'scrolling-background.nds',
  'raycasting-1.nds',
];

const root = await makeWorkspace('re-mcp-functions-shared-');
after(() => rm(root, { recursive: true, force: true }));
const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
await mkdir(join(root, 'roms'));
if (!NO_ROMS) for (const name of LIBNDS_ROMS) await copyFile(sharedRomPath(name), join(root, 'roms', name));

async function discover(rom: string, args: Record<string, unknown> = {}) {
  const tool = analysisTools.find((t) => t.name === 'nds_discover_functions') as unknown as ToolDefinition;
  // The whole call graph: every function (one page) with its callers, callees and call sites.
  const whole = { detail: 'full', limit: 1024 };
  const r = (await invokeTool(tool, { rom: `roms/${rom}`, processor: 'arm9', ...whole, ...args }, services, {
    signal: new AbortController().signal,
    log: () => {},
  })) as { isError?: boolean; structuredContent: Record<string, any>; content: Array<{ text: string }> };
  assert.ok(!r.isError, r.content[0]?.text);
  return r.structuredContent;
}

for (const rom of LIBNDS_ROMS) {
  test(`${rom}: strict discovery stays in crt0 (4 functions, complete); the extension reaches main and beyond`, {
    skip: NO_ROMS,
  }, async () => {
    const strict = await discover(rom, { evidence: ['program-entry', 'direct-call'] });
    assert.equal(strict.status, 'complete');
    assert.equal(strict.functions.length, 4);
    assert.ok(strict.callSites.every((s: any) => s.kind === 'direct-call'));
    const ext = await discover(rom);
    // crt0's tail transfer: the constant-register BX whose definition is two instructions back (LDR LR
    // in between) and which leaves the entry function.
    const entry = ext.functions.find((f: any) => f.evidence.includes('program-entry'));
    const toMain = ext.callSites.filter(
      (s: any) =>
        s.kind === 'constant-register-call' && s.via === 'bx' && s.caller.address === entry.identity.address,
    );
    assert.equal(toMain.length, 1, JSON.stringify(toMain));
    const main = ext.functions.find((f: any) => f.identity.address === toMain[0].target);
    assert.ok(main, 'main is a proven function');
    assert.deepEqual(main.evidence, ['constant-register-call']);
    assert.ok(main.callees.length > 0, 'main calls on');
    assert.ok(ext.functions.length > 40, `${ext.functions.length} functions`);
    // Everything the strict model proves, the extension proves too.
    const extSet = new Set(ext.functions.map((f: any) => `${f.identity.address}/${f.identity.mode}`));
    for (const f of strict.functions) assert.ok(extSet.has(`${f.identity.address}/${f.identity.mode}`));
  });
}

test('discovery reports progress and stops when cancelled mid-run', { skip: NO_ROMS }, async () => {
  const tool = analysisTools.find((t) => t.name === 'nds_discover_functions') as unknown as ToolDefinition;
  const ac = new AbortController();
  const updates: string[] = [];
  const r = (await invokeTool(
    tool,
    {
      rom: 'roms/raycasting-1.nds',
      processor: 'arm9',
      maxBlocks: 4096,
      maxInstructions: 32768,
      maxBytes: 262144,
      maxEdges: 16384,
      maxFunctions: 1024,
    },
    services,
    {
      signal: ac.signal,
      log: () => {},
      onProgress: (u) => {
        updates.push(u.message ?? '');
        // Cancel on the first analysis update (a cold open reports hashing first).
        if (/^functions: /.test(u.message ?? '')) ac.abort();
      },
    },
  )) as { isError?: boolean; content: Array<{ text: string }> };
  assert.ok(
    updates.some((m) => /functions: \d+ analysed/.test(m)),
    JSON.stringify(updates),
  );
  assert.equal(r.isError, true);
  assert.match(r.content[0]!.text, /cancel/i);
});

test('basic-first-game: main is the Thumb function at 0x02004ea0 (checked by hand against crt0)', {
  skip: NO_ROMS,
}, async () => {
  const ext = await discover('basic-first-game.nds');
  const main = ext.functions.find((f: any) => f.identity.address === '0x02004ea0');
  assert.equal(main?.identity.mode, 'thumb');
  assert.deepEqual(main?.callers, ['0x020000f0']);
});
