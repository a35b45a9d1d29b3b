// Runs one child process the safe way: an argument array (never a shell), a minimal environment, its
// own process group, in its own PID namespace where the machine allows it (see containment.ts: so a
// timeout or cancellation kills its children too, even those that called setsid), a hard timeout, and
// bounded capture of stdout/stderr (the tail is kept, the total counted).
import { spawn } from 'node:child_process';
import {
  containment,
  parentDeathPrefix,
  resolveExecutable,
  signalGroup,
  terminateContained,
} from './containment.js';

export interface BoundedOutput {
  /** The last bytes of the stream (UTF-8, invalid sequences replaced). */
  tail: string;
  totalBytes: number;
  truncated: boolean;
}

interface BoundedRun {
  exitCode: number | null;
  signal: string | null;
  durationMs: number;
  timedOut: boolean;
  cancelled: boolean;
  stdout: BoundedOutput;
  stderr: BoundedOutput;
  /** Set when the executable could not be started at all (e.g. ENOENT). */
  spawnError: string | null;
}

interface BoundedRunOptions {
  argv: readonly string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
  /** Grace period between SIGTERM and SIGKILL of the process group. */
  killGraceMs?: number;
}

class TailBuffer {
  private chunks: Buffer[] = [];
  private kept = 0;
  total = 0;
  constructor(private readonly limit: number) {}
  push(chunk: Buffer): void {
    this.total += chunk.length;
    this.chunks.push(chunk);
    this.kept += chunk.length;
    while (this.kept - (this.chunks[0]?.length ?? 0) >= this.limit && this.chunks.length > 1) {
      this.kept -= this.chunks.shift()!.length;
    }
  }
  result(): BoundedOutput {
    const all = Buffer.concat(this.chunks);
    const tail = all.length > this.limit ? all.subarray(all.length - this.limit) : all;
    return { tail: tail.toString('utf8'), totalBytes: this.total, truncated: this.total > tail.length };
  }
}

const killGroup = signalGroup;

// Process groups of runs still in progress. Each child leads its own group, so the server's exit would
// not take it down: whatever is still running when this process exits (shutdown, process.exit after
// an uncaught error) is killed here, synchronously, instead of being left behind as an orphan.
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function trackGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  liveGroups.add(pid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const group of liveGroups) killGroup(group, 'SIGKILL');
  });
}

export function runBounded(options: BoundedRunOptions): Promise<BoundedRun> {
  const [command, ...args] = options.argv;
  if (command === undefined) throw new Error('runBounded needs a non-empty argv');
  const started = performance.now();
  const stdout = new TailBuffer(options.maxOutputBytes);
  const stderr = new TailBuffer(options.maxOutputBytes);
  const grace = options.killGraceMs ?? 2_000;
  const contained = containment();
  // Resolved here, as execvp would: a missing executable is a spawn error, not unshare's exit 127.
  if (contained.prefix.length > 0 && resolveExecutable(command, options.cwd, options.env.PATH) === null) {
    return Promise.resolve({
      exitCode: null,
      signal: null,
      durationMs: 0,
      timedOut: false,
      cancelled: false,
      stdout: stdout.result(),
      stderr: stderr.result(),
      spawnError: `spawn ${command} ENOENT`,
    });
  }
  const [program, ...programArgs] = [...parentDeathPrefix(), ...contained.prefix, command, ...args] as [
    string,
    ...string[],
  ];
  return new Promise((resolve) => {
    let timedOut = false;
    let cancelled = false;
    let settled = false;
    const child = spawn(program, programArgs, {
      cwd: options.cwd,
      env: options.env,
      shell: false,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
    trackGroup(child.pid);
    child.stdout.on('data', (c: Buffer) => stdout.push(c));
    child.stderr.on('data', (c: Buffer) => stderr.push(c));
    let killTimer: NodeJS.Timeout | undefined;
    const stop = () => {
      terminateContained(child.pid, contained.mode);
      killTimer ??= setTimeout(() => killGroup(child.pid, 'SIGKILL'), grace).unref();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    const onAbort = () => {
      cancelled = true;
      stop();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    // A cancellation that happened before the run started fires no event: honour it now.
    if (options.signal?.aborted) onAbort();
    const finish = (exitCode: number | null, signal: string | null, spawnError: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // The group is killed right below; a later SIGKILL could hit a recycled group id.
      clearTimeout(killTimer);
      options.signal?.removeEventListener('abort', onAbort);
      // Stragglers left in the group (backgrounded children) are not allowed to outlive the check.
      killGroup(child.pid, 'SIGKILL');
      if (child.pid !== undefined) liveGroups.delete(child.pid);
      resolve({
        exitCode,
        signal,
        durationMs: Math.round(performance.now() - started),
        timedOut,
        cancelled,
        stdout: stdout.result(),
        stderr: stderr.result(),
        spawnError,
      });
    };
    child.on('error', (error) => finish(null, null, error.message));
    // 'exit' rather than 'close': a grandchild holding the pipes open must not keep us waiting.
    child.on('exit', (code, signal) => setTimeout(() => finish(code, signal, null), 20));
  });
}
