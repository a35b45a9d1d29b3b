// The server-owned DeSmuME process. The launcher is operator configuration (RE_MCP_DESMUME_LAUNCHER,
// optionally pinned by SHA-256), never a caller argument; it runs from an argument array with no shell
// under the contract `LAUNCHER [fixed options] --arm9gdb=PORT [--arm7gdb=PORT] ROM`, in a minimal
// environment. Logs are captured in a bounded tail. This class knows nothing about GDB.
import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { access, constants, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { descendants, isExecutableFile, parentDeathPrefix, signalGroup } from '../../core/containment.js';
import { ReMcpError } from '../../core/errors.js';
import { sha256File } from '../../workspace/hash.js';
import type { EmulatorProcess, ExitInfo, Readiness } from '../backend.js';

/**
 * Options every launch gets. `--cpu-mode=0` selects the interpreter: the stub checks breakpoints per
 * fetched instruction, which the JIT would batch past. `--disable-sound`: no audio device headless.
 * A wrapper launcher must accept and forward these desmume-cli options.
 */
const FIXED_OPTIONS = ['--disable-sound', '--cpu-mode=0'] as const;
const LOG_TAIL_BYTES = 16_384;

export interface LauncherConfig {
  launcher: string | null;
  launcherSha256: string | null;
}

interface LaunchRequest {
  romAbsolute: string;
  arm9Port: number;
  arm7Port: number | null;
}

/** Refuses a launcher that is not configured, missing, not executable or not the pinned one. */
export async function verifyLauncher(config: LauncherConfig): Promise<{ path: string; sha256: string }> {
  const path = config.launcher;
  if (path === null) {
    throw new ReMcpError(
      'not-configured',
      'no DeSmuME launcher: set RE_MCP_DESMUME_LAUNCHER (or install /usr/games/desmume-cli)',
    );
  }
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new Error('not a file');
    await access(path, constants.X_OK);
  } catch {
    throw new ReMcpError('not-configured', `the DeSmuME launcher is missing or not executable: ${path}`, {
      launcher: path,
    });
  }
  const { sha256 } = await sha256File(path);
  if (config.launcherSha256 !== null && sha256 !== config.launcherSha256) {
    throw new ReMcpError(
      'launch-failed',
      'the DeSmuME launcher does not match RE_MCP_DESMUME_LAUNCHER_SHA256',
      {
        launcher: path,
        expected: config.launcherSha256,
        actual: sha256,
      },
    );
  }
  return { path, sha256 };
}

/** Whether the launcher is there, executable and the pinned one; nothing is run. */
export async function launcherReadiness(config: LauncherConfig): Promise<Readiness> {
  const { launcher, launcherSha256 } = config;
  if (launcher === null) return { ready: false, status: 'not-configured', detail: { launcher: null } };
  if (!(await isExecutableFile(launcher)))
    return { ready: false, status: 'launcher-missing', detail: { launcher } };
  if (launcherSha256 !== null) {
    const { sha256 } = await sha256File(launcher);
    if (sha256 !== launcherSha256) {
      return {
        ready: false,
        status: 'launcher-digest-mismatch',
        detail: { launcher, expected: launcherSha256, actual: sha256 },
      };
    }
  }
  return { ready: true, status: 'ready', detail: { launcher, pinned: launcherSha256 !== null } };
}

/**
 * Refuses a port something already listens on. The stub binds 0.0.0.0 (not configurable) and, when
 * its bind fails, runs silently without a stub; checking the same wildcard bind first (and closing it
 * at once, never accepting) turns that into a clear start failure.
 */
export function assertPortFree(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        new ReMcpError(
          'launch-failed',
          error.code === 'EADDRINUSE'
            ? `port ${port} is already in use: choose another GDB port or stop what listens there`
            : `port ${port} cannot be used: ${error.code ?? error.message}`,
          { port },
        ),
      );
    });
    server.listen({ port, host: '0.0.0.0', exclusive: true }, () => server.close(() => resolve()));
  });
}

/** Bounded tail of the emulator's stdout+stderr (its log is chatty and block-buffered). */
class LogTail {
  private chunks: Buffer[] = [];
  private size = 0;
  dropped = 0;

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > LOG_TAIL_BYTES && this.chunks.length > 0) {
      const over = this.size - LOG_TAIL_BYTES;
      const first = this.chunks[0]!;
      if (first.length <= over) {
        this.chunks.shift();
        this.size -= first.length;
        this.dropped += first.length;
      } else {
        this.chunks[0] = first.subarray(over);
        this.size -= over;
        this.dropped += over;
      }
    }
  }

  text(maxBytes = LOG_TAIL_BYTES): string {
    const all = Buffer.concat(this.chunks);
    return all.subarray(Math.max(0, all.length - maxBytes)).toString('utf8');
  }
}

/** Private homes are `<tmpdir>/re-mcp-desmume-<server pid>-XXXXXX`. */
const HOME_PREFIX = 're-mcp-desmume-';
const HOME_NAME = /^re-mcp-desmume-(\d+)-[A-Za-z0-9]{6}$/;

function removeHomeNow(home: string): void {
  try {
    rmSync(home, { recursive: true, force: true });
  } catch {
    // Swept by the next server's start.
  }
}

let swept = false;

/** Removes the private homes of servers that are gone (a SIGKILLed server cannot remove its own). */
async function sweepHomes(): Promise<void> {
  if (swept) return;
  swept = true;
  const names = await readdir(tmpdir()).catch(() => [] as string[]);
  for (const name of names) {
    const m = HOME_NAME.exec(name);
    if (m === null) continue;
    const pid = Number(m[1]);
    let alive = pid === process.pid;
    if (!alive) {
      try {
        process.kill(pid, 0);
        alive = true;
      } catch (error) {
        alive = (error as NodeJS.ErrnoException).code === 'EPERM';
      }
    }
    if (!alive) await rm(join(tmpdir(), name), { recursive: true, force: true }).catch(() => {});
  }
}

export class DesmumeProcess implements EmulatorProcess {
  readonly startedAt = new Date().toISOString();
  private readonly logs = new LogTail();
  private exitInfo: ExitInfo | null = null;
  private readonly exitListeners: Array<(info: ExitInfo) => void> = [];
  private readonly exited: Promise<ExitInfo>;
  private readonly killOnExit = (): void => {
    this.killNow();
    // The server is exiting now: no later turn would remove the private home.
    removeHomeNow(this.home);
  };

  private constructor(
    private readonly child: ChildProcess,
    readonly request: LaunchRequest,
    readonly launcher: string,
    private readonly home: string,
  ) {
    // The launcher leads its own process group, so a wrapper script's emulator dies with it. It does
    // not get a PID namespace like checks do: unshare (util-linux 2.38) cannot report the signal its
    // child died from, and the emulator's exit reason is part of the debugger's contract.
    child.stdout?.on('data', (c: Buffer) => this.logs.push(c));
    child.stderr?.on('data', (c: Buffer) => this.logs.push(c));
    // If the server dies without disposing, still take the emulator down with it.
    process.once('exit', this.killOnExit);
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        process.removeListener('exit', this.killOnExit);
        // A launcher that exited may leave its emulator behind in the group: take it down too.
        signalGroup(child.pid, 'SIGKILL');
        this.exitInfo = { code, signal, at: new Date().toISOString() };
        // At once, not on a later turn: the server may be exiting (stdin closed, SIGTERM).
        removeHomeNow(this.home);
        for (const listener of this.exitListeners.splice(0)) listener(this.exitInfo);
        resolve(this.exitInfo);
      });
    });
  }

  static async launch(launcher: string, request: LaunchRequest): Promise<DesmumeProcess> {
    // A private HOME: DeSmuME writes its config and battery saves there, never in the operator's home.
    await sweepHomes();
    const home = await mkdtemp(join(tmpdir(), `${HOME_PREFIX}${process.pid}-`));
    const args = [...FIXED_OPTIONS, `--arm9gdb=${request.arm9Port}`];
    if (request.arm7Port !== null) args.push(`--arm7gdb=${request.arm7Port}`);
    args.push(request.romAbsolute);
    const env = {
      PATH: '/usr/local/bin:/usr/bin:/bin',
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      LANG: 'C',
      SDL_VIDEODRIVER: 'dummy',
      SDL_AUDIODRIVER: 'dummy',
    };
    // Dies with the server even when the server is SIGKILLed (parent-death signal; see containment).
    const [program, ...programArgs] = [...parentDeathPrefix(), launcher, ...args] as [string, ...string[]];
    const child = spawn(program, programArgs, {
      shell: false,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: home,
      detached: true,
    });
    const owned = new DesmumeProcess(child, request, launcher, home);
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', (error) => {
        // A failed spawn emits no 'exit': drop the server-exit hook here or it stays registered.
        process.removeListener('exit', owned.killOnExit);
        void rm(home, { recursive: true, force: true });
        reject(new ReMcpError('launch-failed', `cannot start the DeSmuME launcher: ${error.message}`));
      });
    });
    return owned;
  }

  private namespaced = false;
  private launcherPid: number | null = null;

  /**
   * The launcher's host pid. In a PID namespace the spawned process is unshare; the launcher is its
   * child (found once through /proc).
   */
  get pid(): number | null {
    const own = this.child.pid ?? null;
    if (!this.namespaced || own === null) return own;
    if (this.launcherPid === null && this.exitInfo === null)
      this.launcherPid = descendants(own, 1)[0] ?? null;
    return this.launcherPid ?? own;
  }

  get exit(): ExitInfo | null {
    return this.exitInfo;
  }

  get alive(): boolean {
    return this.exitInfo === null;
  }

  /** Calls `listener` once the process exits; the returned function unregisters it (a no-op after exit). */
  onExit(listener: (info: ExitInfo) => void): () => void {
    if (this.exitInfo) {
      listener(this.exitInfo);
      return () => {};
    }
    this.exitListeners.push(listener);
    return () => {
      const index = this.exitListeners.indexOf(listener);
      if (index >= 0) this.exitListeners.splice(index, 1);
    };
  }

  /** Exit listeners still registered (they are released when the process exits). */
  get exitListenerCount(): number {
    return this.exitListeners.length;
  }

  logTail(maxBytes?: number): { text: string; droppedBytes: number } {
    return { text: this.logs.text(maxBytes), droppedBytes: this.logs.dropped };
  }

  /**
   * SIGKILL, because SIGTERM is ignored while the debugger halts the CPU. Callers close their GDB
   * socket first: an emulator that dies with a client attached leaves the port unusable for the next.
   */
  async kill(timeoutMs = 5_000): Promise<ExitInfo> {
    this.killNow();
    const timer = new Promise<null>((resolve) => setTimeout(() => resolve(null), timeoutMs).unref());
    const info = await Promise.race([this.exited, timer]);
    if (info === null)
      throw new ReMcpError('timeout', `DeSmuME (pid ${this.pid}) did not exit after SIGKILL`);
    return info;
  }

  private killNow(): void {
    if (this.exitInfo !== null) return;
    // Every process still below the launcher (one that left the group with setsid included), then
    // the whole group: a wrapper launcher's emulator is in it, not only the launcher.
    if (this.child.pid !== undefined) {
      for (const pid of descendants(this.child.pid)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
    }
    signalGroup(this.child.pid, 'SIGKILL');
    this.child.kill('SIGKILL');
  }
}
