// Save states and the slot pointer, the part of RetroArch's interface with the most traps (1.14,
// observed): SAVE_STATE, LOAD_STATE and STATE_SLOT_PLUS/MINUS are silently ignored while paused; there
// is no LOAD_STATE_SLOT (1.15+) nor SAVE_STATE_SLOT; the slot pointer cannot be read back and does not
// go below 0. So: refuse or resume around paused states, walk the pointer with spaced presses from a
// tracked position, and learn the real pointer from the file each confirmed save writes.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ReMcpError } from '../core/errors.js';
import { PRESS_SPACING_MS, requireContent, type Status, slotCommand } from './codec.js';
import {
  isLoopback,
  plainDirectory,
  plainGame,
  sleep,
  slotOfStateFile,
  stateFileName,
  stateSnapshot,
} from './files.js';
import { type CoreSupport, contentKey, namesSystemId, withSupport } from './support.js';

export const MAX_SLOT = 99;

/** How a state reached its slot: the current slot, a native *_STATE_SLOT command, or the pointer walked there. */
export const STATE_METHODS = ['current', 'native', 'walk'] as const;
type StateMethod = (typeof STATE_METHODS)[number];

/** What the slot logic needs of the client (RetroArchClient provides it; declared here, so no cycle). */
interface StateHost {
  readonly transport: { readonly host: string; readonly timeoutMs: number };
  hotkey(datagram: string, signal?: AbortSignal): Promise<void>;
  /** Returns once RetroArch's main loop has turned since the last press (client.ts). */
  loopTurned(signal?: AbortSignal): Promise<void>;
  hasCommand(command: string, signal?: AbortSignal): Promise<boolean>;
  status(signal?: AbortSignal): Promise<Status>;
  getConfig(name: string, signal?: AbortSignal): Promise<{ supported: boolean; value: string | null }>;
  setPausedNow(paused: boolean, signal?: AbortSignal): Promise<{ state: Status['state']; changed: boolean }>;
  /** What the loaded core supports (support.ts), said when a save writes nothing. */
  coreSupport(signal?: AbortSignal): Promise<CoreSupport>;
}

export class StateSlots {
  /** Our model of RetroArch's slot pointer: starts at RetroArch's default (0) until a save proves it. */
  private slot = { value: 0, verified: false };
  /** The last save sent whose file was checked: for which content, and whether a state file appeared. */
  private lastSave: { content: string; saved: boolean } | null = null;

  constructor(private readonly ra: StateHost) {}

  get pointer(): { value: number; verified: boolean } {
    return { ...this.slot };
  }

  /** Back to the start-up assumption (RetroArch's default slot 0, unverified), e.g. after a restart. */
  forget(): void {
    this.slot = { value: 0, verified: false };
    this.lastSave = null;
  }

  /** The outcome of the last checked save, when it was for this content. */
  outcome(status: Status): 'saved' | 'no-file' | null {
    if (this.lastSave === null || this.lastSave.content !== contentKey(status)) return null;
    return this.lastSave.saved ? 'saved' : 'no-file';
  }

  /**
   * Where state files land, when RetroArch runs on this machine and the directory is readable. What
   * RetroArch answers is taken only as a plain absolute directory (no control characters, not a
   * kernel file system); anything else leaves the state files unchecked.
   */
  private async stateDir(signal?: AbortSignal): Promise<string | null> {
    if (!isLoopback(this.ra.transport.host)) return null;
    const cfg = await this.ra.getConfig('savestate_directory', signal).catch(() => null);
    if (!cfg?.supported || !cfg.value || !plainDirectory(cfg.value)) return null;
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
    const s = await this.ra.status(signal);
    requireContent(s);
    if (s.state === 'playing') return { status: s, repause: false };
    if (!resumeIfPaused) {
      throw new ReMcpError(
        'paused',
        `RetroArch is paused and silently ignores ${action} while paused; pass resumeIfPaused: true (it resumes, acts, then pauses again) or resume first`,
      );
    }
    // Confirmed through GET_STATUS; hotkey() then spaces the next press from this toggle.
    try {
      await this.ra.setPausedNow(false, signal);
    } catch (error) {
      // Cancelled or failed after the toggle may have gone out: never leave the game running.
      await this.repause();
      throw error;
    }
    return { status: s, repause: true };
  }

  /**
   * Pauses again after a resume-act-pause sequence. Deliberately without the caller's signal: a
   * cancelled sequence must still end paused, as it started (bounded by the query timeouts).
   */
  private async repause(): Promise<void> {
    await this.ra.setPausedNow(true);
  }

  /**
   * One press of a pointer (or state) command, then a turn of RetroArch's loop seen to end: on a
   * loaded machine a turn outlasts the press spacing, and a press read in the turn right after another
   * reads as held and is lost (the pointer then lags the tracked one by a slot).
   */
  private async press(command: string, signal?: AbortSignal): Promise<void> {
    await this.ra.hotkey(command, signal);
    await this.ra.loopTurned(signal);
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
      if (run.repause) await this.repause();
    }
  }

  /**
   * Saves to the current slot (slot undefined) or to `slot` (native SAVE_STATE_SLOT where the version
   * has it, otherwise walking the pointer there and back). Confirms the state file when it can.
   */
  async save(opts: { slot?: number; resumeIfPaused: boolean }, signal?: AbortSignal) {
    if (opts.slot !== undefined) checkSlot(opts.slot);
    const run = await this.ensureRunning('SAVE_STATE', opts.resumeIfPaused, signal);
    try {
      const dir = await this.stateDir(signal);
      const game = plainGame(run.status.game);
      const before = dir && game ? await stateSnapshot(dir, game) : null;
      let method: StateMethod = 'current';
      let presses = 0;
      const original = this.slot.value;
      if (opts.slot === undefined) {
        await this.ra.hotkey('SAVE_STATE', signal);
      } else if (await this.ra.hasCommand('SAVE_STATE_SLOT', signal)) {
        method = 'native';
        await this.ra.hotkey(slotCommand('SAVE_STATE_SLOT', opts.slot), signal);
      } else {
        method = 'walk';
        presses += await this.walkTo(opts.slot, signal);
        await this.ra.hotkey('SAVE_STATE', signal);
      }
      let file: string | null = null;
      if (dir && game && before) {
        file = await this.waitForStateWrite(dir, game, before, signal);
        this.lastSave = { content: contentKey(run.status), saved: file !== null };
      }
      if (method === 'walk') {
        presses += await this.walkTo(original, signal);
      }
      const slotWritten = file === null ? null : slotOfStateFile(game!, file);
      if (slotWritten !== null && method === 'current') this.slot = { value: slotWritten, verified: true };
      if (slotWritten !== null && method === 'walk' && slotWritten !== opts.slot) {
        // The pointer was not where we tracked it (moved outside re-mcp, or RetroArch restarted): the
        // file tells where it was at the save; we have since walked back by (original - slot) presses.
        const now = slotWritten + (original - opts.slot!);
        this.slot = { value: Math.max(0, now), verified: now >= 0 };
        throw new ReMcpError(
          'unconfirmed',
          `SAVE_STATE went to slot ${slotWritten}, not slot ${opts.slot}: RetroArch's slot pointer was not where re-mcp tracked it (it was moved outside re-mcp or RetroArch restarted). ${join(dir!, file!)} was overwritten; the tracked pointer is corrected, so a retry lands in slot ${opts.slot}`,
          { requestedSlot: opts.slot, writtenSlot: slotWritten, file: join(dir!, file!) },
        );
      }
      if (dir && game && file === null) {
        // Whether this core can save states at all (and what it can do instead) is part of the answer.
        throw withSupport(
          new ReMcpError(
            'unconfirmed',
            `SAVE_STATE was sent but no state file for "${game}" changed in ${dir} within the wait`,
          ),
          await this.ra.coreSupport(signal),
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
      if (run.repause) await this.repause();
    }
  }

  private async waitForStateWrite(
    dir: string,
    game: string,
    before: Map<string, string>,
    signal?: AbortSignal,
  ) {
    const deadline = Date.now() + Math.max(2_000, this.ra.transport.timeoutMs * 2);
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
  async load(opts: { slot?: number; resumeIfPaused: boolean }, signal?: AbortSignal) {
    if (opts.slot !== undefined) checkSlot(opts.slot);
    const run = await this.ensureRunning('LOAD_STATE', opts.resumeIfPaused, signal);
    try {
      const target = opts.slot ?? this.slot.value;
      const dir = await this.stateDir(signal);
      const game = plainGame(run.status.game);
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
      let method: StateMethod = 'current';
      let presses = 0;
      if (opts.slot === undefined) {
        await this.ra.hotkey('LOAD_STATE', signal);
      } else if (await this.ra.hasCommand('LOAD_STATE_SLOT', signal)) {
        method = 'native';
        await this.ra.hotkey(slotCommand('LOAD_STATE_SLOT', opts.slot), signal);
      } else {
        method = 'walk';
        const original = this.slot.value;
        presses += await this.walkTo(opts.slot, signal);
        await this.press('LOAD_STATE', signal);
        presses += await this.walkTo(original, signal);
      }
      // Give the load one main-loop turn before anyone reads memory.
      await sleep(PRESS_SPACING_MS, signal);
      // Without the core's info file RetroArch drops the load with only a line in its log: not done.
      if (namesSystemId(run.status.system) === false)
        throw withSupport(
          new ReMcpError(
            'unconfirmed',
            `LOAD_STATE was sent for slot ${target}, but RetroArch does not load states for this core`,
          ),
          await this.ra.coreSupport(signal),
        );
      return { method, slot: target, pointerPresses: presses, file, resumed: run.repause };
    } finally {
      if (run.repause) await this.repause();
    }
  }
}

function checkSlot(slot: number): void {
  if (!Number.isInteger(slot) || slot < 0 || slot > MAX_SLOT) {
    throw new ReMcpError('invalid-argument', `slot must be 0..${MAX_SLOT}`);
  }
}
