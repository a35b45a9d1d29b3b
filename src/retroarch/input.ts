// Controller input through RetroArch's network remote pad (pad.ts): a press holds buttons for a number
// of frames, frame-exact while paused (each frame a FRAMEADVANCE press, the loop seen to turn after it)
// or timed by the clock while running; hold and release change the buttons' state alone. A pressed
// button is always released before the call ends.
import { ReMcpError } from '../core/errors.js';
import { MAX_FRAMES, type PadButton, requireContent, SETTLE_MS, type Status } from './codec.js';
import { sleep } from './files.js';
import type { RemotePad } from './pad.js';

/** Steps of one input call, and frames they hold in all. */
export const MAX_INPUT_STEPS = 32;
export const MAX_INPUT_FRAMES = MAX_FRAMES;
/** A frame of a running game, for holds timed by the clock (RetroArch runs 60 Hz content in real time). */
const FRAME_MS = 1000 / 60;

export interface InputStep {
  buttons: PadButton[];
  /** Frames the buttons are held (press). */
  frames: number;
}

export const INPUT_ACTIONS = ['press', 'hold', 'release'] as const;
/** frame-exact: paused, held over exactly that many FRAMEADVANCE presses; timed: running, held for the frames' time. */
export const INPUT_TIMINGS = ['frame-exact', 'timed', 'none'] as const;

export interface InputResult {
  player: number;
  action: (typeof INPUT_ACTIONS)[number];
  timing: (typeof INPUT_TIMINGS)[number];
  steps: number;
  frames: number;
  /** Buttons left pressed (hold): released by a later release call. */
  held: PadButton[];
  port: number;
  state: Status['state'];
}

/** What input needs of the client (RetroArchClient provides it; declared here, so no cycle). */
interface InputHost {
  readonly pad: RemotePad;
  status(signal?: AbortSignal): Promise<Status>;
  hotkey(datagram: string, signal?: AbortSignal): Promise<void>;
  loopTurned(signal?: AbortSignal): Promise<void>;
}

/**
 * press: each step's buttons down, held `frames` frames, released; frame-exact while paused (the
 * frames are FRAMEADVANCE presses), timed by the clock while running. Whatever happens (an error,
 * a cancellation) a pressed button is released before the call ends: no button is left stuck.
 * hold: the buttons down until a release call; release: the buttons up.
 */
export async function pressInput(
  host: InputHost,
  { player, action, steps }: { player: number; action: InputResult['action']; steps: InputStep[] },
  signal?: AbortSignal,
  progress?: (done: number, total: number) => void,
): Promise<InputResult> {
  if (steps.length === 0 || steps.length > MAX_INPUT_STEPS)
    throw new ReMcpError('invalid-argument', `1..${MAX_INPUT_STEPS} steps`);
  const total = steps.reduce((n, s) => n + s.frames, 0);
  if (action === 'press' && total > MAX_INPUT_FRAMES)
    throw new ReMcpError(
      'invalid-argument',
      `the steps hold ${total} frames; at most ${MAX_INPUT_FRAMES} a call`,
    );
  const before = await host.status(signal);
  requireContent(before);
  const port = host.pad.portOf(player);
  const base = { player, action, steps: steps.length, port };
  if (action !== 'press') {
    const buttons = [...new Set(steps.flatMap((s) => s.buttons))];
    for (const [i, b] of buttons.entries()) await host.pad.send(player, b, action === 'hold', i === 0);
    return {
      ...base,
      timing: 'none',
      frames: 0,
      held: action === 'hold' ? buttons : [],
      state: before.state,
    };
  }
  const paused = before.state === 'paused';
  let done = 0;
  let first = true;
  for (const step of steps) {
    const down: PadButton[] = [];
    let failure: unknown = null;
    try {
      for (const b of step.buttons) {
        await host.pad.send(player, b, true, first);
        first = false;
        down.push(b);
      }
      if (paused) {
        for (let i = 0; i < step.frames; i++) {
          await host.hotkey('FRAMEADVANCE', signal);
          // The next press, or the release, only once this frame has run (a loaded machine may
          // take longer than the press spacing to run it, and would merge or miss it).
          await host.loopTurned(signal);
          progress?.(++done, total);
        }
        // The buttons go up once the last frame has run, not before (else it would run with them up).
        await sleep(SETTLE_MS, signal);
      } else {
        await sleep(step.frames * FRAME_MS, signal);
        done += step.frames;
        progress?.(done, total);
      }
    } catch (error) {
      failure = error;
    }
    // Released without the caller's signal: a cancelled hold must not leave the button down.
    // Every button is tried; one that cannot be released is said first (it may still be held).
    const stuck: PadButton[] = [];
    for (const b of down) {
      try {
        await host.pad.send(player, b, false);
      } catch {
        stuck.push(b);
      }
    }
    if (stuck.length > 0)
      throw new ReMcpError(
        'unconfirmed',
        `the release of ${stuck.join(', ')} could not be sent: RetroArch may still hold ${stuck.length === 1 ? 'it' : 'them'} (send action release)`,
        { player, buttons: stuck },
      );
    if (failure !== null) throw failure;
  }
  const after = await host.status(signal);
  return { ...base, timing: paused ? 'frame-exact' : 'timed', frames: total, held: [], state: after.state };
}
