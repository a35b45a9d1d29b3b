// Crash safety of the bundle: a child building a bundle is SIGKILLed at exact steps (after each kind
// of write, between the two renames, after promotion) and at random delays through the real CLI. After
// every kill the final path holds a complete bundle — the previous one unless the new one was already
// promoted — or, only in the window between the two renames, nothing, with the previous bundle intact
// aside and put back by recovery. A poller watches the final path the whole time: it must never see
// a directory there without a complete manifest.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { buildAnalysisBundle } from '../../src/extract/bundle.js';
import { recoverLeftovers } from '../../src/extract/promote.js';
import { RomStore } from '../../src/roms/rom-store.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { makeWorkspace, REPO_ROOT, SERVER_ENTRY } from '../kit/mcp-harness.js';
import { checkCompleteBundle } from './bundle-check.js';
import { type Fixture, writeFixture } from './fixture.js';

let fx: Fixture;
let parent: string;
let final: string;

before(async () => {
  fx = await writeFixture(await makeWorkspace('re-mcp-crash-'));
  parent = join(fx.root, 'analysis', 'generated', 'nds');
  final = join(parent, fx.sha16);
});
after(async () => {
  await rm(fx.root, { recursive: true, force: true });
});

/** Watches `final`: any directory there whose manifest is missing while the directory stays put is a failure. */
function startPoller(): { stop(): Promise<string[]> } {
  const problems: string[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const before = await stat(final).catch(() => null);
      if (before) {
        const manifest = await readFile(join(final, 'manifest.json'), 'utf8').catch(() => null);
        if (manifest === null) {
          const after = await stat(final).catch(() => null);
          // Same directory still in place and no manifest: a partial bundle is visible.
          if (after && after.ino === before.ino)
            problems.push(`no manifest in ${final}: ${await readdir(final)}`);
        }
      }
      await new Promise((r) => setTimeout(r, 1));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return problems;
    },
  };
}

function runChild(argv: string[]): { child: ChildProcess; lines: string[]; paused: Promise<boolean> } {
  const child = spawn(process.execPath, argv, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let buffer = '';
  const paused = new Promise<boolean>((resolve) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const parts = buffer.split('\n');
      buffer = parts.pop()!;
      for (const line of parts) {
        lines.push(line);
        if (line === 'PAUSED') resolve(true);
      }
    });
    child.on('exit', () => resolve(false));
  });
  return { child, lines, paused };
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((r) => child.once('exit', () => r()));

/** After a kill: check the state, recover, and return the bundle ID now at the final path. */
async function checkAfterKill(previousId: string, promoted: boolean, label: string): Promise<string> {
  if (existsSync(final)) {
    const { bundleId } = await checkCompleteBundle(final, fx.sha256);
    if (!promoted) assert.equal(bundleId, previousId, `${label}: the previous bundle is still in place`);
  } else {
    assert.ok(!promoted, `${label}: after promotion the final path exists`);
    const aside = (await readdir(parent)).filter((n) => n.endsWith('.old'));
    assert.equal(aside.length, 1, `${label}: the previous bundle was moved aside`);
    const { bundleId } = await checkCompleteBundle(join(parent, aside[0]!), fx.sha256);
    assert.equal(bundleId, previousId, `${label}: the moved-aside bundle is the previous one, intact`);
  }
  const area = await new Workspace(fx.root).outputDir('analysis/generated', ['nds']);
  await recoverLeftovers(area, fx.sha16).finally(() => area.close());
  const { bundleId } = await checkCompleteBundle(final, fx.sha256);
  if (!promoted) assert.equal(bundleId, previousId, `${label}: recovery restored the previous bundle`);
  assert.deepEqual(
    (await readdir(parent)).filter((n) => n.startsWith('.')),
    [],
    `${label}: no leftovers`,
  );
  return bundleId;
}

test('SIGKILL at every kind of step never exposes a partial bundle and keeps the previous one', async () => {
  const workspace = new Workspace(fx.root);
  let previous = (await new RomStore(workspace).withRom(fx.rel, (rom) => buildAnalysisBundle(workspace, rom)))
    .bundleId;
  const script = join(REPO_ROOT, 'test', 'extract', 'bundle-child.ts');
  const poller = startPoller();
  const killedAt: string[] = [];
  try {
    // Steps for this fixture: 9 writes (the manifest last), then moved-aside, promoted, carried-over.
    for (const step of [0, 4, 8, 9, 10, 11]) {
      const { child, lines, paused } = runChild(['--import', 'tsx', script, fx.root, fx.rel, String(step)]);
      assert.ok(await paused, `child reached step ${step}: ${lines.join(' | ')}`);
      child.kill('SIGKILL');
      await exited(child);
      const name = lines.find((l) => l.startsWith(`STEP ${step} `))!.slice(`STEP ${step} `.length);
      killedAt.push(name);
      const promoted = lines.some((l) => / promoted$/.test(l));
      previous = await checkAfterKill(previous, promoted, `killed at ${name}`);
    }
  } finally {
    assert.deepEqual(await poller.stop(), []);
  }
  assert.deepEqual(killedAt, [
    'wrote arm9.bin',
    'wrote overlays/arm7/overlay_0001.bin',
    'wrote manifest.json',
    'moved-aside',
    'promoted',
    'carried-over',
  ]);
});

test('SIGKILL of the real CLI at random delays leaves a complete bundle', async () => {
  assert.ok(existsSync(SERVER_ENTRY), 'run npm run build first');
  let previous = (await checkCompleteBundle(final, fx.sha256)).bundleId;
  const poller = startPoller();
  try {
    for (const delay of [40, 120, 260, 400]) {
      const child = spawn(
        process.execPath,
        [SERVER_ENTRY, 'call', 'nds_extract_analysis_bundle', JSON.stringify({ rom: fx.rel })],
        { env: { PATH: process.env.PATH ?? '', RE_MCP_WORKSPACE_ROOT: fx.root }, stdio: 'ignore' },
      );
      await new Promise((r) => setTimeout(r, delay));
      child.kill('SIGKILL');
      await exited(child);
      const now = existsSync(final) ? (await checkCompleteBundle(final, fx.sha256)).bundleId : null;
      const promoted = now !== null && now !== previous;
      previous = await checkAfterKill(previous, promoted, `CLI killed after ${delay} ms`);
    }
  } finally {
    assert.deepEqual(await poller.stop(), []);
  }
});
