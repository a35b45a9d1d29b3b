// High-level RetroArch operations over the transport: chunked reads and writes, confirmed pause
// state, spaced frame advance, save/load states with the paused-state trap handled, slot walking,
// and screenshots fetched from disk when the directory is known. Every wait here is bounded.
//
// Facts this relies on (RetroArch 1.14, observed): hotkey-like commands (FRAMEADVANCE, STATE_SLOT_*)
// pressed within one main-loop iteration merge, so presses are spaced; SAVE_STATE, LOAD_STATE and
// STATE_SLOT_PLUS/MINUS are silently ignored while paused; the slot pointer cannot be read back.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ReMcpError } from '../core/errors.js';
import {
  COMMAND_SINCE,
  configQuery,
  formatVersion,
  parseConfig,
  parseReadReply,
  parseStatus,
  parseVersion,
  parseWriteReply,
  planRead,
  planWrite,
  readQuery,
  readReplyCount,
  type Space,
  type Status,
  showMessageCommand,
  slotCommand,
  statusQuery,
  type Version,
  versionAtLeast,
  versionQuery,
} from './codec.js';
import { RetroArchTransport, type TransportOptions } from './transport.js';

/** Gap between hotkey-like presses: closer presses merge into one (measured ~50 ms). */
export const PRESS_SPACING_MS = 60;
/** After a press while paused the loop sleeps ~10 ms: wait this long before looking at the effect. */
export const SETTLE_MS = 30;
export const MAX_READ_BYTES = 65_536;
export const MAX_WRITE_BYTES = 65_536;
export const MAX_FRAMES = 600;
export const MAX_SLOT = 99;
export const MAX_SCREENSHOT_BYTES = 8 * 1024 * 1024;

export interface ClientOptions extends TransportOptions {
  screenshotDir: string | null;
}

export interface ReadResult {
  bytes: Uint8Array;
  requested: number;
  requests: number;
}

export type Progress = (done: number, total: number) => void;

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new ReMcpError('cancelled', 'the operation was cancelled by the client'));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new ReMcpError('cancelled', 'the operation was cancelled by the client'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/** `<game>.state` for slot 0, `.state<n>` otherwise (RetroArch's naming). */
export function stateFileName(game: string, slot: number): string {
  return slot === 0 ? `${game}.state` : `${game}.state${slot}`;
}

export class RetroArchClient {
  readonly transport: RetroArchTransport;
  readonly screenshotDir: string | null;
  private version: { text: string; parsed: Version } | null = null;
  /** Our model of RetroArch's slot pointer: starts at RetroArch's default (0) until a save proves it. */
  private slot = { value: 0, verified: false };
  /** Hotkey presses are serialised and spaced: RetroArch edge-detects them per main-loop turn. */
  private pressChain: Promise<void> = Promise.resolve();
  private lastPressAt = 0;

  constructor(options: ClientOptions) {
    this.transport = new RetroArchTransport(options);
    this.screenshotDir = options.screenshotDir;
  }

  close(): void {
    this.transport.close();
  }

  get slotPointer(): { value: number; verified: boolean } {
    return { ...this.slot };
  }

  /**
   * Sends a hotkey-like command no sooner than PRESS_SPACING_MS after the previous one. RetroArch
   * reacts to the press edge: a second press in the next loop turn reads as "still held" and is lost
   * (observed with PAUSE_TOGGLE right after a confirmed toggle).
   */
  private hotkey(datagram: string, signal?: AbortSignal): Promise<void> {
    const run = this.pressChain.then(async () => {
      const wait = this.lastPressAt + PRESS_SPACING_MS - Date.now();
      if (wait > 0) await sleep(wait, signal);
      await this.transport.send(datagram);
      this.lastPressAt = Date.now();
    });
    this.pressChain = run.catch(() => undefined);
    return run;
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
      return this.query(q.datagram, q.key, signal, (t) => readReplyCount(t) <= piece.length).then((text) =>
        parseReadReply(space, piece.address, text),
      );
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
            throw error;
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
        count = parseWriteReply(piece.address, text);
      } catch (error) {
        if (error instanceof ReMcpError) {
          error.message += ` (${confirmed} of ${bytes.length} bytes were confirmed before this piece)`;
          Object.assign(error, { details: { ...error.details, confirmedBytes: confirmed } });
        }
        throw error;
      }
      if (count !== piece.bytes.length) {
        throw new ReMcpError(
          'unconfirmed',
          `RetroArch confirmed ${count} of ${piece.bytes.length} bytes at 0x${piece.address.toString(16)}: a short write (${confirmed + count} of ${bytes.length} bytes confirmed in total)`,
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

  /** Polls GET_STATUS until `until` holds or the per-query timeout passes. */
  private async waitForState(until: (s: Status) => boolean, signal?: AbortSignal): Promise<Status> {
    const deadline = Date.now() + Math.max(this.transport.timeoutMs, 300);
    for (;;) {
      const s = await this.status(signal);
      if (until(s) || Date.now() >= deadline) return s;
      await sleep(15, signal);
    }
  }

  async pauseToggle(signal?: AbortSignal) {
    const before = await this.status(signal);
    requireContent(before);
    await this.hotkey('PAUSE_TOGGLE', signal);
    const after = await this.waitForState((s) => s.state !== before.state, signal);
    return { before: before.state, after: after.state, confirmed: after.state !== before.state };
  }

  /** Reads the state first and toggles only when needed, then confirms through GET_STATUS. */
  async setPaused(paused: boolean, signal?: AbortSignal) {
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
  async frameAdvance(frames: number, signal?: AbortSignal, progress?: Progress) {
    if (!Number.isInteger(frames) || frames < 1 || frames > MAX_FRAMES) {
      throw new ReMcpError('invalid-argument', `frames must be 1..${MAX_FRAMES}`);
    }
    const pausedFirst = (await this.setPaused(true, signal)).changed;
    // hotkey() spaces the presses so that each one counts as its own frame.
    for (let i = 0; i < frames; i++) {
      await this.hotkey('FRAMEADVANCE', signal);
      progress?.(i + 1, frames);
    }
    await sleep(SETTLE_MS, signal);
    const after = await this.status(signal);
    if (after.state !== 'paused') {
      throw new ReMcpError('unconfirmed', `after ${frames} frame advances RetroArch reports ${after.state}`);
    }
    return { frames, pausedFirst, state: after.state };
  }

  async reset(signal?: AbortSignal) {
    requireContent(await this.status(signal));
    await this.hotkey('RESET', signal);
    return { sent: true };
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
        const png = await readCompletePng(path);
        if (png) return { requested: true, path, png, directoryKnown: true };
      }
    }
    throw new ReMcpError(
      'unconfirmed',
      `SCREENSHOT was sent but no new PNG appeared in ${dir} within the wait; is RETROARCH_SCREENSHOT_DIR RetroArch's screenshot_directory?`,
    );
  }

  /** Where state files land, when RetroArch runs on this machine and the directory is readable. */
  private async stateDir(signal?: AbortSignal): Promise<string | null> {
    if (!isLoopback(this.transport.host)) return null;
    const cfg = await this.getConfig('savestate_directory', signal).catch(() => null);
    if (!cfg?.supported || !cfg.value) return null;
    try {
      return (await stat(cfg.value)).isDirectory() ? cfg.value : null;
    } catch {
      return null;
    }
  }

  /**
   * Makes sure content runs (save/load/slot presses are ignored while paused); returns whether the
   * caller must pause again afterwards.
   */
  private async ensureRunning(action: string, resumeIfPaused: boolean, signal?: AbortSignal) {
    const s = await this.status(signal);
    requireContent(s);
    if (s.state === 'playing') return { status: s, repause: false };
    if (!resumeIfPaused) {
      throw new ReMcpError(
        'paused',
        `RetroArch is paused and silently ignores ${action} while paused; pass resumeIfPaused: true (it resumes, acts, then pauses again) or resume first`,
      );
    }
    // Confirmed through GET_STATUS; hotkey() then spaces the next press from this toggle.
    await this.setPaused(false, signal);
    return { status: s, repause: true };
  }

  private async press(command: string, signal?: AbortSignal): Promise<void> {
    await this.hotkey(command, signal);
  }

  private async walkTo(target: number, signal?: AbortSignal): Promise<number> {
    const presses = Math.abs(target - this.slot.value);
    while (this.slot.value !== target) {
      const up = target > this.slot.value;
      await this.press(up ? 'STATE_SLOT_PLUS' : 'STATE_SLOT_MINUS', signal);
      this.slot.value += up ? 1 : -1;
    }
    return presses;
  }

  /** Moves the pointer one step (only while running: RetroArch ignores it while paused). */
  async stepSlot(delta: 1 | -1, resumeIfPaused: boolean, signal?: AbortSignal) {
    const run = await this.ensureRunning(
      delta > 0 ? 'STATE_SLOT_PLUS' : 'STATE_SLOT_MINUS',
      resumeIfPaused,
      signal,
    );
    try {
      const from = this.slot.value;
      // RetroArch 1.14 does not go below slot 0: a MINUS at 0 is a no-op there.
      if (delta < 0 && from === 0) {
        await this.press('STATE_SLOT_MINUS', signal);
      } else {
        await this.walkTo(from + delta, signal);
      }
      return { from, slot: this.slot.value, verified: this.slot.verified };
    } finally {
      if (run.repause) await this.setPaused(true, signal);
    }
  }

  /**
   * Saves to the current slot (slot undefined) or to `slot` (native SAVE_STATE_SLOT where the version
   * has it, otherwise walking the pointer there and back). Confirms the state file when it can.
   */
  async saveState(opts: { slot?: number; resumeIfPaused: boolean }, signal?: AbortSignal) {
    if (opts.slot !== undefined) checkSlot(opts.slot);
    const run = await this.ensureRunning('SAVE_STATE', opts.resumeIfPaused, signal);
    try {
      const dir = await this.stateDir(signal);
      const game = run.status.game;
      const before = dir && game ? await stateSnapshot(dir, game) : null;
      let method: 'current' | 'native' | 'walk' = 'current';
      let presses = 0;
      const original = this.slot.value;
      if (opts.slot === undefined) {
        await this.hotkey('SAVE_STATE', signal);
      } else if (await this.hasCommand('SAVE_STATE_SLOT', signal)) {
        method = 'native';
        await this.hotkey(slotCommand('SAVE_STATE_SLOT', opts.slot), signal);
      } else {
        method = 'walk';
        presses += await this.walkTo(opts.slot, signal);
        await this.hotkey('SAVE_STATE', signal);
      }
      let file: string | null = null;
      if (dir && game && before) file = await this.waitForStateWrite(dir, game, before, signal);
      if (method === 'walk') {
        presses += await this.walkTo(original, signal);
      }
      const slotWritten = file === null ? null : slotOfStateFile(game!, file);
      if (slotWritten !== null && method === 'current') this.slot = { value: slotWritten, verified: true };
      if (dir && game && file === null) {
        throw new ReMcpError(
          'unconfirmed',
          `SAVE_STATE was sent but no state file for "${game}" changed in ${dir} within the wait`,
        );
      }
      return {
        method,
        slot: opts.slot ?? slotWritten ?? this.slot.value,
        pointerPresses: presses,
        confirmed: file !== null,
        file: file && dir ? join(dir, file) : null,
        resumed: run.repause,
      };
    } finally {
      if (run.repause) await this.setPaused(true, signal);
    }
  }

  private async waitForStateWrite(
    dir: string,
    game: string,
    before: Map<string, string>,
    signal?: AbortSignal,
  ) {
    const deadline = Date.now() + Math.max(2_000, this.transport.timeoutMs * 2);
    while (Date.now() < deadline) {
      await sleep(25, signal);
      const now = await stateSnapshot(dir, game);
      for (const [name, sig] of now) {
        if (before.get(name) !== sig) {
          // Let the compressed writer finish: wait until the size stops moving.
          await sleep(40, signal);
          return name;
        }
      }
    }
    return null;
  }

  /** LOAD_STATE from the current slot or from `slot` (native LOAD_STATE_SLOT on 1.15+, else walk). */
  async loadState(opts: { slot?: number; resumeIfPaused: boolean }, signal?: AbortSignal) {
    if (opts.slot !== undefined) checkSlot(opts.slot);
    const run = await this.ensureRunning('LOAD_STATE', opts.resumeIfPaused, signal);
    try {
      const target = opts.slot ?? this.slot.value;
      const dir = await this.stateDir(signal);
      const game = run.status.game;
      let file: string | null = null;
      if (dir && game) {
        file = join(dir, stateFileName(game, target));
        const exists = await stat(file).then(
          (s) => s.isFile(),
          () => false,
        );
        if (!exists && (opts.slot !== undefined || this.slot.verified)) {
          throw new ReMcpError('not-found', `no state file for slot ${target}: ${file} does not exist`, {
            slot: target,
          });
        }
        if (!exists) file = null;
      }
      let method: 'current' | 'native' | 'walk' = 'current';
      let presses = 0;
      if (opts.slot === undefined) {
        await this.hotkey('LOAD_STATE', signal);
      } else if (await this.hasCommand('LOAD_STATE_SLOT', signal)) {
        method = 'native';
        await this.hotkey(slotCommand('LOAD_STATE_SLOT', opts.slot), signal);
      } else {
        method = 'walk';
        const original = this.slot.value;
        presses += await this.walkTo(opts.slot, signal);
        await this.press('LOAD_STATE', signal);
        presses += await this.walkTo(original, signal);
      }
      // Give the load one main-loop turn before anyone reads memory.
      await sleep(PRESS_SPACING_MS, signal);
      return { method, slot: target, pointerPresses: presses, file, resumed: run.repause };
    } finally {
      if (run.repause) await this.setPaused(true, signal);
    }
  }

  describeVersion(): string | null {
    return this.version ? formatVersion(this.version.parsed) : null;
  }
}

function isNoDescriptor(error: unknown): boolean {
  return error instanceof ReMcpError && error.code === 'no-descriptor';
}

function requireContent(s: Status): void {
  if (s.state === 'contentless') {
    throw new ReMcpError('not-running', 'RetroArch has no content loaded (GET_STATUS CONTENTLESS)');
  }
}

function checkWriteLength(bytes: Uint8Array): void {
  if (bytes.length < 1 || bytes.length > MAX_WRITE_BYTES) {
    throw new ReMcpError('invalid-argument', `write 1..${MAX_WRITE_BYTES} bytes per call`);
  }
}

function checkSlot(slot: number): void {
  if (!Number.isInteger(slot) || slot < 0 || slot > MAX_SLOT) {
    throw new ReMcpError('invalid-argument', `slot must be 0..${MAX_SLOT}`);
  }
}

function firstDifference(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}

/** `<game>.state` -> 0, `<game>.state7` -> 7, anything else -> null. */
export function slotOfStateFile(game: string, name: string): number | null {
  if (!name.startsWith(`${game}.state`)) return null;
  const rest = name.slice(game.length + '.state'.length);
  if (rest === '') return 0;
  return /^\d+$/.test(rest) ? Number(rest) : null;
}

async function stateSnapshot(dir: string, game: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    if (slotOfStateFile(game, name) === null) continue;
    try {
      const s = await stat(join(dir, name));
      out.set(name, `${s.mtimeMs}:${s.size}`);
    } catch {
      // vanished between readdir and stat
    }
  }
  return out;
}

async function pngSnapshot(dir: string): Promise<Map<string, string> | null> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return null;
  }
  const out = new Map<string, string>();
  for (const name of names) {
    if (!name.toLowerCase().endsWith('.png')) continue;
    try {
      const s = await stat(join(dir, name));
      out.set(name, `${s.mtimeMs}:${s.size}`);
    } catch {
      // vanished
    }
  }
  return out;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const IEND = Buffer.from('IEND', 'latin1');

/** The PNG once fully written (signature and IEND chunk present), else null. */
async function readCompletePng(path: string): Promise<Buffer | null> {
  try {
    const s = await stat(path);
    if (s.size > MAX_SCREENSHOT_BYTES) {
      throw new ReMcpError(
        'limit-exceeded',
        `screenshot ${path} is ${s.size} bytes (max ${MAX_SCREENSHOT_BYTES})`,
      );
    }
    const data = await readFile(path);
    if (data.length < 20 || !PNG_SIGNATURE.every((b, i) => data[i] === b)) return null;
    if (data.subarray(data.length - 12).indexOf(IEND) !== 4) return null;
    return data;
  } catch (error) {
    if (error instanceof ReMcpError) throw error;
    return null;
  }
}
