// Evidence class `copied-code` (proven): bytes the start-up code copies from where the ROM loads them
// to where they run (devkitARM/libnds crt0 copies .itcm, .vectors and .dtcm; newer ARM7 binaries copy
// their whole body into WRAM). Established by running the program's own start-up path on the static
// bytes: the program-entry function executes in the interpreter (src/arm/emulate.ts) with every
// register unknown until the code sets it; each direct call it makes runs to its return; indirect calls
// are stepped over (their callees are not start-up copies); the run ends where the entry function
// leaves through an indirect branch (into main), returns, or meets an unknown. A store of bytes that
// were loaded unchanged from the static image is a copy with provenance; maximal runs of such stores
// at a constant distance from their source are the copied blocks; a byte stored from two sources (an
// overlay area the entry function reloads in turn) holds no one block's bytes and is left out. Pure:
// the caller hands in the image.
import { type EmulateResult, type EmuMemory, type EmuState, emulate, emuState } from '../../arm/emulate.js';
import { runSteps, type Steps } from '../../core/cooperative.js';
import type { Processor } from '../../core/vocabulary.js';
import type { CopiedBlock } from '../program-map/types.js';
import type { EvidenceClass } from './registry.js';

export const copiedCode = {
  id: 'copied-code',
  tier: 'proven',
  description:
    'code the start-up path copies to its run address (the entry function, run on the static bytes)',
  bounded: false,
} as const satisfies EvidenceClass;

/** Bounds of one detection: instructions run in all, per direct call, and bytes stored. */
export const COPY_DETECTION_LIMITS = {
  steps: 4_000_000,
  callSteps: 2_000_000,
  storedBytes: 8 * 1024 * 1024,
  /** Direct calls of the entry function followed. */
  calls: 64,
};

export interface StaticImage {
  start: number;
  bytes: Uint8Array;
}

export interface CopyDetection {
  copies: CopiedBlock[];
  /** Why the start-up run ended. */
  ended: string;
  steps: number;
}

const PAGE_BITS = 12;
const PAGE = 1 << PAGE_BITS;
/**
 * Per stored byte: its value (-1 unknown), its source address (-1 none), the call that stored it, and
 * whether it was stored from two different sources (what it holds depends on when one looks).
 */
interface Page {
  value: Int16Array;
  source: Float64Array;
  call: Int32Array;
  mixed: Uint8Array;
}
const NOT_WRITTEN = -2;

/**
 * Memory for the start-up run: the static image, stores on top in pages, with a journal that undoes a
 * direct call's stores when the call does not return.
 */
class StartupMemory implements EmuMemory {
  private readonly pages = new Map<number, Page>();
  stored = 0;
  overflow = false;
  /** Index into `calls` of the direct call running now (0: the entry function's own code). */
  call = 0;
  readonly calls: { site: number; callee: number }[] = [{ site: 0, callee: 0 }];
  private journal: number[] | null = null;

  constructor(
    private readonly image: StaticImage,
    private readonly limit: number,
  ) {}

  private staticByte(address: number): number | null {
    const o = address - this.image.start;
    return o >= 0 && o < this.image.bytes.length ? this.image.bytes[o]! : null;
  }

  private page(address: number, create: boolean): Page | undefined {
    const key = address >>> PAGE_BITS;
    let p = this.pages.get(key);
    if (!p && create) {
      p = {
        value: new Int16Array(PAGE).fill(NOT_WRITTEN),
        source: new Float64Array(PAGE).fill(-1),
        call: new Int32Array(PAGE),
        mixed: new Uint8Array(PAGE),
      };
      this.pages.set(key, p);
    }
    return p;
  }

  read8(address: number): number | null {
    const p = this.page(address, false);
    if (p) {
      const v = p.value[address & (PAGE - 1)]!;
      if (v !== NOT_WRITTEN) return v < 0 ? null : v;
    }
    return this.staticByte(address);
  }

  source8(address: number): number | null {
    const p = this.page(address, false);
    if (p) {
      const i = address & (PAGE - 1);
      if (p.value[i] !== NOT_WRITTEN) return p.source[i]! < 0 ? null : p.source[i]!;
    }
    return this.staticByte(address) === null ? null : address;
  }

  write8(address: number, value: number | null, source: number | null): boolean {
    // I/O registers hold no program bytes: stores there are effects, not copies.
    if (address >= 0x04000000 && address < 0x05000000) return true;
    const p = this.page(address, true)!;
    const i = address & (PAGE - 1);
    if (p.value[i] === NOT_WRITTEN) {
      if (this.stored >= this.limit) {
        this.overflow = true;
        return false;
      }
      this.stored++;
    }
    this.journal?.push(address, p.value[i]!, p.source[i]!, p.call[i]!);
    const next = source === null ? -1 : source;
    if (p.value[i] !== NOT_WRITTEN && p.source[i] !== next) p.mixed[i] = 1;
    p.value[i] = value === null ? -1 : value;
    p.source[i] = source === null ? -1 : source;
    p.call[i] = this.call;
    return true;
  }

  begin(): void {
    this.journal = [];
  }

  commit(): void {
    this.journal = null;
  }

  /** Undoes the stores since begin() (a direct call that did not return). */
  rollback(): void {
    const j = this.journal;
    this.journal = null;
    if (!j) return;
    for (let k = j.length - 4; k >= 0; k -= 4) {
      const p = this.page(j[k]!, false)!;
      const i = j[k]! & (PAGE - 1);
      if (p.value[i] !== NOT_WRITTEN && j[k + 1] === NOT_WRITTEN) this.stored--;
      p.value[i] = j[k + 1]!;
      p.source[i] = j[k + 2]!;
      p.call[i] = j[k + 3]!;
    }
  }

  /** Every stored byte with one source throughout, as [address, source, call] in address order. */
  *sourced(visit: (address: number, source: number, call: number) => void): Steps<void> {
    for (const key of [...this.pages.keys()].sort((a, b) => a - b)) {
      const p = this.pages.get(key)!;
      for (let i = 0; i < PAGE; i++) {
        if (p.value[i]! >= 0 && p.source[i]! >= 0 && p.mixed[i] === 0)
          visit((key << PAGE_BITS) + i, p.source[i]!, p.call[i]!);
      }
      yield;
    }
  }
}

type Transfer =
  | { kind: 'none' }
  | { kind: 'direct-call'; size: number }
  | { kind: 'indirect-call'; size: number }
  | { kind: 'leave' };

const word = (mem: EmuMemory, at: number): number | null => {
  let w = 0;
  for (let i = 0; i < 4; i++) {
    const b = mem.read8(at + i, true);
    if (b === null) return null;
    w |= b << (8 * i);
  }
  return w >>> 0;
};
const half = (mem: EmuMemory, at: number): number | null => {
  const a = mem.read8(at, true);
  const b = mem.read8(at + 1, true);
  return a === null || b === null ? null : a | (b << 8);
};

/** ARM: does this word write PC (other than B/BL)? Data processing, LDR, LDM with PC, BX. */
function armWritesPc(w: number): boolean {
  if ((w & 0x0ffffff0) === 0x012fff10 || (w & 0x0ffffff0) === 0x012fff30) return true;
  const top = (w >>> 25) & 7;
  if ((top === 0 || top === 1) && ((w >>> 12) & 0xf) === 15) {
    const op = (w >>> 21) & 0xf;
    // Compares write no register; without S that space holds MRS/MSR and the DSP extensions.
    if (op >= 8 && op <= 11) return false;
    return top === 1 || (w & 0x90) !== 0x90;
  }
  if ((top === 2 || top === 3) && bit20(w) && ((w >>> 12) & 0xf) === 15) return true;
  if (top === 4 && bit20(w) && (w & 0x8000) !== 0) return true;
  return false;
}
const bit20 = (w: number) => ((w >>> 20) & 1) === 1;

/** What the instruction at the PC does to control flow, for the start-up run's policy. */
function transferAt(mem: EmuMemory, pc: number, thumb: boolean): Transfer {
  if (!thumb) {
    const w = word(mem, pc);
    if (w === null) return { kind: 'none' };
    if ((w & 0xfe000000) >>> 0 === 0xfa000000) return { kind: 'direct-call', size: 4 };
    if (w >>> 28 !== 0xf && (w & 0x0f000000) === 0x0b000000) return { kind: 'direct-call', size: 4 };
    if ((w & 0x0ffffff0) === 0x012fff30) return { kind: 'indirect-call', size: 4 };
    if (w === 0xe1a0e00f) {
      // MOV LR, PC then a PC write: an indirect call (LR = the instruction after the pair).
      const n = word(mem, pc + 4);
      if (n !== null && armWritesPc(n)) return { kind: 'indirect-call', size: 8 };
    }
    if (armWritesPc(w)) return { kind: 'leave' };
    return { kind: 'none' };
  }
  const h = half(mem, pc);
  if (h === null) return { kind: 'none' };
  if ((h & 0xf800) === 0xf000) return { kind: 'direct-call', size: 4 };
  if ((h & 0xff87) === 0x4780) return { kind: 'indirect-call', size: 2 };
  if ((h & 0xff87) === 0x4700 || (h & 0xff87) === 0x4687 || (h & 0xff00) === 0xbd00) return { kind: 'leave' };
  return { kind: 'none' };
}

const CALLER_SAVED = [0, 1, 2, 3, 12, 14];

/** Instructions run between two yields of detectCopiesSteps (a few milliseconds of interpreting). */
const STEP_INSTRUCTIONS = 2048;

/**
 * Runs the program-entry function (ARM, at `entry`) on `image` and returns the copies it makes.
 * Never throws for odd code: whatever stops the run is reported in `ended`.
 */
export function detectCopies(
  image: StaticImage,
  entry: number,
  processor: Processor,
  limits = COPY_DETECTION_LIMITS,
): CopyDetection {
  return runSteps(detectCopiesSteps(image, entry, processor, limits));
}

/**
 * detectCopies in steps: yields after every STEP_INSTRUCTIONS instructions run and every page of
 * stores read back, so a caller keeps its event loop answering (driveSteps) through a run of millions.
 */
export function* detectCopiesSteps(
  image: StaticImage,
  entry: number,
  processor: Processor,
  limits = COPY_DETECTION_LIMITS,
): Steps<CopyDetection> {
  const mem = new StartupMemory(image, limits.storedBytes);
  const state: EmuState = emuState(entry, false);
  let steps = 0;
  let calls = 0;
  let ended = 'step-limit';
  // One emulate call of at most `maxSteps`, in pieces: each piece resumes where the last stopped and
  // checks `stopAt` there first, as one call would have.
  function* run(stopAt: (pc: number, thumb: boolean) => boolean, maxSteps: number): Steps<EmulateResult> {
    let done = 0;
    for (;;) {
      const r = emulate(state, {
        processor,
        memory: mem,
        maxSteps: Math.min(STEP_INSTRUCTIONS, maxSteps - done),
        stopAt,
        system: 'skip',
      });
      done += r.steps;
      if (r.stop !== 'step-limit' || done >= maxSteps) {
        steps += done;
        return { ...r, steps: done };
      }
      yield;
    }
  }
  while (steps < limits.steps) {
    // Run the entry function's own code up to its next transfer of control.
    const r = yield* run((pc, thumb) => transferAt(mem, pc, thumb).kind !== 'none', limits.steps - steps);
    if (r.stop !== 'stopped') {
      ended = r.stop;
      break;
    }
    const t = transferAt(mem, r.pc, r.thumb);
    if (t.kind === 'leave') {
      ended = `left the entry function at 0x${r.pc.toString(16)}`;
      break;
    }
    if (t.kind === 'indirect-call') {
      // Stepped over: the callee's effects are not start-up copies; it may clobber the scratch registers.
      for (const n of CALLER_SAVED) {
        state.r[n] = null;
        state.prov[n] = null;
        state.provWidth[n] = 0;
      }
      state.r[15] = (r.pc + t.size) >>> 0;
      continue;
    }
    if (t.kind === 'direct-call') {
      if (++calls > limits.calls) {
        ended = 'call-limit';
        break;
      }
      const ret = (r.pc + t.size) >>> 0;
      const mode = r.thumb;
      // One step runs the call (a failing condition just moves on).
      const first = yield* run(() => false, 1);
      if (first.stop !== 'step-limit') {
        ended = first.stop;
        break;
      }
      if (state.r[15] === ret && state.thumb === mode) continue;
      mem.begin();
      mem.calls.push({ site: r.pc, callee: (state.r[15]! | (state.thumb ? 1 : 0)) >>> 0 });
      mem.call = mem.calls.length - 1;
      const back = yield* run(
        (pc, thumb) => pc === ret && thumb === mode,
        Math.min(limits.callSteps, limits.steps - steps),
      );
      if (back.stop !== 'stopped') {
        mem.rollback();
        ended = `a direct call did not return (${back.stop})`;
        break;
      }
      mem.commit();
      mem.call = 0;
    }
  }
  if (mem.overflow) ended = 'store-limit';
  return { copies: yield* copiesOf(mem, image, entry), ended, steps };
}

/** Maximal runs of stored bytes whose source is the static image, each at one distance from it. */
function* copiesOf(mem: StartupMemory, image: StaticImage, entry: number): Steps<CopiedBlock[]> {
  const inImage = (a: number) => a >= image.start && a < image.start + image.bytes.length;
  const out: CopiedBlock[] = [];
  // The run being read: consecutive destinations, consecutive sources, one call.
  let start = 0;
  let source = 0;
  let call = -1;
  let size = 0;
  const close = () => {
    // A copy is at least one word; its bytes must differ from where they already are.
    if (size >= 4 && start !== source) {
      const { site, callee } = mem.calls[call]!;
      out.push({
        index: out.length,
        start,
        size,
        source,
        callSite: site === 0 ? entry : site,
        callee: callee === 0 ? entry : callee,
        caller: entry,
      });
    }
  };
  yield* mem.sourced((address, from, byCall) => {
    if (!inImage(from)) return;
    if (size > 0 && address === start + size && from === source + size && byCall === call) {
      size++;
      return;
    }
    close();
    start = address;
    source = from;
    call = byCall;
    size = 1;
  });
  close();
  return out;
}
