// Test launcher for a real, headless RetroArch: a throw-away HOME with its own retroarch.cfg (per
// ../shared/reference/emulators.md), a free UDP port, readiness by polling VERSION, and teardown that
// kills the whole process group (RetroArch may fork helpers) even when a test fails.

import { type ChildProcess, spawn } from 'node:child_process';
import dgram from 'node:dgram';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { HEADLESS_SETTINGS } from '../../../src/cli/retroarch-setup.js';
import { RetroArchClient } from '../../../src/retroarch/client.js';

export const LIBRETRO_DIR = '/usr/lib/x86_64-linux-gnu/libretro';
export const CORES = {
  mgba: join(LIBRETRO_DIR, 'mgba_libretro.so'),
  nestopia: join(LIBRETRO_DIR, 'nestopia_libretro.so'),
  desmume: join(LIBRETRO_DIR, 'desmume_libretro.so'),
} as const;
export type CoreName = keyof typeof CORES;

export interface RetroArchInstance {
  port: number;
  /**
   * The network remote pad's UDP port for player 1: where RetroArch listens when the pad is enabled;
   * otherwise a port chosen free just now where nothing listens (never the machine's default 55400,
   * where a user's own RetroArch may).
   */
  padPort: number;
  /** Whether RetroArch listens on padPort. */
  remotePad: boolean;
  pid: number;
  home: string;
  savestateDir: string;
  screenshotDir: string;
  /** ROM file name without its extension: RetroArch names states and screenshots after it. */
  romBase: string;
  /** Last lines RetroArch wrote (for failure messages). */
  log(): string;
  stop(): Promise<void>;
}

/** Asks the kernel for a free UDP port on loopback (bind to 0, read it, release it). */
export async function freeUdpPort(): Promise<number> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => resolve());
  });
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

/** One raw UDP query, for readiness polling and for the bench's baseline. */
export async function rawQuery(port: number, command: string, timeoutMs: number): Promise<string | null> {
  const socket = dgram.createSocket('udp4');
  try {
    return await new Promise<string | null>((resolve) => {
      const timer = setTimeout(() => resolve(null), timeoutMs);
      socket.on('message', (msg) => {
        clearTimeout(timer);
        resolve(msg.toString('latin1'));
      });
      socket.on('error', () => {
        clearTimeout(timer);
        resolve(null);
      });
      socket.send(command, port, '127.0.0.1');
    });
  } finally {
    socket.close();
  }
}

function cfgLine(key: string, value: string): string {
  return `${key} = "${value}"\n`;
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

export interface LaunchOptions {
  core: CoreName;
  rom: string;
  /** Readiness deadline (default 10 s). */
  readyTimeoutMs?: number;
  /** UDP command port (default: a free one), e.g. to restart RetroArch on the port of an earlier one. */
  port?: number;
  /** Enables the network remote pad for player 1 on a free UDP port. */
  remotePad?: boolean;
  /**
   * The remote pad's port (default: a free one), e.g. the machine's default 55400 for a test that plays
   * a user's own RetroArch.
   */
  padPort?: number;
  /**
   * Whether RetroArch gets the core info files (libretro_info_path; default true). Without them the
   * status names the core instead of the system, and RetroArch refuses save states.
   */
  coreInfo?: boolean;
}

export async function launchRetroArch(options: LaunchOptions): Promise<RetroArchInstance> {
  const home = mkdtempSync(join(tmpdir(), 're-mcp-ra-'));
  const dir = (name: string): string => {
    const path = join(home, name);
    mkdirSync(path, { recursive: true });
    return path;
  };
  const savestateDir = dir('states');
  const screenshotDir = dir('screenshots');
  const port = options.port ?? (await freeUdpPort());
  const padPort = options.padPort ?? (await freeUdpPort());
  const cfg = join(home, 'retroarch.cfg');
  writeFileSync(
    cfg,
    [
      ['network_cmd_enable', 'true'],
      ['network_cmd_port', String(port)],
      ...HEADLESS_SETTINGS,
      ['pause_nonactive', 'false'],
      ['savestate_auto_save', 'false'],
      ['savestate_auto_load', 'false'],
      ['savestate_directory', savestateDir],
      ['savefile_directory', dir('saves')],
      ['screenshot_directory', screenshotDir],
      ['system_directory', dir('system')],
      ['libretro_directory', LIBRETRO_DIR],
      ...(options.coreInfo === false ? [] : [['libretro_info_path', '/usr/share/libretro/info']]),
      ...(!options.remotePad
        ? []
        : [
            ['network_remote_enable', 'true'],
            ['network_remote_enable_user_p1', 'true'],
            ['network_remote_base_port', String(padPort)],
          ]),
    ]
      .map(([k, v]) => cfgLine(k!, v!))
      .join(''),
  );
  const child = spawn('retroarch', ['--config', cfg, '-L', CORES[options.core], options.rom], {
    env: { ...process.env, HOME: home, SDL_VIDEODRIVER: 'dummy', SDL_AUDIODRIVER: 'dummy' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Own process group, so teardown can signal RetroArch and anything it spawned in one go.
    detached: true,
  });
  let tail = '';
  const keep = (chunk: Buffer): void => {
    tail = (tail + chunk.toString('utf8')).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited = false;
  const exitedPromise = new Promise<void>((resolve) => {
    child.once('exit', () => {
      exited = true;
      resolve();
    });
  });

  // Detached, RetroArch would outlive a test process that dies before its teardown runs: the group
  // goes down with this process in any case.
  const killOnExit = (): void => killGroup(child, 'SIGKILL');
  process.once('exit', killOnExit);

  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    process.removeListener('exit', killOnExit);
    if (!exited) {
      killGroup(child, 'SIGTERM');
      const graceful = await Promise.race([
        exitedPromise.then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), 2000)),
      ]);
      if (!graceful) {
        killGroup(child, 'SIGKILL');
        await exitedPromise;
      }
    }
    // Anything left in the group (helpers) goes too.
    killGroup(child, 'SIGKILL');
    rmSync(home, { recursive: true, force: true });
  };

  const deadline = Date.now() + (options.readyTimeoutMs ?? 10_000);
  try {
    for (;;) {
      if (exited) throw new Error(`RetroArch exited during start-up:\n${tail}`);
      const version = await rawQuery(port, 'VERSION', 200);
      if (version !== null && /^\d+\.\d+/.test(version)) break;
      if (Date.now() > deadline) throw new Error(`RetroArch did not answer VERSION on ${port}:\n${tail}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    port,
    padPort,
    remotePad: options.remotePad === true,
    pid: child.pid!,
    home,
    savestateDir,
    screenshotDir,
    romBase: basename(options.rom).replace(/\.[^.]+$/, ''),
    log: () => tail,
    stop,
  };
}

/** The server's settings for a launched RetroArch: its command port, pad port and screenshot folder. */
export function retroarchEnv(ra: RetroArchInstance): Record<string, string> {
  return {
    RE_MCP_PROFILE: 'retroarch',
    RETROARCH_PORT: String(ra.port),
    RETROARCH_TIMEOUT_MS: '1000',
    RETROARCH_SCREENSHOT_DIR: ra.screenshotDir,
    RETROARCH_REMOTE_PAD_PORT: String(ra.padPort),
  };
}

/** A launched RetroArch and a client on it (1 s timeout, its screenshot folder), both ended after the test. */
export async function launchWithClient(
  t: { after(fn: () => Promise<void>): void },
  options: LaunchOptions,
): Promise<{ ra: RetroArchInstance; client: RetroArchClient }> {
  const ra = await launchRetroArch(options);
  const client = new RetroArchClient({
    host: '127.0.0.1',
    port: ra.port,
    timeoutMs: 1000,
    screenshotDir: ra.screenshotDir,
  });
  t.after(async () => {
    client.close();
    await ra.stop();
  });
  return { ra, client };
}
