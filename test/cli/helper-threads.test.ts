// The server lowers V8's helper threads below its main thread at start-up (src/cli/helper-threads.ts):
// read back from /proc for the real server process, and for a server started already niced.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { HELPER_NICE, lowerHelperThreads } from '../../src/cli/helper-threads.js';
import { INITIALIZE, startRawServer } from '../kit/raw-server.js';

/**
 * Per-thread priorities are a Linux facility: elsewhere the call must change nothing and say so (it
 * returns 0 before touching any thread, so calling it in the test process is harmless there).
 */
const elsewhereNothing = (): boolean => {
  if (process.platform === 'linux') return false;
  assert.equal(lowerHelperThreads(), 0);
  return true;
};

/** Nice value of each thread of `pid` (field 19 of /proc/PID/task/TID/stat). */
function threadNices(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out.set(Number(t), Number(fields[16]));
  }
  return out;
}

async function nicesOfServer(preload?: string): Promise<{ main: number; others: number[] }> {
  const ws = await mkdtemp(join(tmpdir(), 're-mcp-threads-'));
  const server = await startRawServer(ws, preload === undefined ? {} : { preload });
  try {
    server.send(INITIALIZE);
    await server.waitFor('"id":1');
    assert.ok(server.stdout().includes('"id":1'), server.stderr());
    const nices = threadNices(server.pid);
    const main = nices.get(server.pid)!;
    nices.delete(server.pid);
    return { main, others: [...nices.values()] };
  } finally {
    await server.close();
    await rm(ws, { recursive: true, force: true });
  }
}

test('the server runs V8 helper threads HELPER_NICE below its main thread', async () => {
  if (elsewhereNothing()) return;
  const { main, others } = await nicesOfServer();
  const lowered = others.filter((n) => n === Math.min(19, main + HELPER_NICE));
  // V8's pool (4 workers by default) and the service threads exist at start-up; the libuv pool made
  // later for file reads keeps the main thread's priority.
  assert.ok(lowered.length >= 4, `lowered ${lowered.length} of ${others.length}: ${others}`);
  assert.ok(
    others.every((n) => n === main || n === Math.min(19, main + HELPER_NICE)),
    `${main} / ${others}`,
  );
});

test('a server started niced keeps its own priority and caps its helpers at 19', async () => {
  if (elsewhereNothing()) return;
  // The preload renices the whole process (every thread there is then) before the entry runs.
  const { main, others } = await nicesOfServer(
    "const os = require('node:os'); const fs = require('node:fs');\n" +
      "for (const t of fs.readdirSync('/proc/self/task')) os.setPriority(Number(t), 15);\n",
  );
  assert.equal(main, 15);
  assert.ok(others.length >= 4);
  assert.ok(others.filter((n) => n === 19).length >= 4, `${others}`);
  assert.ok(
    others.every((n) => n === 15 || n === 19),
    `${others}`,
  );
});
