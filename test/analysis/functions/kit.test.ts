// Function discovery, proof, function_at and xrefs on ROMs built from the kit's compiled code. Ground
// truth comes from the ELF symbols (manifest): which functions a direct or constant-register call
// reaches, which are only reachable through data, and every call site.
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
import { armTools } from '../../../src/tools/arm/index.js';
import { Workspace } from '../../../src/workspace/workspace.js';
import { armSymbol, loadArmProgram } from '../../kit/arm/index.js';
import { makeWorkspace } from '../../kit/mcp-harness.js';
import { buildRom } from '../../kit/rom-builder.js';

const calls = loadArmProgram('arm9-calls');
const a9 = loadArmProgram('arm9-analysis');
const a7 = loadArmProgram('arm7-analysis');
const c = (s: string) => formatAddress(armSymbol(calls, s).address);
const k = (s: string) => formatAddress(armSymbol(a9, s).address);

const root = await makeWorkspace('re-mcp-functions-');
after(() => rm(root, { recursive: true, force: true }));
const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
await mkdir(join(root, 'roms'));
const arm7 = { code: a7.bytes, ramAddress: a7.loadAddress, entry: a7.entry };
await writeFile(
  join(root, 'roms/calls.nds'),
  buildRom({ arm9: { code: calls.bytes, ramAddress: calls.loadAddress, entry: calls.entry }, arm7 }).bytes,
);
await writeFile(
  join(root, 'roms/analysis.nds'),
  buildRom({ arm9: { code: a9.bytes, ramAddress: a9.loadAddress, entry: a9.entry }, arm7 }).bytes,
);
// The calls program again, plus one overlay holding the analysis program (never called from main).
await writeFile(
  join(root, 'roms/overlay.nds'),
  buildRom({
    arm9: { code: calls.bytes, ramAddress: calls.loadAddress, entry: calls.entry },
    arm7,
    arm9Overlays: [{ id: 0, ramAddress: 0x02200000, data: a9.bytes }],
  }).bytes,
);

// main = BL 0x02300000; B . ; overlay 0 at 0x02300000 is BLZ-compressed with a corrupted footer.
const le = (...words: number[]) =>
  new Uint8Array(words.flatMap((w) => [w & 0xff, (w >>> 8) & 0xff, (w >>> 16) & 0xff, w >>> 24]));
{
  const built = buildRom({
    arm9: { code: le(0xeb0bfffe, 0xeafffffe), ramAddress: 0x02000000, entry: 0x02000000 },
    arm7,
    arm9Overlays: [
      {
        id: 0,
        ramAddress: 0x02300000,
        data: new Uint8Array(8 * a9.size).map((_, i) => a9.bytes[i % a9.size]!),
        compress: true,
      },
    ],
  });
  const end = built.layout.overlays.find((o) => o.id === 0)!.file.end;
  // Compressed-region length beyond the file: the BLZ image cannot be decoded.
  built.bytes.set([0xff, 0xff, 0xff], end - 8);
  await writeFile(join(root, 'roms/bad-blz.nds'), built.bytes);
}

const all = [...analysisTools, ...armTools] as unknown as ToolDefinition[];
async function call(name: string, args: Record<string, unknown>, signal = new AbortController().signal) {
  const tool = all.find((t) => t.name === name)!;
  // Discovery is read whole: every function (one page) with its callers, callees and call sites.
  const whole = name === 'nds_discover_functions' ? { detail: 'full', limit: 1024 } : {};
  const r = (await invokeTool(tool, { processor: 'arm9', ...whole, ...args }, services, {
    signal,
    log: () => {},
  })) as {
    isError?: boolean;
    structuredContent: Record<string, any>;
    content: Array<{ text: string }>;
  };
  return r;
}
async function ok(name: string, args: Record<string, unknown>) {
  const r = await call(name, args);
  assert.ok(!r.isError, r.content[0]?.text);
  return r.structuredContent;
}
const byAddress = (r: any) => new Map<string, any>(r.functions.map((f: any) => [f.identity.address, f]));

test('discovery proves direct and constant-register callees with the right mode, and nothing reached only through data', async () => {
  const r = await ok('nds_discover_functions', { rom: 'roms/calls.nds' });
  assert.equal(r.status, 'complete');
  const fns = byAddress(r);
  const expect: [string, 'arm' | 'thumb', string][] = [
    ['_start', 'arm', 'program-entry'],
    ['direct_arm', 'arm', 'direct-call'],
    ['direct_thumb', 'thumb', 'direct-call'],
    ['creg_blx_thumb', 'thumb', 'constant-register-call'],
    ['creg_adr_arm', 'arm', 'constant-register-call'],
    ['main_tail', 'arm', 'constant-register-call'],
    ['creg_mov_lr_bx', 'arm', 'constant-register-call'],
    ['creg_thumb_to_arm', 'arm', 'constant-register-call'],
    ['creg_thumb_bx', 'thumb', 'constant-register-call'],
  ];
  for (const [name, mode, evidence] of expect) {
    const f = fns.get(c(name));
    assert.ok(f, `${name} discovered`);
    assert.equal(f.identity.mode, mode, name);
    assert.deepEqual(f.evidence, [evidence], name);
  }
  for (const name of ['ptr_only', 'clobbered_only', 'cond_def_only', 'exit_fn']) {
    assert.equal(fns.has(c(name)), false, `${name} must not be proven`);
  }
  assert.equal(r.functions.length, expect.length);
  // Call graph: callers of direct_arm are its two call sites; what main_tail calls.
  assert.deepEqual(fns.get(c('direct_arm')).callers.sort(), [c('site_direct_arm'), c('site_direct_arm_2')]);
  const tail = fns.get(c('main_tail'));
  assert.deepEqual(
    tail.callees.map((x: any) => [x.at, x.kind, x.target]),
    [
      [c('site_direct_arm_2'), 'direct-call', c('direct_arm')],
      [c('site_creg_mov_lr_bx'), 'constant-register-call', c('creg_mov_lr_bx')],
    ],
  );
  const via = new Map(r.callSites.map((s: any) => [s.at, s.via]));
  assert.equal(via.get(c('site_creg_blx')), 'blx');
  assert.equal(via.get(c('site_creg_mov_lr_bx')), 'mov-lr-pc-bx');
  assert.equal(via.get(c('site_main_tail')), 'bx');
  assert.equal(via.get(c('site_thumb_bx')), 'bx');
});

test('strict evidence is the specification model: entry plus direct calls only', async () => {
  const r = await ok('nds_discover_functions', {
    rom: 'roms/calls.nds',
    evidence: ['program-entry', 'direct-call'],
  });
  assert.deepEqual(
    r.functions.map((f: any) => f.identity.address).sort(),
    [c('_start'), c('direct_arm'), c('direct_thumb')].sort(),
  );
  assert.ok(r.callSites.every((s: any) => s.kind === 'direct-call'));
  assert.equal(r.status, 'complete');
});

test('the analysis kit: direct callees proven with modes; pointer-only functions are not', async () => {
  const r = await ok('nds_discover_functions', { rom: 'roms/analysis.nds' });
  const fns = byAddress(r);
  for (const [name, mode] of [
    ['arm_sum', 'arm'],
    ['thumb_worker', 'thumb'],
    ['c_checksum', 'thumb'],
    ['c_apply', 'thumb'],
    ['thumb_leaf', 'thumb'],
    ['arm_old_return', 'arm'],
  ] as const) {
    assert.equal(fns.get(k(name))?.identity.mode, mode, name);
  }
  for (const name of ['arm_ptr_only', 'thumb_ptr_only', 'arm_leaf', 'c_apply_target']) {
    assert.equal(fns.has(k(name)), false, name);
  }
});

test('nds_analyze_function: proven with its sites and CFG; pointer-only not proven when complete, inconclusive when truncated', async () => {
  const p = await ok('nds_analyze_function', {
    rom: 'roms/calls.nds',
    address: c('direct_arm'),
    mode: 'arm',
  });
  assert.equal(p.proof.status, 'proven');
  assert.ok(p.proof.sites.some((s: any) => s.at === c('site_direct_arm')));
  assert.ok(p.cfg.blocks.length >= 1);
  assert.equal(p.cfg.blocks[0].address, c('direct_arm'));
  // The search completed, but bytes it never analysed remain (ptr_only itself, reached only through
  // data): no negative is definitive then.
  const neg = await ok('nds_analyze_function', {
    rom: 'roms/calls.nds',
    address: c('ptr_only'),
    mode: 'arm',
  });
  assert.equal(neg.proof.status, 'proof-inconclusive');
  assert.equal(neg.search.status, 'complete');
  assert.equal(neg.coverage.definitive, false);
  assert.ok(neg.coverage.unclassifiedBytes > 0);
  assert.equal(neg.cfg, null);
  // The whole-program map finds it through the table that holds its address.
  const mapped = await ok('nds_analyze_function', {
    rom: 'roms/calls.nds',
    address: c('ptr_only'),
    mode: 'arm',
    scope: 'program',
  });
  assert.equal(mapped.proof.status, 'proof-inconclusive');
  assert.equal(mapped.proof.tier, 'referenced');
  assert.ok(mapped.proof.evidence.includes('pointer-table'));
  assert.ok(mapped.cfg.blocks.length >= 1);
  const cut = await ok('nds_analyze_function', {
    rom: 'roms/calls.nds',
    address: c('ptr_only'),
    mode: 'arm',
    maxBlocks: 1,
  });
  assert.equal(cut.proof.status, 'proof-inconclusive');
  assert.equal(cut.search.status, 'truncated');
  // The identity goes verbatim into the ARM tools.
  const d = await ok('nds_disassemble_range', { rom: 'roms/calls.nds', ...p.identity, maxInstructions: 1 });
  assert.equal(d.instructions[0].mnemonic, 'bx');
  const strict = await ok('nds_analyze_function', {
    rom: 'roms/calls.nds',
    address: c('main_tail'),
    mode: 'arm',
    evidence: ['program-entry', 'direct-call'],
  });
  assert.equal(strict.proof.status, 'proof-inconclusive');
});

test('nds_analyze_function refuses an unaligned or non-code identity', async () => {
  const r = await call('nds_analyze_function', { rom: 'roms/calls.nds', address: '0x02000002', mode: 'arm' });
  assert.equal(r.isError, true);
  const bss = await call('nds_analyze_function', {
    rom: 'roms/calls.nds',
    address: '0x02100000',
    mode: 'arm',
  });
  assert.equal(bss.isError, true);
});

test('nds_find_xrefs lists exactly the call sites of a callee, and data by value', async () => {
  const r = await ok('nds_find_xrefs', { rom: 'roms/calls.nds', address: c('direct_arm') });
  assert.equal(r.status, 'complete');
  // Complete within its limits, but the code reached only through data was never searched.
  assert.equal(r.definitive, false);
  assert.ok(r.coverage.unclassifiedBytes > 0);
  assert.ok(r.coverage.notDefinitive.some((n: string) => /not analysed/.test(n)));
  assert.deepEqual(
    r.xrefs.map((x: any) => [x.from, x.kind]),
    [
      [c('site_direct_arm'), 'direct-call'],
      [c('site_direct_arm_2'), 'direct-call'],
    ],
  );
  const m = await ok('nds_find_xrefs', { rom: 'roms/calls.nds', address: c('message') });
  assert.deepEqual(
    m.xrefs.map((x: any) => [x.from, x.kind, x.value]),
    [[c('site_message'), 'literal-value', c('message')]],
  );
  const t = await ok('nds_find_xrefs', { rom: 'roms/calls.nds', address: c('creg_blx_thumb') });
  const kinds = t.xrefs.map((x: any) => [x.from, x.kind]);
  assert.ok(kinds.some(([f, kind]: any) => f === c('site_creg_blx') && kind === 'constant-register-call'));
  assert.ok(
    t.xrefs.some(
      (x: any) =>
        x.kind === 'literal-value' &&
        x.value === formatAddress(armSymbol(calls, 'creg_blx_thumb').address + 1),
    ),
  );
  // Zero xrefs from a complete bounded search: still no definitive negative (unanalysed bytes remain).
  const none = await ok('nds_find_xrefs', { rom: 'roms/calls.nds', address: '0x02000ffc' });
  assert.equal(none.xrefs.length, 0);
  assert.equal(none.definitive, false);
  // The whole-program map classifies every byte (the sweep labels the rest), but what the sweep
  // alone judged, and calls through registers no evidence resolves, keep it from being definitive.
  const all = await ok('nds_find_xrefs', { rom: 'roms/calls.nds', address: '0x02000ffc', scope: 'program' });
  assert.equal(all.xrefs.length, 0);
  assert.equal(all.coverage.unclassifiedBytes, 0);
  assert.equal(all.definitive, false);
  assert.ok(
    all.coverage.notDefinitive.some((r: string) =>
      /judged not code by the sweep alone|register calls/.test(r),
    ),
    all.coverage.notDefinitive.join('; '),
  );
  const proven = await ok('nds_find_xrefs', {
    rom: 'roms/calls.nds',
    address: '0x02000ffc',
    scope: 'program',
    lowestTier: 'proven',
  });
  assert.equal(proven.definitive, false);
  assert.ok(proven.coverage.belowTierBytes > 0);
  // The map's xrefs to direct_arm are the same two call sites, each proven.
  const m2 = await ok('nds_find_xrefs', {
    rom: 'roms/calls.nds',
    address: c('direct_arm'),
    scope: 'program',
  });
  assert.deepEqual(
    m2.xrefs.filter((x: any) => x.kind === 'direct-call').map((x: any) => [x.from, x.tier]),
    [
      [c('site_direct_arm'), 'proven'],
      [c('site_direct_arm_2'), 'proven'],
    ],
  );
});

test('nds_find_xrefs limits: each one truncates, never complete; the result cap reports xref-limit', async () => {
  for (const [limit, reason] of [
    ['maxBlocks', 'block-limit'],
    ['maxInstructions', 'instruction-limit'],
    ['maxBytes', 'byte-limit'],
    ['maxEdges', 'edge-limit'],
  ] as const) {
    const r = await ok('nds_find_xrefs', {
      rom: 'roms/analysis.nds',
      address: k('arm_sum'),
      [limit]: limit === 'maxBytes' ? 8 : 1,
    });
    assert.equal(r.status, 'truncated', limit);
    assert.equal(r.definitive, false);
    assert.ok(r.truncation.includes(reason), `${limit}: ${r.truncation}`);
  }
  const x = await ok('nds_find_xrefs', { rom: 'roms/calls.nds', address: c('direct_arm'), maxXrefs: 1 });
  assert.equal(x.xrefs.length, 1);
  assert.ok(x.truncation.includes('xref-limit'));
  assert.equal(x.status, 'truncated');
});

test('overlays: unseeded is no-proven-seed (partial-coverage, not definitive); a seed scans it; the component limit says out-of-limit', async () => {
  const r = await ok('nds_find_xrefs', { rom: 'roms/overlay.nds', address: '0x02200000' });
  assert.equal(r.status, 'partial-coverage');
  assert.equal(r.definitive, false);
  assert.deepEqual(
    r.components.map((x: any) => [x.component, x.overlayId, x.coverage]),
    [
      ['main', null, 'scanned'],
      ['overlay', 0, 'no-proven-seed'],
    ],
  );
  const seeded = await ok('nds_find_xrefs', {
    rom: 'roms/overlay.nds',
    address: formatAddress(0x02200000 + armSymbol(a9, 'arm_sum').address - a9.loadAddress),
    seeds: [{ address: '0x02200000', mode: 'arm', overlayId: 0 }],
  });
  assert.equal(seeded.status, 'complete');
  assert.equal(seeded.xrefs.filter((x: any) => x.kind === 'direct-call').length, 1);
  const limited = await ok('nds_discover_functions', {
    rom: 'roms/overlay.nds',
    seeds: [{ address: '0x02200000', mode: 'arm', overlayId: 0 }],
    maxComponents: 1,
  });
  assert.equal(limited.status, 'truncated');
  assert.ok(limited.truncation.includes('component-limit'));
  assert.equal(limited.components.find((x: any) => x.overlayId === 0).coverage, 'out-of-limit');
  // Discovery from a seed: the seed is coverage only, its callees are proven by their calls.
  const fromSeed = await ok('nds_discover_functions', {
    rom: 'roms/overlay.nds',
    seeds: [{ address: '0x02200000', mode: 'arm', overlayId: 0 }],
  });
  const ovFns = fromSeed.functions
    .filter((f: any) => f.identity.overlayId === 0)
    .map((f: any) => f.identity.address);
  assert.equal(ovFns.includes('0x02200000'), false, 'a seed is not a proof');
  assert.ok(ovFns.includes(formatAddress(0x02200000 + armSymbol(a9, 'arm_sum').address - a9.loadAddress)));
});

test('a call into a compressed overlay that does not decode: compressed-overlay-not-decodable, partial coverage', async () => {
  const r = await ok('nds_discover_functions', { rom: 'roms/bad-blz.nds' });
  assert.equal(r.components.find((x: any) => x.overlayId === 0).coverage, 'compressed-overlay-not-decodable');
  assert.equal(r.status, 'partial-coverage');
  assert.equal(r.callSites[0].unresolved, 'blz-malformed');
  const x = await ok('nds_find_xrefs', { rom: 'roms/bad-blz.nds', address: '0x02300000' });
  assert.equal(x.status, 'partial-coverage');
  assert.equal(x.definitive, false);
  assert.deepEqual(
    x.xrefs.map((y: any) => y.kind),
    ['direct-call'],
  );
});

test('discovery limits: functions, call sites, aggregate budgets and per-function CFGs each truncate', async () => {
  const cases: [Record<string, number>, string][] = [
    [{ maxFunctions: 2 }, 'function-limit'],
    [{ maxCallSites: 1 }, 'call-site-limit'],
    [{ maxBlocks: 2 }, 'block-limit'],
    [{ maxInstructions: 5 }, 'instruction-limit'],
    [{ maxBytes: 20 }, 'byte-limit'],
    [{ maxEdges: 1 }, 'edge-limit'],
    [{ maxFunctionBlocks: 1 }, 'function-cfg-truncated'],
  ];
  for (const [limits, reason] of cases) {
    const r = await ok('nds_discover_functions', { rom: 'roms/analysis.nds', ...limits });
    assert.equal(r.status, 'truncated', JSON.stringify(limits));
    assert.ok(r.truncation.includes(reason), `${JSON.stringify(limits)}: ${r.truncation}`);
    assert.ok(r.totals.blocks <= (limits.maxBlocks ?? 512));
    assert.ok(r.totals.instructions <= (limits.maxInstructions ?? 4096));
    assert.ok(r.totals.bytes <= (limits.maxBytes ?? 32768));
    assert.ok(r.functions.length <= (limits.maxFunctions ?? 128));
    assert.ok(r.callSites.length <= (limits.maxCallSites ?? 512));
  }
});

test('xref component limit, proof-site limit and every target-CFG limit are enforced', async () => {
  const seed = { seeds: [{ address: '0x02200000', mode: 'arm', overlayId: 0 }] };
  const x = await ok('nds_find_xrefs', {
    rom: 'roms/overlay.nds',
    address: '0x02200000',
    ...seed,
    maxComponents: 1,
  });
  assert.equal(x.status, 'truncated');
  assert.ok(x.truncation.includes('component-limit'));
  assert.equal(x.components.find((y: any) => y.overlayId === 0).coverage, 'out-of-limit');
  const sites = await ok('nds_analyze_function', {
    rom: 'roms/calls.nds',
    address: c('ptr_only'),
    mode: 'arm',
    maxProofSites: 1,
  });
  assert.equal(sites.proof.status, 'proof-inconclusive');
  assert.ok(sites.search.truncation.includes('call-site-limit'));
  for (const [limit, reason] of [
    ['maxCfgBlocks', 'block-limit'],
    ['maxCfgInstructions', 'instruction-limit'],
    ['maxCfgBytes', 'byte-limit'],
    ['maxCfgEdges', 'edge-limit'],
  ] as const) {
    const r = await ok('nds_analyze_function', {
      rom: 'roms/analysis.nds',
      address: k('arm_sum'),
      mode: 'arm',
      [limit]: limit === 'maxCfgBytes' ? 8 : limit === 'maxCfgInstructions' ? 2 : 1,
    });
    assert.equal(r.proof.status, 'proven');
    assert.equal(r.cfg.status, 'truncated', limit);
    assert.ok(r.cfg.truncation.includes(reason), `${limit}: ${r.cfg.truncation}`);
  }
});

test('nds_function_at: the function holding an address, a complete negative, and a coverage gap', async () => {
  const inside = await ok('nds_function_at', { rom: 'roms/analysis.nds', address: k('arm_sum_loop') });
  assert.equal(inside.reason, 'found');
  assert.deepEqual(
    inside.matches.map((m: any) => m.identity.address),
    [k('arm_sum')],
  );
  // ptr_only is reached only through data: the bounded search never saw it, so no negative is claimed.
  const none = await ok('nds_function_at', { rom: 'roms/calls.nds', address: c('ptr_only') });
  assert.equal(none.reason, 'coverage-gap');
  assert.equal(none.coverage.definitive, false);
  const gap = await ok('nds_function_at', { rom: 'roms/calls.nds', address: c('ptr_only'), maxBlocks: 1 });
  assert.equal(gap.reason, 'coverage-gap');
  // The map finds it (referenced tier), and says what the byte is.
  const mapped = await ok('nds_function_at', {
    rom: 'roms/calls.nds',
    address: c('ptr_only'),
    scope: 'program',
  });
  assert.equal(mapped.reason, 'found');
  assert.equal(mapped.matches[0].identity.address, c('ptr_only'));
  assert.equal(mapped.matches[0].tier, 'referenced');
  assert.deepEqual(mapped.bytes, [
    { component: 'main', overlayId: null, byteClass: 'arm-code', tier: 'referenced' },
  ]);
  // A string the sweep found: every byte of the program classified, but what the sweep alone judged
  // not code is no definitive negative (test/analysis/program-map/definitive.test.ts has one).
  const text = await ok('nds_function_at', {
    rom: 'roms/calls.nds',
    address: c('message'),
    scope: 'program',
  });
  assert.equal(text.reason, 'coverage-gap');
  assert.equal(text.coverage.definitive, false);
  assert.equal(text.bytes[0].byteClass, 'string');
  // ...but not for a caller accepting only proven facts.
  const strictText = await ok('nds_function_at', {
    rom: 'roms/calls.nds',
    address: c('message'),
    scope: 'program',
    lowestTier: 'proven',
  });
  assert.equal(strictText.reason, 'coverage-gap');
});

test('cancellation stops discovery with the cancelled code', async () => {
  const ac = new AbortController();
  ac.abort();
  const r = await call('nds_discover_functions', { rom: 'roms/analysis.nds' }, ac.signal);
  assert.equal(r.isError, true);
  assert.match(r.content[0]!.text, /cancel/i);
});
