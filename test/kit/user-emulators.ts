// A user's own emulators and a loaded machine, as the tests meet them (issue 47): a RetroArch on the
// machine's default ports (network commands on 55355, remote pad on 55400) playing the DS input
// program with the DS core, a DeSmuME with both GDB stubs resumed by a debugger of its own that stays
// connected, and busy loops that keep the cores occupied. Used by
// test/hardening/user-emulators-beside.test.ts and by scripts/beside-user.ts (any test files run beside
// them). Everything here is ended by pid, by whoever started it.
import { spawn } from 'node:child_process';
import dgram from 'node:dgram';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { pickFreePorts } from '../../src/debug/ports.js';
import { DESMUME_CLI, writeDebugTargetRom } from './desmume/index.js';
import { dsInputRom } from './retroarch/ds-rom.js';
import { launchRetroArch, type RetroArchInstance } from './retroarch/launch.js';

export const DEFAULT_COMMAND_PORT = 55_355;
export const DEFAULT_PAD_PORT = 55_400;

/** Polls `probe` every 50 ms until it gives a value; throws naming `what` after `deadlineMs`. */
export async function until<T>(what: string, deadlineMs: number, probe: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() >= deadline) throw new Error(`${what}: not within ${deadlineMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Whether a UDP port can be bound on every address now (nothing holds it). */
export async function udpPortFree(port: number): Promise<boolean> {
  const socket = dgram.createSocket('udp4');
  const bound = await new Promise<boolean>((resolve) => {
    socket.once('error', () => resolve(false));
    socket.bind(port, () => resolve(true));
  });
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return bound;
}

/** TCP ports in LISTEN state on this machine (read from /proc, without connecting to them). */
export function listeningTcpPorts(): Set<number> {
  const ports = new Set<number>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue; // no IPv6 on this machine
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[3] === '0A') ports.add(Number.parseInt(fields[1]!.split(':')[1]!, 16));
    }
  }
  return ports;
}

/** Whether `pid` is a live process (not gone, not a zombie waiting to be reaped). */
export function alive(pid: number): boolean {
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Start time of `pid` in clock ticks since boot: the same pid with the same start is the same process. */
export function startTime(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
  } catch {
    return null;
  }
}

/**
 * The user's RetroArch: the DS input program (files under `dir`) on the default command and pad ports,
 * or null when something already holds either port (a real user's RetroArch: then that is the
 * neighbour, and this one is not started).
 */
export async function userRetroArch(dir: string, readyTimeoutMs: number): Promise<RetroArchInstance | null> {
  if (!(await udpPortFree(DEFAULT_COMMAND_PORT)) || !(await udpPortFree(DEFAULT_PAD_PORT))) return null;
  const rom = join(dir, 'user-ds.nds');
  writeFileSync(rom, dsInputRom());
  return launchRetroArch({
    core: 'desmume',
    rom,
    port: DEFAULT_COMMAND_PORT,
    padPort: DEFAULT_PAD_PORT,
    remotePad: true,
    readyTimeoutMs,
  });
}

export interface UserDesmume {
  pid: number;
  /** The ARM9 and ARM7 stub ports. */
  ports: number[];
  /** The user's debugger, connected to the ARM9 stub since start-up (the stub takes one client). */
  debugger: Socket;
  /** Halts the emulator through the user's debugger (Ctrl-C, a fresh S02), then resumes it. */
  interruptAndResume(deadlineMs: number): Promise<void>;
  stop(): void;
}

/**
 * The user's DeSmuME: the debug target ROM (written under `dir`, which its command line names) with
 * both stubs on ports of its own, resumed by a debugger that stays connected.
 */
export async function userDesmume(dir: string, deadlineMs: number): Promise<UserDesmume> {
  const rom = writeDebugTargetRom(join(dir, 'user-debug.nds'));
  const ports = await pickFreePorts(2);
  const child = spawn(
    DESMUME_CLI,
    ['--disable-sound', '--cpu-mode=0', `--arm9gdb=${ports[0]}`, `--arm7gdb=${ports[1]}`, rom.path],
    { env: { ...process.env, SDL_VIDEODRIVER: 'dummy', SDL_AUDIODRIVER: 'dummy' }, stdio: 'ignore' },
  );
  let socket: Socket | null = null;
  let received = '';
  const killOnExit = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);
  // Close the debugger first: a DeSmuME that dies with a client connected leaves the port dead.
  const stop = (): void => {
    process.removeListener('exit', killOnExit);
    socket?.destroy();
    child.kill('SIGKILL');
  };
  try {
    socket = await until('the user DeSmuME stub listening', deadlineMs, async () => {
      if (child.exitCode !== null) throw new Error(`the user DeSmuME exited (${child.exitCode})`);
      if (!listeningTcpPorts().has(ports[0]!)) return null;
      return new Promise<Socket | null>((resolve) => {
        const s = connect(ports[0]!, '127.0.0.1');
        s.once('connect', () => resolve(s));
        s.once('error', () => resolve(null));
      });
    });
    socket.on('data', (d: Buffer) => {
      received += d.toString('latin1');
      // Acknowledge every packet of the stub, as a debugger does.
      if (d.includes(0x24)) socket?.write('+');
    });
    socket.on('error', () => {});
    socket.write('$?#3f');
    await until('the stop reply of the user DeSmuME', deadlineMs, async () =>
      /\$S02#/.test(received) ? true : null,
    );
    socket.write('$c#63');
    await until('the user DeSmuME resumed', deadlineMs, async () => (received.endsWith('+') ? true : null));
  } catch (error) {
    stop();
    throw error;
  }
  const connected = socket;
  const interruptAndResume = async (ms: number): Promise<void> => {
    const from = received.length;
    connected.write(Buffer.from([0x03]));
    await until('the user DeSmuME halted by its debugger', ms, async () =>
      /\$S02#/.test(received.slice(from)) ? true : null,
    );
    const resumed = received.length;
    connected.write('$c#63');
    await until('the user DeSmuME resumed', ms, async () =>
      received.slice(resumed).endsWith('+') ? true : null,
    );
  };
  return { pid: child.pid!, ports, debugger: connected, interruptAndResume, stop };
}

/** `count` processes that spin on a core each until stopped (a loaded machine). */
export function busyLoops(count: number): { pids: number[]; stop(): void } {
  const children = Array.from({ length: count }, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
  );
  const stop = (): void => {
    process.removeListener('exit', stop);
    for (const child of children) child.kill('SIGKILL');
  };
  process.once('exit', stop);
  return { pids: children.map((c) => c.pid!), stop };
}
