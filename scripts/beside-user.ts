// Runs test files beside a user's own emulators, optionally on a loaded machine (issue 47's acceptance):
//   node --import tsx scripts/beside-user.ts [--busy N] [--runs N] [filter...]
// starts a RetroArch on the machine's default ports (commands on 55355, remote pad on 55400, the DS
// core) and a DeSmuME with both GDB stubs and a debugger of its own connected (test/kit/user-emulators.ts),
// N busy loops (default 0, at most 8), then runs scripts/run-tests.mjs with the filters (every test file
// when none is given) N times (default 1, at most 5). Afterwards the user's processes must be the same
// ones, alive, on their ports, and their debugger must still halt and resume DeSmuME. Exits with the
// first failing run's status, or 1 when anything of the user's was touched. Everything it starts is
// ended by pid before it exits. Start-up waits are bounded by 30 s.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  alive,
  busyLoops,
  DEFAULT_COMMAND_PORT,
  DEFAULT_PAD_PORT,
  listeningTcpPorts,
  startTime,
  udpPortFree,
  userDesmume,
  userRetroArch,
} from '../test/kit/user-emulators.js';

const DEADLINE_MS = 30_000;

function intOption(args: string[], name: string, fallback: number, max: number): number {
  const at = args.indexOf(name);
  if (at < 0) return fallback;
  const value = Number(args[at + 1]);
  args.splice(at, 2);
  if (!Number.isInteger(value) || value < 0 || value > max) {
    console.error(`${name} takes a whole number from 0 to ${max}`);
    process.exit(2);
  }
  return value;
}

const args = process.argv.slice(2);
const busy = intOption(args, '--busy', 0, 8);
const runs = intOption(args, '--runs', 1, 5);

const dir = mkdtempSync(join(tmpdir(), 're-mcp-user-emulators-'));
const ra = await userRetroArch(dir, DEADLINE_MS);
if (ra === null)
  console.error(
    `note: something already holds ${DEFAULT_COMMAND_PORT} or ${DEFAULT_PAD_PORT}: it is the neighbour`,
  );
const ds = await userDesmume(dir, DEADLINE_MS);
const load = busyLoops(busy);
const started = new Map<number, number | null>();
for (const pid of [ra?.pid, ds.pid]) if (pid !== undefined) started.set(pid, startTime(pid));
console.error(
  `beside: RetroArch ${ra ? `pid ${ra.pid}` : '(the neighbour)'} on ${DEFAULT_COMMAND_PORT}/${DEFAULT_PAD_PORT}, ` +
    `DeSmuME pid ${ds.pid} on ${ds.ports.join('/')}, ${busy} busy loop(s), ${runs} run(s)`,
);

let status = 0;
const touched: string[] = [];
try {
  for (let run = 1; run <= runs && status === 0; run++) {
    const result = spawnSync(process.execPath, [join(import.meta.dirname, 'run-tests.mjs'), ...args], {
      stdio: 'inherit',
    });
    status = result.status ?? 1;
    console.error(`beside: run ${run} of ${runs} ended with ${status}`);
  }
  for (const [pid, start] of started)
    if (!alive(pid) || startTime(pid) !== start) touched.push(`process ${pid} is gone or replaced`);
  const listening = listeningTcpPorts();
  for (const port of ds.ports)
    if (!listening.has(port)) touched.push(`DeSmuME's stub on ${port} stopped listening`);
  if (ds.debugger.readyState !== 'open') touched.push("DeSmuME's debugger was disconnected");
  else await ds.interruptAndResume(DEADLINE_MS).catch((e: Error) => touched.push(e.message));
  for (const port of [DEFAULT_COMMAND_PORT, DEFAULT_PAD_PORT])
    if (await udpPortFree(port)) touched.push(`nothing holds ${port} any more`);
} finally {
  load.stop();
  ds.stop();
  await ra?.stop();
  rmSync(dir, { recursive: true, force: true });
}
if (touched.length > 0) {
  console.error(`beside: the user's emulators were touched:\n- ${touched.join('\n- ')}`);
  process.exit(1);
}
console.error("beside: the user's emulators are untouched");
process.exit(status);
