// One measured run of the program-map bench in a fresh process (bundled like the server, so no
// loader overhead and a cold JIT, Capstone and cache; the helper threads lowered first, as the CLI's
// main() does): `map <root> <rom> <processor>` builds the whole-program map and answers warm xref
// queries (nothing kept in the workspace); `kept <root> <rom> <processor>` the same with the map kept in
// the workspace (the first run writes it, later ones read it back); `linear <bin> <base>` decodes the same bytes linearly, Thumb then ARM. Prints one JSON
// line: times in ms, the process's peak RSS.
import { readFileSync } from 'node:fs';
import { EVIDENCE_IDS } from '../src/analysis/evidence/index.js';
import { getProgramMaps } from '../src/analysis/program-map/service.js';
import { decodeWindow } from '../src/arm/decoder.js';
import { lowerHelperThreads } from '../src/cli/helper-threads.js';
import { loadConfig } from '../src/config/config.js';
import { getRomStore } from '../src/roms/rom-store.js';
import { Services } from '../src/services.js';
import { Workspace } from '../src/workspace/workspace.js';

const [what, a, b, c] = process.argv.slice(2);
// As the server's and the CLI's main() does first.
lowerHelperThreads();
const peakMiB = () => Math.round(process.resourceUsage().maxRSS / 1024);

async function map(root: string, rom: string, processor: 'arm9' | 'arm7', kept: boolean) {
  // Cold builds keep nothing (a kept map would be read back by the next run); `kept` reads one back.
  const services = new Services(
    loadConfig({ RE_MCP_WORKSPACE_ROOT: root, RE_MCP_MAP_CACHE: kept ? 'on' : 'off' }),
    new Workspace(root),
  );
  const store = getRomStore(services);
  return store.withRom(rom, async (h) => {
    const started = performance.now();
    const m = await getProgramMaps(services).map(store, h, {
      processor,
      evidence: EVIDENCE_IDS,
      maxCodeBytes: 64 << 20,
      maxSeconds: 600,
    });
    const ms = performance.now() - started;
    // Warm queries: the callers of every 16th function, then what holds every 16th call site.
    const targets = m.functions.filter((_, i) => i % 16 === 0).map((f) => f.address);
    const q0 = performance.now();
    let refs = 0;
    for (const t of targets) refs += m.xrefs(t, 'heuristic').length;
    const queryMs = (performance.now() - q0) / Math.max(1, targets.length);
    const cov = m.coverage('heuristic');
    return {
      ms,
      queryMs,
      queries: targets.length,
      refs,
      functions: m.functions.length,
      status: m.built.status,
      readBack: m.built.keptFile !== null,
      executableBytes: cov.executableBytes,
      codeBytes: cov.codeBytes,
      unclassifiedBytes: cov.unclassifiedBytes,
      peakMiB: peakMiB(),
    };
  });
}

async function linear(bin: string, base: number) {
  const code = new Uint8Array(readFileSync(bin));
  const started = performance.now();
  let instructions = 0;
  for (const mode of ['thumb', 'arm'] as const) {
    const unit = mode === 'arm' ? 4 : 2;
    let at = 0;
    while (at + unit <= code.length) {
      const r = await decodeWindow(code.subarray(at, at + 1024), base + at, mode, 'arm9', 256);
      instructions += r.instructions.length;
      const last = r.instructions.at(-1);
      if (r.stop) at = r.stop.address - base + unit;
      else if (last) at = last.address + last.size - base;
      else break;
    }
  }
  return { ms: performance.now() - started, instructions, peakMiB: peakMiB() };
}

// (No top-level await: the bench bundles this file as CommonJS, as the server is.)
void (async () => {
  const out =
    what === 'map' || what === 'kept'
      ? await map(a!, b!, (c ?? 'arm9') as 'arm9', what === 'kept')
      : await linear(a!, Number(b ?? 0x02000000));
  process.stdout.write(`${JSON.stringify(out)}\n`);
})();
