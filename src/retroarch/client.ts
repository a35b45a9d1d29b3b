// High-level RetroArch operations over the transport: chunked reads and writes, confirmed pause
// state, spaced frame advance, screenshots fetched from disk when the directory is known; save states
// and the slot pointer live in states.ts, controller input in input.ts. Every wait here is bounded.
//
// Facts this relies on (RetroArch 1.14, observed): hotkey-like commands (FRAMEADVANCE, PAUSE_TOGGLE,
// STATE_SLOT_*) are edge-triggered once per main-loop turn, so presses are serialised and spaced.
import { join } from 'node:path';
import { isReMcpError, ReMcpError, throwIfCancelled } from '../core/errors.js';
import { formatAddress } from '../core/vocabulary.js';
import {
  COMMAND_SINCE,
  configQuery,
  formatVersion,
  MAX_FRAMES,
  PRESS_SPACING_MS,
  parseConfig,
  parseReadReply,
  parseStatus,
  parseVersion,
  parseWriteReply,
  planRead,
  planWrite,
  readQuery,
  readReplyCount,
  requireContent,
  SETTLE_MS,
  type Space,
  type Status,
  showMessageCommand,
  statusQuery,
  type Version,
  versionAtLeast,
  versionQuery,
} from './codec.js';
import { MAX_SCREENSHOT_BYTES, pngSnapshot, readCompletePng, sleep } from './files.js';
import { type InputResult, type InputStep, pressInput } from './input.js';
import { RemotePad } from './pad.js';
import { MAX_SLOT, StateSlots } from './states.js';
import { type CoreSupport, probeCoreSupport, withSupport } from './support.js';
import { RetroArchTransport, type TransportOptions } from './transport.js';

export { MAX_FRAMES, MAX_SCREENSHOT_BYTES, MAX_SLOT, PRESS_SPACING_MS };

export const MAX_READ_BYTES = 65_536;
const MAX_WRITE_BYTES = 65_536;

interface ClientOptions extends TransportOptions {
  screenshotDir: string | null;
  /** The network remote pad's base UDP port (player 1; player N at base + N - 1). */
  padPort?: number;
}

export const DEFAULT_PAD_PORT = 55_400;

interface ReadResult {
  bytes: Uint8Array;
  requested: number;
  requests: number;
}

type Progress = (done: number, total: number) => void;

export class RetroArchClient {
  readonly transport: RetroArchTransport;
  readonly screenshotDir: string | null;
  private version: { text: string; parsed: Version } | null = null;
  /** Save states and the slot pointer (states.ts). */
  private readonly states = new StateSlots(this);
  /** The network remote pad (controller input), separate from the command interface. */
  readonly pad: RemotePad;
  /** Hotkey presses are serialised and spaced: RetroArch edge-detects them per main-loop turn. */
  private pressChain: Promise<void> = Promise.resolve();
  private lastPressAt = 0;
  private opChain: Promise<unknown> = Promise.resolve();

  constructor(options: ClientOptions) {
    this.transport = new RetroArchTransport(options);
    this.screenshotDir = options.screenshotDir;
    this.pad = new RemotePad(options.host, options.padPort ?? DEFAULT_PAD_PORT);
    // Back after being seen absent: maybe a new process (other version, slot pointer back at its
    // default), so nothing learnt from the old one is trusted.
    this.transport.onReturn(() => {
      this.version = null;
      this.states.forget();
    });
  }

  close(): void {
    this.transport.close();
    this.pad.close();
  }

  get slotPointer(): { value: number; verified: boolean } {
    return this.states.pointer;
  }

  /**
   * Sends a hotkey-like command no sooner than PRESS_SPACING_MS after the previous one. RetroArch
   * reacts to the press edge: a second press in the next loop turn reads as "still held" and is lost
   * (observed with PAUSE_TOGGLE right after a confirmed toggle).
   */
  /** @internal also used by states.ts and input.ts */
  hotkey(datagram: string, signal?: AbortSignal): Promise<void> {
    const run = this.pressChain.then(async () => {
      const wait = this.lastPressAt + PRESS_SPACING_MS - Date.now();
      if (wait > 0) await sleep(wait, signal);
      await this.transport.send(datagram);
      this.lastPressAt = Date.now();
    });
    this.pressChain = run.catch(() => undefined);
    return run;
  }

  /**
   * Returns once RetroArch's loop has turned at least once since the last press: a status query
   * answered, then a second one sent only after that answer. RetroArch reads the waiting commands
   * once a turn, so the second answer comes from a later turn than the press: the press's turn, with
   * its frame, has ended. On a loaded machine a turn can take far longer than the press spacing: this,
   * not the clock, says a FRAMEADVANCE was taken as its own frame.
   */
  /** @internal also used by input.ts */
  async loopTurned(signal?: AbortSignal): Promise<void> {
    await this.status(signal);
    await this.status(signal);
  }

  private async query(datagram: string, key: string, signal?: AbortSignal, accept?: (t: string) => boolean) {
    return this.transport.query(datagram, key, { idempotent: true, signal, accept });
  }

  async getVersion(signal?: AbortSignal): Promise<{ text: string; parsed: Version; rttMs: number }> {
    const q = versionQuery();
    const started = performance.now();
    let text: string;
    try {
      text = await this.query(q.datagram, q.key, signal);
    } catch (error) {
      this.version = null; // a restarted (maybe different) RetroArch is re-detected next time
      throw error;
    }
    const parsed = parseVersion(text);
    if (!parsed) throw new ReMcpError('protocol-error', `unexpected VERSION reply ${JSON.stringify(text)}`);
    this.version = { text: text.trim(), parsed };
    return { text: this.version.text, parsed, rttMs: performance.now() - started };
  }

  /** Detected once and cached; commands newer than it are refused with `unsupported`. */
  async detectedVersion(signal?: AbortSignal): Promise<Version> {
    if (this.version) return this.version.parsed;
    return (await this.getVersion(signal)).parsed;
  }

  async hasCommand(command: string, signal?: AbortSignal): Promise<boolean> {
    const since = COMMAND_SINCE[command];
    return since === undefined || versionAtLeast(await this.detectedVersion(signal), since);
  }

  async status(signal?: AbortSignal): Promise<Status> {
    const q = statusQuery();
    return parseStatus(await this.query(q.datagram, q.key, signal));
  }

  async getConfig(name: string, signal?: AbortSignal): Promise<{ supported: boolean; value: string | null }> {
    const q = configQuery(name);
    return parseConfig(await this.query(q.datagram, q.key, signal), name);
  }

  /** One byte at address 0 of `space`, as RetroArch answers it (the core support probe's read). */
  async readFirstByte(space: Space, signal?: AbortSignal): Promise<Uint8Array> {
    const q = readQuery(space, 0, 1);
    const text = await this.query(q.datagram, q.key, signal, (t) => readReplyCount(t) <= 1);
    return parseReadReply(space, 0, text);
  }

  /** The outcome of the last save state sent for this content, if any (support.ts). */
  saveOutcome(status: Status): 'saved' | 'no-file' | null {
    return this.states.outcome(status);
  }

  /** What the loaded core supports through RetroArch (support.ts): nothing is changed to find out. */
  coreSupport(signal?: AbortSignal): Promise<CoreSupport> {
    return probeCoreSupport(this, signal);
  }

  /**
   * A refusal that depends on the core (no memory map; no achievements RAM) says what this core
   * supports instead; any other error is returned as it is.
   */
  private async explained(error: unknown, space: Space, signal?: AbortSignal): Promise<unknown> {
    if (!isReMcpError(error)) return error;
    const memoryRefusal = space === 'memory' && error.code === 'no-memory-map';
    const ramRefusal = space === 'ram' && error.code === 'no-descriptor';
    if (!memoryRefusal && !ramRefusal) return error;
    const support = await this.coreSupport(signal);
    const lead =
      ramRefusal && support.achievementsRam === false
        ? `READ_CORE_RAM ${String(error.details?.address)}: the loaded core exposes no achievements RAM (READ_CORE_RAM answers -1 even at its start, 0x00000000)`
        : undefined;
    return withSupport(error, support, lead);
  }

  /** Reads up to 64 KiB in requests RetroArch answers; stops early where a region ends. */
  async read(space: Space, address: number, length: number, signal?: AbortSignal, progress?: Progress) {
    if (!Number.isInteger(length) || length < 1 || length > MAX_READ_BYTES) {
      throw new ReMcpError('invalid-argument', `length must be 1..${MAX_READ_BYTES}`);
    }
    const plan = planRead(address, length);
    // All chunks go out together (the transport bounds what is in flight); results are then taken in
    // order so a region end in chunk k discards the chunks after it.
    const replies = plan.map((piece) => {
      const q = readQuery(space, piece.address, piece.length);
      // A reply with more bytes than asked cannot be ours (a stray for a longer read of the same address).
      const reply = this.query(q.datagram, q.key, signal, (t) => readReplyCount(t) <= piece.length).then(
        (text) => parseReadReply(space, piece.address, text),
      );
      // Handled at once: a later chunk may fail while an earlier one is still awaited below, and a
      // rejection nobody is listening to yet is an unhandled rejection (a crash in the CLI).
      reply.catch(() => {});
      return reply;
    });
    const out = new Uint8Array(length);
    let filled = 0;
    let done = 0;
    let settled: unknown = null;
    for (let i = 0; i < plan.length; i++) {
      try {
        const bytes = await replies[i]!;
        if (settled !== null) continue;
        out.set(bytes, filled);
        filled += bytes.length;
        progress?.(++done, plan.length);
        if (bytes.length < plan[i]!.length) settled = 'truncated';
      } catch (error) {
        // An error past a truncation point is expected (the next region may not exist).
        if (settled === null) {
          if (i > 0 && isNoDescriptor(error)) settled = 'truncated';
          else {
            await Promise.allSettled(replies);
            throw await this.explained(error, space, signal);
          }
        }
      }
    }
    await Promise.allSettled(replies);
    return { bytes: out.slice(0, filled), requested: length, requests: plan.length } satisfies ReadResult;
  }

  /** WRITE_CORE_MEMORY in datagram-sized pieces; a piece confirming fewer bytes is an error. */
  async writeMemory(address: number, bytes: Uint8Array, signal?: AbortSignal, progress?: Progress) {
    checkWriteLength(bytes);
    const pieces = planWrite('memory', address, bytes);
    let confirmed = 0;
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i]!;
      let count: number;
      try {
        const text = await this.transport.query(piece.datagram, piece.key!, { idempotent: false, signal });
        count = parseWriteReply(piece.address, text, piece.bytes.length);
      } catch (error) {
        if (error instanceof ReMcpError) {
          error.message += ` (${confirmed} of ${bytes.length} bytes were confirmed before this piece)`;
          Object.assign(error, { details: { ...error.details, confirmedBytes: confirmed } });
        }
        throw await this.explained(error, 'memory', signal);
      }
      if (count !== piece.bytes.length) {
        // RetroArch stops at the end of a memory region and says how far it got.
        throw new ReMcpError(
          'short-write',
          `RetroArch confirmed ${count} of ${piece.bytes.length} bytes at ${formatAddress(piece.address)}: a short write (${confirmed + count} of ${bytes.length} bytes confirmed in total)`,
          { confirmedBytes: confirmed + count, requested: bytes.length },
        );
      }
      confirmed += count;
      progress?.(i + 1, pieces.length);
    }
    return { written: confirmed, requests: pieces.length };
  }

  /** WRITE_CORE_RAM gets no reply: the bytes are sent, then read back to verify. */
  async writeRam(address: number, bytes: Uint8Array, signal?: AbortSignal) {
    checkWriteLength(bytes);
    const pieces = planWrite('ram', address, bytes);
    // WRITE_CORE_RAM is never answered: a status query first proves RetroArch is there and has content.
    requireContent(await this.status(signal));
    for (const piece of pieces) await this.transport.send(piece.datagram);
    // While paused the loop polls commands every ~10 ms; the read queues behind the writes anyway.
    let back: Uint8Array;
    try {
      back = (await this.read('ram', address, bytes.length, signal)).bytes;
    } catch (error) {
      if (error instanceof ReMcpError && error.code !== 'cancelled') {
        return {
          sent: bytes.length,
          requests: pieces.length,
          verified: 'unverifiable' as const,
          reason: error.message,
        };
      }
      throw error;
    }
    const firstMismatch = firstDifference(back, bytes);
    return {
      sent: bytes.length,
      requests: pieces.length,
      verified: firstMismatch === -1,
      firstMismatch: firstMismatch === -1 ? null : firstMismatch,
      readBack: back.length,
    };
  }

  // Multi-step control sequences (toggle and confirm, walk the slot pointer, resume-act-pause) must not
  // interleave with each other, so they run one at a time; reads and writes are not held up by them.
  private exclusive<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const run = this.opChain.then(() => {
      throwIfCancelled(signal);
      return fn();
    });
    this.opChain = run.catch(() => undefined);
    return run;
  }

  pauseToggle(signal?: AbortSignal) {
    return this.exclusive(() => this.pauseToggleNow(signal), signal);
  }

  setPaused(paused: boolean, signal?: AbortSignal) {
    return this.exclusive(() => this.setPausedNow(paused, signal), signal);
  }

  frameAdvance(frames: number, signal?: AbortSignal, progress?: Progress) {
    return this.exclusive(() => this.frameAdvanceNow(frames, signal, progress), signal);
  }

  /** Controller input through the remote pad (input.ts). */
  input(
    player: number,
    action: InputResult['action'],
    steps: InputStep[],
    signal?: AbortSignal,
    progress?: Progress,
  ): Promise<InputResult> {
    return this.exclusive(() => pressInput(this, { player, action, steps }, signal, progress), signal);
  }

  reset(resumeIfPaused: boolean, signal?: AbortSignal) {
    return this.exclusive(() => this.resetNow(resumeIfPaused, signal), signal);
  }

  stepSlot(delta: 1 | -1, resumeIfPaused: boolean, signal?: AbortSignal) {
    return this.exclusive(() => this.states.stepSlot(delta, resumeIfPaused, signal), signal);
  }

  saveState(opts: { slot?: number; resumeIfPaused: boolean }, signal?: AbortSignal) {
    return this.exclusive(() => this.states.save(opts, signal), signal);
  }

  loadState(opts: { slot?: number; resumeIfPaused: boolean }, signal?: AbortSignal) {
    return this.exclusive(() => this.states.load(opts, signal), signal);
  }

  /** Polls GET_STATUS until `until` holds or the per-query timeout passes. */
  private async waitForState(until: (s: Status) => boolean, signal?: AbortSignal): Promise<Status> {
    const deadline = Date.now() + Math.max(this.transport.timeoutMs, 300);
    for (;;) {
      const s = await this.status(signal);
      if (until(s) || Date.now() >= deadline) return s;
      await sleep(15, signal);
    }
  }

  private async pauseToggleNow(signal?: AbortSignal) {
    const before = await this.status(signal);
    requireContent(before);
    await this.hotkey('PAUSE_TOGGLE', signal);
    const after = await this.waitForState((s) => s.state !== before.state, signal);
    return { before: before.state, after: after.state, confirmed: after.state !== before.state };
  }

  /** Reads the state first and toggles only when needed, then confirms through GET_STATUS. */
  /** @internal the unlocked form, also used by states.ts inside its own locked sequences. */
  async setPausedNow(paused: boolean, signal?: AbortSignal) {
    const want: Status['state'] = paused ? 'paused' : 'playing';
    const before = await this.status(signal);
    requireContent(before);
    if (before.state === want) return { state: want, changed: false };
    await this.hotkey('PAUSE_TOGGLE', signal);
    const after = await this.waitForState((s) => s.state === want, signal);
    if (after.state !== want) {
      throw new ReMcpError('unconfirmed', `PAUSE_TOGGLE was sent but RetroArch still reports ${after.state}`);
    }
    return { state: want, changed: true };
  }

  /** N spaced FRAMEADVANCE presses, from the paused state (paused first when running). */
  private async frameAdvanceNow(frames: number, signal?: AbortSignal, progress?: Progress) {
    if (!Number.isInteger(frames) || frames < 1 || frames > MAX_FRAMES) {
      throw new ReMcpError('invalid-argument', `frames must be 1..${MAX_FRAMES}`);
    }
    const pausedFirst = (await this.setPausedNow(true, signal)).changed;
    // hotkey() spaces the presses so that each one counts as its own frame.
    for (let i = 0; i < frames; i++) {
      await this.hotkey('FRAMEADVANCE', signal);
      await this.loopTurned(signal);
      progress?.(i + 1, frames);
    }
    await sleep(SETTLE_MS, signal);
    const after = await this.status(signal);
    if (after.state !== 'paused') {
      throw new ReMcpError('unconfirmed', `after ${frames} frame advances RetroArch reports ${after.state}`);
    }
    return { frames, pausedFirst, state: after.state };
  }

  /**
   * RetroArch drops RESET while paused without a word (observed: the frame counter ran on through a
   * paused reset), so a paused game is refused, or resumed for the press and paused again.
   */
  private async resetNow(resumeIfPaused: boolean, signal?: AbortSignal) {
    const before = await this.status(signal);
    requireContent(before);
    if (before.state === 'playing') {
      await this.hotkey('RESET', signal);
      return { sent: true, resumedAndRepaused: false };
    }
    if (!resumeIfPaused) {
      throw new ReMcpError(
        'paused',
        'RetroArch is paused and silently ignores RESET while paused; pass resumeIfPaused: true (it resumes, resets, then pauses again) or resume first',
      );
    }
    try {
      await this.setPausedNow(false, signal);
      await this.hotkey('RESET', signal);
    } finally {
      // Without the caller's signal: a cancelled sequence still ends paused, as it started.
      await this.setPausedNow(true);
    }
    return { sent: true, resumedAndRepaused: true };
  }

  async showMessage(text: string, signal?: AbortSignal) {
    const datagram = showMessageCommand(text);
    // The message itself is never answered: a status query first proves RetroArch is there.
    await this.status(signal);
    await this.transport.send(datagram);
    return { sent: true };
  }

  /** Triggers SCREENSHOT; with a known directory waits for the new PNG and returns it. */
  async screenshot(signal?: AbortSignal) {
    const status = await this.status(signal);
    requireContent(status);
    const dir = this.screenshotDir;
    const before = dir ? await pngSnapshot(dir) : null;
    await this.hotkey('SCREENSHOT', signal);
    if (!dir || !before) return { requested: true, path: null, png: null, directoryKnown: dir !== null };
    const deadline = Date.now() + Math.max(2_000, this.transport.timeoutMs * 2);
    while (Date.now() < deadline) {
      await sleep(25, signal);
      const now = await pngSnapshot(dir);
      for (const [name, sig] of now ?? []) {
        if (before.get(name) === sig) continue;
        const path = join(dir, name);
        const png = await readCompletePng(path, deadline - Date.now(), signal);
        if (png) return { requested: true, path, png, directoryKnown: true };
      }
    }
    throw new ReMcpError(
      'unconfirmed',
      `SCREENSHOT was sent but no new PNG appeared in ${dir} within the wait; is RETROARCH_SCREENSHOT_DIR RetroArch's screenshot_directory?`,
    );
  }

  describeVersion(): string | null {
    return this.version ? formatVersion(this.version.parsed) : null;
  }
}

function isNoDescriptor(error: unknown): boolean {
  return error instanceof ReMcpError && error.code === 'no-descriptor';
}

function checkWriteLength(bytes: Uint8Array): void {
  if (bytes.length < 1 || bytes.length > MAX_WRITE_BYTES) {
    throw new ReMcpError('invalid-argument', `write 1..${MAX_WRITE_BYTES} bytes per call`);
  }
}

function firstDifference(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}
