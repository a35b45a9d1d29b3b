// The debugger session: at most one owned emulator per server, one process generation per launch, and
// per-CPU debuggers that every tool shares. Emulator exit, an explicit stop or a new launch discards
// all debugger state of the old generation (breakpoints, ranges, stop state, connections). The
// emulator itself (how it is verified, launched and found ready, how its stubs speak, how messages
// name it and its tools) is the backend the session was made with.

import { ReMcpError } from '../core/errors.js';
import type { Processor } from '../core/vocabulary.js';
import type { NdsRomModel } from '../formats/nds/model.js';
import type { RomHandle, RomIdentity, RomStore } from '../roms/rom-store.js';
import {
  checkProfile,
  type EmulatorBackend,
  type EmulatorProcess,
  type ExitInfo,
  toolName,
  type VerifiedEmulator,
} from './backend.js';
import { RspConnection } from './connection.js';
import { CpuDebugger, type StopInfo } from './cpu.js';
import { type CopiedRange, cpuImage } from './cpu-image.js';
import { pickFreePorts } from './ports.js';

/** The ROM a generation runs: the RomStore's identity and full canonical model (overlays included). */
export interface DebugRom {
  /** Workspace-relative path. */
  path: string;
  identity: RomIdentity;
  model: NdsRomModel;
}

export interface Generation {
  number: number;
  process: EmulatorProcess;
  rom: DebugRom;
  launcherSha256: string;
  cpus: Partial<Record<Processor, CpuDebugger>>;
  ready: boolean;
  /** Set when the server ends the process itself, so the exit is reported with the real cause. */
  endReason: string | null;
}

export interface StartOptions {
  /** The store that opens, identifies and parses the ROM (the one the static tools use). */
  roms: RomStore;
  /** Workspace-relative ROM path. */
  rom: string;
  arm9Port: number | null;
  /** null: no ARM7 stub; 0: pick a free port. */
  arm7Port: number | null;
  startTimeoutMs: number;
  signal?: AbortSignal;
  /** The blocks each CPU's start-up code copies to where they run (executable: the allowlist has them). */
  copies?: (rom: RomHandle, processor: Processor) => Promise<CopiedRange[]>;
}

export interface SessionOptions {
  /** Test seam: where to connect for a CPU's stub (e.g. a fault-injecting proxy). Defaults to the owned port. */
  connectPort?: (processor: Processor, ownedPort: number) => number;
}

/**
 * Between two attempts to reach a stub that is not listening yet (a refused local connect costs well
 * under a millisecond): the start waits at most this long past the moment the stub listens.
 */
const CONNECT_RETRY_MS = 5;
/** After a dropped connection, how long to wait for the process to exit before calling it a drop. */
const EXIT_GRACE_MS = 750;

export class DebugSession {
  private current: Generation | null = null;
  private generations = 0;
  private starting: Promise<Generation> | null = null;
  /** Aborts an in-progress start when the server shuts down. */
  private startAbort: AbortController | null = null;
  private disposed = false;
  private lastExit: { generation: number; exit: ExitInfo; log: string; reason: string } | null = null;
  private lockHeld = false;

  constructor(
    readonly backend: EmulatorBackend,
    private readonly options: SessionOptions = {},
  ) {
    checkProfile(backend);
  }

  private get emulator(): string {
    return this.backend.names.emulator;
  }

  private tool(verb: string): string {
    return toolName(this.backend.names, verb);
  }

  get generation(): Generation | null {
    return this.current;
  }

  get previous(): typeof this.lastExit {
    return this.lastExit;
  }

  /** Serialises debugger commands: the stub handles one exchange at a time. Refuses rather than queues. */
  async exclusive<T>(work: () => Promise<T>): Promise<T> {
    if (this.lockHeld) {
      throw new ReMcpError('busy', 'another debugger command is in progress; wait for it or cancel it');
    }
    this.lockHeld = true;
    try {
      return await work();
    } finally {
      this.lockHeld = false;
    }
  }

  requireGeneration(): Generation {
    if (this.current === null) {
      const hint = this.lastExit
        ? ` (generation ${this.lastExit.generation} ended: ${this.lastExit.reason})`
        : '';
      throw new ReMcpError(
        'not-running',
        `no owned ${this.emulator} is running; call ${this.tool('start')}${hint}`,
      );
    }
    if (!this.current.ready) {
      // The start owns the stub connections until it returns: a second one would compete with it.
      throw new ReMcpError(
        'busy',
        `${this.emulator} generation ${this.current.number} is still starting; retry once ${this.tool('start')} has returned`,
      );
    }
    return this.current;
  }

  cpu(processor: Processor): CpuDebugger {
    const gen = this.requireGeneration();
    const cpu = gen.cpus[processor];
    if (!cpu) {
      throw new ReMcpError(
        'not-configured',
        `the ${processor} stub is not enabled in generation ${gen.number}; restart with the ARM7 stub enabled`,
      );
    }
    return cpu;
  }

  async start(opts: StartOptions): Promise<Generation> {
    if (this.disposed) throw new ReMcpError('cancelled', 'the server is shutting down');
    if (this.current !== null || this.starting) {
      throw new ReMcpError(
        'already-running',
        `an owned ${this.emulator} is already running (generation ${this.current?.number ?? this.generations + 1}); call ${this.tool('stop')} first`,
      );
    }
    const abort = new AbortController();
    const onCallerAbort = () => abort.abort();
    opts.signal?.addEventListener('abort', onCallerAbort, { once: true });
    if (opts.signal?.aborted) abort.abort();
    this.startAbort = abort;
    const starting = this.launch({ ...opts, signal: abort.signal });
    this.starting = starting;
    try {
      return await starting;
    } finally {
      opts.signal?.removeEventListener('abort', onCallerAbort);
      this.starting = null;
      this.startAbort = null;
    }
  }

  private async launch(opts: StartOptions): Promise<Generation> {
    if (opts.arm7Port !== null && !this.backend.features.arm7Stub) {
      throw new ReMcpError('unsupported', `${this.emulator} has no ARM7 GDB stub`);
    }
    const launcher = await this.backend.verify();
    // The ROM is opened once through the store (a handle proven to be the checked regular file, so a
    // FIFO or symlink swapped in cannot block or redirect us) and kept open until the launch is done.
    const handle = await opts.roms.openRom(opts.rom, opts.signal);
    try {
      return await this.launchOn(handle, launcher, opts);
    } finally {
      await handle.close();
    }
  }

  private async launchOn(
    handle: RomHandle,
    launcher: VerifiedEmulator,
    opts: StartOptions,
  ): Promise<Generation> {
    const rom: DebugRom = { path: handle.path, identity: handle.identity, model: handle.model };
    // Automatic ports are chosen together (and apart from an explicit one), so they always differ.
    const explicit = [opts.arm9Port, opts.arm7Port].filter((p): p is number => p !== null && p !== 0);
    const autoCount = (opts.arm9Port === null ? 1 : 0) + (opts.arm7Port === 0 ? 1 : 0);
    const auto = autoCount > 0 ? await pickFreePorts(autoCount, explicit) : [];
    const arm9Port = opts.arm9Port ?? auto.shift()!;
    const arm7Port = opts.arm7Port === null ? null : opts.arm7Port === 0 ? auto.shift()! : opts.arm7Port;
    if (arm7Port !== null && arm7Port === arm9Port) {
      throw new ReMcpError('invalid-argument', 'the ARM9 and ARM7 stubs need different ports');
    }
    const checkCancelled = () => {
      if (opts.signal?.aborted) throw cancelledStart(this.disposed);
    };
    const process = await this.backend.launch(launcher, {
      romAbsolute: handle.absolute,
      ports: { arm9: arm9Port, arm7: arm7Port },
      checkCancelled,
    });
    const number = ++this.generations;
    const gen: Generation = {
      number,
      process,
      rom,
      launcherSha256: launcher.sha256,
      cpus: {},
      ready: false,
      endReason: null,
    };
    this.current = gen;
    process.onExit((exit) => this.onExit(gen, exit));
    try {
      const deadline = Date.now() + opts.startTimeoutMs;
      const ports: Array<[Processor, number]> = [['arm9', arm9Port]];
      if (arm7Port !== null) ports.push(['arm7', arm7Port]);
      for (const [processor, port] of ports) {
        const image = cpuImage(rom.model, processor, opts.copies ? await opts.copies(handle, processor) : []);
        const cpu = new CpuDebugger(
          this.backend,
          processor,
          number,
          port,
          image,
          null,
          (error, c) => this.fault(gen, error, c),
          () => this.siblingRunning(gen, processor),
        );
        gen.cpus[processor] = cpu;
        // Until the stub answers `?`, a connection that closes (something raced us to the port, a
        // proxy whose far side is not up yet) is retried within the start deadline.
        for (;;) {
          const conn = await this.connect(gen, processor, port, deadline, opts.signal);
          try {
            const raw = await conn.request(
              { op: 'stop-status' },
              Math.max(1, Math.min(2_000, deadline - Date.now())),
            );
            await this.backend.awaitReady({ connection: conn, processor, image, deadline, checkCancelled });
            cpu.connection = conn;
            await cpu.recordLaunchHalt(raw);
            break;
          } catch (error) {
            conn.close();
            if (!(error instanceof ReMcpError) || !['unreachable', 'timeout'].includes(error.code))
              throw error;
            if (Date.now() >= deadline) throw error;
            await new Promise((r) => setTimeout(r, CONNECT_RETRY_MS));
          }
        }
      }
      // The ROM must be the bytes we parsed: re-check (stat, rehash through the handle when it changed)
      // now that the emulator has loaded it.
      await handle.verifyUnchanged(opts.signal);
      if (opts.signal?.aborted) throw cancelledStart(this.disposed);
      gen.ready = true;
      return gen;
    } catch (error) {
      const log = process.logTail(2_048).text;
      await this.teardown(gen, 'start failed');
      if (error instanceof ReMcpError && !['unreachable', 'emulator-exited'].includes(error.code))
        throw error;
      const explained = this.backend.explainStartFailure(gen.process, log);
      if (explained !== null) throw explained;
      throw new ReMcpError(
        'launch-failed',
        `${this.emulator} did not bring up its GDB stub: ${error instanceof Error ? error.message : String(error)}`,
        { log },
      );
    }
  }

  /** Polls until the owned stub accepts; a process that exits first is a launch failure. */
  private async connect(
    gen: Generation,
    processor: Processor,
    port: number,
    deadline: number,
    signal?: AbortSignal,
    failCode: 'launch-failed' | 'unreachable' = 'launch-failed',
  ): Promise<RspConnection> {
    const target = this.options.connectPort ? this.options.connectPort(processor, port) : port;
    for (;;) {
      if (signal?.aborted) throw cancelledStart(this.disposed);
      if (!gen.process.alive) {
        const exited = `${this.emulator} exited (${describeExit(gen.process.exit)})`;
        throw new ReMcpError('emulator-exited', exited, { log: gen.process.logTail(2_048).text });
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        const hint = this.backend.quirks.silentStubHint;
        throw new ReMcpError(
          failCode,
          `the ${processor} GDB stub on port ${port} did not answer in time${hint === null ? '' : ` (${hint})`}`,
          { log: gen.process.logTail(2_048).text },
        );
      }
      try {
        const conn = await RspConnection.open(target, Math.min(remaining, 1_000), this.backend.quirks);
        conn.onClose(() => this.onConnectionClosed(gen, processor, conn));
        return conn;
      } catch {
        await new Promise((r) => setTimeout(r, CONNECT_RETRY_MS));
      }
    }
  }

  /** Reconnects a CPU whose connection dropped (the stub keeps CPU state and breakpoints). */
  async reconnect(processor: Processor, timeoutMs: number, signal?: AbortSignal): Promise<CpuDebugger> {
    const gen = this.requireGeneration();
    const cpu = this.cpu(processor);
    if (cpu.connection && !cpu.connection.closed) return cpu;
    cpu.connection = await this.connect(
      gen,
      processor,
      cpu.port,
      Date.now() + timeoutMs,
      signal,
      'unreachable',
    );
    return cpu;
  }

  private onConnectionClosed(gen: Generation, processor: Processor, conn: RspConnection): void {
    const cpu = gen.cpus[processor];
    if (!cpu || cpu.connection !== conn) return;
    cpu.connection = null;
    // A command in flight may or may not have run; a running target may have stopped meanwhile.
    if (cpu.state === 'running') cpu.state = 'unknown';
  }

  private siblingRunning(gen: Generation, processor: Processor): Processor | null {
    const other: Processor = processor === 'arm9' ? 'arm7' : 'arm9';
    const cpu = gen.cpus[other];
    return cpu && cpu.state !== 'stopped' ? other : null;
  }

  /** Maps a connection failure: an exited emulator is `emulator-exited`, otherwise a typed drop. */
  private async fault(gen: Generation, error: unknown, cpu: CpuDebugger): Promise<never> {
    if (gen.process.alive) {
      // Both the exit listener and the timer are released whichever wins: a long-lived emulator with
      // many dropped connections must not accumulate listeners.
      let unsubscribe = (): void => {};
      let timer: NodeJS.Timeout | undefined;
      try {
        await new Promise<void>((resolve) => {
          unsubscribe = gen.process.onExit(() => resolve());
          timer = setTimeout(resolve, EXIT_GRACE_MS).unref();
        });
      } finally {
        unsubscribe();
        clearTimeout(timer);
      }
    }
    if (!gen.process.alive) {
      throw new ReMcpError(
        'emulator-exited',
        `${this.emulator} exited (${describeExit(gen.process.exit)}); generation ${gen.number} and its debugger state are gone`,
        { generation: gen.number, log: gen.process.logTail(1_024).text },
      );
    }
    const message = error instanceof Error ? error.message : String(error);
    const code = error instanceof ReMcpError ? error.code : 'unreachable';
    throw new ReMcpError(
      code,
      `${message}; the ${cpu.processor} connection was dropped (run state now ${cpu.state}); call ${this.tool('wait_for_gdb')} to reconnect`,
      { processor: cpu.processor, generation: gen.number },
    );
  }

  private onExit(gen: Generation, exit: ExitInfo): void {
    if (this.current !== gen) return;
    this.lastExit = {
      generation: gen.number,
      exit,
      log: gen.process.logTail(2_048).text,
      reason: gen.endReason ?? `the emulator exited (${describeExit(exit)})`,
    };
    this.discard(gen);
  }

  private discard(gen: Generation): void {
    for (const cpu of Object.values(gen.cpus)) cpu?.connection?.close();
    if (this.current === gen) this.current = null;
  }

  /** Closes every client socket first, then ends the process (its backend says how). */
  private async teardown(gen: Generation, reason: string): Promise<ExitInfo> {
    gen.endReason ??= reason;
    for (const cpu of Object.values(gen.cpus)) cpu?.connection?.close();
    const exit = await gen.process.kill();
    this.onExit(gen, exit);
    return exit;
  }

  async stop(): Promise<{ generation: number; exit: ExitInfo } | null> {
    const gen = this.current;
    if (gen === null) return null;
    const exit = await this.teardown(gen, `stopped by ${this.tool('stop')}`);
    return { generation: gen.number, exit };
  }

  /** Server shutdown: cancels a start in progress (its emulator is torn down), then stops. */
  async dispose(): Promise<void> {
    this.disposed = true;
    this.startAbort?.abort();
    await this.starting?.catch(() => undefined);
    await this.stop();
  }
}

function cancelledStart(disposed: boolean): ReMcpError {
  return new ReMcpError(
    'cancelled',
    disposed ? 'the start was cancelled: the server is shutting down' : 'the start was cancelled',
  );
}

export function describeExit(exit: ExitInfo | null): string {
  if (exit === null) return 'still running';
  return exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
}

export type { StopInfo };
