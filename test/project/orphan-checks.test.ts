// A verification check runs in its own process group (so a timeout can kill its children), which
// also means the server's exit does not take it down by itself: when the server shuts down (its
// host closes stdin, SIGTERM) while a check is running, the check's process group must die with it,
// even when it ignores SIGTERM (the SIGKILL that follows the grace period must not be lost).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { makeWorkspace, startServer } from '../kit/mcp-harness.js';
import { killAll, processesWith, uniqueSleep, waitGone } from '../kit/processes.js';

test('a running check does not outlive the server', async () => {
  const ws = await makeWorkspace();
  // Pids echoed inside the check's PID namespace are not host pids: the processes are found by marker.
  const marker = uniqueSleep();
  const pidFile = join(ws, 'pids');
  await writeFile(
    join(ws, 're-mcp.config.json'),
    JSON.stringify({
      checks: {
        long: {
          argv: ['sh', '-c', `trap '' TERM; sleep ${marker} & echo started > ${pidFile}; wait`],
          timeoutMs: 3_600_000,
        },
      },
    }),
  );
  const h = await startServer({ workspace: ws });
  const pending = h.call('run_project_verification', { check: 'long' }).catch(() => null);
  const deadline = Date.now() + 10_000;
  while (!(existsSync(pidFile) && readFileSync(pidFile, 'utf8').includes('started'))) {
    assert.ok(Date.now() < deadline, 'the check did not start');
    await new Promise((res) => setTimeout(res, 50));
  }
  assert.ok(processesWith(marker).length >= 1, 'the check is running');
  await h.close();
  await pending;
  const survivors = await waitGone(marker, 5_000);
  killAll(survivors);
  await rm(ws, { recursive: true, force: true });
  assert.deepEqual(survivors, [], 'check processes survived the server');
});
