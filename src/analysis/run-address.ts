// Run addresses of bytes the start-up code copies (evidence/copied-code.ts): a main executable's bytes
// stored at one address (their storage address: where the ROM loads them) that run at another once
// start-up is over (ITCM code, a main program copied below where it is loaded, an ARM7 body copied into
// WRAM). Both directions, from the copies the start-up run proved, with the copy as the evidence: a
// storage address to where its bytes run, and a run address to where its bytes are stored. Pure.
import { ReMcpError } from '../core/errors.js';
import { formatAddress as hex, type Processor } from '../core/vocabulary.js';
import type { CopiedBlock } from './program-map/types.js';

/** One copy as evidence: where it runs, how long it is, where its bytes are stored, what copied them. */
export interface CopyEvidence {
  kind: 'code' | 'data';
  runStart: number;
  size: number;
  storedStart: number;
  /** The store instruction that copied the first byte. */
  storedBy: number;
}

/** The copies of one processor's start-up, code and data, as the program map detected them. */
export interface StartupCopies {
  processor: Processor;
  code: readonly CopiedBlock[];
  data: readonly CopiedBlock[];
}

/** A storage address mapped to where its bytes run, or a run address to where they are stored. */
export interface RunMapping {
  stored: number;
  run: number;
  copy: CopyEvidence;
}

const evidence = (kind: 'code' | 'data', b: CopiedBlock): CopyEvidence => ({
  kind,
  runStart: b.start,
  size: b.size,
  storedStart: b.source,
  storedBy: b.storedBy,
});

function* all(copies: StartupCopies): Generator<{ kind: 'code' | 'data'; block: CopiedBlock }> {
  for (const block of copies.code) yield { kind: 'code', block };
  for (const block of copies.data) yield { kind: 'data', block };
}

/** Words of a mapping for messages and text: `stored 0x… runs at 0x… (ITCM code copy …)`. */
export function describeCopy(c: CopyEvidence): string {
  return `${c.kind} copy of ${c.size} bytes from ${hex(c.storedStart)} to ${hex(c.runStart)}, stored by the instruction at ${hex(c.storedBy)}`;
}

/**
 * Where the bytes stored at [stored, stored + length) run: null when no copy takes any of them (they
 * run where they are stored, if anywhere). Refused when only part of the range is copied, or when
 * copies take the bytes to different places (which one runs is not known statically).
 */
export function runOfStored(copies: StartupCopies, stored: number, length = 1): RunMapping | null {
  const end = stored + Math.max(1, length);
  const touching = [...all(copies)].filter(
    ({ block }) => stored < block.source + block.size && block.source < end,
  );
  if (touching.length === 0) return null;
  const whole = touching.filter(({ block }) => stored >= block.source && end <= block.source + block.size);
  if (whole.length !== touching.length || whole.length === 0) {
    const t = touching[0]!;
    throw new ReMcpError(
      'invalid-argument',
      `${copies.processor} ${hex(stored)}..${hex(end)} lies partly in bytes the start-up copies elsewhere (${describeCopy(evidence(t.kind, t.block))}): keep a patch inside the copy or outside it`,
      { stored, length },
    );
  }
  const runs = new Set(whole.map(({ block }) => block.start + (stored - block.source)));
  if (runs.size > 1)
    throw new ReMcpError(
      'ambiguous-code-source',
      `${copies.processor} ${hex(stored)}: the start-up copies these bytes to ${[...runs].map(hex).join(' and ')}; which one runs is not known`,
      { stored },
    );
  const { kind, block } = whole[0]!;
  return { stored, run: block.start + (stored - block.source), copy: evidence(kind, block) };
}

/** Where the bytes running at `run` are stored: null when no copy puts bytes there. */
export function storedOfRun(copies: StartupCopies, run: number): RunMapping | null {
  // The detector reports what start-up leaves in each byte, so copies do not overlap where they run;
  // the last one is taken should two ever do.
  let found: RunMapping | null = null;
  for (const { kind, block } of all(copies))
    if (run >= block.start && run < block.start + block.size)
      found = { stored: block.source + (run - block.start), run, copy: evidence(kind, block) };
  return found;
}

/**
 * Refuses `address` given as a run address when it is only the storage address of copied bytes (no
 * copy runs there): the message names the run address where those bytes run.
 */
export function refuseStorageAddress(copies: StartupCopies, address: number, what: string): void {
  if (storedOfRun(copies, address) !== null) return;
  const m = runOfStored(copies, address);
  if (m === null) return;
  throw new ReMcpError(
    'invalid-argument',
    `${what} ${hex(address)} is where the ROM stores bytes the start-up copies to ${hex(m.run)} (${describeCopy(m.copy)}); they never run at ${hex(address)}: give ${hex(m.run)}`,
    { address, runAddress: m.run },
  );
}
