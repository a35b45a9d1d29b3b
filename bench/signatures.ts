// Signature sets: a set built from Debian's Thumb newlib, libgcc, libstdc++ and libsupc++ (the
// libraries the kit programs link), written and read back, then applied to the whole-program map of
// each realistic ARM9 kit program built into a ROM from its binary alone (the map built once first:
// the application's figure is warm, as a second apply in a server is). The target: a set of
// 5,000 signatures on a 400 KB program within 2 s warm; the kit's largest program is 158 KB.
// Build to build (the target: two 400 KB builds matched within 5 s): the kit program named
// from its ELF matched to its revision (158 KB), and the largest real program of the corpus (DSLua,
// 345 KB of code, no symbols: every function of its map named, then matched to the same build, where
// every function matches, the most work a match can be) — each as the tool does it: both maps built
// cold, the set built from the named ROM, written and read back, then applied.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EVIDENCE_IDS } from '../src/analysis/evidence/index.js';
import type { ProgramMap } from '../src/analysis/program-map/map.js';
import { getProgramMaps } from '../src/analysis/program-map/service.js';
import { applySteps } from '../src/analysis/signatures/apply.js';
import { programFunctions, programMemory, romItemSteps } from '../src/analysis/signatures/program.js';
import { buildSetSteps, decodeSetSteps, encodeSetSteps } from '../src/analysis/signatures/set.js';
import { loadConfig } from '../src/config/config.js';
import { runSteps } from '../src/core/cooperative.js';
import { getRomStore } from '../src/roms/rom-store.js';
import { Services } from '../src/services.js';
import { Workspace } from '../src/workspace/workspace.js';
import { loadProgramTruth } from '../test/kit/arm/index.js';
import { kitRomBytes } from '../test/kit/program-rom.js';

const ms = (since: number) => Math.round(performance.now() - since);

export async function benchSignatures() {
  const gcc = (arg: string) =>
    execFileSync('arm-none-eabi-g++', ['-mcpu=arm946e-s', '-mthumb', arg], { encoding: 'utf8' }).trim();
  const libs = [
    gcc('-print-file-name=libc.a'),
    gcc('-print-libgcc-file-name'),
    gcc('-print-file-name=libstdc++.a'),
    gcc('-print-file-name=libsupc++.a'),
  ];
  const inputs = libs.map((p) => ({
    path: p,
    sha256: '0'.repeat(64),
    bytes: new Uint8Array(readFileSync(p)),
  }));
  let t = performance.now();
  const built = runSteps(buildSetSteps('debian-thumb', inputs));
  const buildMs = ms(t);
  t = performance.now();
  const text = runSteps(encodeSetSteps(built.set));
  const encodeMs = ms(t);
  t = performance.now();
  const set = runSteps(decodeSetSteps(text));
  const decodeMs = ms(t);
  const root = mkdtempSync(join(tmpdir(), 're-mcp-bench-signatures-'));
  const programs: Record<string, unknown> = {};
  try {
    mkdirSync(join(root, 'roms'));
    const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
    const store = getRomStore(services);
    for (const name of ['arm9-program', 'arm9-calico', 'arm9-interp'] as const) {
      const path = `roms/${name}.nds`;
      writeFileSync(join(root, path), kitRomBytes(name, 'arm7-program'));
      const map = await store.withRom(path, (rom) =>
        getProgramMaps(services).map(store, rom, {
          processor: 'arm9',
          evidence: EVIDENCE_IDS,
          maxCodeBytes: 16 << 20,
          maxSeconds: 300,
        }),
      );
      const fns = programFunctions(map);
      const memory = programMemory(map);
      const runs: number[] = [];
      let counts = null;
      for (let i = 0; i < 3; i++) {
        t = performance.now();
        counts = runSteps(applySteps(set, fns, memory)).counts;
        runs.push(performance.now() - t);
      }
      runs.sort((a, b) => a - b);
      programs[name] = {
        codeBytes: fns.reduce((n, f) => n + (f.end - f.address), 0),
        functions: fns.length,
        applyMsMedian: Math.round(runs[1]!),
        counts,
      };
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return {
    buildToBuild: await buildToBuild(),
    set: {
      functions: set.items.filter((i) => i.kind === 'function').length,
      items: set.items.length,
      fileBytes: text.length,
    },
    buildMs,
    encodeMs,
    decodeMs,
    programs,
  };
}

type Named = { address: number; name: string; overlayId: number | null; mode?: 'arm' | 'thumb' };

/** Two ROMs matched as `nds_signatures` build (from a named ROM) then apply do it, timed by phase. */
async function matchBuilds(a: Uint8Array, b: Uint8Array, names: (map: ProgramMap) => Named[]) {
  const root = mkdtempSync(join(tmpdir(), 're-mcp-bench-b2b-'));
  try {
    mkdirSync(join(root, 'roms'));
    writeFileSync(join(root, 'roms/a.nds'), a);
    writeFileSync(join(root, 'roms/b.nds'), b);
    const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
    const store = getRomStore(services);
    const mapOf = (path: string) =>
      store.withRom(path, (rom) =>
        getProgramMaps(services).map(store, rom, {
          processor: 'arm9',
          evidence: EVIDENCE_IDS,
          maxCodeBytes: 16 << 20,
          maxSeconds: 300,
        }),
      );
    let t = performance.now();
    const mapA = await mapOf('roms/a.nds');
    const mapB = await mapOf('roms/b.nds');
    const mapsColdMs = ms(t);
    const runs: { buildMs: number; fileMs: number; applyMs: number; matchMs: number }[] = [];
    let result = null;
    for (let i = 0; i < 3; i++) {
      t = performance.now();
      const built = runSteps(romItemSteps(mapA, names(mapA), 'a.nds'));
      const buildMs = ms(t);
      let u = performance.now();
      const text = runSteps(
        encodeSetSteps({
          name: 'a',
          sources: [{ kind: 'rom', path: 'roms/a.nds', sha256: '0'.repeat(64) }],
          items: built.items,
        }),
      );
      const set = runSteps(decodeSetSteps(text));
      const fileMs = ms(u);
      u = performance.now();
      const applied = runSteps(applySteps(set, programFunctions(mapB), programMemory(mapB)));
      runs.push({ buildMs, fileMs, applyMs: ms(u), matchMs: ms(t) });
      const named = applied.proposals.filter((p) => p.name !== null && p.mode !== 'data').length;
      result = { signatures: built.items.length, functionsOfB: mapB.functions.length, named };
    }
    runs.sort((x, y) => x.matchMs - y.matchMs);
    const median = runs[1]!;
    return {
      codeBytes: programFunctions(mapB).reduce((n, f) => n + (f.end - f.address), 0),
      ...result,
      mapsColdMs,
      ...median,
      coldTotalMs: mapsColdMs + median.matchMs,
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function buildToBuild() {
  const truth = loadProgramTruth('arm9-program');
  const out: Record<string, unknown> = {
    'kit program -> revision': await matchBuilds(
      kitRomBytes('arm9-program', 'arm7-program'),
      kitRomBytes('arm9-revision', 'arm7-program'),
      () => truth.functions.map((f) => ({ address: f.address, name: f.name, overlayId: null })),
    ),
  };
  const dir = process.env.RE_MCP_TEST_ROMS;
  const dslua = dir === undefined ? '' : join(dir, 'dslua-pack.nds');
  if (existsSync(dslua)) {
    const bytes = new Uint8Array(readFileSync(dslua));
    out['DSLua (real, 345 KB) -> itself, every function named'] = await matchBuilds(bytes, bytes, (map) =>
      map.functions.map((f) => ({
        address: f.address,
        name: `fn_${f.address.toString(16)}`,
        overlayId: f.component.overlayId,
        mode: f.mode,
      })),
    );
  } else out.DSLua = 'RE_MCP_TEST_ROMS not set: the real program is not measured';
  out.target = 'two 400 KB builds matched within 5 s (issue 45)';
  return out;
}
