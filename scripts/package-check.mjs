#!/usr/bin/env node
// Packs re-mcp the way `npm publish` would and checks the result: the files are exactly what runs (the
// entry, the bundle and its code cache, Graphviz beside it, the demo and example configs, the docs (ours,
// and those npm always adds), and Capstone, bundled so the package installs with no registry at all) and
// the tarball stays within its size budget. Prints the figures as JSON.
//   node scripts/package-check.mjs [destination dir]     (run `npm run build` first; npm test does)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '..');

/** Budget for the published tarball (gzip) and its unpacked contents, in bytes. */
// Measured at 0.1.0: 2.69 MB packed, 8.20 MB unpacked (Capstone's WASM is 3.3 MB of it, Graphviz's
// self-contained viz.cjs 1.2 MB, armips' WASM 0.7 MB).
export const SIZE_BUDGET = { packed: 3_145_728, unpacked: 9_437_184 };

const EXACT = [
  'CHANGELOG.md',
  'LICENSE',
  'README.md',
  'dist/index.js',
  'dist/package.json',
  'dist/re-mcp.cjs',
  'dist/re-mcp.cjs.cache',
  'dist/viz.cjs',
  'dist/armips/NOTICE',
  'dist/armips/armips.wasm',
  'dist/armips/index.js',
  'dist/armips/package.json',
  'package.json',
  // The bundled dependency, as npm packs it (it always adds a package's README and LICENSE).
  'node_modules/@alexaltea/capstone-js/LICENSE',
  'node_modules/@alexaltea/capstone-js/README.md',
  'node_modules/@alexaltea/capstone-js/dist/capstone.js',
  'node_modules/@alexaltea/capstone-js/dist/capstone.wasm',
  'node_modules/@alexaltea/capstone-js/package.json',
];
// The docs the tool descriptions and the README point to ship with the package.
const UNDER = ['examples/', 'docs/'];

/** Packs into `destination` (no lifecycle scripts: dist must be built) and returns npm's report. */
export function pack(destination) {
  for (const name of [
    'dist/index.js',
    'dist/package.json',
    'dist/re-mcp.cjs',
    'dist/re-mcp.cjs.cache',
    'dist/viz.cjs',
  ]) {
    if (!existsSync(join(REPO_ROOT, name))) throw new Error(`${name} is missing: run npm run build first`);
  }
  const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', destination], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [report] = JSON.parse(out);
  return {
    tarball: join(destination, report.filename),
    packedBytes: report.size,
    unpackedBytes: report.unpackedSize,
    files: report.files.map((f) => f.path).sort(),
  };
}

/** Problems with a pack report: files that are not meant to ship, missing ones, a broken budget. */
export function problems(report) {
  const found = [];
  for (const name of EXACT) if (!report.files.includes(name)) found.push(`missing from the package: ${name}`);
  for (const name of report.files) {
    if (!EXACT.includes(name) && !UNDER.some((prefix) => name.startsWith(prefix)))
      found.push(`not something that runs: ${name}`);
  }
  if (report.packedBytes > SIZE_BUDGET.packed)
    found.push(`tarball is ${report.packedBytes} bytes, over the ${SIZE_BUDGET.packed}-byte budget`);
  if (report.unpackedBytes > SIZE_BUDGET.unpacked)
    found.push(
      `unpacked size is ${report.unpackedBytes} bytes, over the ${SIZE_BUDGET.unpacked}-byte budget`,
    );
  return found;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const destination = process.argv[2] ?? mkdtempSync(join(tmpdir(), 're-mcp-pack-'));
  const report = pack(destination);
  const found = problems(report);
  process.stdout.write(`${JSON.stringify({ ...report, budget: SIZE_BUDGET, problems: found }, null, 2)}\n`);
  process.exit(found.length === 0 ? 0 : 1);
}
