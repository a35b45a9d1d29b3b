// A signature set applied to a program's functions: each function's bytes compared with every
// function signature of its mode (the masked bytes skipped), then every match's references checked in
// the program: a call's target must be a function that the callee's signature matches, an address
// word must name a place the named item matches, a string's bytes must be there. A reference that
// disagrees rules the match out; one that cannot be checked (a veneer, a callee outside the set or
// unmatched) counts for nothing. Then the functions one name matches name others (narrowSteps): the
// function each of their calls reaches, their neighbours in their object's section (a linker keeps an
// input section whole) and the functions of the sections laid out between two named ones
// (object-layout.ts), each only among the names its own bytes match; and a function several names
// match loses those whose calls reach functions named otherwise. What is left becomes a proposal with
// its evidence and tier (a function the layout places where the map found none too, `inMap` false):
//   strong     one name matches, with at least APPLY_LIMITS.minCompared compared bytes;
//   supported  one name matches on fewer bytes, and at least one reference agrees or a caller or
//              neighbour named it so;
//   ambiguous  several names match (aliases of other files, identical code), or the one name matches
//              several functions of the program: listed with every candidate, never one chosen.
// A match on fewer bytes with nothing to support it is no proposal (counted as too short). Then the
// data objects the named functions' words name (data-labels.ts), and tables found by the named
// functions they hold, are proposed as `data`; the functions their slots hold are named where their
// bytes changed; what is still unnamed on both sides is paired by what it uses (structure.ts); and what
// is left unmatched on both sides is listed. Pure.
import type { ArmMode } from '../../arm/types.js';
import type { Steps } from '../../core/cooperative.js';
import { u32 } from '../../formats/le.js';
import { dataLabels, type NamedFunction } from './data-labels.js';
import { slotProposals, tablesByFunctions, wordAt } from './data-slots.js';
import { type Match, narrowSteps, STEP_FUNCTIONS } from './narrow.js';
import { dataProposal, markSharedNames, outsideProposal } from './proposals.js';
import { directBranchAt, isLinkerStub, refBranchMode } from './relocs.js';
import { structureProposals } from './structure.js';
import {
  type ApplyCounts,
  comparedBytes,
  derivedFrom,
  matchesAt,
  type ProgramFunction,
  type ProgramMemory,
  type Proposal,
  type SigItem,
  type SignatureSet,
} from './types.js';

export const PROPOSAL_TIERS = ['strong', 'supported', 'ambiguous'] as const;
type ProposalTier = (typeof PROPOSAL_TIERS)[number];

export const APPLY_LIMITS = {
  /** Compared bytes a match needs to stand alone (fewer: a reference must agree). */
  minCompared: { default: 16, min: 4, max: 4096, unit: 'bytes' },
} as const;

export type { ApplyCounts, ProgramFunction, ProgramMemory, Proposal } from './types.js';

interface Applied {
  proposals: Proposal[];
  counts: ApplyCounts;
  /**
   * What the application left unmatched: the program's functions no proposal is at (the code a later
   * build added or changed, or code the set does not have), and the set's function items no proposal
   * names or lists as a candidate (what the program removed or changed, or library code it does not
   * link), both in their order.
   */
  unmatched: { functions: ProgramFunction[]; items: number[] };
}

const AGREE_WEIGHT = 16;
/** Data items followed through data items' address words (a vtable, its type_info, its name). */
const DATA_DEPTH = 3;

/** The first two words hashed into one key (a collision only costs a comparison). */
const head8 = (b: Uint8Array, o: number) => (Math.imul(u32(b, o), 0x9e3779b1) ^ u32(b, o + 4)) >>> 0;

/** Function signatures indexed for pass 1, and every item by each of its names. */
interface SetIndex {
  /** By mode and first two words (when those eight bytes are compared). */
  byHead8: Record<ArmMode, Map<number, number[]>>;
  /** By mode and first word (when its four bytes are compared, but not the next four). */
  byHead: Record<ArmMode, Map<number, number[]>>;
  /** The rest, by mode: compared with every function. */
  loose: Record<ArmMode, number[]>;
  /** Item index by key and by each name (the first item holding it). */
  byName: Map<string, number>;
  /** Compared bytes of each item. */
  compared: Int32Array;
}

const INDEXES = new WeakMap<readonly SigItem[], SetIndex>();

/** The index of `items`. The keys only narrow: every byte is compared. */
function indexSet(items: readonly SigItem[]): SetIndex {
  const byHead = { arm: new Map<number, number[]>(), thumb: new Map<number, number[]>() };
  const byHead8 = { arm: new Map<number, number[]>(), thumb: new Map<number, number[]>() };
  const loose = { arm: [] as number[], thumb: [] as number[] };
  const byName = new Map<string, number>();
  const compared = new Int32Array(items.length);
  for (const [i, item] of items.entries()) {
    compared[i] = comparedBytes(item);
    if (!byName.has(item.key)) byName.set(item.key, i);
    for (const n of item.names) if (!byName.has(n)) byName.set(n, i);
    if (item.kind !== 'function' || item.mode === null || item.bytes.length === 0) continue;
    const kept = (from: number, to: number) =>
      item.bytes.length >= to && item.mask.subarray(from, to).every((m) => m === 1);
    const index = kept(0, 8) ? byHead8[item.mode] : kept(0, 4) ? byHead[item.mode] : null;
    if (index === null) {
      loose[item.mode].push(i);
      continue;
    }
    const k = index === byHead[item.mode] ? u32(item.bytes, 0) : head8(item.bytes, 0);
    const list = index.get(k) ?? [];
    list.push(i);
    index.set(k, list);
  }
  return { byHead, byHead8, loose, byName, compared };
}

/** Pass 1 for one function: every function signature whose bytes match at its address. */
function byteMatches(items: readonly SigItem[], index: SetIndex, fn: ProgramFunction): Match[] {
  const o = fn.address - fn.start;
  const list: Match[] = [];
  const cands = o + 4 <= fn.bytes.length ? (index.byHead[fn.mode].get(u32(fn.bytes, o)) ?? []) : [];
  const cands8 = o + 8 <= fn.bytes.length ? (index.byHead8[fn.mode].get(head8(fn.bytes, o)) ?? []) : [];
  for (const group of [cands8, cands, index.loose[fn.mode]])
    for (const i of group)
      if (matchesAt(items[i]!, fn.bytes, o))
        list.push({
          item: i,
          compared: index.compared[i]!,
          agreed: 0,
          unchecked: 0,
          contradicted: 0,
          why: null,
          calledAs: null,
        });
  return list;
}

/** Whether the program agrees with a named item: 1 agrees, -1 contradicts, 0 unknown. */
interface Agreement {
  /** Of the function at `address` with function item `want`. */
  functionAgrees(address: number, want: number): number;
  /** Of the bytes at `address` with data item `want`. */
  dataAgrees(address: number, want: number): number;
}

/** The agreement checks over the byte matches of pass 1 (`matches[f]` of `functions[f]`). */
function agreement(
  items: readonly SigItem[],
  byName: ReadonlyMap<string, number>,
  functions: readonly ProgramFunction[],
  matches: readonly Match[][],
  memory: ProgramMemory,
): Agreement {
  const byAddress = new Map<string, number>();
  for (const [f, fn] of functions.entries()) byAddress.set(`${fn.mode}:${fn.address}`, f);
  const matchedAt = (mode: ArmMode, address: number): Match[] | null => {
    const f =
      byAddress.get(`${mode}:${address}`) ?? byAddress.get(`${mode === 'arm' ? 'thumb' : 'arm'}:${address}`);
    return f === undefined ? null : matches[f]!;
  };
  const functionAgrees = (address: number, want: number): number => {
    const there = matchedAt('arm', address) ?? matchedAt('thumb', address);
    if (there === null || there.length === 0) return 0;
    const w = items[want]!;
    return there.some((m) => m.item === want || items[m.item]!.names[0] === w.names[0]) ? 1 : -1;
  };
  /** Its compared bytes, then the functions its own address words name (a vtable's methods). */
  const dataMemo = new Map<string, number>();
  const dataAgrees = (address: number, want: number, depth = 0): number => {
    const memo = `${address}:${want}`;
    const known = dataMemo.get(memo);
    if (known !== undefined) return known;
    // Settled as unknown while it is being worked out (a table that names itself).
    dataMemo.set(memo, 0);
    const verdict = dataVerdict(address, want, depth);
    dataMemo.set(memo, verdict);
    return verdict;
  };
  const dataVerdict = (address: number, want: number, depth: number): number => {
    const w = items[want]!;
    const there = memory.read(address, w.bytes.length);
    if (there === null) return 0;
    if (!matchesAt(w, there, 0)) return -1;
    let verdict = 1;
    for (const r of w.refs) {
      if (r.kind !== 'word' || r.target === null || r.at + 4 > there.length) continue;
      const named = byName.get(r.target);
      if (named === undefined) continue;
      const value = u32(there, r.at);
      const v =
        items[named]!.kind === 'function'
          ? functionAgrees(((value & ~1) - r.offset) >>> 0, named)
          : depth < DATA_DEPTH && items[named]!.bytes.length > 0
            ? dataAgrees((value - r.offset) >>> 0, named, depth + 1)
            : 0;
      if (v < 0) return -1;
      if (v > 0) verdict = 2;
    }
    return verdict;
  };
  return { functionAgrees, dataAgrees: (address, want) => dataAgrees(address, want) };
}

/** Pass 2 for one byte match of `fn`: its extent, then each of its references, counted into `m`. */
function checkReferences(
  m: Match,
  fn: ProgramFunction,
  items: readonly SigItem[],
  byName: ReadonlyMap<string, number>,
  memory: ProgramMemory,
  agree: Agreement,
): void {
  const o = fn.address - fn.start;
  const item = items[m.item]!;
  if (fn.end > fn.address + item.size) {
    m.contradicted++;
    m.why = `its code runs to ${fn.end - fn.address} bytes, past the signature's ${item.size}`;
    return;
  }
  for (const r of item.refs) {
    const at = o + r.at;
    let verdict = 0;
    if (r.kind === 'call') {
      const want = r.target === null ? undefined : byName.get(r.target);
      const b = directBranchAt(fn.bytes, at, fn.address + r.at, refBranchMode(item.bytes, item.mode!, r.at));
      if (want !== undefined && b !== null && items[want]!.kind === 'function')
        verdict = agree.functionAgrees(b.target, want);
    } else if (r.kind === 'word' && at + 4 <= fn.bytes.length) {
      const value = u32(fn.bytes, at);
      if (r.content !== null) {
        const there = memory.read(value, r.content.length);
        if (there !== null) verdict = there.every((x, k) => x === r.content![k]) ? 1 : -1;
      } else {
        const want = r.target === null ? undefined : byName.get(r.target);
        const w = want === undefined ? null : items[want]!;
        if (w !== null && w.kind === 'function')
          verdict = agree.functionAgrees(((value & ~1) - r.offset) >>> 0, want!);
        else if (w !== null && w.bytes.length > 0)
          verdict = agree.dataAgrees((value - r.offset) >>> 0, want!);
      }
    }
    if (verdict > 0) m.agreed++;
    else if (verdict < 0) {
      m.contradicted++;
      m.why ??= `its ${r.kind} at +0x${r.at.toString(16)} names ${r.target ?? 'other bytes'}, the program's does not`;
    } else m.unchecked++;
  }
  if (m.agreed === 0 && m.contradicted === 0 && isLinkerStub(item.bytes, item.mode!)) {
    // A linker stub is the same few bytes wherever it is: only what it reaches tells one from another.
    m.contradicted++;
    m.why = 'a linker stub whose target is not named the same here';
  }
}

const weight = (m: Match) => m.compared + AGREE_WEIGHT * m.agreed;

/**
 * Pass 3 for one function with byte matches `all`: its proposal, or null (counted in `counts` as
 * contradicted or too short). Counts `matched` too; the tiers are counted by the caller.
 */
function propose(
  fn: ProgramFunction,
  all: readonly Match[],
  kept: readonly Match[],
  items: readonly SigItem[],
  minCompared: number,
  counts: ApplyCounts,
): Proposal | null {
  counts.matched++;
  if (kept.length === 0) {
    counts.contradicted++;
    return null;
  }
  // One candidate per name: the best supported.
  const byFirst = new Map<string, Match>();
  for (const m of kept) {
    const name = items[m.item]!.names[0]!;
    const had = byFirst.get(name);
    if (!had || weight(m) > weight(had)) byFirst.set(name, m);
  }
  const ranked = [...byFirst.values()].sort((a, b) => weight(b) - weight(a) || a.item - b.item);
  const best = ranked[0]!;
  const standsAlone = (m: Match) => m.compared >= minCompared || m.agreed > 0 || m.calledAs !== null;
  if (!ranked.some(standsAlone)) {
    counts.tooShort++;
    return null;
  }
  const candidates = ranked.map((m) => {
    const item = items[m.item]!;
    return {
      name: item.names[0]!,
      aliases: item.names.slice(1),
      origin: item.origin,
      comparedBytes: m.compared,
      size: item.size,
      refsAgreed: m.agreed,
      refsUnchecked: m.unchecked,
    };
  });
  const unique = ranked.length === 1;
  const tier: ProposalTier = !unique ? 'ambiguous' : best.compared >= minCompared ? 'strong' : 'supported';
  const reasons = !unique
    ? [
        `${ranked.length} names match these bytes: ${candidates
          .map((c) => c.name)
          .slice(0, 8)
          .join(', ')}`,
      ]
    : best.compared === 0
      ? [
          'its bytes match no signature (the same name built otherwise): named by its callers alone',
          best.calledAs!,
        ]
      : [
          `${best.compared} of ${items[best.item]!.bytes.length} bytes compared and equal (${items[best.item]!.bytes.length - best.compared} masked)`,
          'one name in the set matches',
          ...(best.agreed > 0 ? [`${best.agreed} reference(s) agree`] : []),
          ...(best.calledAs !== null ? [best.calledAs] : []),
          ...(best.unchecked > 0 ? [`${best.unchecked} reference(s) not checkable`] : []),
        ];
  const ruledOut = all.length - kept.length;
  if (ruledOut > 0)
    reasons.push(`${ruledOut} other byte match(es) ruled out by their references, their callers or extent`);
  return {
    key: fn.key,
    address: fn.address,
    mode: fn.mode,
    tier,
    name: unique ? candidates[0]!.name : null,
    score: weight(best),
    candidates,
    alsoAt: [],
    reasons,
    inMap: true,
  };
}

/** The program's functions no proposal is at, and the set's function items no proposal names. */
function unmatchedOf(
  functions: readonly ProgramFunction[],
  items: readonly SigItem[],
  proposals: readonly Proposal[],
): Applied['unmatched'] {
  const at = new Set(proposals.filter((p) => p.mode !== 'data').map((p) => p.address));
  const named = new Set(proposals.flatMap((p) => p.candidates.map((c) => c.name)));
  return {
    functions: functions.filter((fn) => !at.has(fn.address)),
    items: items.flatMap((item, i) => (item.kind === 'function' && !named.has(item.names[0]!) ? [i] : [])),
  };
}

/** The proposals of `set` for `functions` (see the file comment). */
export function* applySteps(
  set: SignatureSet,
  functions: readonly ProgramFunction[],
  memory: ProgramMemory,
  minCompared: number = APPLY_LIMITS.minCompared.default,
): Steps<Applied> {
  const items = set.items;
  const index = derivedFrom(INDEXES, items, indexSet);
  yield;
  // Pass 1: byte matches.
  const matches: Match[][] = [];
  for (const [f, fn] of functions.entries()) {
    if (f % STEP_FUNCTIONS === 0) yield;
    matches.push(byteMatches(items, index, fn));
  }
  // Pass 2: references.
  const agree = agreement(items, index.byName, functions, matches, memory);
  for (const [f, fn] of functions.entries()) {
    if (f % STEP_FUNCTIONS === 0) yield;
    for (const m of matches[f]!) checkReferences(m, fn, items, index.byName, memory, agree);
  }
  yield;
  // Pass 3: the references of functions one name matches narrow the functions they name.
  const live = matches.map((ms) => ms.filter((m) => m.contradicted === 0));
  const bare = matches.map((ms) => ms.length === 0);
  const outside = yield* narrowSteps(items, index.byName, functions, live, minCompared, memory, bare);
  // Pass 4: proposals.
  const counts: ApplyCounts = {
    functions: functions.length,
    signatures: items.filter((i) => i.kind === 'function').length,
    matched: 0,
    strong: 0,
    supported: 0,
    ambiguous: 0,
    tooShort: 0,
    contradicted: 0,
    outsideMap: 0,
    data: 0,
  };
  const proposals: Proposal[] = [];
  // The item each proposal's name comes from, and the reader of its words.
  const named = new Map<Proposal, Omit<NamedFunction, 'name'>>();
  for (const [f, fn] of functions.entries()) {
    if (matches[f]!.length === 0 && live[f]!.length === 0) continue;
    const all = matches[f]!.length > 0 ? matches[f]! : live[f]!;
    const p = propose(fn, all, live[f]!, items, minCompared, counts);
    if (p === null) continue;
    proposals.push(p);
    const item = live[f]!.find((m) => items[m.item]!.names[0] === p.name)?.item;
    if (item !== undefined) named.set(p, { address: fn.address, item, word: (at) => wordIn(fn, at) });
  }
  for (const [address, o] of outside) {
    const p = outsideProposal(address, o, items, index.compared[o.item]!);
    proposals.push(p);
    named.set(p, { address, item: o.item, word: (at) => wordAt(memory, address + at) });
  }
  counts.outsideMap = outside.size;
  markSharedNames(proposals);
  for (const p of proposals) counts[p.tier]++;
  // Data labels, from the words of the functions left named.
  const users = proposals.flatMap((p) => {
    const n = named.get(p);
    return p.name === null || n === undefined ? [] : [{ ...n, name: p.name }];
  });
  const keyAt = new Map(proposals.map((p) => [p.address, p.key]));
  const data = dataLabels(items, index.byName, users, memory, minCompared);
  // Tables found by the named functions they hold; then the functions the slots of the data labels
  // hold (a table of handlers), named where nothing named them.
  const held = tablesByFunctions(items, index.byName, proposals, data, memory);
  data.push(...held);
  for (const { proposal, replaces } of slotProposals(
    items,
    index.byName,
    data,
    functions,
    proposals,
    memory,
  )) {
    // An ambiguous proposal the slot settles gives way to it.
    if (replaces !== null) {
      proposals.splice(proposals.indexOf(replaces), 1);
      counts.ambiguous--;
    }
    proposals.push(proposal);
    counts.supported++;
  }
  yield;
  // What is left unnamed on both sides, paired by what it uses (structure.ts), when the set is of one
  // linked program's functions (built from a ROM or an executable: another build of this program).
  // A library's set is not: most of its functions are not in the program, and the program's own code
  // uses what they use (a function of strings calls what getline calls).
  const linked = set.sources.length > 0 && set.sources.every((s) => s.kind === 'rom' || s.kind === 'elf');
  for (const p of linked ? structureProposals(items, index.byName, functions, proposals, memory) : []) {
    proposals.push(p);
    counts.supported++;
  }
  for (const d of data) proposals.push(dataProposal(d, keyAt.get(d.usedBy[0] ?? d.holds[0]!) ?? ''));
  counts.data = data.length;
  return { proposals, counts, unmatched: unmatchedOf(functions, items, proposals) };
}

/** The word at `fn.address + at` in its component, or null past its bytes. */
function wordIn(fn: ProgramFunction, at: number): number | null {
  const o = fn.address - fn.start + at;
  return o >= 0 && o + 4 <= fn.bytes.length ? u32(fn.bytes, o) : null;
}
