// `npm run bench`: prints one JSON object of figures. Each domain contributes a bench module
// exporting an async function; a module that is absent is reported as such, never silently dropped.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const MODULES: Array<[string, string, string]> = [
  ['server', 'server.ts', 'benchServer'],
  ['blz', 'blz.ts', 'benchBlz'],
  ['nds', 'nds.ts', 'benchNds'],
  ['search', 'search.ts', 'benchSearch'],
  ['rebuild', 'rebuild.ts', 'benchRebuild'],
  ['arm', 'arm.ts', 'benchArm'],
  ['analysis', 'analysis.ts', 'benchAnalysis'],
  ['program-map', 'program-map.ts', 'benchProgramMap'],
  ['retroarch', 'retroarch.ts', 'benchRetroarch'],
  ['desmume', 'desmume.ts', 'benchDesmume'],
  ['live', 'live-features.ts', 'benchLiveFeatures'],
];

const only = process.argv.slice(2);
const results: Record<string, unknown> = { date: new Date().toISOString(), node: process.version };
for (const [name, file, fn] of MODULES) {
  if (only.length > 0 && !only.includes(name)) continue;
  const path = join(import.meta.dirname, file);
  if (!existsSync(path)) {
    results[name] = { skipped: 'no bench module' };
    continue;
  }
  process.stderr.write(`bench: ${name}...\n`);
  try {
    const mod = (await import(path)) as Record<string, () => Promise<unknown>>;
    results[name] = await mod[fn]!();
  } catch (error) {
    results[name] = { error: error instanceof Error ? error.message : String(error) };
  }
}
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
