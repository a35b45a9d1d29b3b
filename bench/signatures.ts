// Signature sets: a set built from Debian's Thumb newlib, libgcc, libstdc++ and libsupc++ (the
// libraries the kit programs link), written and read back, then applied to the whole-program map of
// each realistic ARM9 kit program built into a ROM from its binary alone (the map built once first:
// the application's figure is warm, as a second apply in a server is). The target: a set of
// 5,000 signatures on a 400 KB program within 2 s warm; the kit's largest program is 158 KB.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EVIDENCE_IDS } from '../src/analysis/evidence/index.js';
import { getProgramMaps } from '../src/analysis/program-map/service.js';
import { applySteps } from '../src/analysis/signatures/apply.js';
import { programFunctions, programMemory } from '../src/analysis/signatures/program.js';
import { buildSetSteps, decodeSetSteps, encodeSetSteps } from '../src/analysis/signatures/set.js';
import { loadConfig } from '../src/config/config.js';
import { runSteps } from '../src/core/cooperative.js';
import { getRomStore } from '../src/roms/rom-store.js';
import { Services } from '../src/services.js';
import { Workspace } from '../src/workspace/workspace.js';
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
