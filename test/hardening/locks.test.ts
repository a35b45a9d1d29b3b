// Lock files of the output areas: junk, empty, legacy and reused-pid locks are recovered with a note;
// a lock that cannot be written (file size limit: EFBIG) is a typed error that leaves nothing behind;
// a leftover too deep to remove is reported once and blocks no build.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdir, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { lockState, processStart } from '../../src/workspace/dir-lock.js';
import { type Fixture, writeFixture } from '../extract/fixture.js';
import { type Harness, makeWorkspace, SERVER_ENTRY, startServer } from '../kit/mcp-harness.js';

let root: string;
let fx: Fixture;
let h: Harness;

before(async () => {
  root = await makeWorkspace('re-mcp-locks-');
  fx = await writeFixture(root);
  h = await startServer({ workspace: root });
});

after(async () => {
  await h?.close();
  // The deep leftover needs an fts-based removal (rm -rf), not a recursive one.
  execFileSync('rm', ['-rf', root]);
});

const area = () => join(root, 'analysis', 'generated', 'nds');
const longAgo = new Date(Date.now() - 60_000);

test('lockState: our own lock, a dead pid, a reused pid and junk are told apart', () => {
  const self = JSON.stringify({ pid: process.pid, start: processStart(process.pid) });
  assert.equal(lockState(self).state, 'ours');
  // pid 1 is alive but started at another time than this text claims: the pid was reused.
  assert.equal(lockState(JSON.stringify({ pid: 1, start: '-1' })).state, 'dead');
  assert.equal(lockState(JSON.stringify({ pid: 2 ** 22 + 12345, start: '5' })).state, 'dead');
  for (const junk of ['', '1', 'abc', '{"pid":"x"}', 'null', String(process.pid)])
    assert.equal(lockState(junk).state, 'unverifiable', JSON.stringify(junk));
});

test('planted junk, empty, legacy and reused-pid locks are recovered with a note, and the bundle is built', async () => {
  const bodies = ['', '1', 'abc', String(2 ** 22 + 7), JSON.stringify({ pid: 1, start: '-1' })];
  for (const body of bodies) {
    await h.ok('nds_extract_analysis_bundle', { rom: fx.rel }); // creates the area
    const lock = join(area(), `.${fx.sha16}.lock`);
    await writeFile(lock, body);
    await utimes(lock, longAgo, longAgo);
    const r = await h.ok<{ recovered: string[] }>('nds_extract_analysis_bundle', { rom: fx.rel });
    assert.ok(
      r.recovered.some((n) => n.startsWith(`recovered the stale lock .${fx.sha16}.lock`)),
      `${JSON.stringify(body)}: ${JSON.stringify(r.recovered)}`,
    );
    assert.ok(!readdirSync(area()).some((n) => n.includes('.lock')), 'no lock left');
  }
});

test('a lock that cannot be written (EFBIG under a file size limit) is a typed error and leaves nothing', async () => {
  await rm(area(), { recursive: true, force: true });
  await mkdir(area(), { recursive: true });
  // SIGXFSZ ignored (inherited through exec) turns the over-limit write into EFBIG, as in a server
  // started that way; the limit is set after the ROM exists, so only new writes fail.
  const r = spawnSync(
    'bash',
    [
      '-c',
      `trap '' XFSZ; ulimit -f 0; exec "${process.execPath}" "${SERVER_ENTRY}" call nds_extract_component '{"rom":"${fx.rel}","component":{"kind":"arm9"}}'`,
    ],
    {
      env: { PATH: process.env.PATH ?? '', RE_MCP_WORKSPACE_ROOT: root, RE_MCP_PROFILE: 'full' },
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  assert.equal(r.status, 1, r.stderr);
  const out = `${r.stdout}${r.stderr}`;
  assert.match(out, /limit-exceeded/);
  assert.match(out, /EFBIG/);
  assert.doesNotMatch(out, /\n\s+at /, 'no stack trace');
  const left = await readdir(area(), { recursive: true });
  assert.deepEqual(
    left.filter((n) => /lock|\.tmp/.test(n)),
    [],
    'no lock or temp file left',
  );
  // And the next extraction, without the limit, works.
  await h.ok('nds_extract_component', { rom: fx.rel, component: { kind: 'arm9' } });
});

test('a leftover too deep to remove is reported once and blocks no build', async () => {
  const arm9 = fx.layout.arm9.rom;
  const original = Buffer.from(fx.bytes.subarray(arm9.start + 0x10, arm9.start + 0x14)).toString('hex');
  await mkdir(join(root, 'm'), { recursive: true });
  const manifest = (replacement: string) =>
    JSON.stringify({
      formatVersion: 1,
      source: { sha256: fx.sha256, size: fx.bytes.length },
      operations: [
        { op: 'patch', id: 'w', component: { kind: 'arm9' }, offset: '0x10', original, replacement },
      ],
    });
  await writeFile(join(root, 'm/a.json'), manifest('deadbeef'));
  await h.ok('nds_mutation_build', { rom: fx.rel, manifest: 'm/a.json' });
  // A dead builder's temp directory, deeper than the server may hold descriptors open.
  const parent = join(root, 'output', 'nds', fx.sha16);
  const leftover = `.${'0'.repeat(16)}.build-${2 ** 22 + 99}-abcd.tmp`;
  execFileSync('python3', [
    '-c',
    `import os\nos.chdir(${JSON.stringify(parent)})\nos.mkdir(${JSON.stringify(leftover)})\nos.chdir(${JSON.stringify(leftover)})\nfor i in range(25000):\n    os.mkdir('d')\n    os.chdir('d')\n`,
  ]);
  for (const [i, replacement] of ['cafebabe', '01020304'].entries()) {
    await writeFile(join(root, `m/b${i}.json`), manifest(replacement));
    const r = await h.call(
      'nds_mutation_build',
      { rom: fx.rel, manifest: `m/b${i}.json` },
      { timeoutMs: 120_000 },
    );
    assert.notEqual(r.isError, true, JSON.stringify(r.content).slice(0, 500));
  }
  const said = h
    .stderr()
    .split('\n')
    .filter((l) => l.includes(`could not remove the leftover`) && l.includes(leftover));
  assert.equal(said.length, 1, 'said once');
  assert.ok(said[0]!.length < 300, 'briefly');
});
