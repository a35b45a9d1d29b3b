#!/usr/bin/env node
// Builds the server as one pre-linked file plus a V8 code cache:
//   dist/re-mcp.cjs        the whole server (our code, the MCP SDK, zod), CommonJS
//   dist/re-mcp.cjs.map    its source map (for debugging a checkout; not in the published package)
//   dist/re-mcp.cjs.cache  V8 code cache for it, written by a real start-up (serve + tools/list)
//   dist/index.js          the entry: compiles the bundle with the cache (see src/cli/loader.ts)
//   dist/package.json      says dist/ is CommonJS: the entry starts without Node's ES module loader
// Why: start-up latency is dominated by parsing and compiling the SDK and zod; one file with a code
// cache starts well under half as slowly as the plain module graph (bench/server.ts reports it).
// Capstone stays external: it is imported lazily on the first decode, with its WASM payload.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';

rmSync('dist', { recursive: true, force: true });

// package.json is the one source of the version: the bundle carries it as a literal.
const { version } = JSON.parse(readFileSync('package.json', 'utf8'));

// The tool catalog (every published definition, src/cli/catalog.ts), made once here: the started
// server answers tools/list from it without building a tool schema.
const catalogRun = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/catalog.ts'], {
  encoding: 'utf8',
  maxBuffer: 64 * 1024 * 1024,
  timeout: 120_000,
});
if (catalogRun.status !== 0) {
  process.stderr.write(
    `bundle: making the tool catalog failed (status ${catalogRun.status}):\n${catalogRun.stderr}\n`,
  );
  process.exit(1);
}
const catalog = JSON.stringify(JSON.parse(catalogRun.stdout));

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
  legalComments: 'none',
};

await build({
  ...common,
  entryPoints: ['src/cli/main.ts'],
  outfile: 'dist/re-mcp.cjs',
  format: 'cjs',
  minify: true,
  sourcemap: 'linked',
  external: ['@alexaltea/capstone-js'],
  // Lazy imports become require() calls: a script compiled through vm (for the code cache) cannot
  // use dynamic import() reliably on Node 20, and every external package here is CommonJS-loadable.
  supported: { 'dynamic-import': false },
  // The CommonJS bundle has no import.meta; give modules that locate files a file URL of the bundle.
  define: {
    'import.meta.url': '__reMcpBundleUrl',
    __RE_MCP_VERSION__: JSON.stringify(version),
    __RE_MCP_CATALOG__: JSON.stringify(catalog),
  },
  banner: { js: "var __reMcpBundleUrl = require('node:url').pathToFileURL(__filename).href;" },
});

// The bundle is compiled by the entry, never run directly: its shebang (from src/cli/main.ts) becomes
// a comment of the same length, so the source map's lines still match.
const bundled = readFileSync('dist/re-mcp.cjs', 'utf8');
writeFileSync('dist/re-mcp.cjs', bundled.replace(/^#!/, '//'));

await build({ ...common, entryPoints: ['src/cli/loader.ts'], outfile: 'dist/index.js', format: 'cjs' });
writeFileSync('dist/package.json', `${JSON.stringify({ type: 'commonjs' })}\n`);

// Warm the code cache with a real start: initialize, tools/list, then stdin closes and the loader
// writes the cache on exit. A stale or rejected cache only costs speed, never correctness.
const workspace = mkdtempSync(join(tmpdir(), 're-mcp-cache-'));
const messages = [
  {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'build', version: '1' } },
  },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 2, method: 'tools/list' },
  // One call per family with arguments its schema refuses: the family's code is imported (it loads on
  // a tool's first call) and so compiled into the cache, and nothing runs.
  ...JSON.parse(catalog)
    .filter((entry, i, all) => all.findIndex((e) => e.family === entry.family) === i)
    .map((entry, i) => ({
      jsonrpc: '2.0',
      id: 3 + i,
      method: 'tools/call',
      params: { name: entry.published.name, arguments: { __warm: true } },
    })),
];
const run = spawnSync(process.execPath, ['dist/index.js', 'serve'], {
  input: messages.map((m) => JSON.stringify(m)).join('\n') + '\n',
  env: { PATH: process.env.PATH, RE_MCP_WORKSPACE_ROOT: workspace, RE_MCP_WRITE_CODE_CACHE: '1' },
  encoding: 'utf8',
  timeout: 30_000,
});
rmSync(workspace, { recursive: true, force: true });
if (
  run.status !== 0 ||
  !run.stdout.includes('"id":2') ||
  !run.stdout.includes(`"id":${messages.at(-1).id}`)
) {
  process.stderr.write(`bundle: warming the code cache failed (status ${run.status}):\n${run.stderr}\n`);
  process.exit(1);
}
