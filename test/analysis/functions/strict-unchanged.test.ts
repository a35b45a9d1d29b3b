// The specification's bounded analysis is unchanged by the whole-program work when only the proven
// tier's original evidence classes are selected (the tools' defaults): nds_discover_functions and
// nds_find_xrefs on a ROM of the kit's realistic programs give exactly what they gave before the map
// existed. golden/strict-bounded.json was recorded by running these same calls on commit 8c0e766
// (the last one before it); regenerate it only from that commit, never from the code under test.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadConfig } from '../../../src/config/config.js';
import { invokeTool } from '../../../src/mcp/invoke.js';
import type { ToolDefinition } from '../../../src/mcp/tool.js';
import { Services } from '../../../src/services.js';
import { analysisTools } from '../../../src/tools/analysis/index.js';
import { Workspace } from '../../../src/workspace/workspace.js';
import { loadProgramTruth } from '../../kit/arm/index.js';
import { makeWorkspace } from '../../kit/mcp-harness.js';
import { buildRom } from '../../kit/rom-builder.js';

const golden = JSON.parse(readFileSync(new URL('./golden/strict-bounded.json', import.meta.url), 'utf8'));
const a9 = loadProgramTruth('arm9-program');
const a7 = loadProgramTruth('arm7-program');
const root = await makeWorkspace('re-mcp-strict-');
after(() => rm(root, { recursive: true, force: true }));
await mkdir(join(root, 'roms'));
await writeFile(
  join(root, 'roms/prog.nds'),
  buildRom({
    arm9: { code: a9.bytes, ramAddress: 0x02000000, entry: 0x02000000 },
    arm7: { code: a7.bytes, ramAddress: 0x02380000, entry: 0x02380000 },
  }).bytes,
);
const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));

async function call(name: string, args: Record<string, unknown>) {
  const tool = (analysisTools as unknown as ToolDefinition[]).find((t) => t.name === name)!;
  const r = (await invokeTool(tool, args, services, {
    signal: new AbortController().signal,
    log: () => {},
  })) as {
    isError?: boolean;
    structuredContent: Record<string, any>;
  };
  assert.ok(!r.isError, JSON.stringify(r.structuredContent));
  return r.structuredContent;
}

for (const processor of ['arm9', 'arm7'] as const) {
  test(`${processor}: bounded discovery and xrefs with the default evidence are what they were`, async () => {
    const d = await call('nds_discover_functions', {
      rom: 'roms/prog.nds',
      processor,
      detail: 'full',
      limit: 1024,
      maxFunctions: 1024,
      maxCallSites: 8192,
      maxBlocks: 4096,
      maxInstructions: 32768,
      maxBytes: 262144,
      maxEdges: 16384,
    });
    const now: Record<string, unknown> = {
      status: d.status,
      truncation: d.truncation,
      functions: d.functions.map((f: any) => [
        f.identity.address,
        f.identity.mode,
        f.evidence.join('+'),
        f.callers.length,
      ]),
      callSites: d.callSites.map((s: any) => [
        s.at,
        s.kind,
        s.target,
        s.callee?.address ?? null,
        s.unresolved ?? null,
      ]),
    };
    const want = golden[processor];
    assert.deepEqual(now.status, want.status);
    assert.deepEqual(now.truncation, want.truncation);
    assert.deepEqual(now.functions, want.functions);
    assert.deepEqual(now.callSites, want.callSites);
    for (const [target, expected] of Object.entries(want.xrefs as Record<string, unknown>)) {
      const x = await call('nds_find_xrefs', {
        rom: 'roms/prog.nds',
        processor,
        address: target,
        maxBlocks: 512,
        maxInstructions: 16384,
        maxBytes: 65536,
        maxEdges: 4096,
      });
      assert.deepEqual(
        { status: x.status, xrefs: x.xrefs.map((r: any) => [r.from, r.kind]) },
        expected,
        target,
      );
    }
  });
}
