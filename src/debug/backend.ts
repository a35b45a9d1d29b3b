// The seam between the debugger and one emulator: what a backend provides (finding and verifying the
// emulator, launching it with its GDB stubs, saying when a stub is ready) and what the debugger must
// know of its stubs, as data: the names messages use, the quirks of its remote-serial dialect and
// the optional features it opts into (absent means unsupported). The session, connections and CPU
// debuggers are written against this file alone. What the rest of the server knows of an emulator
// (its settings, readiness, tool prefix, the words it publishes) is its Emulator entry, below: a
// backend's folder exports one and src/debug/registry.ts lists it (docs/ARCHITECTURE.md, "A second
// emulator").

import type { DeclaredValues, SettingSpec } from '../config/config.js';
import type { ReMcpError } from '../core/errors.js';
import type { Processor } from '../core/vocabulary.js';
import type { LinkQuirks, RspConnection } from './connection.js';
import type { CpuImage } from './cpu-image.js';
import { layoutFacts, type RegisterLayout } from './rsp/arm-registers.js';
import { MEMORY_CHUNK_CEILING } from './rsp/packets.js';
import type { WatchAddressOrder } from './watch-stop.js';

export interface ExitInfo {
  code: number | null;
  signal: string | null;
  at: string;
}

/** The emulator process a backend launched and owns. */
export interface EmulatorProcess {
  /** The host pid of the emulator (or of its launcher), null when unknown. */
  readonly pid: number | null;
  readonly alive: boolean;
  /** How it ended; null while it runs. */
  readonly exit: ExitInfo | null;
  /** Calls `listener` once the process exits; the returned function unregisters it. */
  onExit(listener: (info: ExitInfo) => void): () => void;
  /** The bounded tail of what the emulator printed. */
  logTail(maxBytes?: number): { text: string; droppedBytes: number };
  /** Ends the process and resolves with its exit; the session closes its GDB connections first. */
  kill(): Promise<ExitInfo>;
}

/** How messages name the emulator and the tools a caller should use next. */
export interface BackendNames {
  /** The emulator, e.g. "no owned <emulator> is running". */
  emulator: string;
  /** The prefix of the emulator's tools: `<toolPrefix>_start`, `_stop`, `_pause`, `_wait_for_stop`, `_wait_for_gdb`. */
  toolPrefix: string;
}

/** The backend's tool for `verb` (`pause` -> `<toolPrefix>_pause`), for messages that say what to call. */
export function toolName(names: BackendNames, verb: string): string {
  return `${names.toolPrefix}_${verb}`;
}

/**
 * The stub's dialect of the remote-serial protocol: its ack mode and the largest memory read one `m`
 * packet may ask for (1..MEMORY_CHUNK_CEILING), which the connection follows (LinkQuirks), and the
 * rest below.
 */
export interface BackendQuirks extends LinkQuirks {
  /** The layout of the `g` reply. */
  registerLayout: RegisterLayout;
  /** Added to "the <cpu> GDB stub on port N did not answer in time": what may leave a stub silent, or null. */
  silentStubHint: string | null;
}

/** Optional features: a backend opts into each one; an absent one is refused as unsupported. */
export interface BackendFeatures {
  /** A second GDB stub, for the ARM7. */
  arm7Stub?: true;
  /** Data watchpoints (Z2 write, Z3 read, Z4 access) and how their stop replies give the address. */
  watchpoints?: { stopAddress: WatchAddressOrder };
}

/** What the debugger knows about a backend's stubs. */
export interface StubProfile {
  readonly names: BackendNames;
  readonly quirks: BackendQuirks;
  readonly features: BackendFeatures;
}

/** The emulator a backend verified: the program it runs and that program's SHA-256. */
export interface VerifiedEmulator {
  path: string;
  sha256: string;
}

export interface LaunchRequest {
  /** Absolute path of the ROM the RomStore opened and checked. */
  romAbsolute: string;
  /** The GDB port of each stub (arm7 null: no ARM7 stub); the session chose them, all different. */
  ports: { arm9: number; arm7: number | null };
  /** Throws the start's cancellation error if it was cancelled; called before anything is spawned. */
  checkCancelled(): void;
}

/** A stub that answered its first stop-status query, to be checked for readiness. */
export interface ReadyCheck {
  connection: RspConnection;
  processor: Processor;
  image: CpuImage;
  /** Epoch milliseconds: past it, throw `unreachable`. */
  deadline: number;
  /** Throws the start's cancellation error if it was cancelled. */
  checkCancelled(): void;
}

export interface EmulatorBackend extends StubProfile {
  /** Finds the emulator and checks it may run (installed, executable, the pinned one). */
  verify(): Promise<VerifiedEmulator>;
  /** The emulator's own version text, null when it does not say; `scratchDir` is a private directory to run in. */
  version(emulator: VerifiedEmulator, scratchDir: string): Promise<string | null>;
  /** Starts the emulator on the ROM with a GDB stub on each requested port. */
  launch(emulator: VerifiedEmulator, request: LaunchRequest): Promise<EmulatorProcess>;
  /**
   * Resolves once the stub shows the emulator running the ROM (a stub may listen before the ROM is
   * loaded); throws `unreachable` past the deadline.
   */
  awaitReady(check: ReadyCheck): Promise<void>;
  /**
   * A failed start the backend can explain better than "did not bring up its GDB stub" (from the
   * process's exit and log), or null.
   */
  explainStartFailure(process: EmulatorProcess, log: string): ReMcpError | null;
}

/**
 * A backend whose implementation is imported on first use (`load`), so that the server's start-up,
 * which reads every emulator's entry, loads no emulator's process code. Its profile is known at once;
 * a failed start is explained by the implementation, which its launch has loaded by then.
 */
export function lazyBackend(profile: StubProfile, load: () => Promise<EmulatorBackend>): EmulatorBackend {
  let loading: Promise<EmulatorBackend> | undefined;
  let loaded: EmulatorBackend | undefined;
  const impl = async () => {
    loading ??= load().then((backend) => {
      loaded = backend;
      return backend;
    });
    return loading;
  };
  return {
    names: profile.names,
    quirks: profile.quirks,
    features: profile.features,
    verify: async () => (await impl()).verify(),
    version: async (emulator, scratchDir) => (await impl()).version(emulator, scratchDir),
    launch: async (emulator, request) => (await impl()).launch(emulator, request),
    awaitReady: async (check) => (await impl()).awaitReady(check),
    explainStartFailure: (process, log) => loaded?.explainStartFailure(process, log) ?? null,
  };
}

/** Refuses a profile the protocol code cannot honour (a programming error in a backend). */
export function checkProfile(profile: StubProfile): void {
  const chunk = profile.quirks.maxMemoryChunk;
  if (!Number.isInteger(chunk) || chunk < 1 || chunk > MEMORY_CHUNK_CEILING) {
    throw new Error(
      `${profile.names.emulator}: maxMemoryChunk must be 1..${MEMORY_CHUNK_CEILING}, not ${chunk}`,
    );
  }
  layoutFacts(profile.quirks.registerLayout);
}

/** Whether an emulator could be launched, checked locally (files, digests; nothing started). */
export interface Readiness {
  ready: boolean;
  /** `ready`, `not-configured` (nothing to run), or the backend's word for what is wrong. */
  status: string;
  detail: Record<string, unknown>;
}

/** What the doctor tells the operator to do when an emulator cannot be used. */
export interface EmulatorFixes {
  /** Nothing to run, or the program is missing: how to install or configure it. */
  install: string;
  /** The program is not the pinned one (verify failed with `launch-failed`). */
  pinned: string;
  /** It ran but did not bring up its stubs: what the program must accept. */
  launch: string;
}

/**
 * An emulator the server offers: what its backend folder exports, and all the rest of the server
 * knows of it. Its tools are `<names.toolPrefix>_<verb>`; its settings are declared here and nowhere
 * else (config reads them, `--help` prints them, setting one adds the runtime profile).
 */
export interface Emulator extends StubProfile {
  /**
   * Lower-case word naming it where a key is needed: its tool family, its integration and doctor
   * check, its memory scans' ids and the folder and format of its evidence files.
   */
  readonly id: string;
  /** The settings it reads (unique variable and flag each), passed to config as DeclaredSettings. */
  readonly settings: readonly SettingSpec[];
  /** What the server publishes about it. */
  readonly texts: {
    /** Said once per session in the server's instructions after "<emulator>: ", or null. */
    instruction: string | null;
    /** server_capabilities' policy: what its stubs honour of data watchpoints (with the watchpoints feature). */
    watchpoints: string | null;
  };
  readonly fixes: EmulatorFixes;
  /** The program it would run with these settings (the configured one, else one installed where it usually is), or null. */
  located(values: DeclaredValues): string | null;
  /** Local readiness with these settings: nothing is started, no socket opened. */
  readiness(values: DeclaredValues): Promise<Readiness>;
  /** The backend over these settings. */
  backend(values: DeclaredValues): EmulatorBackend;
}
