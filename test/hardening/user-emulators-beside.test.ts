// A user's own emulators running beside the tests (issue 47), started once for the file by
// test/kit/user-emulators.ts: a RetroArch on the machine's default ports (network commands on 55355,
// remote pad on 55400) playing a DS program with the DS core, and a DeSmuME with both GDB stubs, resumed
// by a debugger of its own that stays connected. The tests' RetroArch, server and DeSmuME use ports
// chosen free at run time, so nothing of theirs reaches the user's:
// - the server drives its own RetroArch only: a button it holds reaches the tests' game, never the
//   user's (whose DS program paints its screen red while A is down), a pause, a save state and a
//   screenshot land in the tests' RetroArch and folders, the user's keeps playing with empty folders;
// - "nothing listens" is proven on a pad port chosen just now, while the user's pad listens on 55400;
// - desmume_start picks stub ports apart from the user's, a port the user's DeSmuME holds is refused,
//   and desmume_stop ends only the server's emulator: the user's keeps running, listening, and its
//   debugger still halts and resumes it.
// The same runs again under two busy loops (a loaded machine). When something already holds 55355 or
// 55400 (a real user's RetroArch on this machine), that holder is the neighbour: everything runs beside
// it the same, and only the looks at the neighbour this file starts (its screen, status and folders)
// are left out. Waits are bounded by deadlines sized for a loaded machine, never by sleeps.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { desmumeProcesses, writeDebugTargetRom } from '../kit/desmume/index.js';
import { type Harness, makeWorkspace, startServer } from '../kit/mcp-harness.js';
import { readPng, rgbAt } from '../kit/png.js';
import {
  freeUdpPort,
  launchRetroArch,
  type RetroArchInstance,
  retroarchEnv,
} from '../kit/retroarch/launch.js';
import { GBA, GBA_ROM } from '../kit/retroarch/roms.js';
import {
  alive,
  busyLoops,
  DEFAULT_COMMAND_PORT,
  DEFAULT_PAD_PORT,
  listeningTcpPorts,
  startTime,
  type UserDesmume,
  udpPortFree,
  until,
  userDesmume,
  userRetroArch,
} from '../kit/user-emulators.js';

const RED = [255, 0, 0];
const BLUE = [0, 0, 255];
const DEADLINE_MS = 30_000;
const wait = <T>(what: string, probe: () => Promise<T | null>) => until(what, DEADLINE_MS, probe);

const neighbourDir = mkdtempSync(join(tmpdir(), 're-mcp-user-emulators-'));
let user: RetroArchInstance | null = null;
let userDs: UserDesmume;
/** The user's side seen as the user sees it: their own client on their own RetroArch. */
let userView: Harness | null = null;
/** Each user process by pid with its start time: the same pair afterwards is the same process. */
const userProcesses = new Map<number, number | null>();
const harnesses: Harness[] = [];

async function server(options: Parameters<typeof startServer>[0]): Promise<Harness> {
  const h = await startServer(options);
  harnesses.push(h);
  return h;
}

async function topLeft(h: Harness): Promise<{ size: [number, number]; top: number[] }> {
  const r = await h.call('retroarch_screenshot', {});
  const image = r.content.find((c) => c.type === 'image');
  assert.ok(image?.data, JSON.stringify(r).slice(0, 400));
  const png = readPng(Buffer.from(image.data, 'base64'));
  return { size: [png.width, png.height], top: rgbAt(png, 10, 5) };
}

async function keyinput(h: Harness): Promise<number> {
  const r = await h.ok<{ hex: string }>('retroarch_read_memory', { address: GBA.keyinput, length: 2 });
  return Buffer.from(r.hex, 'hex').readUInt16LE(0);
}

before(async () => {
  user = await userRetroArch(neighbourDir, DEADLINE_MS);
  userDs = await userDesmume(neighbourDir, DEADLINE_MS);
  for (const pid of [user?.pid, userDs.pid]) if (pid !== undefined) userProcesses.set(pid, startTime(pid));
  if (user) {
    userView = await startServer({
      env: {
        RE_MCP_PROFILE: 'retroarch',
        RETROARCH_PORT: String(DEFAULT_COMMAND_PORT),
        RETROARCH_REMOTE_PAD_PORT: String(DEFAULT_PAD_PORT),
        RETROARCH_SCREENSHOT_DIR: user.screenshotDir,
      },
    });
    const view = userView;
    const blue = await wait('the user DS program painting its screen', async () => {
      const shot = await topLeft(view);
      return shot.top.join() === BLUE.join() ? shot : null;
    });
    assert.deepEqual(blue.size, [256, 384]);
    for (const file of readdirSync(user.screenshotDir)) rmSync(join(user.screenshotDir, file));
  }
});

after(async () => {
  for (const h of harnesses.splice(0)) await h.close();
  await userView?.close();
  userDs?.stop();
  await user?.stop();
  rmSync(neighbourDir, { recursive: true, force: true });
});

/** Our emulator-owning paths beside the user's emulators, then the user's checked untouched. */
async function besideTheUser(): Promise<void> {
  // The tests' RetroArch and server: every port chosen free just now.
  const ra = await launchRetroArch({
    core: 'mgba',
    rom: GBA_ROM,
    remotePad: true,
    readyTimeoutMs: DEADLINE_MS,
  });
  try {
    assert.notEqual(ra.port, DEFAULT_COMMAND_PORT);
    assert.notEqual(ra.padPort, DEFAULT_PAD_PORT);
    const mcp = await server({ env: retroarchEnv(ra) });
    const status = await mcp.ok<{ game: string; remotePad: unknown }>('retroarch_get_status', {});
    assert.equal(status.game, 'gba-test');
    assert.deepEqual(status.remotePad, { port: ra.padPort, listening: true });
    await mcp.ok('retroarch_input', { action: 'hold', buttons: ['a'] });
    await wait('A seen by the tests game', async () => (((await keyinput(mcp)) & 1) === 0 ? true : null));
    const saved = await mcp.ok<{ confirmed: boolean; file: string }>('retroarch_save_state_current', {});
    assert.equal(saved.confirmed, true, JSON.stringify(saved));
    assert.equal(saved.file, join(ra.savestateDir, 'gba-test.state'), "the state is in the tests' folder");
    assert.deepEqual((await topLeft(mcp)).size, [240, 160], "the screenshot is the tests' GBA");
    await mcp.ok('retroarch_set_paused', { paused: true });

    if (user && userView) {
      // A is still held on the tests' pad and the tests' RetroArch is paused: the user's is neither.
      const seen = await userView.ok<{ state: string; system: string; game: string }>(
        'retroarch_get_status',
        {},
      );
      assert.deepEqual([seen.state, seen.system, seen.game], ['playing', 'nds', 'user-ds']);
      assert.deepEqual(readdirSync(user.savestateDir), [], "no state in the user's folder");
      assert.deepEqual(readdirSync(user.screenshotDir), [], "no screenshot in the user's folder");
      const top = (await topLeft(userView)).top;
      assert.notDeepEqual(top, RED, "the user's game never saw A");
      assert.deepEqual(top, BLUE);
      for (const file of readdirSync(user.screenshotDir)) rmSync(join(user.screenshotDir, file));
    }
    await mcp.ok('retroarch_input', { action: 'release', buttons: ['a'] });

    // Nothing listening, proven on a pad port chosen just now (the user's pad listens on 55400).
    const silentPad = await freeUdpPort();
    assert.notEqual(silentPad, DEFAULT_PAD_PORT);
    const noPad = await server({
      env: { ...retroarchEnv(ra), RETROARCH_REMOTE_PAD_PORT: String(silentPad) },
    });
    const off = await noPad.ok<{ remotePad: unknown }>('retroarch_get_status', {});
    assert.deepEqual(off.remotePad, { port: silentPad, listening: false });
    assert.equal((await noPad.fail('retroarch_input', { buttons: ['a'] })).code, 'not-configured');
    if (userView) {
      const theirs = await userView.ok<{ remotePad: unknown }>('retroarch_get_status', {});
      assert.deepEqual(theirs.remotePad, { port: DEFAULT_PAD_PORT, listening: true });
    }
  } finally {
    for (const h of harnesses.splice(0)) await h.close();
    await ra.stop();
  }

  // DeSmuME: the server's own emulator on automatic ports, apart from the user's.
  const ws = await makeWorkspace('re-mcp-beside-user-');
  try {
    writeDebugTargetRom(join(ws, 'debug.nds'));
    const dbg = await server({ workspace: ws, env: { RE_MCP_PROFILE: 'runtime' } });
    const taken = await dbg.fail('desmume_start', {
      rom: 'debug.nds',
      gdbPort: userDs.ports[0],
      startTimeoutMs: DEADLINE_MS,
    });
    assert.equal(taken.code, 'launch-failed');
    assert.match(taken.message, new RegExp(`port ${userDs.ports[0]} is already in use`));
    assert.deepEqual(desmumeProcesses(ws), [], 'nothing started on a port the user holds');
    const started = await dbg.ok<{ pid: number; ports: { arm9: number; arm7: number } }>('desmume_start', {
      rom: 'debug.nds',
      arm7: true,
      startTimeoutMs: DEADLINE_MS,
    });
    assert.notEqual(started.pid, userDs.pid);
    for (const port of [started.ports.arm9, started.ports.arm7])
      assert.ok(!userDs.ports.includes(port), `the server's stub on ${port} is not the user's`);
    assert.deepEqual(desmumeProcesses(ws), [started.pid]);
    await dbg.ok('desmume_stop', {});
    await wait('the server emulator gone', async () => (desmumeProcesses(ws).length === 0 ? true : null));
  } finally {
    for (const h of harnesses.splice(0)) await h.close();
    rmSync(ws, { recursive: true, force: true });
  }

  // The user's processes are the same ones, alive; their ports are still theirs.
  for (const [pid, start] of userProcesses) {
    assert.ok(alive(pid), `the user's process ${pid} is alive`);
    assert.equal(startTime(pid), start, `process ${pid} is the one the user started`);
  }
  const listening = listeningTcpPorts();
  for (const port of userDs.ports) assert.ok(listening.has(port), `the user's stub on ${port} listens`);
  assert.equal(userDs.debugger.readyState, 'open', "the user's debugger is still connected");
  await userDs.interruptAndResume(DEADLINE_MS);
  for (const port of [DEFAULT_COMMAND_PORT, DEFAULT_PAD_PORT])
    assert.equal(await udpPortFree(port), false, `the user's RetroArch still holds ${port}`);
  if (userView) {
    const seen = await userView.ok<{ state: string; game: string }>('retroarch_get_status', {});
    assert.deepEqual([seen.state, seen.game], ['playing', 'user-ds']);
  }
}

test('a RetroArch and a DeSmuME of the user run beside the tests: nothing of the tests reaches them', () =>
  besideTheUser());

test('the same under two busy loops: the tests wait for emulators by deadlines, not by timing', async () => {
  const load = busyLoops(2);
  try {
    await besideTheUser();
    for (const pid of load.pids) assert.ok(alive(pid), 'the busy loops ran throughout');
  } finally {
    load.stop();
  }
});
