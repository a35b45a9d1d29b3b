// Whole-program map bench. Speed and memory: the kit's realistic ARM9 program alone and its code
// repeated to 400 KB, 1 MiB and 4 MiB, each map built cold in a fresh process running the bundled
// code (as the server does), next to a cold linear decode of the same bytes (Thumb then ARM) in a
// fresh process: the ratio, the growth per byte, a warm xref query, the peak RSS, and the time a new
// process takes to read the map back from the workspace against the cold build. Quality: every
// realistic kit program (the two conventional ones, the calico-style ARM9, the BlocksDS-style ARM7, the
// interpreter program) scored against its ELF truth by the kit's scorer (test/kit/arm/score.ts), per
// evidence set and tier: recall by count and bytes, precision, call sites found among the map's
// cross-references, false definitive claims, and what keeps it from the goals of issue 43.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { EVIDENCE_IDS, type EvidenceId } from '../src/analysis/evidence/index.js';
import { getProgramMaps } from '../src/analysis/program-map/service.js';
import { loadConfig } from '../src/config/config.js';
import { getRomStore } from '../src/roms/rom-store.js';
import { Services } from '../src/services.js';
import { Workspace } from '../src/workspace/workspace.js';
import { ARM_REALISTIC_PROGRAMS, loadProgramTruth, type ProgramTruth } from '../test/kit/arm/index.js';
import { scoreFigures, scoreProgramMap } from '../test/kit/arm/score.js';
import { kitRomBytes } from '../test/kit/program-rom.js';
import { buildRom } from '../test/kit/rom-builder.js';

const RUNS = 3;
const SIZES_KB = [0, 400, 1024, 4096];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const repo = join(import.meta.dirname, '..');

const EVIDENCE_SETS: Record<string, EvidenceId[]> = {
  'strict (specification default)': ['program-entry', 'direct-call', 'constant-register-call'],
  'proven (with copied code)': ['program-entry', 'direct-call', 'constant-register-call', 'copied-code'],
  'proven + referenced': EVIDENCE_IDS.filter((id) => id !== 'sweep'),
  'every tier': [...EVIDENCE_IDS],
};

/** Wall time of `arm-none-eabi-objdump -D` over `bin` loaded at `base` (output discarded); null without it. */
function objdumpMs(bin: string, base: number): number | null {
  const started = performance.now();
  try {
    execFileSync(
      'arm-none-eabi-objdump',
      ['-D', '-b', 'binary', '-marm', `--adjust-vma=0x${base.toString(16)}`, bin],
      { stdio: ['ignore', 'ignore', 'ignore'], maxBuffer: 1 << 30 },
    );
  } catch {
    return null;
  }
  return performance.now() - started;
}

async function childBundle(): Promise<string> {
  // Inside the repository so the bundle finds Capstone in node_modules. One CommonJS file with
  // Capstone external and lazy imports as require() calls, as scripts/bundle.mjs builds the server:
  // the map loads Capstone the way the server does.
  const dir = join(repo, 'node_modules', '.cache', 're-mcp-bench');
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, 'program-map-child.cjs');
  await build({
    entryPoints: [join(import.meta.dirname, 'program-map-child.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile,
    external: ['@alexaltea/capstone-js'],
    supported: { 'dynamic-import': false },
    logLevel: 'warning',
    // As the server's bundle fixes its engine hash (scripts/bundle.mjs): one value for every child of
    // this run, so a map kept by one is read back by the next.
    define: { __RE_MCP_ENGINE__: JSON.stringify(`bench-${process.pid}`) },
  });
  return outfile;
}

function child(bundle: string, args: string[]): Record<string, number & string> {
  const out = execFileSync(process.execPath, [bundle, ...args], { encoding: 'utf8', maxBuffer: 1 << 20 });
  return JSON.parse(out.trim().split('\n').at(-1)!);
}

async function score(root: string, rom: string, truth: ProgramTruth, evidence: EvidenceId[]) {
  const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
  const store = getRomStore(services);
  const map = await store.withRom(rom, (r) =>
    getProgramMaps(services).map(store, r, {
      processor: truth.processor,
      evidence,
      maxCodeBytes: 64 << 20,
      maxSeconds: 600,
    }),
  );
  return scoreFigures(scoreProgramMap(map, truth));
}

// Each realistic program in a ROM of its own processor's side, the other side a conventional program.
const QUALITY_ROMS: Record<(typeof ARM_REALISTIC_PROGRAMS)[number], string> = {
  'arm9-program': 'roms/program.nds',
  'arm7-program': 'roms/program.nds',
  'arm9-calico': 'roms/layouts.nds',
  'arm7-blocksds': 'roms/layouts.nds',
  'arm9-interp': 'roms/interp.nds',
  'arm9-revision': 'roms/revision.nds',
};

export async function benchProgramMap(): Promise<Record<string, unknown>> {
  const root = mkdtempSync(join(tmpdir(), 're-mcp-bench-map-'));
  try {
    mkdirSync(join(root, 'roms'));
    const a9 = loadProgramTruth('arm9-program');
    const a7 = loadProgramTruth('arm7-program');
    const arm7 = { code: a7.bytes, ramAddress: a7.loadAddress, entry: a7.loadAddress };
    writeFileSync(join(root, 'roms/program.nds'), kitRomBytes('arm9-program', 'arm7-program'));
    writeFileSync(join(root, 'roms/layouts.nds'), kitRomBytes('arm9-calico', 'arm7-blocksds'));
    writeFileSync(join(root, 'roms/interp.nds'), kitRomBytes('arm9-interp', 'arm7-program'));
    writeFileSync(join(root, 'roms/revision.nds'), kitRomBytes('arm9-revision', 'arm7-program'));
    const out: Record<string, unknown> = { runs: RUNS };
    const quality: Record<string, unknown> = {};
    for (const name of ARM_REALISTIC_PROGRAMS) {
      const truth = loadProgramTruth(name);
      const sets: Record<string, unknown> = {};
      for (const [set, evidence] of Object.entries(EVIDENCE_SETS))
        sets[set] = await score(root, QUALITY_ROMS[name], truth, evidence);
      quality[name] = sets;
    }
    out.quality = quality;

    const bundle = await childBundle();
    const speed: Record<string, unknown> = {};
    for (const kb of SIZES_KB) {
      const size = kb === 0 ? a9.bytes.length : kb * 1024;
      const code = new Uint8Array(size);
      for (let o = 0; o < size; o += a9.bytes.length)
        code.set(a9.bytes.subarray(0, Math.min(a9.bytes.length, size - o)), o);
      const name = kb === 0 ? 'program' : `${kb}k`;
      writeFileSync(
        join(root, `roms/${name}.nds`),
        buildRom({ arm9: { code, ramAddress: a9.loadAddress, entry: a9.loadAddress }, arm7 }).bytes,
      );
      writeFileSync(join(root, `${name}.bin`), code);
      const maps: Record<string, number & string>[] = [];
      const lins: Record<string, number & string>[] = [];
      const dumps: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        maps.push(child(bundle, ['map', root, `roms/${name}.nds`, 'arm9']));
        lins.push(child(bundle, ['linear', join(root, `${name}.bin`), String(a9.loadAddress)]));
        const dump = objdumpMs(join(root, `${name}.bin`), a9.loadAddress);
        if (dump !== null) dumps.push(dump);
      }
      // The map kept in the workspace: written by a first run, then read back by new processes.
      child(bundle, ['kept', root, `roms/${name}.nds`, 'arm9']);
      const reads: Record<string, number & string>[] = [];
      for (let i = 0; i < RUNS; i++) reads.push(child(bundle, ['kept', root, `roms/${name}.nds`, 'arm9']));
      const mapMs = median(maps.map((m) => m.ms));
      const readMs = median(reads.map((m) => m.ms));
      const linMs = median(lins.map((m) => m.ms));
      const last = maps.at(-1)!;
      speed[name] = {
        arm9Bytes: size,
        mapColdMs: Math.round(mapMs),
        linearDecodeColdMs: Math.round(linMs),
        mapVsLinearDecode: Number((mapMs / linMs).toFixed(2)),
        // The floor issue 49 names: GNU objdump -D of the same bytes (ARM), its listing discarded.
        objdumpMs: dumps.length > 0 ? Math.round(median(dumps)) : 'arm-none-eabi-objdump not installed',
        mapVsObjdump: dumps.length > 0 ? Number((mapMs / median(dumps)).toFixed(2)) : null,
        usPerByte: Number(((mapMs * 1000) / size).toFixed(2)),
        keptMapReadMs: Math.round(readMs),
        keptReadVsColdBuild: Number((readMs / mapMs).toFixed(3)),
        keptReadBack: reads.every((m) => (m as unknown as { readBack: boolean }).readBack),
        warmXrefQueryMs: Number(median(maps.map((m) => m.queryMs)).toFixed(3)),
        peakRssMiB: Math.max(...maps.map((m) => m.peakMiB)),
        functions: last.functions,
        status: last.status,
        unclassifiedBytes: last.unclassifiedBytes,
      };
    }
    const at = (k: string) =>
      speed[k] as { mapColdMs: number; arm9Bytes: number; warmXrefQueryMs: number; peakRssMiB: number };
    out.speed = speed;
    out.goals = {
      map400kUnder1s: at('400k').mapColdMs <= 1000,
      map4MiBUnder10s: at('4096k').mapColdMs <= 10_000,
      growth4MiBVs400k: Number(
        (
          at('4096k').mapColdMs /
          at('4096k').arm9Bytes /
          (at('400k').mapColdMs / at('400k').arm9Bytes)
        ).toFixed(2),
      ),
      warmQueryUnder10ms: Object.values(speed).every(
        (s) => (s as { warmXrefQueryMs: number }).warmXrefQueryMs <= 10,
      ),
      rss4MiBUnder300MiB: at('4096k').peakRssMiB <= 300,
      keptReadUnderTenthOfBuild: Object.values(speed).every(
        (s) => (s as { keptReadVsColdBuild: number }).keptReadVsColdBuild <= 0.1,
      ),
    };
    return out;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
