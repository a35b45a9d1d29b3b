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
  ['asm', 'asm.ts', 'benchAsm'],
  ['strings', 'strings.ts', 'benchStrings'],
  ['arm', 'arm.ts', 'benchArm'],
  ['analysis', 'analysis.ts', 'benchAnalysis'],
  ['program-map', 'program-map.ts', 'benchProgramMap'],
  ['signatures', 'signatures.ts', 'benchSignatures'],
  ['retroarch', 'retroarch.ts', 'benchRetroarch'],
  ['desmume', 'desmume.ts', 'benchDesmume'],
  ['live', 'live-features.ts', 'benchLiveFeatures'],
  ['flood', 'flood.ts', 'benchFlood'],
  ['floors', 'floors.ts', 'benchFloors'],
];

// The benches that read the real-data corpora take them from the test settings; on a development
// checkout with the corpus folder beside it those default to it (modules are imported below, after this).
for (const [variable, folder] of [
  ['RE_MCP_TEST_ROMS', 'roms'],
  ['RE_MCP_TEST_BLZ', 'blz'],
] as const) {
  const beside = join(import.meta.dirname, '..', '..', 'shared', folder);
  if (!process.env[variable] && existsSync(beside)) process.env[variable] = beside;
}

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
