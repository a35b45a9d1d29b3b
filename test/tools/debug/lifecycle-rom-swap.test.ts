// desmume_start opens its ROM through the RomStore (a handle proven to be the checked regular file):
// a ROM swapped for a FIFO between the path check and the open gets a typed error and the server keeps
// answering. (Before, the debugger's own header reader did a blocking openSync on the path: one swap
// at the wrong moment blocked the event loop forever.) A swapper flips the ROM between a regular file
// and a FIFO every few ms while desmume_start runs repeatedly; the launcher is large (its hash widens
// the window between the tool's check and the ROM open) and exits at once, so no emulator runs.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { writeDebugTargetRom } from '../../kit/desmume/index.js';
import { makeWorkspace, startServer } from '../../kit/mcp-harness.js';

const CALLS = 24;
/** Outcomes a start may have while its ROM is being swapped: each one typed, none a hang. */
const TYPED = new Set(['invalid-argument', 'workspace-escape', 'rom-changed', 'launch-failed', 'not-found']);

const dir = await makeWorkspace('re-mcp-rom-swap-');
let swapper: ChildProcess | undefined;
after(async () => {
  swapper?.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

test('desmume_start with its ROM swapped for a FIFO: typed errors, never a blocked server', async () => {
  writeDebugTargetRom(join(dir, 'regular.nds'));
  copyFileSync(join(dir, 'regular.nds'), join(dir, 'swap.nds'));
  const launcher = join(dir, 'launcher.sh');
  writeFileSync(launcher, `#!/bin/sh\nexit 3\n#${'x'.repeat(48 * 1024 * 1024)}\n`, { mode: 0o755 });
  const h = await startServer({
    workspace: dir,
    env: { RE_MCP_PROFILE: 'runtime', RE_MCP_DESMUME_LAUNCHER: launcher },
  });
  try {
    // Atomic renames: the name always exists, as a regular file or as a FIFO nobody writes to.
    const script = [
      'import os, shutil, sys, time',
      'd = sys.argv[1]',
      'while True:',
      "    shutil.copyfile(os.path.join(d, 'regular.nds'), os.path.join(d, 'tmp-reg'))",
      "    os.rename(os.path.join(d, 'tmp-reg'), os.path.join(d, 'swap.nds'))",
      '    time.sleep(0.004)',
      "    os.mkfifo(os.path.join(d, 'tmp-fifo'))",
      "    os.rename(os.path.join(d, 'tmp-fifo'), os.path.join(d, 'swap.nds'))",
      '    time.sleep(0.004)',
    ].join('\n');
    swapper = spawn('python3', ['-c', script, dir], { stdio: 'ignore' });
    const codes = new Map<string, number>();
    for (let i = 0; i < CALLS; i++) {
      const r = await h.call('desmume_start', { romPath: 'swap.nds' }, { timeoutMs: 15_000 });
      assert.equal(r.isError, true, 'the launcher exits at once: a start can never succeed');
      const code = (r._meta?.['re-mcp/error'] as { code?: string } | undefined)?.code ?? 'none';
      assert.ok(TYPED.has(code), `untyped outcome ${code}: ${JSON.stringify(r._meta)}`);
      codes.set(code, (codes.get(code) ?? 0) + 1);
    }
    swapper.kill('SIGKILL');
    await new Promise((resolve) => swapper!.once('exit', resolve));
    // The event loop is free: another request is answered at once.
    const caps = await h.call('server_capabilities', {}, { timeoutMs: 5_000 });
    assert.notEqual(caps.isError, true);
    // The race was met: some starts found their path swapped (refused before any read). (On an idle
    // machine some also find the regular file and fail at the launcher; on a loaded one a start's
    // window outlasts every 4 ms phase, so that is shown settled below.)
    assert.ok(
      [...codes.keys()].some((c) => c !== 'launch-failed'),
      JSON.stringify([...codes]),
    );
    // Settled, the regular file reaches the launcher (which exits at once).
    copyFileSync(join(dir, 'regular.nds'), join(dir, 'settled.nds'));
    const settled = await h.call('desmume_start', { romPath: 'settled.nds' }, { timeoutMs: 15_000 });
    assert.equal((settled._meta?.['re-mcp/error'] as { code?: string } | undefined)?.code, 'launch-failed');
  } finally {
    await h.close();
  }
});
