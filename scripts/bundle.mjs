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
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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

// The analysis code's hash (src/engine.ts): what the files the analysis keeps for itself are checked
// against before they are read back.
const engineRun = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/engine.ts'], {
  encoding: 'utf8',
  timeout: 120_000,
});
const engine = engineRun.stdout.trim();
if (engineRun.status !== 0 || !/^[0-9a-f]{64}$/.test(engine)) {
  process.stderr.write(
    `bundle: hashing the sources failed (status ${engineRun.status}):\n${engineRun.stderr}\n`,
  );
  process.exit(1);
}

// zod re-exports every language's error messages (`z.locales`); the server uses none of them (zod
// imports its English messages itself). Leaving them out of the bundle saves a sixth of its size,
// which every start reads and checksums.
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/]/.test(args.importer)
        ? { path: args.importer, namespace: 'zod-locales' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(join(dirname(args.path), '..', 'locales', 'en.js'))};`,
      resolveDir: dirname(args.path),
    }));
  },
};

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
  plugins: [zodEnglishOnly],
  // Lazy imports become require() calls: a script compiled through vm (for the code cache) cannot
  // use dynamic import() reliably on Node 20, and every external package here is CommonJS-loadable.
  supported: { 'dynamic-import': false },
  // The CommonJS bundle has no import.meta; give modules that locate files a file URL of the bundle.
  define: {
    'import.meta.url': '__reMcpBundleUrl',
    __RE_MCP_VERSION__: JSON.stringify(version),
    __RE_MCP_ENGINE__: JSON.stringify(engine),
    // An array literal in the bundle (compiled into the code cache), not JSON text parsed at start-up.
    __RE_MCP_CATALOG__: catalog,
  },
  banner: { js: "var __reMcpBundleUrl = require('node:url').pathToFileURL(__filename).href;" },
});

// The bundle is compiled by the entry, never run directly: its shebang (from src/cli/main.ts) becomes
// a comment of the same length, so the source map's lines still match.
const bundled = readFileSync('dist/re-mcp.cjs', 'utf8');
writeFileSync('dist/re-mcp.cjs', bundled.replace(/^#!/, '//'));

await build({ ...common, entryPoints: ['src/cli/loader.ts'], outfile: 'dist/index.js', format: 'cjs' });
writeFileSync('dist/package.json', `${JSON.stringify({ type: 'commonjs' })}\n`);

// Graphviz (WebAssembly, @viz-js/viz) for nds_function_graph: one self-contained CommonJS file that
// src/graph/graphviz.ts loads in a worker from beside the bundle. Copied as published (its own
// copyright header names what it contains), so the package needs no registry for it either.
copyFileSync('node_modules/@viz-js/viz/dist/viz.cjs', 'dist/viz.cjs');

// armips (WebAssembly, the armips package on npm) for nds_assemble: its ES module and WebAssembly, which
// src/asm/armips.ts loads in a worker from dist/armips/ (an ES module folder inside the CommonJS dist).
mkdirSync('dist/armips', { recursive: true });
copyFileSync('node_modules/armips/index.js', 'dist/armips/index.js');
copyFileSync('node_modules/armips/armips.wasm', 'dist/armips/armips.wasm');
const armipsVersion = JSON.parse(readFileSync('node_modules/armips/package.json', 'utf8')).version;
writeFileSync(
  'dist/armips/package.json',
  `${JSON.stringify({ type: 'module', name: 'armips', version: armipsVersion })}\n`,
);
writeFileSync(
  'dist/armips/NOTICE',
  `armips ${armipsVersion} as published on npm (https://github.com/HailToDodongo/armips_wasm): armips by Kingcom (https://github.com/Kingcom/armips), compiled to WebAssembly by HailToDodongo. MIT License.\n`,
);

// Warm the code cache with real starts: initialize, tools/list, the first calls a session usually
// makes, run for real on the demo ROM (so the code they run is compiled into the cache, not compiled
// on a user's first call), then one refused call per tool; then stdin closes and the loader writes
// the cache on exit. A second start in the same workspace makes the same real calls again: they then
// read back what the first kept there (a ROM's start-up copies), the path a user's later sessions
// take, and it writes the cache again (everything the first compiled comes with it, read from the
// cache it started with). A stale or rejected cache only costs speed, never correctness.
const workspace = mkdtempSync(join(tmpdir(), 're-mcp-cache-'));
copyFileSync('examples/demo-workspace/roms/demo.nds', join(workspace, 'demo.nds'));
const call = (id, name, args) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});
const start = [
  {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'build', version: '1' } },
  },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 2, method: 'tools/list' },
];
// The first calls of a session, each answered for real (ids from 3).
const realCalls = [
  ['nds_inspect_rom', { rom: 'demo.nds' }],
  ['server_capabilities', {}],
  ['nds_list_files', { rom: 'demo.nds' }],
  ['nds_list_overlays', { rom: 'demo.nds' }],
  ['nds_resolve_runtime_address', { rom: 'demo.nds', processor: 'arm9', address: '0x02000000' }],
  ['nds_resolve_rom_offset', { rom: 'demo.nds', offset: '0x4000' }],
].map(([name, args], i) => call(3 + i, name, args));
const realIds = realCalls.map((m) => m.id);
const first = [
  ...start,
  ...realCalls,
  // One call per tool with arguments its schema refuses: the tool's module is imported (it loads on
  // the tool's first call) and so compiled into the cache, and nothing runs.
  ...JSON.parse(catalog).map((entry, i) => call(100 + i, entry.name, { __warm: true })),
];

/** One start of the built server on `messages`, writing the code cache as it exits. */
const warm = (messages) =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, ['dist/index.js', 'serve'], {
      env: { PATH: process.env.PATH, RE_MCP_WORKSPACE_ROOT: workspace, RE_MCP_WRITE_CODE_CACHE: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const pending = new Set(messages.filter((m) => m.id !== undefined).map((m) => m.id));
    const answers = new Map();
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill(), 60_000);
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      for (let nl = stdout.indexOf('\n'); nl >= 0; nl = stdout.indexOf('\n')) {
        const message = JSON.parse(stdout.slice(0, nl));
        stdout = stdout.slice(nl + 1);
        answers.set(message.id, message);
        pending.delete(message.id);
      }
      // Every answer in: closing stdin ends the server, which writes the cache as it exits.
      if (pending.size === 0) child.stdin.end();
    });
    child.on('exit', (status) => {
      clearTimeout(timer);
      resolve({ status, stderr, answers, pending });
    });
    child.stdin.write(messages.map((m) => JSON.stringify(m)).join('\n') + '\n');
  });

for (const [pass, messages] of [
  ['first', first],
  ['second', [...start, ...realCalls]],
]) {
  const warmed = await warm(messages);
  const failed = realIds.filter((id) => {
    const answer = warmed.answers.get(id);
    return !answer?.result || answer.result.isError === true;
  });
  if (warmed.status !== 0 || warmed.pending.size > 0 || failed.length > 0) {
    rmSync(workspace, { recursive: true, force: true });
    process.stderr.write(
      `bundle: warming the code cache failed (${pass} start: status ${warmed.status}, unanswered ${[...warmed.pending]}):\n` +
        `${JSON.stringify(failed.map((id) => warmed.answers.get(id)))}\n${warmed.stderr}\n`,
    );
    process.exit(1);
  }
}
rmSync(workspace, { recursive: true, force: true });
