// Definitive means true: a map says its negatives are definitive only when nothing it could have
// missed is left. A tiny program whose every byte is proven code or a referenced pointer table is
// definitive (a complete negative exists), and each kind of gap planted into it on its own takes that
// away and is named: bytes the sweep alone judged not code, a register call whose target no evidence
// gives, an indirect branch nothing resolves. A function reached only through such a call is never
// "in no function, definitively", and xrefs to it never say a definitive zero.
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadConfig } from '../../../src/config/config.js';
import { formatAddress } from '../../../src/core/vocabulary.js';
import { invokeTool } from '../../../src/mcp/invoke.js';
import type { ToolDefinition } from '../../../src/mcp/tool.js';
import { Services } from '../../../src/services.js';
import { analysisTools } from '../../../src/tools/analysis/index.js';
import { Workspace } from '../../../src/workspace/workspace.js';
import { loadArmProgram } from '../../kit/arm/index.js';
import { makeWorkspace } from '../../kit/mcp-harness.js';
import { buildRom } from '../../kit/rom-builder.js';

const BASE = 0x02000000;
const words = (...w: number[]) =>
  new Uint8Array(w.flatMap((x) => [x & 0xff, (x >>> 8) & 0xff, (x >>> 16) & 0xff, x >>> 24]));

/**
 * 0x00 bl f; 0x04 b .; 0x08 .word f (a pointer table: referenced); 0x0c f: <body>; then `tail`.
 * `body` is f's instructions up to and including its return.
 */
function program(body: number[], tail: number[] = []): Uint8Array {
  return words(0xeb000001, 0xeafffffe, BASE + 0x0c, ...body, ...tail);
}
const BX_LR = 0xe12fff1e;
const variants = {
  clean: program([BX_LR]),
  // 16 bytes no instruction decodes (0xffffffff is no ARM instruction of these CPUs): the sweep's data.
  junk: program([BX_LR], [0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff]),
  // blx r0 with r0 unknown, then g (reached by nothing else) after f.
  registerCall: program([0xe92d4010, 0xe12fff30, 0xe8bd8010], [0xe3a00001, BX_LR]),
  // mov pc, r0: an indirect branch.
  indirectBranch: program([0xe1a0f000]),
};

const root = await makeWorkspace('re-mcp-definitive-');
after(() => rm(root, { recursive: true, force: true }));
await mkdir(join(root, 'roms'));
const a7 = loadArmProgram('arm7-idle');
for (const [name, code] of Object.entries(variants)) {
  await writeFile(
    join(root, `roms/${name}.nds`),
    buildRom({
      arm9: { code, ramAddress: BASE, entry: BASE },
      arm7: { code: a7.bytes, ramAddress: a7.loadAddress, entry: a7.entry },
    }).bytes,
  );
}
const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));

async function call(name: string, rom: string, args: Record<string, unknown>) {
  const tool = (analysisTools as unknown as ToolDefinition[]).find((t) => t.name === name)!;
  const r = (await invokeTool(
    tool,
    {
      rom: `roms/${rom}.nds`,
      processor: 'arm9',
      ...(name === 'nds_program_map' ? {} : { scope: 'program' }),
      ...args,
    },
    services,
    { signal: new AbortController().signal, log: () => {} },
  )) as { isError?: boolean; structuredContent: Record<string, any> };
  assert.ok(!r.isError, JSON.stringify(r.structuredContent));
  return r.structuredContent;
}

test('every byte proven code or a referenced table: definitive, and a complete negative exists', async () => {
  const m = await call('nds_program_map', 'clean', {});
  assert.equal(m.coverage.definitive, true, m.coverage.notDefinitive.join('; '));
  const table = await call('nds_function_at', 'clean', { address: formatAddress(BASE + 8) });
  assert.equal(table.reason, 'complete-negative');
  assert.equal(table.bytes[0].byteClass, 'pointer-table');
  // The table is referenced: a caller accepting only proven facts is not given a definitive answer.
  const proven = await call('nds_function_at', 'clean', {
    address: formatAddress(BASE + 8),
    lowestTier: 'proven',
  });
  assert.equal(proven.reason, 'coverage-gap');
  const none = await call('nds_find_xrefs', 'clean', { address: formatAddress(BASE + 4) });
  assert.equal(none.definitive, true);
});

for (const [name, reason] of [
  ['junk', /bytes judged not code by the sweep alone/],
  ['registerCall', /register calls whose target no evidence gives/],
  ['indirectBranch', /indirect branches not resolved/],
] as const) {
  test(`a planted ${name} takes definitive away and is named`, async () => {
    const m = await call('nds_program_map', name, {});
    assert.equal(m.coverage.definitive, false);
    assert.ok(
      m.coverage.notDefinitive.some((r: string) => reason.test(r)),
      m.coverage.notDefinitive.join('; '),
    );
    const x = await call('nds_find_xrefs', name, { address: formatAddress(BASE + 4) });
    assert.equal(x.definitive, false);
  });
}

test('a function reached only through an unresolved register call is never a definitive negative', async () => {
  const g = formatAddress(BASE + 0x18);
  const at = await call('nds_function_at', 'registerCall', { address: g });
  assert.notEqual(at.reason, 'complete-negative');
  assert.equal(at.coverage.definitive, false);
  const x = await call('nds_find_xrefs', 'registerCall', { address: g });
  assert.equal(x.xrefs.length, 0);
  assert.equal(x.definitive, false);
});
