// What a session costs the assistant's context before and while it works (docs/clients.md, "Context
// budgets"): the default session's tools/list, and the result of every default-profile tool called
// with its default arguments, on a real compiled program (the kit's, always) and on the largest ROM of
// the real-ROM corpus (when it is configured). Each figure is measured as the client receives it:
// the whole serialized result, text block and structuredContent together.
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadAllTools } from '../../src/tools/index.js';
import { loadProgramTruth } from '../kit/arm/index.js';
import { defaultCalls, RESULT_BUDGET, TOOLS_LIST_BUDGET } from '../kit/context-calls.js';
import { type Harness, makeWorkspace, startServer } from '../kit/mcp-harness.js';
import { programRomBytes } from '../kit/program-rom.js';
import { INVALID_SHARED_ROM, NO_ROMS, sharedRomNames, sharedRomPath } from '../kit/shared-data.js';

const ALL_TOOLS = await loadAllTools();
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

/** A server with RE_MCP_PROFILE unset and no integration setting: the default session. */
async function defaultServer(workspace?: string): Promise<Harness> {
  return startServer({ ...(workspace ? { workspace } : {}), env: { RE_MCP_PROFILE: '' } });
}

test('the default session lists the static tools within the tools/list budget, and says how to list the rest', async () => {
  const h = await defaultServer();
  try {
    const listed = await h.client.listTools();
    const size = bytes(listed);
    assert.ok(size <= TOOLS_LIST_BUDGET, `default tools/list is ${size} bytes (budget ${TOOLS_LIST_BUDGET})`);
    const names = listed.tools.map((t) => t.name);
    assert.ok(names.includes('nds_discover_functions') && names.includes('nds_find_xrefs'));
    assert.ok(!names.some((n) => n.startsWith('desmume_') || n.startsWith('retroarch_')), names.join(','));
    const instructions = h.client.getInstructions() ?? '';
    assert.match(instructions, /Profile static, chosen by the default \(RE_MCP_PROFILE unset\)/);
    assert.match(instructions, /not listed: runtime \(\d+: /);
    assert.match(instructions, /or full\.$/m);
    const caps = await h.ok<{
      profile: string;
      profileSource: string;
      unlisted: Array<{ profile: string; tools: number }>;
      toolCount: number;
    }>('server_capabilities');
    assert.equal(caps.profile, 'static');
    assert.equal(caps.profileSource, 'default');
    assert.equal(caps.toolCount, names.length);
    const hidden = caps.unlisted.reduce((n, u) => n + u.tools, 0);
    assert.ok(hidden > 0 && caps.unlisted.some((u) => u.profile === 'runtime'));
  } finally {
    await h.close();
  }
  // A configuration that names an integration keeps its tools; RE_MCP_PROFILE=full lists every tool.
  const ra = await startServer({ env: { RE_MCP_PROFILE: '', RETROARCH_PORT: '55355' } });
  const full = await startServer({ env: { RE_MCP_PROFILE: 'full' } });
  try {
    const raNames = (await ra.client.listTools()).tools.map((t) => t.name);
    assert.ok(raNames.includes('retroarch_read_memory') && raNames.includes('nds_inspect_rom'));
    assert.ok(!raNames.some((n) => n.startsWith('desmume_')));
    assert.match(ra.client.getInstructions() ?? '', /added retroarch \(RETROARCH_PORT set\)/);
    const all = (await full.client.listTools()).tools;
    const caps = await full.ok<{ toolCount: number; unlisted: unknown[] }>('server_capabilities');
    assert.equal(caps.toolCount, all.length);
    assert.deepEqual(caps.unlisted, []);
    assert.ok(all.length > raNames.length);
  } finally {
    await ra.close();
    await full.close();
  }
});

async function assertDefaultResults(h: Harness, rom: string, busiest?: string): Promise<string[]> {
  const inspected = await h.ok<{ arm9: { entry: string } }>('nds_inspect_rom', { rom });
  const entry = inspected.arm9.entry;
  let target = busiest;
  if (target === undefined) {
    // The function with the most callers (from the map itself): the largest xref answer there is.
    const map = await h.ok<{ functions: Array<{ identity: { address: string }; callerCount: number }> }>(
      'nds_discover_functions',
      { rom, processor: 'arm9', scope: 'program', limit: 1024 },
    );
    target = [...map.functions].sort((a, b) => b.callerCount - a.callerCount)[0]!.identity.address;
  }
  // Every tool the default session lists is measured, with calls derived from its definition.
  const listed = (await h.client.listTools()).tools.map((t) => t.name);
  const tools = ALL_TOOLS.filter((t) => listed.includes(t.name));
  assert.equal(tools.length, listed.length, 'every listed tool has a definition');
  const figures: string[] = [];
  for (const { tool: name, args, derived } of defaultCalls(tools, rom, entry, target)) {
    const result = await h.call(name, args, { timeoutMs: 300_000 });
    assert.notEqual(
      result.isError,
      true,
      `${name} ${JSON.stringify(args)}: ${JSON.stringify(result.content)}${derived ? '; these arguments were derived from its definition: give it `needs` there, or a call of its own in chosenCalls of test/kit/context-calls.ts' : ''}`,
    );
    const size = bytes(result);
    figures.push(`${name} ${size}`);
    assert.ok(
      size <= RESULT_BUDGET,
      `${name} ${JSON.stringify(args)} returned ${size} bytes (budget ${RESULT_BUDGET})`,
    );
  }
  return figures;
}

test('every default-profile tool, with its default arguments, answers within the result budget (kit program)', async () => {
  const workspace = await makeWorkspace();
  await mkdir(join(workspace, 'roms'));
  await writeFile(join(workspace, 'roms', 'program.nds'), programRomBytes());
  const h = await defaultServer(workspace);
  try {
    // The kit program's most-called function, from its own symbol table's call sites.
    const truth = loadProgramTruth('arm9-program');
    const counts = new Map<number, number>();
    for (const c of truth.callSites) counts.set(c.target, (counts.get(c.target) ?? 0) + 1);
    const [busiest] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]!;
    await assertDefaultResults(h, 'roms/program.nds', `0x${busiest.toString(16).padStart(8, '0')}`);
  } finally {
    await h.close();
  }
});

test('every default-profile tool answers within the result budget on the largest corpus ROM', {
  skip: NO_ROMS,
}, async () => {
  const workspace = await makeWorkspace();
  await mkdir(join(workspace, 'roms'));
  const largest = sharedRomNames()
    .filter((n) => n !== INVALID_SHARED_ROM)
    .sort((a, b) => statSync(sharedRomPath(b)).size - statSync(sharedRomPath(a)).size)[0]!;
  await copyFile(sharedRomPath(largest), join(workspace, 'roms', largest));
  const h = await defaultServer(workspace);
  try {
    await assertDefaultResults(h, `roms/${largest}`);
  } finally {
    await h.close();
  }
});
