// Builds one whole-program map: the walk of every component of a processor, tier by tier (proven,
// then referenced, then heuristic), each tier's idle detectors rerun until they find nothing new;
// then the function bodies (blocks reachable from each entry without entering another entry: a
// branch into another entry is a tail call), and what every byte is. Pure: the components come in.
import { loadDecoder } from '../../arm/decoder.js';
import type { ArmMode } from '../../arm/types.js';
import { turnTaker } from '../../core/cooperative.js';
import type { Processor } from '../../core/vocabulary.js';
import type { EvidenceClass, IdleCandidate, IdleContext } from '../evidence/registry.js';
import { BlockOwners, BodyBlocks, FunctionBody, NO_TAIL_CALLS } from './body-store.js';
import type { ComponentSet, MapComponent } from './components.js';
import type { Summary } from './map-types.js';
import { PROBE_INSTRUCTIONS, probeFunction, TOO_LONG } from './probe.js';
import type { Resolver } from './resolvers/resolver.js';
import { ByteClass, TIER_RANK, TIERS, type Tier } from './types.js';
import type { WalkedProgram } from './walked.js';
import { type EmitRequest, placeKey, Walker, WalkStopped } from './walker.js';

interface MapBuildRequest {
  set: ComponentSet;
  processor: Processor;
  /** The header entry point (in the main component). */
  entry: number | null;
  classes: readonly EvidenceClass[];
  /** The idioms of control flow the walk understands (default: every resolver of resolvers/index.ts). */
  resolvers?: readonly Resolver[] | undefined;
  /** Bytes of code classified at most, and the wall-clock deadline (Date.now()). */
  codeBytes: number;
  deadline: number;
  signal?: AbortSignal | undefined;
  onProgress?: ((codeBytes: number) => void) | undefined;
}

export interface BuiltMap {
  processor: Processor;
  walker: WalkedProgram;
  classes: string[];
  /** Complete, or why it stopped early. */
  status: 'complete' | 'truncated';
  truncation: ('code-byte-limit' | 'time-limit')[];
  bodies: Map<string, FunctionBody>;
  /** Per block: the keys of the functions whose bodies hold it. */
  owners: BlockOwners;
  /** Candidates offered and refused, by reason. */
  refusals: Map<string, number>;
  millis: number;
  /** The code-byte budget it was built with. */
  codeBytesLimit: number;
  /** The workspace file it was read back from (map-store.ts), or null when it was built here. */
  keptFile: string | null;
  /** Its byte counts, runs and unresolved counts once counted (map-summary.ts), or read back with it. */
  summary: Summary | null;
}

export async function buildProgramMap(req: MapBuildRequest): Promise<BuiltMap> {
  const started = Date.now();
  // Every decode of the walk, the probes and the detectors answers without waiting from here on.
  await loadDecoder();
  const enabled = new Set(req.classes.map((c) => c.id));
  const blockHooks = req.classes.filter((c) => c.onBlock);
  const walker = new Walker(
    req.set,
    req.processor,
    req.entry,
    {
      onBlock: (view) => {
        for (let i = 0; i < blockHooks.length; i++) blockHooks[i]!.onBlock!(view);
      },
    },
    { codeBytes: req.codeBytes, deadline: req.deadline, signal: req.signal, onProgress: req.onProgress },
    req.resolvers,
  );
  const refusals = new Map<string, number>();
  /** Per component, by placeKey: the phase a candidate was refused in (Infinity: for good). */
  const refused: Map<number, number>[] = req.set.list.map(() => new Map());
  let phase = 0;
  const settle = async () => {
    for (let t = 0; t <= phase; t++) await walker.walkTier(t);
  };
  const ctxFor = (cls: EvidenceClass): IdleContext => ({
    walker,
    enabled,
    offer: (c) => offer(walker, cls, c, refused, refusals, phase),
    settle,
  });
  const truncation: BuiltMap['truncation'] = [];
  // Between two detectors' passes (each up to a hundred milliseconds on 12 MiB) the event loop gets a
  // turn when one is due.
  const between = turnTaker(undefined, 1);
  const turn = async () => {
    const pause = between();
    if (pause) await pause;
  };
  try {
    for (phase = 0; phase < TIERS.length; phase++) {
      const idle = req.classes.filter((c) => c.onIdle && TIER_RANK[c.tier] <= phase);
      // Each round either makes a new entry or ends the phase: bounded by the entries there can be.
      for (;;) {
        let found = 0;
        for (const cls of idle) {
          await turn();
          found += await cls.onIdle!(ctxFor(cls));
        }
        await settle();
        if (found === 0 && !walker.pending(phase)) break;
      }
    }
    for (const cls of req.classes) {
      if (!cls.onFinish) continue;
      await turn();
      await cls.onFinish(ctxFor(cls));
    }
  } catch (error) {
    if (!(error instanceof WalkStopped)) throw error;
    truncation.push(error.reason);
  }
  await turn();
  walker.materializeLateEdges();
  walker.releaseWalkState();
  await turn();
  const { bodies, owners } = await functionBodies(walker);
  return {
    processor: req.processor,
    walker,
    classes: [...enabled],
    status: truncation.length > 0 ? 'truncated' : 'complete',
    truncation,
    bodies,
    owners,
    refusals,
    millis: Date.now() - started,
    codeBytesLimit: req.codeBytes,
    keptFile: null,
    summary: null,
  };
}

/** A candidate from an idle detector: known entries gain evidence; new ones must start well-formed code. */
/** Refusals that no later classification can undo (the bytes themselves say so). */
const PERMANENT = new Set([
  'not an instruction of the processor',
  'calls outside every component',
  'branches outside every component',
  'restores a stack frame it did not build',
  TOO_LONG,
  'runs off its component',
  'misaligned branch target',
  'loads a literal outside its component',
]);

async function offer(
  walker: Walker,
  cls: EvidenceClass,
  c: IdleCandidate,
  refused: Map<number, number>[],
  refusals: Map<string, number>,
  phase: number,
): Promise<boolean> {
  // Detectors offer thousands of candidates, each probed: they pause with the walk (cancellation, deadline).
  const pause = walker.checkpoint();
  if (pause) await pause;
  const comp: MapComponent = c.component;
  const known = walker.entryAt(comp.index, c.mode, c.address);
  if (known) {
    const before = known.evidence.length;
    walker.addEntry(emitRequest(cls, c), c.sourceTier);
    return known.evidence.length > before;
  }
  // A refusal that depends on what was known then is retried once per later phase.
  const place = placeKey(c.mode, c.address);
  const refusedHere = refused[comp.index]!;
  if ((refusedHere.get(place) ?? -1) >= phase) return false;
  if (c.address < comp.start || c.address >= comp.end)
    return refuse(refusedHere, refusals, place, phase, 'outside its component', true);
  if (comp.cls[c.address - comp.start] !== ByteClass.unknown)
    return refuse(refusedHere, refusals, place, phase, 'not the start of unclassified bytes', true);
  // (A probe's answer depends on what is classified: one made just now, nothing walked since, stands.)
  if (c.probed !== true || c.orphan === true) {
    const p = probeFunction(walker, comp, c.address, c.mode, {
      maxInstructions: PROBE_INSTRUCTIONS,
      joinsKnown: c.orphan === true,
    });
    if (!p.ok) {
      if (p.why === TOO_LONG) walker.undecided.add(comp, c.address);
      return refuse(refusedHere, refusals, place, phase, p.why, p.settled);
    }
  }
  return walker.addEntry(emitRequest(cls, c), c.sourceTier as Tier) !== null;
}

/** The entry an offered candidate makes (made only for one that gets that far: most are refused again). */
function emitRequest(cls: EvidenceClass, c: IdleCandidate): EmitRequest {
  return {
    component: c.component,
    address: c.address,
    mode: c.mode as ArmMode,
    class: cls.id,
    classTier: cls.tier,
    from: c.from,
    fromComponent: c.fromComponent,
    orphan: c.orphan === true,
  };
}

/**
 * Records a refusal of the candidate at `place` in this phase (for good when `settled` and the reason
 * does not depend on what was known then) and counts its reason; false, for the offer to return.
 */
function refuse(
  refusedHere: Map<number, number>,
  refusals: Map<string, number>,
  place: number,
  phase: number,
  why: string,
  settled: boolean,
): false {
  refusedHere.set(place, settled && PERMANENT.has(why) ? Number.POSITIVE_INFINITY : phase);
  refusals.set(why, (refusals.get(why) ?? 0) + 1);
  return false;
}

/** Each entry's body: blocks reached by intra-function edges, stopping at other entries (tail calls). */
async function functionBodies(
  walker: WalkedProgram,
): Promise<{ bodies: Map<string, FunctionBody>; owners: BlockOwners }> {
  // A whole program's bodies take a second of work on 12 MiB: the event loop gets its turns meanwhile.
  const turn = turnTaker();
  const blockCount = walker.blocks.length;
  // Per block: the entry that starts it, as an index into entryKeys (-1: none; the last entry wins).
  // Numbers in arrays rather than maps keyed by block: the map's tables would be garbage at the end.
  const startsEntry = new Int32Array(blockCount).fill(-1);
  const entryKeys: string[] = [];
  for (const e of walker.entries.values()) {
    const pause = turn();
    if (pause) await pause;
    if (e.block < 0) continue;
    const b = walker.blocks.get(e.block);
    if (b.start !== e.address) continue;
    startsEntry[b.id] = entryKeys.length;
    entryKeys.push(e.key);
  }
  const owners = new BlockOwners(blockCount);
  const bodies = new Map<string, FunctionBody>();
  const edges = walker.edges;
  // Which body last reached each block (one number per block instead of a set per body).
  const reachedBy = new Int32Array(blockCount).fill(-1);
  const work: number[] = [];
  // Bodies rarely share blocks: room for one id per block and a little more.
  const store = new BodyBlocks(blockCount + (blockCount >>> 5));
  for (const e of walker.entries.values()) {
    if (e.block < 0 || e.state === 'refused') continue;
    const pause = turn();
    if (pause) await pause;
    const body = owners.body(e.key);
    reachedBy[e.block] = body;
    work.push(e.block);
    let count = 0;
    const tails: string[] = [];
    while (work.length > 0) {
      const id = work.pop()!;
      store.push(id);
      count++;
      owners.add(id, body);
      for (let x = walker.blocks.edgesOf(id); x >= 0; x = edges.nextOf(x)) {
        const s = edges.toOf(x);
        if (reachedBy[s] === body) continue;
        const other = startsEntry[s]! >= 0 ? entryKeys[startsEntry[s]!]! : undefined;
        if (other !== undefined && other !== e.key) {
          if (!tails.includes(other)) tails.push(other);
          continue;
        }
        reachedBy[s] = body;
        work.push(s);
      }
    }
    const first = store.endRun();
    bodies.set(e.key, new FunctionBody(e, store, first, count, tails.length > 0 ? tails : NO_TAIL_CALLS));
  }
  store.trim();
  // Secondary entries: entered from another function's body by anything but a tail branch. Only the
  // predecessors of entry blocks by such edges are needed, in block then edge order: counted, then laid
  // out per entry block in one column (from[start[b] .. start[b + 1])). Counted at start[b + 2] and
  // summed, start[b + 1] is where b's run begins; filling moves it to where b's run ends, which is
  // where the run of b + 1 begins.
  const isEntryBlock = new Uint8Array(blockCount);
  for (const body of bodies.values()) isEntryBlock[body.entry.block] = 1;
  const start = new Int32Array(blockCount + 2);
  const eachPred = async (visit: (to: number, from: number) => void) => {
    for (let id = 0; id < blockCount; id++) {
      const pause = turn();
      if (pause) await pause;
      for (let x = walker.blocks.edgesOf(id); x >= 0; x = edges.nextOf(x)) {
        const to = edges.toOf(x);
        if (isEntryBlock[to] === 1 && edges.kindOf(x) !== 'branch') visit(to, id);
      }
    }
  };
  await eachPred((to) => start[to + 2]!++);
  for (let b = 2; b < blockCount + 2; b++) start[b]! += start[b - 1]!;
  const from = new Int32Array(start[blockCount + 1]!);
  await eachPred((to, id) => {
    from[start[to + 1]!++] = id;
  });
  for (const body of bodies.values()) {
    const pause = turn();
    if (pause) await pause;
    const e = body.entry;
    for (let i = start[e.block]!; i < start[e.block + 1]!; i++) {
      const p = from[i]!;
      if (body.holds(p)) continue;
      const host = owners.of(p).find((k) => k !== e.key && !bodies.get(k)?.entry.orphan);
      if (host) {
        body.secondaryOf = host;
        break;
      }
    }
  }
  return { bodies, owners };
}
