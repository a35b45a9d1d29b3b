// No answer says definitive or complete-negative while executable bytes it could have missed remain.
// The idioms fixture plants a function nothing references (dead_function): the bounded tools never
// reach it and say their negatives are not definitive; the map at the referenced tier leaves it as a
// gap and says so; at the heuristic tier the sweep finds it, labelled heuristic. nds_program_map
// reports the same per component, with the gap listed.
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadConfig } from '../../src/config/config.js';
import { formatAddress } from '../../src/core/vocabulary.js';
import { invokeTool } from '../../src/mcp/invoke.js';
import type { ToolDefinition } from '../../src/mcp/tool.js';
import { Services } from '../../src/services.js';
import { analysisTools } from '../../src/tools/analysis/index.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { armSymbol, loadArmProgram } from '../kit/arm/index.js';
import { makeWorkspace } from '../kit/mcp-harness.js';
import { idiomsRomBytes } from '../kit/program-rom.js';

const p = loadArmProgram('arm9-idioms');
const root = await makeWorkspace('re-mcp-planted-');
after(() => rm(root, { recursive: true, force: true }));
await mkdir(join(root, 'roms'));
await writeFile(join(root, 'roms/idioms.nds'), idiomsRomBytes());
const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
const dead = formatAddress(armSymbol(p, 'dead_function').address);
const rom = 'roms/idioms.nds';

async function ok(name: string, args: Record<string, unknown>) {
  const tool = (analysisTools as unknown as ToolDefinition[]).find((t) => t.name === name)!;
  const r = (await invokeTool(tool, { rom, processor: 'arm9', ...args }, services, {
    signal: new AbortController().signal,
    log: () => {},
  })) as { isError?: boolean; structuredContent: Record<string, any> };
  assert.ok(!r.isError, JSON.stringify(r.structuredContent));
  return r.structuredContent;
}

test('bounded: the planted function is a coverage gap, never a definitive negative', async () => {
  const at = await ok('nds_function_at', { address: dead });
  assert.equal(at.reason, 'coverage-gap');
  assert.equal(at.coverage.definitive, false);
  assert.ok(at.coverage.unclassifiedBytes > 0);
  const d = await ok('nds_discover_functions', {});
  assert.ok(!d.functions.some((f: any) => f.identity.address === dead));
  assert.equal(d.coverage.definitive, false);
  const x = await ok('nds_find_xrefs', { address: dead });
  assert.equal(x.xrefs.length, 0);
  assert.equal(x.definitive, false);
});

test('program scope at the referenced tier: still a gap, and the gap names its bytes', async () => {
  const at = await ok('nds_function_at', { address: dead, scope: 'program', lowestTier: 'referenced' });
  assert.equal(at.reason, 'coverage-gap');
  assert.equal(at.coverage.definitive, false);
  const d = await ok('nds_discover_functions', { scope: 'program', lowestTier: 'referenced', limit: 1024 });
  assert.ok(!d.functions.some((f: any) => f.identity.address === dead));
  assert.equal(d.coverage.definitive, false);
  assert.ok(d.coverage.belowTierBytes > 0);
  const m = await ok('nds_program_map', { lowestTier: 'referenced', limit: 1024 });
  assert.equal(m.coverage.definitive, false);
  const a = armSymbol(p, 'dead_function').address;
  assert.ok(
    m.gaps.items.some((g: any) => Number(g.start) <= a && Number(g.end) > a),
    JSON.stringify(m.gaps.items),
  );
});

test('program scope at the heuristic tier: the sweep finds it, and says how it knows', async () => {
  const at = await ok('nds_function_at', { address: dead, scope: 'program', lowestTier: 'heuristic' });
  assert.equal(at.reason, 'found');
  assert.equal(at.matches[0].identity.address, dead);
  assert.equal(at.matches[0].tier, 'heuristic');
  const d = await ok('nds_discover_functions', { scope: 'program', limit: 1024 });
  const f = d.functions.find((x: any) => x.identity.address === dead);
  assert.ok(f);
  assert.deepEqual(f.evidence, ['sweep']);
  const m = await ok('nds_program_map', {});
  assert.equal(m.status, 'complete');
  // Every byte classified; what the sweep alone judged and the unresolved register calls keep the
  // map from being definitive, and nothing else does.
  assert.equal(m.coverage.definitive, false);
  assert.ok(
    m.coverage.notDefinitive.every((r: string) =>
      /judged not code by the sweep alone|register calls whose target|indirect branches not resolved/.test(r),
    ),
    m.coverage.notDefinitive.join('; '),
  );
  assert.equal(m.coverage.unclassifiedBytes, 0);
  assert.equal(m.gaps.total, 0);
  assert.ok(m.functions.byTier.heuristic >= 1);
  assert.ok(m.functions.byEvidence.some((e: any) => e.evidence === 'sweep'));
  // A second call is a lookup of the kept map.
  const again = await ok('nds_program_map', {});
  assert.equal(again.reused, true);
  assert.equal(again.millis, 0);
});
