// Crash safety of a rebuild: a child building a manifest is SIGKILLed at each step (ROM written,
// evidence written, verified, published) and at random delays. After every kill the final build
// directory is either absent or complete and verifiable, never partial; the next build removes the
// dead child's temp directory and publishes (or reuses) a verified build; the source is untouched.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { REPO_ROOT } from '../kit/mcp-harness.js';
import { hex, type RebuildFixture, rebuildFixture, sha } from './fixture.js';

let fx: RebuildFixture;
let manifest: string;
const script = join(REPO_ROOT, 'test', 'rebuild', 'build-child.ts');

before(async () => {
  fx = await rebuildFixture();
  const file = fx.layout.files.find((f) => f.path === 'data/one.bin')!;
  const big = new Uint8Array(0x20000).map((_, i) => i & 0xff);
  await fx.put('art/big.bin', big);
  const a = fx.layout.arm9.rom.start + 0x20;
  manifest = await fx.manifest(
    'm/crash.json',
    [
      {
        op: 'patch',
        id: 'p',
        component: { kind: 'arm9' },
        offset: 0x20,
        original: hex(fx.bytes.subarray(a, a + 2)),
        replacement: 'abcd',
      },
      {
        op: 'replace-file',
        id: 'grow',
        component: { kind: 'file', fileId: file.fileId },
        artifact: 'art/big.bin',
        artifactSha256: sha(big),
        componentSha256: sha(fx.bytes.subarray(file.start, file.end)),
      },
    ],
    2,
  );
});
after(async () => {
  await rm(fx.root, { recursive: true, force: true });
});

function run(step: string, killAfterMs: number | null): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, fx.root, fx.rel, manifest, step], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('PAUSED')) child.kill('SIGKILL');
    });
    if (killAfterMs !== null) setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('exit', () => resolve());
  });
}

async function state(): Promise<'absent' | 'complete'> {
  const v = await fx.validate(manifest);
  const dir = join(fx.root, v.outputDir);
  const names = await readdir(dir).catch(() => null);
  if (names === null) return 'absent';
  await fx.verify(manifest); // throws on a partial or divergent directory
  return 'complete';
}

test('SIGKILL at every build step leaves no partial published output', async () => {
  const v = await fx.validate(manifest);
  const parent = join(fx.root, 'output', 'nds', fx.sha16);
  for (const step of ['rom-written', 'evidence-written', 'verified', 'published']) {
    await rm(join(fx.root, v.outputDir), { recursive: true, force: true });
    await run(step, null);
    const s = await state();
    assert.equal(s, step === 'published' ? 'complete' : 'absent', step);
    const r = await fx.build(manifest);
    assert.equal(r.reused, step === 'published');
    const leftovers = (await readdir(parent)).filter((n) => n.startsWith('.'));
    assert.deepEqual(leftovers, [], `temp directories left after ${step}`);
  }
});

test('SIGKILL at random delays never exposes a partial build', async () => {
  const v = await fx.validate(manifest);
  for (const delay of [30, 150, 400, 800, 1500]) {
    await rm(join(fx.root, v.outputDir), { recursive: true, force: true });
    await run('none', delay);
    await state();
  }
  await fx.build(manifest);
  assert.equal(sha(await readFile(join(fx.root, fx.rel))), fx.sha256);
});
