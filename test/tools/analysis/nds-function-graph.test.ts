// nds_function_graph: pictures from the whole-program map, laid out by the real Graphviz (WebAssembly,
// in a worker) and drawn to a PNG that is decoded here. Synthetic ARM code of exactly known shape
// gives the bounds: a 200-block function and a 100-function call graph are drawn; one node more than
// maxNodes (or than its maximum) is refused with limit-exceeded, never cut. The kit's compiled program
// gives a real one: every block of a function's body is in the DOT, with the symbol store's name.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadConfig } from '../../../src/config/config.js';
import { formatAddress } from '../../../src/core/vocabulary.js';
import { invokeTool } from '../../../src/mcp/invoke.js';
import type { ToolDefinition } from '../../../src/mcp/tool.js';
import { Services } from '../../../src/services.js';
import { analysisTools } from '../../../src/tools/analysis/index.js';
import { extractTools } from '../../../src/tools/extract/index.js';
import { Workspace } from '../../../src/workspace/workspace.js';
import { loadProgramTruth } from '../../kit/arm/index.js';
import { makeWorkspace, startServer } from '../../kit/mcp-harness.js';
import { readPng } from '../../kit/png.js';
import { programRomBytes } from '../../kit/program-rom.js';
import { buildRom } from '../../kit/rom-builder.js';

const BASE = 0x02000000;
const ARM7 = { code: new Uint8Array([0x1e, 0xff, 0x2f, 0xe1]), ramAddress: 0x037f8000, entry: 0x037f8000 };

/** ARM words as little-endian bytes. */
function armCode(words: number[]): Uint8Array {
  const out = new Uint8Array(words.length * 4);
  const dv = new DataView(out.buffer);
  for (const [i, w] of words.entries()) dv.setUint32(i * 4, w >>> 0, true);
  return out;
}
const branch = (cond: number, link: boolean, at: number, to: number) =>
  ((cond << 28) | ((link ? 0xb : 0xa) << 24) | (((to - (at + 8)) >> 2) & 0xffffff)) >>> 0;
const BX_LR = 0xe12fff1e;

/**
 * One function of exactly 2k + 2 blocks: k compare-and-branch blocks, k landing blocks that return,
 * and a tail of two blocks (a branch to the next instruction, then a return).
 */
function switchyFunction(k: number): Uint8Array {
  const words: number[] = [];
  const landing = BASE + (2 * k + 3) * 4;
  for (let i = 0; i < k; i++) {
    words.push(0xe3500000 | i); // cmp r0, #i
    words.push(branch(0x0, false, BASE + words.length * 4, landing + i * 8)); // beq land_i
  }
  words.push(0xe3a00000); // mov r0, #0
  words.push(branch(0xe, false, BASE + words.length * 4, BASE + (words.length + 1) * 4)); // b next
  words.push(BX_LR);
  for (let i = 0; i < k; i++) words.push(0xe2811000 | i, BX_LR); // add r1, r1, #i; bx lr
  return armCode(words);
}

/** A function calling n distinct functions (each `mov r0, #i; bx lr`), then returning. */
function fanOut(n: number): Uint8Array {
  const words: number[] = [];
  const first = BASE + (n + 1) * 4;
  for (let i = 0; i < n; i++) words.push(branch(0xe, true, BASE + i * 4, first + i * 8));
  words.push(BX_LR);
  for (let i = 0; i < n; i++) words.push(0xe3a00000 | (i & 0xff), BX_LR);
  return armCode(words);
}

const root = await makeWorkspace('re-mcp-graph-');
after(() => rm(root, { recursive: true, force: true }));
await mkdir(join(root, 'roms'));
const roms: Record<string, Uint8Array> = {
  'switch200.nds': switchyFunction(99),
  'switch302.nds': switchyFunction(150),
  'switch502.nds': switchyFunction(250),
  'fan100.nds': fanOut(99),
  'fan102.nds': fanOut(101),
};
for (const [name, code] of Object.entries(roms))
  await writeFile(
    join(root, 'roms', name),
    buildRom({ arm9: { code, ramAddress: BASE, entry: BASE }, arm7: ARM7 }).bytes,
  );
await writeFile(join(root, 'roms/program.nds'), programRomBytes());
const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));

type Result = { isError?: boolean; structuredContent: Record<string, any>; content: any[] };
async function call(name: string, args: Record<string, unknown>): Promise<Result> {
  const tool = ([...analysisTools, ...extractTools] as unknown as ToolDefinition[]).find(
    (t) => t.name === name,
  )!;
  return (await invokeTool(tool, { processor: 'arm9', ...args }, services, {
    signal: new AbortController().signal,
    log: () => {},
  })) as Result;
}

/** The PNG of a result, decoded, checked against the structured figures. */
function picture(r: Result) {
  assert.ok(!r.isError, JSON.stringify(r.structuredContent ?? r.content));
  const image = r.content.find((c) => c.type === 'image');
  assert.equal(image?.mimeType, 'image/png');
  const png = Buffer.from(image.data, 'base64');
  const s = r.structuredContent;
  assert.equal(s.image.pngBytes, png.length);
  assert.equal(s.image.sha256, createHash('sha256').update(png).digest('hex'));
  const decoded = readPng(png);
  assert.equal(decoded.width, s.image.width);
  assert.equal(decoded.height, s.image.height);
  assert.ok(decoded.width * decoded.height <= 2_500_000 && Math.max(decoded.width, decoded.height) <= 4096);
  // A drawing, not a blank page: dark pixels (lines, text) and tier-coloured fills.
  let dark = 0;
  let coloured = 0;
  for (let i = 0; i < decoded.pixels.length; i += 4) {
    const [r0, g0, b0] = [decoded.pixels[i]!, decoded.pixels[i + 1]!, decoded.pixels[i + 2]!];
    if (r0 + g0 + b0 < 200) dark++;
    else if (Math.max(r0, g0, b0) - Math.min(r0, g0, b0) > 12 && r0 + g0 + b0 < 740) coloured++;
  }
  assert.ok(dark > 500, `only ${dark} dark pixels`);
  assert.ok(coloured > 500, `only ${coloured} coloured pixels`);
  return { s, decoded };
}

test('a 200-block function is drawn: every block a node, the DOT names each block', async () => {
  const r = await call('nds_function_graph', { rom: 'roms/switch200.nds', address: formatAddress(BASE) });
  const { s } = picture(r);
  assert.equal(s.view, 'cfg');
  assert.equal(s.graph.nodes, 200);
  assert.equal(s.function.address, formatAddress(BASE));
  assert.equal(s.function.tier, 'proven');
  // k conditional blocks: a taken and a not-taken edge each; the branch to the next instruction; none else.
  assert.equal(s.graph.edges, 99 * 2 + 1);
  for (let i = 0; i < 99; i++) assert.ok(s.dot.includes(formatAddress(BASE + (2 * 99 + 3) * 4 + i * 8)));
  assert.match(s.dot, /^digraph /);
  assert.equal(s.svg, null);
});

test('one node over maxNodes, or over its maximum, is refused with limit-exceeded', async () => {
  const over = await call('nds_function_graph', { rom: 'roms/switch302.nds', address: formatAddress(BASE) });
  assert.equal(over.isError, true);
  assert.equal(over.structuredContent.error.code, 'limit-exceeded');
  assert.equal(over.structuredContent.error.details.nodes, 302);
  const wider = await call('nds_function_graph', {
    rom: 'roms/switch302.nds',
    address: formatAddress(BASE),
    maxNodes: 400,
  });
  assert.equal(picture(wider).s.graph.nodes, 302);
  const beyond = await call('nds_function_graph', {
    rom: 'roms/switch502.nds',
    address: formatAddress(BASE),
    maxNodes: 400,
  });
  assert.equal(beyond.structuredContent.error.code, 'limit-exceeded');
  const refused = await call('nds_function_graph', {
    rom: 'roms/switch502.nds',
    address: formatAddress(BASE),
    maxNodes: 401,
  });
  assert.equal(refused.structuredContent.error.code, 'invalid-argument');
});

test('a 100-function call graph is drawn; 102 functions at maxNodes 100 are refused', async () => {
  const r = await call('nds_function_graph', {
    rom: 'roms/fan100.nds',
    address: formatAddress(BASE),
    view: 'calls',
    maxNodes: 100,
  });
  const { s } = picture(r);
  assert.equal(s.view, 'calls');
  assert.equal(s.graph.nodes, 100);
  assert.equal(s.graph.edges, 99);
  assert.equal(s.graph.beyondDepth, 0);
  // Asked from inside a callee: the same function's picture is found through its body.
  const callee = await call('nds_function_graph', {
    rom: 'roms/fan100.nds',
    address: formatAddress(BASE + 100 * 4 + 4),
    view: 'calls',
  });
  const c = picture(callee).s;
  assert.equal(c.function.address, formatAddress(BASE + 100 * 4));
  assert.equal(c.graph.nodes, 2);
  const over = await call('nds_function_graph', {
    rom: 'roms/fan102.nds',
    address: formatAddress(BASE),
    view: 'calls',
    maxNodes: 100,
  });
  assert.equal(over.structuredContent.error.code, 'limit-exceeded');
});

test('a real compiled function: every body block in the DOT, the stored name shown, SVG on request', async () => {
  const main = loadProgramTruth('arm9-program').functions.find((f) => f.name === 'main')!;
  const set = await call('nds_symbols', {
    rom: 'roms/program.nds',
    action: 'set',
    address: formatAddress(main.address),
    name: 'main"q\\\u00e9',
  });
  assert.ok(!set.isError, JSON.stringify(set.structuredContent));
  const r = await call('nds_function_graph', {
    rom: 'roms/program.nds',
    address: formatAddress(main.address),
    svg: true,
  });
  const { s } = picture(r);
  assert.equal(s.function.name, 'main"q\\\u00e9');
  // The name is in the DOT escaped: the quote as \" and the backslash doubled.
  assert.ok(s.dot.includes('main\\"q\\\\\u00e9'), s.dot.slice(0, 400));
  assert.match(s.svg, /^<\?xml|<svg/);
  assert.ok(s.graph.nodes >= 2);
  const calls = await call('nds_function_graph', {
    rom: 'roms/program.nds',
    address: formatAddress(main.address),
    view: 'calls',
    depth: 2,
  });
  const cg = picture(calls).s;
  assert.ok(cg.graph.nodes > 3, `${cg.graph.nodes} functions around main`);
});

test('an address no function holds is not-found, an unknown ROM too', async () => {
  const r = await call('nds_function_graph', { rom: 'roms/fan100.nds', address: '0x02100000' });
  assert.equal(r.isError, true);
  assert.equal(r.structuredContent.error.code, 'not-found');
});

test('through the built server and a real MCP client: Graphviz is found beside the bundle, the image arrives', async () => {
  const h = await startServer({ workspace: root });
  try {
    const r = (await h.call('nds_function_graph', {
      rom: 'roms/fan100.nds',
      processor: 'arm9',
      address: formatAddress(BASE),
      view: 'calls',
      maxNodes: 100,
    })) as unknown as Result;
    const { s } = picture(r);
    assert.equal(s.graph.nodes, 100);
  } finally {
    await h.close();
  }
});
