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

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('a running check does not outlive the server', async () => {
  const ws = await makeWorkspace();
  const pidFile = join(ws, 'pids');
  await writeFile(
    join(ws, 're-mcp.config.json'),
    JSON.stringify({
      checks: {
        long: {
          argv: ['sh', '-c', `trap '' TERM; sleep 120 & echo $! > ${pidFile}; echo $$ >> ${pidFile}; wait`],
          timeoutMs: 3_600_000,
        },
      },
    }),
  );
  const h = await startServer({ workspace: ws });
  const pending = h.call('run_project_verification', { check: 'long' }).catch(() => null);
  const deadline = Date.now() + 10_000;
  while (!(existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim().split('\n').length === 2)) {
    assert.ok(Date.now() < deadline, 'the check did not start');
    await new Promise((res) => setTimeout(res, 50));
  }
  const pids = readFileSync(pidFile, 'utf8').trim().split('\n').map(Number);
  await h.close();
  await pending;
  const until = Date.now() + 5_000;
  while (pids.some(alive) && Date.now() < until) await new Promise((res) => setTimeout(res, 50));
  const survivors = pids.filter(alive);
  for (const pid of survivors) process.kill(pid, 'SIGKILL');
  await rm(ws, { recursive: true, force: true });
  assert.deepEqual(survivors, [], 'check processes survived the server');
});
