// The analysis answers are the same bytes they were before they moved into src/analysis/answers/:
// nds_find_xrefs, nds_discover_functions, nds_function_at, nds_analyze_function, nds_program_map,
// nds_function_graph and nds_free_space through the in-process pipeline (every result's structured
// content, text block and image hashes), and the stop correlation over a scripted CPU, on the kit's
// ROMs (realistic ARM9 and ARM7 programs with copied ITCM and WRAM code, the idioms fixture,
// constant-register calls, Thumb code with literal pools, overlays sharing a range, an ITCM autoload
// block, a compressed ARM9 and overlay) and, with RE_MCP_TEST_ROMS, two corpus ROMs. The calls are in
// snapshot-cases.ts; golden/<suite>.json holds each call and its result, recorded at commit 3db880b
// (the last before the answers layer) with RE_MCP_RECORD_ANSWERS=1. Re-record only from that commit.
// Only time is left out: a map's build millis and whether it was kept, a layout's millis.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { EVIDENCE_IDS } from '../../../src/analysis/evidence/index.js';
import { getProgramMaps } from '../../../src/analysis/program-map/service.js';
import { loadConfig } from '../../../src/config/config.js';
import { ReMcpError } from '../../../src/core/errors.js';
import { correlateStop } from '../../../src/debug/correlate/correlate.js';
import type { CpuDebugger } from '../../../src/debug/cpu.js';
import type { Generation } from '../../../src/debug/session.js';
import { getRomStore } from '../../../src/roms/rom-store.js';
import { Services } from '../../../src/services.js';
import { analysisTools } from '../../../src/tools/analysis/index.js';
import { extractTools } from '../../../src/tools/extract/index.js';
import { rebuildTools } from '../../../src/tools/rebuild/index.js';
import { Workspace } from '../../../src/workspace/workspace.js';
import { ARM_KIT_BUILD_DIR, loadArmProgram } from '../../kit/arm/index.js';
import { writeOverlayTargetRom } from '../../kit/desmume/index.js';
import { inProcess } from '../../kit/in-process.js';
import { makeWorkspace } from '../../kit/mcp-harness.js';
import { idiomsRomBytes, programRomBytes } from '../../kit/program-rom.js';
import { buildRom } from '../../kit/rom-builder.js';
import { NO_ROMS, sharedRomPath } from '../../kit/shared-data.js';
import { type Case, casesFor, functionsOf, type Processor, type Stop } from './snapshot-cases.js';

const RECORD = process.env.RE_MCP_RECORD_ANSWERS === '1';
const GOLDEN = new URL('./golden/', import.meta.url).pathname;

const root = await makeWorkspace('re-mcp-answers-');
after(() => rm(root, { recursive: true, force: true }));
await mkdir(join(root, 'roms'));
const TOOLS = [...analysisTools, ...rebuildTools, ...extractTools];
/** Each suite gets its own services (a fresh map cache), as a new server would. */
const fresh = () => {
  const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
  return { services, store: getRomStore(services), ...inProcess(TOOLS, services) };
};
type Env = ReturnType<typeof fresh>;

// The kit's ROMs.
const calls = loadArmProgram('arm9-calls');
const a9 = loadArmProgram('arm9-analysis');
const a7 = loadArmProgram('arm7-analysis');
const arm7 = { code: a7.bytes, ramAddress: a7.loadAddress, entry: a7.entry };
await writeFile(join(root, 'roms/program.nds'), programRomBytes());
await writeFile(join(root, 'roms/idioms.nds'), idiomsRomBytes());
await writeFile(
  join(root, 'roms/calls.nds'),
  buildRom({
    arm9: { code: calls.bytes, ramAddress: calls.loadAddress, entry: calls.entry },
    arm7,
    arm9Overlays: [{ id: 0, ramAddress: 0x02200000, data: a9.bytes }],
  }).bytes,
);
await writeFile(
  join(root, 'roms/analysis.nds'),
  buildRom({ arm9: { code: a9.bytes, ramAddress: a9.loadAddress, entry: a9.entry }, arm7 }).bytes,
);
// The realistic ARM9's ELF names: the answers show stored names beside addresses.
await copyFile(join(ARM_KIT_BUILD_DIR, 'arm9-program.elf'), join(root, 'program.elf'));
await fresh().ok('nds_symbols', {
  rom: 'roms/program.nds',
  action: 'import',
  file: 'program.elf',
  format: 'elf',
});
writeOverlayTargetRom(join(root, 'roms/overlays.nds'));
writeOverlayTargetRom(join(root, 'roms/overlays-packed.nds'), 1, { compressArm9: true, compressB: true });

interface Suite {
  name: string;
  rom: string;
  skip: string | false;
}
const CORPUS = ['basic-first-game.nds', 'basic-rts-part2.nds'];
const SUITES: Suite[] = [
  ...['program', 'idioms', 'calls', 'analysis', 'overlays', 'overlays-packed'].map((name) => ({
    name,
    rom: `roms/${name}.nds`,
    skip: false as const,
  })),
  ...CORPUS.map((file) => ({ name: file.replace(/\.nds$/, ''), rom: `roms/${file}`, skip: NO_ROMS })),
];
if (!NO_ROMS) for (const file of CORPUS) copyFileSync(sharedRomPath(file), join(root, 'roms', file));

/** A scripted stopped CPU: its registers, the stack words at SP, made-up bytes elsewhere. */
function scriptedCpu(stop: Stop): CpuDebugger {
  const stack = new Uint8Array(stop.stack.length * 4);
  const dv = new DataView(stack.buffer);
  for (const [i, w] of stop.stack.entries()) dv.setUint32(i * 4, w >>> 0, true);
  const regs = Array.from({ length: 16 }, (_, i) => i * 0x11);
  regs[13] = stop.sp;
  regs[14] = stop.lr;
  regs[15] = stop.pc;
  return {
    lastStop: { reason: 'breakpoint' },
    async readRegisters() {
      return { raw: '', decoded: { r: regs, cpsr: stop.cpsr, thumb: (stop.cpsr & 0x20) !== 0 } };
    },
    async readMemory(address: number, length: number) {
      if (address === stop.sp) return stack.slice(0, length);
      if (address >= 0x02000000 && address < 0x02400000)
        return new Uint8Array(length).map((_, i) => (address + i) & 0xff);
      throw new ReMcpError('protocol-error', 'the scripted stub has no such memory');
    },
  } as unknown as CpuDebugger;
}

async function correlate(env: Env, rom: string, c: Extract<Case, { correlate: Stop }>) {
  const { store, services } = env;
  const generation = await store.withRom(
    rom,
    async (h) =>
      ({ number: 1, rom: { path: rom, identity: h.identity, model: h.model } }) as unknown as Generation,
  );
  try {
    const result = await correlateStop({
      store,
      maps: getProgramMaps(services),
      analysis: c.args.analysis,
      lowestTier: c.args.lowestTier as 'heuristic',
      mapLimits: { maxCodeBytes: 16 << 20, maxSeconds: 120 },
      generation,
      cpu: scriptedCpu(c.correlate),
      processor: c.args.processor,
      nearbyInstructions: 4,
      stackWords: c.correlate.stack.length,
      referenceLimit: 4,
      liveCheck: c.correlate.liveCheck,
    });
    return { result };
  } catch (error) {
    if (error instanceof ReMcpError) return { error: { code: error.code, message: error.message } };
    throw error;
  }
}

/** One call's answer, with only its timing left out. */
async function answer(env: Env, rom: string, c: Case): Promise<Record<string, unknown>> {
  if ('correlate' in c) return correlate(env, rom, c);
  const r = (await env.call(c.tool, c.args)) as any;
  const structured = { ...r.structuredContent };
  let text: string = r.content[0].text;
  if (c.tool === 'nds_program_map' && !r.isError) {
    structured.millis = 'time';
    structured.reused = 'time';
    text = text
      .replace(/ \(kept\)| in \d+ ms/, ' <time>')
      .replace(/^millis: \d+$/m, 'millis: time')
      .replace(/^reused: (true|false)$/m, 'reused: time');
  }
  if (c.tool === 'nds_function_graph' && !r.isError) {
    structured.graph = { ...structured.graph, layoutMillis: 'time' };
    text = text.replace(/ layoutMillis=\d+ /, ' layoutMillis=time ');
  }
  const images = r.content
    .slice(1)
    .map((i: { data: string }) => createHash('sha256').update(i.data).digest('hex'));
  return { isError: r.isError === true, structured, text, images };
}

/**
 * What the golden keeps of an answer: the SHA-256 of all of it (structured content, text, images) and,
 * to read, its first lines (a tool's own text before the rendered data; an error's code and message).
 */
function digest(a: Record<string, any>): { head: string; sha256: string } {
  const sha256 = createHash('sha256').update(JSON.stringify(a)).digest('hex');
  if (a.error) return { head: `${a.error.code}: ${a.error.message}`, sha256 };
  if (a.result) {
    const r = a.result;
    return {
      head: `${r.discovery.status}, ${r.discovery.functions} functions; pc ${r.pc.status}; ${r.backtrace.entries.length} backtrace entries`,
      sha256,
    };
  }
  const text = a.text as string;
  const cut = text.indexOf('\n\n');
  return { head: cut < 0 ? text : text.slice(0, cut), sha256 };
}

/** Record mode: the calls for a suite, chosen from what the ROM's map holds (snapshot-cases.ts). */
async function chooseCases(rom: string): Promise<Case[]> {
  const { call, store, services } = fresh();
  const out: Case[] = [];
  for (const processor of ['arm9', 'arm7'] as Processor[]) {
    const discovery = await call('nds_discover_functions', {
      rom,
      processor,
      scope: 'program',
      limit: 1024,
      detail: 'summary',
    });
    const gaps = await call('nds_program_map', { rom, processor, lowestTier: 'proven', limit: 1 });
    const map = await store.withRom(rom, (h) =>
      getProgramMaps(services).map(store, h, {
        processor,
        evidence: EVIDENCE_IDS,
        maxCodeBytes: 16 << 20,
        maxSeconds: 120,
      }),
    );
    const entry = functionsOf(discovery.structuredContent)[0];
    const xrefs = entry
      ? await call('nds_find_xrefs', {
          rom,
          processor,
          scope: 'program',
          address: `0x${entry.address.toString(16)}`,
        })
      : null;
    const direct = (xrefs?.structuredContent.xrefs ?? [])
      .filter((x: any) => x.kind === 'direct-call')
      .map((x: any) => Number(x.from));
    // More call sites: of the spread functions, so stacks hold real return addresses.
    for (const f of functionsOf(discovery.structuredContent).slice(1, 40)) {
      if (direct.length >= 6) break;
      const x = await call('nds_find_xrefs', {
        rom,
        processor,
        scope: 'program',
        address: `0x${f.address.toString(16)}`,
      });
      for (const r of x.structuredContent.xrefs ?? [])
        if (r.kind === 'direct-call' && r.mode === 'arm') direct.push(Number(r.from));
    }
    const gap = gaps.structuredContent.gaps?.items?.[0];
    out.push(
      ...casesFor(
        rom,
        processor,
        functionsOf(discovery.structuredContent),
        map,
        gap ? Number(gap.start) : null,
        direct,
      ),
    );
  }
  return out;
}

for (const suite of SUITES) {
  test(`${suite.name}: every analysis answer is the recorded one, byte for byte`, {
    skip: suite.skip,
  }, async () => {
    const file = join(GOLDEN, `${suite.name}.json`);
    if (RECORD) {
      const cases = await chooseCases(suite.rom);
      // Recorded from a fresh map cache, as the check replays them.
      const env = fresh();
      const lines: string[] = [];
      for (const c of cases)
        lines.push(JSON.stringify({ ...c, answer: digest(await answer(env, suite.rom, c)) }));
      mkdirSync(GOLDEN, { recursive: true });
      // One call a line, so a difference reads as lines.
      writeFileSync(file, `{"rom":${JSON.stringify(suite.rom)},"cases":[\n${lines.join(',\n')}\n]}\n`);
      return;
    }
    assert.ok(
      existsSync(file),
      `${file} is missing: record it (RE_MCP_RECORD_ANSWERS=1) at the recording commit`,
    );
    const golden = JSON.parse(readFileSync(file, 'utf8')) as {
      cases: (Case & { answer: { head: string; sha256: string } })[];
    };
    assert.ok(golden.cases.length > 50, `${golden.cases.length} cases`);
    const env = fresh();
    const differ: string[] = [];
    for (const { answer: want, ...c } of golden.cases) {
      const got = await answer(env, suite.rom, c as Case);
      const d = digest(got);
      if (d.sha256 !== want.sha256)
        differ.push(
          `${'tool' in c ? c.tool : 'correlate'} ${JSON.stringify(c.args)}: ${d.head === want.head ? 'same first lines' : `was "${want.head}", now "${d.head}"`}; now ${JSON.stringify(got).slice(0, 600)}`,
        );
    }
    assert.deepEqual(differ, [], `${differ.length} of ${golden.cases.length} answers differ`);
  });
}
