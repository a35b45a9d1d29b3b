// Matching by structure, for functions whose bytes changed: a function of the program no proposal
// names and a function item of the set no proposal names are paired when what each uses agrees — the
// strings they load (the item's recorded content found at an address the function loads), the named
// functions they call (the item's call relocations; the function's calls reaching functions the
// application named), and the constants of their literal pools — and their shape is close (same
// mode; length, calls and conditional branches within a factor of two). A pair is proposed only when
// each is the other's one best (a tie names nothing), on enough evidence of two kinds or on strings
// alone. Only for a set of one linked program's functions (apply.ts): another build of the program,
// where the item left unnamed is most likely there, changed. Pure; bounded by the functions and items
// left unnamed (candidates come from shared features through indexes, never every pair).
import { u32 } from '../../formats/le.js';
import { directBranchAt, literalLoadAt, refBranchMode } from './relocs.js';
import {
  candidateOf,
  type ProgramFunction,
  type ProgramMemory,
  type Proposal,
  type SigItem,
} from './types.js';

const STRUCTURE_LIMITS = {
  /** Functions of the program and items of the set compared (each side; more: the rest is left). */
  unnamed: { max: 20_000, unit: 'functions' },
  /** Candidates of one function scored at most (the ones sharing most features). */
  candidates: { max: 64, unit: 'items' },
} as const;

/** Evidence a pair needs: strings count two each, a shared callee or constant one. */
const MIN_EVIDENCE = 4;
/** Literal constants smaller than this say little (counts, masks, small offsets). */
const MIN_CONSTANT = 0x100;
/** Bytes of a loaded string compared to find it. */
const STRING_KEY = 4;
const WEIGHT = 16;

/** What a function or item uses, and its coarse shape. */
interface Shape {
  size: number;
  calls: number;
  branches: number;
  callees: Set<string>;
  constants: Set<number>;
  /** Strings: the item's recorded contents; for a function, resolved against candidates' contents. */
  strings: Uint8Array[];
  /** For a function: the addresses its literal words hold (where a string may be). */
  loads: number[];
}

/** Each instruction of `bytes` (from `o0` to `end`) run at `address`, pool words skipped: its calls, conditional branches and pool words visited. */
function sweep(
  bytes: Uint8Array,
  o0: number,
  end: number,
  address: number,
  mode: 'arm' | 'thumb',
  word: (at: number) => number | null,
  visit: (kind: 'call' | 'branch' | 'pool', at: number, value: number) => void,
): void {
  const step = mode === 'arm' ? 4 : 2;
  const pool = new Set<number>();
  const head = bytes.subarray(o0);
  for (let o = o0; o + step <= end; ) {
    if (pool.has(o)) {
      o += 4;
      continue;
    }
    const here = (address + o - o0) >>> 0;
    const b = directBranchAt(bytes, o, here, refBranchMode(head, mode, o - o0));
    if (b !== null) {
      if (b.link) visit('call', o - o0, b.target);
      else if (b.conditional) visit('branch', o - o0, b.target);
      o += b.size;
      continue;
    }
    const loaded = literalLoadAt(bytes, o, here, mode);
    if (loaded !== null && (loaded & 3) === 0) {
      const at = loaded - address + o0;
      if (at > o && at + 4 <= end) pool.add(at);
      const value = word(loaded - address);
      if (value !== null) visit('pool', loaded - address, value);
    }
    o += step;
  }
}

const emptyShape = (size: number): Shape => ({
  size,
  calls: 0,
  branches: 0,
  callees: new Set(),
  constants: new Set(),
  strings: [],
  loads: [],
});

function itemShape(item: SigItem, byName: ReadonlyMap<string, number>, items: readonly SigItem[]): Shape {
  const s = emptyShape(item.bytes.length);
  for (const r of item.refs) {
    if (r.kind === 'call' && r.target !== null) {
      const t = byName.get(r.target);
      if (t !== undefined && items[t]!.kind === 'function') s.callees.add(items[t]!.names[0]!);
    }
    if (r.kind === 'word' && r.content !== null && r.content.length >= STRING_KEY) s.strings.push(r.content);
  }
  const b = item.bytes;
  const masked = (at: number) => item.mask.subarray(at, at + 4).some((m) => m === 0);
  sweep(
    b,
    0,
    b.length,
    0,
    item.mode!,
    (at) => (at >= 0 && at + 4 <= b.length && !masked(at) ? u32(b, at) : null),
    (kind, _at, value) => {
      if (kind === 'call') s.calls++;
      else if (kind === 'branch') s.branches++;
      else if (value >= MIN_CONSTANT) s.constants.add(value);
    },
  );
  return s;
}

function functionShape(
  fn: ProgramFunction,
  nameAt: ReadonlyMap<number, string>,
  memory: ProgramMemory & { isAddress?(value: number): boolean },
): Shape {
  const s = emptyShape(fn.end - fn.address);
  const o = fn.address - fn.start;
  const read = (at: number) => {
    const w = memory.read((fn.address + at) >>> 0, 4);
    return w === null ? null : u32(w, 0);
  };
  sweep(
    fn.bytes,
    o,
    Math.min(fn.bytes.length, fn.end - fn.start),
    fn.address,
    fn.mode,
    read,
    (kind, _at, value) => {
      if (kind === 'call') {
        s.calls++;
        const name = nameAt.get(value);
        if (name !== undefined) s.callees.add(name);
      } else if (kind === 'branch') s.branches++;
      else if (memory.isAddress?.(value) || memory.read(value, STRING_KEY) !== null) s.loads.push(value);
      else if (value >= MIN_CONSTANT) s.constants.add(value);
    },
  );
  return s;
}

const close = (a: number, b: number) => (a === 0 && b === 0) || (a > 0 && b > 0 && a <= 2 * b && b <= 2 * a);
const roughly = (a: number, b: number) => Math.abs(a - b) <= Math.max(2, Math.max(a, b) / 2);

/** The evidence of a pair: strings (two each), shared callees, shared constants; null if their shapes differ. */
function evidence(
  g: Shape,
  i: Shape,
  memory: ProgramMemory,
): { total: number; strings: number; callees: string[]; constants: number } | null {
  if (!close(g.size, i.size) || !roughly(g.calls, i.calls) || !roughly(g.branches, i.branches)) return null;
  let strings = 0;
  for (const c of i.strings)
    if (
      g.loads.some((v) => {
        const there = memory.read(v, c.length);
        return there?.every((x, k) => x === c[k]) === true;
      })
    )
      strings++;
  const callees = [...i.callees].filter((n) => g.callees.has(n));
  let constants = 0;
  for (const c of i.constants) if (g.constants.has(c)) constants++;
  return { total: 2 * strings + callees.length + constants, strings, callees, constants };
}

/**
 * Proposals by structure for the functions of `functions` no proposal is at and the function items no
 * proposal names (see the file comment).
 */
export function structureProposals(
  items: readonly SigItem[],
  byName: ReadonlyMap<string, number>,
  functions: readonly ProgramFunction[],
  proposals: readonly Proposal[],
  memory: ProgramMemory & { isAddress?(value: number): boolean },
): Proposal[] {
  const at = new Set<number>();
  const nameAt = new Map<number, string>();
  const named = new Set<string>();
  for (const p of proposals) {
    if (p.mode === 'data') continue;
    at.add(p.address);
    if (p.name !== null) nameAt.set(p.address, p.name);
    for (const c of p.candidates) named.add(c.name);
  }
  const open = items
    .flatMap((item, i) =>
      item.kind === 'function' && item.mode !== null && item.bytes.length > 0 && !named.has(item.names[0]!)
        ? [i]
        : [],
    )
    .slice(0, STRUCTURE_LIMITS.unnamed.max);
  const fns = functions
    .flatMap((fn, f) => (at.has(fn.address) ? [] : [f]))
    .slice(0, STRUCTURE_LIMITS.unnamed.max);
  if (open.length === 0 || fns.length === 0) return [];
  // The items by each feature they use.
  const shapes = new Map<number, Shape>();
  const byCallee = new Map<string, number[]>();
  const byConstant = new Map<number, number[]>();
  const byString = new Map<number, number[]>();
  const add = <K>(index: Map<K, number[]>, k: K, i: number) => {
    const list = index.get(k);
    if (list === undefined) index.set(k, [i]);
    else if (list.at(-1) !== i) list.push(i);
  };
  for (const i of open) {
    const s = itemShape(items[i]!, byName, items);
    shapes.set(i, s);
    for (const c of s.callees) add(byCallee, c, i);
    for (const c of s.constants) add(byConstant, c, i);
    for (const c of s.strings) add(byString, u32(c, 0), i);
  }
  // Each function's best item, scored among the items sharing a feature with it.
  const best = new Map<number, { item: number; e: NonNullable<ReturnType<typeof evidence>>; tie: boolean }>();
  const bestOf = new Map<number, { f: number; total: number; tie: boolean }>();
  for (const f of fns) {
    const fn = functions[f]!;
    const g = functionShape(fn, nameAt, memory);
    const shared = new Map<number, number>();
    const count = (list: number[] | undefined) => {
      for (const i of list ?? []) shared.set(i, (shared.get(i) ?? 0) + 1);
    };
    for (const c of g.callees) count(byCallee.get(c));
    for (const c of g.constants) count(byConstant.get(c));
    for (const v of g.loads) {
      const w = memory.read(v, STRING_KEY);
      if (w !== null) count(byString.get(u32(w, 0)));
    }
    const ranked = [...shared]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, STRUCTURE_LIMITS.candidates.max);
    let top: { item: number; e: NonNullable<ReturnType<typeof evidence>>; tie: boolean } | null = null;
    for (const [i] of ranked) {
      if (items[i]!.mode !== fn.mode) continue;
      const e = evidence(g, shapes.get(i)!, memory);
      if (e === null || e.total < MIN_EVIDENCE) continue;
      if (e.strings === 0 && (e.callees.length === 0 || e.constants + e.callees.length < 2)) continue;
      if (top === null || e.total > top.e.total) top = { item: i, e, tie: false };
      else if (e.total === top.e.total) top.tie = true;
      const other = bestOf.get(i);
      if (other === undefined || e.total > other.total) bestOf.set(i, { f, total: e.total, tie: false });
      else if (e.total === other.total) other.tie = true;
    }
    if (top !== null) best.set(f, top);
  }
  const out: Proposal[] = [];
  for (const [f, { item: i, e, tie }] of best) {
    const back = bestOf.get(i)!;
    if (tie || back.tie || back.f !== f) continue;
    const fn = functions[f]!;
    const item = items[i]!;
    const facts = [
      e.strings > 0 ? `${e.strings} string(s) it loads` : '',
      e.callees.length > 0
        ? `calls ${e.callees.slice(0, 4).join(', ')}${e.callees.length > 4 ? ', …' : ''}`
        : '',
      e.constants > 0 ? `${e.constants} constant(s) of its literal pool` : '',
    ].filter((x) => x !== '');
    out.push({
      key: fn.key,
      address: fn.address,
      mode: fn.mode,
      tier: 'supported',
      name: item.names[0]!,
      score: WEIGHT * e.total,
      candidates: [{ ...candidateOf(item, 0), refsAgreed: e.strings + e.callees.length, refsUnchecked: 0 }],
      alsoAt: [],
      reasons: [
        `its bytes match no signature; its structure is ${item.names[0]}'s in ${item.origin}: ${facts.join('; ')}`,
        "each the other's one best match among what is left unnamed on both sides, of a close shape (length, calls, branches)",
      ],
      inMap: true,
    });
  }
  return out;
}
