// The package as a user gets it: `npm pack`, then `npm install --offline` of the tarball into an empty
// directory with an empty npm cache (so nothing can come from a registry or a warm cache), then the
// installed `re-mcp` binary runs `doctor` and serves MCP to the MCP Inspector CLI (tools/list and one
// tools/call). Also: a code cache labelled for another Node version is ignored (the server still
// runs, the doctor says why start-up is slower), and a damaged install fails the doctor.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { REPO_ROOT } from '../kit/mcp-harness.js';

const INSPECTOR = join(REPO_ROOT, 'node_modules', '.bin', 'inspector');
const dirs: string[] = [];
const temp = (prefix: string) => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  dirs.push(dir);
  return dir;
};
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface PackReport {
  tarball: string;
  packedBytes: number;
  unpackedBytes: number;
  files: string[];
  budget: { packed: number; unpacked: number };
  problems: string[];
}

let pack: PackReport;
let installDir: string;
let bin: string;
let workspace: string;
let home: string;
const version = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).version as string;

function run(
  command: string,
  args: string[],
  env: Record<string, string> = {},
  cwd = installDir,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      {
        cwd,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, ...env },
        encoding: 'utf8',
        timeout: 120_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? -1) : 0, stdout, stderr }),
    );
  });
}

before(async () => {
  const packDir = temp('re-mcp-pack-');
  // The same check `npm run pack:check` runs: the file list and the size budget.
  pack = JSON.parse(
    execFileSync(process.execPath, [join(REPO_ROOT, 'scripts', 'package-check.mjs'), packDir], {
      encoding: 'utf8',
    }),
  ) as PackReport;
  installDir = temp('re-mcp-install-');
  workspace = temp('re-mcp-pkg-ws-');
  home = temp('re-mcp-pkg-home-');
  const cache = temp('re-mcp-empty-npm-cache-');
  const install = await run(
    'npm',
    ['install', '--offline', '--no-audit', '--no-fund', '--cache', cache, pack.tarball],
    {},
    installDir,
  );
  assert.equal(install.code, 0, install.stderr);
  bin = join(installDir, 'node_modules', '.bin', 're-mcp');
});

test('the tarball holds exactly what runs, within its size budget', (t) => {
  assert.deepEqual(pack.problems, []);
  for (const name of ['dist/index.js', 'dist/re-mcp.cjs', 'dist/re-mcp.cjs.cache', 'LICENSE', 'CHANGELOG.md'])
    assert.ok(pack.files.includes(name), name);
  assert.ok(!pack.files.some((f) => f.endsWith('.map') || f.startsWith('src/') || f.startsWith('test/')));
  t.diagnostic(
    `tarball ${pack.packedBytes} bytes (budget ${pack.budget.packed}), unpacked ${pack.unpackedBytes} bytes (budget ${pack.budget.unpacked}), ${pack.files.length} files`,
  );
});

test('the offline install exposes the re-mcp binary, which runs with no build step', async () => {
  assert.ok(existsSync(bin));
  const v = await run(bin, ['--version']);
  assert.equal(v.code, 0, v.stderr);
  assert.equal(v.stdout.trim(), version);
  const npx = await run('npx', ['--offline', '--no-install', 're-mcp', '--version']);
  assert.equal(npx.stdout.trim(), version, npx.stderr);
  // Nothing was compiled on install: the installed files are the packed ones, byte for byte.
  const installed = join(installDir, 'node_modules', 're-mcp');
  for (const name of ['dist/re-mcp.cjs', 'dist/re-mcp.cjs.cache'])
    assert.deepEqual(readFileSync(join(installed, name)), readFileSync(join(REPO_ROOT, name)), name);
});

test('re-mcp doctor passes on the installed package, starting from its code cache', async () => {
  const doctor = await run(bin, ['doctor', '--json', '--workspace-root', workspace]);
  const report = JSON.parse(doctor.stdout) as {
    ok: boolean;
    version: string;
    checks: Array<{ id: string; status: string; detail: string }>;
  };
  assert.equal(doctor.code, 0, doctor.stdout);
  assert.equal(report.ok, true);
  assert.equal(report.version, version);
  const status = Object.fromEntries(report.checks.map((c) => [c.id, c.status]));
  for (const id of [
    'node',
    'code-cache',
    'arm-decoder',
    'blz',
    'nds-parser',
    'search',
    'workspace',
    'output-roots',
  ])
    assert.equal(status[id], 'ok', id);
  assert.equal(status.desmume, 'ok', 'the real DeSmuME on this machine starts with its stubs');
});

test('the MCP Inspector CLI drives the installed server: tools/list and a tools/call', async () => {
  writeFileSync(join(workspace, 'hello.txt'), 'hello\n');
  const env = ['-e', `RE_MCP_WORKSPACE_ROOT=${workspace}`];
  const list = await run(INSPECTOR, ['--cli', ...env, '--method', 'tools/list', bin, 'serve']);
  assert.equal(list.code, 0, list.stderr);
  const tools = (JSON.parse(list.stdout) as { tools: Array<{ name: string; outputSchema?: unknown }> }).tools;
  const names = tools.map((t) => t.name);
  for (const name of ['server_capabilities', 'verify_file_sha256', 'nds_inspect_rom', 'nds_find_xrefs'])
    assert.ok(names.includes(name), name);
  // The default session lists the static tools; the rest is one setting away (RE_MCP_PROFILE).
  assert.ok(!names.includes('desmume_start'), 'the default profile is static');
  assert.ok(tools.every((t) => t.outputSchema !== undefined));
  // --tool-arg takes several values: it goes before the options that end it.
  const call = await run(INSPECTOR, [
    '--cli',
    ...env,
    '--tool-arg',
    'path=hello.txt',
    '--method',
    'tools/call',
    '--tool-name',
    'verify_file_sha256',
    bin,
    'serve',
  ]);
  assert.equal(call.code, 0, call.stderr);
  const result = JSON.parse(call.stdout) as {
    isError?: boolean;
    structuredContent: { sha256: string; size: number };
  };
  assert.notEqual(result.isError, true);
  assert.equal(result.structuredContent.size, 6);
  assert.equal(result.structuredContent.sha256, createHash('sha256').update('hello\n').digest('hex'));
});

test('the installed package runs the demo (its bundled workspace ships with it)', async () => {
  const demo = await run(bin, ['demo']);
  assert.equal(demo.code, 0, demo.stderr);
  assert.match(demo.stdout + demo.stderr, /demo finished: every step behaved as expected/);
});

test('a code cache made for another Node version is ignored, never run', async () => {
  const dist = join(installDir, 'node_modules', 're-mcp', 'dist');
  const cachePath = join(dist, 're-mcp.cjs.cache');
  const original = readFileSync(cachePath);
  try {
    // The same payload and checksums (V8 itself would accept it here), labelled with another Node
    // version in the header's first line.
    const header = original.subarray(0, original.indexOf(0x0a) + 1).toString('latin1');
    assert.ok(header.includes(` ${process.version} `), header);
    const relabelled = Buffer.concat([
      Buffer.from(header.replace(` ${process.version} `, ' v18.20.0 '), 'latin1'),
      original.subarray(header.length),
    ]);
    writeFileSync(cachePath, relabelled);
    const doctor = await run(bin, ['doctor', '--json', '--workspace-root', workspace]);
    const cache = (
      JSON.parse(doctor.stdout) as {
        checks: Array<{ id: string; status: string; facts?: { state?: string } }>;
      }
    ).checks.find((c) => c.id === 'code-cache')!;
    assert.equal(cache.status, 'missing');
    assert.equal(cache.facts?.state, 'stale');
    assert.equal(doctor.code, 0, 'only start-up speed is affected');
    const v = await run(bin, ['--version']);
    assert.equal(v.stdout.trim(), version);
  } finally {
    writeFileSync(cachePath, original);
  }
});

test('the installed package draws a picture: Graphviz ships beside the bundle, the PNG lands in output/images', async () => {
  copyFileSync(join(REPO_ROOT, 'examples/demo-workspace/roms/demo.nds'), join(workspace, 'demo.nds'));
  const r = await run(
    bin,
    [
      'call',
      'nds_function_graph',
      '{"rom":"demo.nds","processor":"arm9","address":"0x02000000"}',
      '--save-images',
    ],
    { RE_MCP_WORKSPACE_ROOT: workspace },
  );
  assert.equal(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout) as { graph: { nodes: number }; image: { sha256: string; pngBytes: number } };
  assert.ok(s.graph.nodes >= 1);
  const saved = /image: (output\/images\/nds_function_graph-[0-9a-f]{16}\.png)/.exec(r.stderr)?.[1];
  assert.ok(saved, r.stderr);
  const png = readFileSync(join(workspace, saved));
  assert.equal(png.length, s.image.pngBytes);
  assert.equal(createHash('sha256').update(png).digest('hex'), s.image.sha256);
});

test('a damaged install (the decoder payload removed) fails the doctor', async () => {
  const wasm = join(
    installDir,
    'node_modules',
    're-mcp',
    'node_modules',
    '@alexaltea',
    'capstone-js',
    'dist',
    'capstone.wasm',
  );
  assert.ok(existsSync(wasm), 'Capstone is bundled into the package');
  rmSync(wasm);
  const doctor = await run(bin, ['doctor', '--json', '--workspace-root', workspace]);
  const checks = (JSON.parse(doctor.stdout) as { checks: Array<{ id: string; status: string; fix: string }> })
    .checks;
  const decoder = checks.find((c) => c.id === 'arm-decoder')!;
  assert.equal(decoder.status, 'broken');
  assert.match(decoder.fix, /reinstall/);
  assert.equal(doctor.code, 1);
});
