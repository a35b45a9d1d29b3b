// Evidence class `copied-code` (proven): bytes the start-up code copies from where the ROM loads them
// to where they run. Today's toolchains do it in several ways: devkitARM's older crt0 copies .itcm,
// .vectors and .dtcm with constant arguments; the calico crt0 is a position-independent bootstub that
// copies the crt0 proper elsewhere and jumps there, and that crt0 walks a load list copying the main
// code below where it is loaded, ITCM and DTCM; a BlocksDS ARM7 copies its whole body into WRAM after
// waiting for the ARM9. None is special-cased: the program's own start-up path runs in the interpreter
// (src/arm/emulate.ts) on the static bytes, from the header entry point with every register unknown.
// Calls, returns and jumps are followed wherever their targets are known (into code the run copied
// too). A branch on an unknown value (a hardware register, the DSi flag) is followed both ways, as
// separate paths (a bounded number; a path that comes back to such a branch takes the other way: a
// wait loop ends; a way not taken after its path's last copy is not followed: it forks after start-up);
// a conditional instruction that is no branch is run as both outcomes at once. A path
// ends at an unknown jump target, an unknown store address, an instruction outside the interpreter,
// a loop without progress, its step bound, or when it has copied nothing for a while (start-up is
// over). A store of bytes loaded unchanged from the image (or from a copy of it) is a copy with
// provenance; maximal runs of such stores at one distance from their source are the copied blocks,
// over every path (a byte is what its last store left; one two paths leave differently holds neither).
// A copy is code when the run executed it, or when it lies where only code is copied (the ARM9's ITCM);
// a copy into the DTCM the start-up path configured (CP15), or into RAM it never ran, is data. A path
// is over once it runs code from a large copy (the program proper, copied where it runs).
// Pure: the caller hands in the image.
import { assumeCondition, conditionAt, type EmuState, emulate, emuState } from '../../arm/emulate.js';
import { runSteps, type Steps } from '../../core/cooperative.js';
import type { Processor } from '../../core/vocabulary.js';
import type { CopiedBlock } from '../program-map/types.js';
import type { EvidenceClass } from './registry.js';
import { type MemorySnapshot, type SourcedByte, StartupMemory, type StaticImage } from './startup-memory.js';

export const copiedCode = {
  id: 'copied-code',
  tier: 'proven',
  description:
    'code the start-up path copies to its run address (the start-up code, run on the static bytes)',
  bounded: false,
} as const satisfies EvidenceClass;

/** Bounds of one detection. */
const COPY_DETECTION_LIMITS = {
  /** Instructions run in all, over every path. */
  steps: 3_000_000,
  /** Instructions one path runs at most. */
  pathSteps: 2_000_000,
  /** Instructions a path runs without copying a byte before its start-up is taken to be over. */
  quietSteps: 100_000,
  /** Paths followed (each branch on an unknown condition makes one more, up to this many in all). */
  paths: 16,
  /** Bytes one path stores. */
  storedBytes: 8 * 1024 * 1024,
};

export interface CopyDetection {
  /** Copies that are code (executed by the run, or in the ARM9's ITCM). */
  copies: CopiedBlock[];
  /** Copies of data (into DTCM, or into RAM the run never executed). */
  dataCopies: CopiedBlock[];
  /** How the paths ended, each reason with its count. */
  ended: string;
  steps: number;
  paths: number;
  /** The DTCM the start-up code configured (CP15 c9,c1,0), when it did. */
  dtcm: { start: number; end: number } | null;
}

/**
 * A path that runs code from a copy this large (its main program, copied where it runs) is past
 * start-up; small copies (a crt0, a sync routine, ITCM helpers) run during start-up.
 */
const PROGRAM_COPY_BYTES = 8192;
/** The smallest copy of data reported (its source bytes are copied-source in the image). */
const MIN_DATA_COPY = 16;
/** Bytes stored otherwise (a variable start-up sets) a copy may hold and still be one copy. */
const RUN_GAP = 64;
/** Instructions run between two checks of a path (progress, quiet, bounds). */
const CHUNK = 4096;
/** Chunk-boundary states remembered per path to see a loop without progress. */
const RECENT_STATES = 16;

interface Path {
  /** The path this one forked from, and where (its step count then); null for the first. */
  parent: Path | null;
  forkedAt: number;
  state: EmuState;
  memory: MemorySnapshot;
  /** Per conditional branch this path met with an unknown condition: the way it took there last. */
  forks: Map<string, boolean>;
  steps: number;
  lastCopy: number;
  copyStores: number;
}

const stateKey = (s: EmuState): string =>
  `${s.r.join(',')}|${s.thumb ? 1 : 0}|${s.flags.n},${s.flags.z},${s.flags.c},${s.flags.v}`;

function cloneState(s: EmuState): EmuState {
  return {
    r: s.r.slice(),
    prov: s.prov.slice(),
    provWidth: s.provWidth.slice(),
    thumb: s.thumb,
    flags: { ...s.flags },
  };
}

/**
 * Runs the start-up path of the program whose static image is `image` from `entry` (ARM) and returns
 * the copies it makes. Never throws for odd code: how every path ended is reported in `ended`.
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
 * detectCopies in steps: yields after every CHUNK instructions run and every page of stores read
 * back, so a caller keeps its event loop answering (driveSteps) through a run of millions.
 */
export function* detectCopiesSteps(
  image: StaticImage,
  entry: number,
  processor: Processor,
  limits = COPY_DETECTION_LIMITS,
): Steps<CopyDetection> {
  return yield* new StartupRun(image, entry, processor, limits).run();
}

/** One detection under way: the paths still to run, the stores they made, what they spent. */
class StartupRun {
  private readonly memory: StartupMemory;
  private dtcm: { start: number; end: number } | null = null;
  private readonly endings = new Map<string, number>();
  private readonly found: SourcedByte[][] = [];
  private readonly pending: Path[];
  private steps = 0;
  private paths = 0;
  private forks = 0;

  constructor(
    private readonly image: StaticImage,
    entry: number,
    private readonly processor: Processor,
    private readonly limits: typeof COPY_DETECTION_LIMITS,
  ) {
    this.memory = new StartupMemory(image, limits.storedBytes);
    this.pending = [
      {
        parent: null,
        forkedAt: 0,
        state: emuState(entry, false),
        memory: this.memory.snapshot(),
        forks: new Map(),
        steps: 0,
        lastCopy: 0,
        copyStores: 0,
      },
    ];
  }

  private end(why: string): void {
    this.endings.set(why, (this.endings.get(why) ?? 0) + 1);
  }

  /** Runs every path (depth first, up to the limits) and reads the copies back from their stores. */
  *run(): Steps<CopyDetection> {
    const { memory, pending, limits } = this;
    while (pending.length > 0) {
      if (this.steps >= limits.steps) {
        this.end('step-limit');
        break;
      }
      const path = pending.pop()!;
      // A way not taken after the path it forks from made its last copy leads past start-up: not followed.
      if (path.parent !== null && path.parent.lastCopy < path.forkedAt) {
        this.end('a branch after start-up copies (not followed)');
        continue;
      }
      this.paths++;
      memory.restore(path.memory);
      memory.state = path.state;
      const why = yield* this.runPath(path);
      this.end(why);
      this.found.push(yield* memory.sourced());
    }
    return {
      ...(yield* copiesOf(this.found, this.image, this.processor, this.dtcm)),
      ended: [...this.endings].map(([why, n]) => (n > 1 ? `${why} (${n} paths)` : why)).join('; '),
      steps: this.steps,
      paths: this.paths,
      dtcm: this.dtcm,
    };
  }

  /** Runs one path to its end; returns why it ended. Forks push the other way onto `pending`. */
  private *runPath(path: Path): Steps<string> {
    const { memory, limits, processor } = this;
    const state = path.state;
    const recent: string[] = [];
    for (;;) {
      if (memory.overflow) return 'store-limit';
      if (path.steps >= limits.pathSteps || this.steps >= limits.steps) return 'step-limit';
      if (path.steps - path.lastCopy >= limits.quietSteps) return 'no copy for a while';
      const budget = Math.min(CHUNK, limits.pathSteps - path.steps, limits.steps - this.steps);
      const r = emulate(state, {
        processor,
        memory,
        maxSteps: budget,
        system: 'skip',
        unknownCondition: 'join',
        onCoprocessorWrite: (w) => {
          // CP15 c9,c1,0: the DTCM's base and size (512 << n bytes).
          if (w.cp === 15 && w.crn === 9 && w.crm === 1 && w.opc2 === 0 && w.value !== null) {
            const start = (w.value & ~0xfff) >>> 0;
            this.dtcm = { start, end: start + (512 << ((w.value >>> 1) & 0x1f)) };
          }
        },
      });
      path.steps += r.steps;
      this.steps += r.steps;
      yield;
      if (memory.copyStores !== path.copyStores) {
        path.copyStores = memory.copyStores;
        path.lastCopy = path.steps;
      }
      const pc = state.r[15];
      if (pc !== null && memory.copiedAround(pc, PROGRAM_COPY_BYTES) >= PROGRAM_COPY_BYTES)
        return 'runs its copied program';
      if (r.stop === 'step-limit') {
        // A loop without progress comes back to a state it was in.
        const key = stateKey(state);
        if (recent.includes(key)) return `a loop without progress at 0x${r.pc.toString(16)}`;
        recent.push(key);
        if (recent.length > RECENT_STATES) recent.shift();
        continue;
      }
      if (r.stop !== 'unknown-condition') return `${r.stop} at 0x${r.pc.toString(16)}`;
      const cond = conditionAt(memory, r.pc, r.thumb);
      if (cond === null) return `unknown-condition at 0x${r.pc.toString(16)}`;
      // A branch this path met before: the way it took then led back here (a loop waiting on what the
      // run cannot know): it takes the other way now, without forking again.
      const key = `${r.pc}|${r.thumb ? 1 : 0}`;
      const taken = path.forks.get(key);
      if (taken !== undefined) {
        if (!assumeCondition(state.flags, cond, !taken)) return `unknown-condition at 0x${r.pc.toString(16)}`;
        path.forks.set(key, !taken);
        continue;
      }
      if (this.forks < limits.paths - 1) {
        const other: Path = {
          parent: path,
          forkedAt: path.steps,
          state: cloneState(state),
          memory: memory.snapshot(),
          forks: new Map(path.forks),
          steps: path.steps,
          lastCopy: path.lastCopy,
          copyStores: path.copyStores,
        };
        if (assumeCondition(other.state.flags, cond, false)) {
          this.forks++;
          other.forks.set(key, false);
          this.pending.push(other);
        }
      }
      if (!assumeCondition(state.flags, cond, true)) return `unknown-condition at 0x${r.pc.toString(16)}`;
      path.forks.set(key, true);
    }
  }
}

/** Where only code is copied: the ARM9's ITCM (and its mirrors below main RAM). */
function codeRegion(processor: Processor, end: number): boolean {
  return processor === 'arm9' && end <= 0x02000000;
}

/**
 * The copied blocks over every path: maximal runs of stored bytes at one distance from their sources
 * (across up to RUN_GAP bytes stored otherwise); a destination byte two paths leave with different
 * sources is left out; a run is at least a word and moves its bytes.
 */
function* copiesOf(
  paths: SourcedByte[][],
  image: StaticImage,
  processor: Processor,
  dtcm: { start: number; end: number } | null,
): Steps<{ copies: CopiedBlock[]; dataCopies: CopiedBlock[] }> {
  const inImage = (a: number) => a >= image.start && a < image.start + image.bytes.length;
  // Every path's bytes by destination: one source and one storing instruction, or a conflict.
  const byDest = new Map<number, SourcedByte | null>();
  let n = 0;
  for (const bytes of paths) {
    for (const b of bytes) {
      if ((++n & 0x1fff) === 0) yield;
      if (!inImage(b.source)) continue;
      const known = byDest.get(b.address);
      if (known === undefined) byDest.set(b.address, b);
      else if (known !== null && known.source !== b.source) byDest.set(b.address, null);
      else if (known !== null && b.executed && !known.executed) byDest.set(b.address, b);
    }
  }
  // Destinations in address order (below 2^31: an integer sort).
  const addresses = Int32Array.from(byDest.keys()).sort();
  yield;
  // Runs at one distance, joined across a few bytes stored otherwise (variables the start-up code set).
  const runs: { start: number; end: number; delta: number; first: SourcedByte; executed: boolean }[] = [];
  for (let k = 0; k < addresses.length; k++) {
    if ((k & 0x1fff) === 0x1fff) yield;
    const address = addresses[k]!;
    const b = byDest.get(address);
    if (!b) continue;
    const delta = b.source - address;
    const last = runs[runs.length - 1];
    if (last && last.delta === delta && address - last.end <= RUN_GAP) {
      last.end = address + 1;
      last.executed ||= b.executed;
    } else runs.push({ start: address, end: address + 1, delta, first: b, executed: b.executed });
  }
  const copies: CopiedBlock[] = [];
  const dataCopies: CopiedBlock[] = [];
  for (const run of runs) {
    const size = run.end - run.start;
    if (size < 4 || run.delta === 0) continue;
    const block = {
      index: 0,
      start: run.start,
      size,
      source: run.start + run.delta,
      storedBy: run.first.storedBy,
      executed: run.executed,
    };
    const inDtcm = dtcm !== null && run.start >= dtcm.start && run.end <= dtcm.end;
    const code = !inDtcm && (run.executed || codeRegion(processor, run.end));
    if (code) copies.push(block);
    // (A few bytes copied here and there are a structure's fields, not a block of data.)
    else if (size >= MIN_DATA_COPY) dataCopies.push(block);
  }
  copies.forEach((c, k) => {
    c.index = k;
  });
  dataCopies.forEach((c, k) => {
    c.index = k;
  });
  return { copies, dataCopies };
}
