// A FIFO, a socket, a character device or a symlink to one, planted at every path a tool reads: each
// call fails with a typed error at once (nothing blocks an I/O thread), the server keeps answering
// afterwards, and it still exits on stdin close and on SIGTERM. The published build's rebuilt.nds
// swapped for a FIFO is the case that used to wedge the server for good.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdir, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type Fixture, writeFixture } from '../extract/fixture.js';
import { type Harness, makeWorkspace, SERVER_ENTRY, startServer } from '../kit/mcp-harness.js';

let root: string;
let fx: Fixture;
let h: Harness;
let buildDir: string;
let manifest: string;
const sockets: Array<{ close(): void }> = [];

const sha = async (b: Uint8Array | string) =>
  (await import('node:crypto')).createHash('sha256').update(b).digest('hex');

/** Plants every special kind under `dir` and returns their workspace-relative names. */
async function plantSpecials(dir: string, rel: string): Promise<Record<string, string>> {
  await mkdir(dir, { recursive: true });
  execFileSync('mkfifo', [join(dir, 'fifo')]);
  const server = createServer();
  await new Promise<void>((res) => server.listen(join(dir, 'socket'), res));
  sockets.push(server);
  await symlink(join(dir, 'fifo'), join(dir, 'link-to-fifo'));
  await symlink('/dev/zero', join(dir, 'link-to-device'));
  const out: Record<string, string> = {
    fifo: `${rel}/fifo`,
    socket: `${rel}/socket`,
    'link to a FIFO': `${rel}/link-to-fifo`,
    'link to /dev/zero': `${rel}/link-to-device`,
  };
  // A character device inside the workspace itself (root can make one; CI runs as root).
  try {
    execFileSync('mknod', [join(dir, 'null-device'), 'c', '1', '3']);
    out['character device'] = `${rel}/null-device`;
  } catch {
    // Not root: the link to /dev/zero still covers a device.
  }
  return out;
}

before(async () => {
  root = await makeWorkspace('re-mcp-special-');
  fx = await writeFixture(root);
  const arm9 = fx.layout.arm9.rom;
  const original = Buffer.from(fx.bytes.subarray(arm9.start + 0x10, arm9.start + 0x14)).toString('hex');
  manifest = 'm/patch.json';
  await mkdir(join(root, 'm'), { recursive: true });
  await writeFile(
    join(root, manifest),
    JSON.stringify({
      formatVersion: 1,
      source: { sha256: fx.sha256, size: fx.bytes.length },
      operations: [
        {
          op: 'patch',
          id: 'w',
          component: { kind: 'arm9' },
          offset: '0x10',
          original,
          replacement: 'deadbeef',
        },
      ],
    }),
  );
  h = await startServer({ workspace: root });
  const built = await h.ok<{ outputDir: string }>('nds_mutation_build', { rom: fx.rel, manifest });
  buildDir = join(root, built.outputDir);
});

after(async () => {
  for (const s of sockets) s.close();
  await h?.close();
  await rm(root, { recursive: true, force: true });
});

/** A call that must come back (as a typed error) well before the client's own timeout. */
async function failsPromptly(name: string, args: Record<string, unknown>): Promise<string> {
  const r = await h.call(name, args, { timeoutMs: 15_000 });
  assert.equal(r.isError, true, `${name} ${JSON.stringify(args)} succeeded`);
  const code = (r._meta?.['re-mcp/error'] as { code?: string } | undefined)?.code;
  assert.ok(typeof code === 'string' && code !== 'internal-error', `${name}: ${JSON.stringify(r.content)}`);
  return code;
}

test('rebuilt.nds swapped for a FIFO: verify and a rebuild fail typed, repeatedly, and the server still answers', async () => {
  await unlink(join(buildDir, 'rebuilt.nds'));
  execFileSync('mkfifo', [join(buildDir, 'rebuilt.nds')]);
  // More calls than the I/O thread pool has threads: a blocking open would take them all.
  const codes = await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      failsPromptly(i % 2 ? 'nds_mutation_build' : 'nds_mutation_verify', { rom: fx.rel, manifest }),
    ),
  );
  for (const c of codes) assert.ok(['verification-failed', 'publish-collision'].includes(c), c);
  await writeFile(join(root, 'plain.bin'), 'abc');
  const hashed = await h.ok<{ sha256: string }>('verify_file_sha256', { path: 'plain.bin' });
  assert.equal(hashed.sha256, await sha('abc'));
  await h.ok('nds_inspect_rom', { rom: fx.rel });
});

test('every special kind at every read path is refused at once', async () => {
  const specials = await plantSpecials(join(root, 'special'), 'special');
  assert.ok(Object.keys(specials).length >= 4);
  for (const [kind, path] of Object.entries(specials)) {
    await failsPromptly('verify_file_sha256', { path });
    await failsPromptly('nds_inspect_rom', { rom: path });
    await failsPromptly('nds_mutation_validate', { rom: fx.rel, manifest: path });
    // The same special file as a replacement artifact.
    const m = `m/artifact-${kind.replace(/\W+/g, '-')}.json`;
    await writeFile(
      join(root, m),
      JSON.stringify({
        formatVersion: 1,
        source: { sha256: fx.sha256, size: fx.bytes.length },
        operations: [
          {
            op: 'replace-component',
            id: 'one',
            component: { kind: 'path', path: 'data/one.bin' },
            artifact: path,
            artifactSha256: '0'.repeat(64),
            componentSha256: '0'.repeat(64),
          },
        ],
      }),
    );
    await failsPromptly('nds_mutation_validate', { rom: fx.rel, manifest: m });
  }
  // Still answering, and a normal build of another manifest works.
  await h.ok('nds_inspect_rom', { rom: fx.rel });
});

async function exitsAfter(kind: 'stdin close' | 'SIGTERM'): Promise<number | null> {
  const child = spawn(process.execPath, [SERVER_ENTRY, 'serve'], {
    env: { PATH: process.env.PATH ?? '', RE_MCP_WORKSPACE_ROOT: root, RE_MCP_PROFILE: 'full' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const init = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  };
  child.stdin.write(`${JSON.stringify(init)}\n`);
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  // Calls that meet the FIFOs, then the exit request.
  let id = 2;
  for (const name of ['nds_mutation_verify', 'nds_mutation_build']) {
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name, arguments: { rom: fx.rel, manifest } } })}\n`,
    );
  }
  let out = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString('utf8');
  });
  const answered = async () => {
    for (let i = 0; i < 300 && !(out.includes('"id":2') && out.includes('"id":3')); i++)
      await new Promise((r) => setTimeout(r, 50));
  };
  await answered();
  const exit = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  if (kind === 'stdin close') child.stdin.end();
  else child.kill('SIGTERM');
  const code = await Promise.race([exit, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 15_000))]);
  if (code === 'hung') child.kill('SIGKILL');
  assert.notEqual(code, 'hung', `the server did not exit on ${kind}`);
  assert.ok(out.includes('"id":2') && out.includes('"id":3'), 'both calls were answered');
  return code as number | null;
}

test('with the FIFOs in place the server exits on stdin close and on SIGTERM', async () => {
  await exitsAfter('stdin close');
  await exitsAfter('SIGTERM');
});
