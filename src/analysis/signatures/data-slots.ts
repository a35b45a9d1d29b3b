// Data placed by the functions it holds, and functions named by the data holding them: a table of
// handlers (its address words name function items) is found where the program's words hold the
// functions already named at its offsets; then each slot of a placed data object names the function it
// holds where no proposal named that function (its bytes changed, or were built otherwise) or its
// ambiguous proposal lists that name. Pure.
import { u32 } from '../../formats/le.js';
import type { DataProposal } from './data-labels.js';
import {
  candidateOf,
  comparedBytes,
  matchesAt,
  type ProgramFunction,
  type ProgramMemory,
  type Proposal,
  type SigItem,
} from './types.js';

/** Weight of a holding slot in a score (as of an agreeing reference). */
const AGREE_WEIGHT = 16;
const hex = (n: number) => `0x${n.toString(16)}`;

/** The word at `address` in the program, or null. */
export function wordAt(memory: ProgramMemory, address: number): number | null {
  const b = memory.read(address, 4);
  return b === null ? null : u32(b, 0);
}

/** Named functions a table must hold, at least, to be found by them (one word could be anywhere). */
const MIN_HELD = 2;

/**
 * Data items found by the functions they hold: an item (not placed otherwise) whose address words name
 * function items proposed at one place each is looked for where the program's aligned words hold
 * those functions' addresses at the item's offsets; found where exactly one place has every such word
 * (at least MIN_HELD of them) and its compared bytes. A table of handlers some of which changed is so
 * found by those that did not (and then names the others, slotProposals).
 */
export function tablesByFunctions(
  items: readonly SigItem[],
  byName: ReadonlyMap<string, number>,
  proposals: readonly Proposal[],
  placed: readonly DataProposal[],
  memory: ProgramMemory,
): DataProposal[] {
  const at = new Map<string, number>();
  const nameAt = new Map<number, string>();
  for (const p of proposals)
    if (p.mode !== 'data' && p.name !== null) {
      at.set(p.name, p.address);
      nameAt.set(p.address, p.name);
    }
  const done = new Set(placed.map((d) => d.item));
  const wanted: {
    item: number;
    held: { at: number; value: number }[];
    others: { at: number; want: string }[];
  }[] = [];
  for (const [i, item] of items.entries()) {
    if (item.kind !== 'data' || done.has(i) || item.bytes.length === 0) continue;
    const held: { at: number; value: number }[] = [];
    const others: { at: number; want: string }[] = [];
    for (const r of item.refs) {
      if (r.kind !== 'word' || r.target === null) continue;
      const t = byName.get(r.target);
      const fn = t === undefined ? undefined : items[t]!;
      if (fn?.kind !== 'function') continue;
      const address = at.get(fn.names[0]!);
      if (address === undefined) others.push({ at: r.at, want: fn.names[0]! });
      else held.push({ at: r.at, value: ((address + r.offset) | (fn.mode === 'thumb' ? 1 : 0)) >>> 0 });
    }
    if (held.length >= MIN_HELD) wanted.push({ item: i, held, others });
  }
  if (wanted.length === 0) return [];
  const regions = memory.regions?.() ?? [];
  const values = new Set(wanted.map((w) => w.held[0]!.value));
  const wordsAt = new Map<number, number[]>();
  for (const r of regions)
    for (let o = (4 - (r.start & 3)) & 3; o + 4 <= r.bytes.length; o += 4) {
      const v = u32(r.bytes, o);
      if (!values.has(v)) continue;
      const list = wordsAt.get(v);
      if (list) list.push(r.start + o);
      else wordsAt.set(v, [r.start + o]);
    }
  const found: { item: number; address: number; held: { at: number; value: number }[] }[] = [];
  for (const { item: i, held, others } of wanted) {
    const item = items[i]!;
    const first = held[0]!;
    const places = (wordsAt.get(first.value) ?? [])
      .map((a) => (a - first.at) >>> 0)
      .filter((a) => {
        const there = memory.read(a, item.bytes.length);
        return (
          there !== null &&
          matchesAt(item, there, 0) &&
          held.every((h) => there.length >= h.at + 4 && u32(there, h.at) === h.value) &&
          // A slot holding a function named otherwise rules the place out (another class's vtable
          // sharing the inherited methods).
          others.every((o) => {
            const name = nameAt.get((u32(there, o.at) & ~1) >>> 0);
            return name === undefined || name === o.want;
          })
        );
      });
    if (places.length === 1) found.push({ item: i, address: places[0]!, held });
  }
  // A place two items are found at names neither.
  const count = new Map<number, number>();
  for (const f of found) count.set(f.address, (count.get(f.address) ?? 0) + 1);
  const out: DataProposal[] = [];
  for (const { item: i, address, held } of found) {
    if (count.get(address)! > 1) continue;
    const item = items[i]!;
    const compared = comparedBytes(item);
    const names = held
      .map((h) => hex(h.value & ~1))
      .slice(0, 3)
      .join(', ');
    out.push({
      item: i,
      address,
      name: item.names[0]!,
      tier: 'supported',
      score: compared + AGREE_WEIGHT * held.length,
      candidates: [candidateOf(item, compared)],
      alsoAt: [],
      usedBy: [],
      holds: held.map((h) => (h.value & ~1) >>> 0),
      reasons: [
        `the one place whose words hold the ${held.length} function(s) of the set it names, at its offsets (${names}${held.length > 3 ? ', …' : ''})`,
        `${compared} of its ${item.bytes.length} bytes compared and equal`,
      ],
    });
  }
  return out;
}

/**
 * Names from the slots of placed data: each address word of a data label (not ambiguous) whose item
 * says it names a function item holds, in this program, the address of that function. A function of
 * the map there that no proposal names (its bytes are not the signature's: changed, or built
 * otherwise), or whose ambiguous proposal lists that name, is proposed that name, `supported`, when
 * every slot naming it agrees, its mode is the item's, and the name is proposed nowhere else.
 */
export function slotProposals(
  items: readonly SigItem[],
  byName: ReadonlyMap<string, number>,
  data: readonly DataProposal[],
  functions: readonly ProgramFunction[],
  proposals: readonly Proposal[],
  memory: ProgramMemory,
): { proposal: Proposal; replaces: Proposal | null }[] {
  const fnAt = new Map(functions.map((fn, f) => [fn.address, f]));
  const proposalAt = new Map<number, Proposal>();
  const taken = new Set<string>();
  for (const p of proposals) {
    if (p.mode === 'data') continue;
    proposalAt.set(p.address, p);
    if (p.name !== null) taken.add(p.name);
  }
  // function -> the items its slots name, and why.
  const claims = new Map<number, { item: number; why: string }[]>();
  for (const d of data) {
    if (d.name === null || d.tier === 'ambiguous') continue;
    for (const r of items[d.item]!.refs) {
      if (r.kind !== 'word' || r.target === null) continue;
      const want = byName.get(r.target);
      if (want === undefined || items[want]!.kind !== 'function') continue;
      const word = wordAt(memory, d.address + r.at);
      if (word === null || (word & 1) !== (items[want]!.mode === 'thumb' ? 1 : 0)) continue;
      const f = fnAt.get(((word & ~1) - r.offset) >>> 0);
      if (f === undefined || functions[f]!.mode !== items[want]!.mode) continue;
      const list = claims.get(f) ?? [];
      list.push({ item: want, why: `held by ${d.name} (${hex(d.address)}) at +${r.at}` });
      claims.set(f, list);
    }
  }
  const out: { proposal: Proposal; replaces: Proposal | null }[] = [];
  for (const [f, list] of claims) {
    const name = items[list[0]!.item]!.names[0]!;
    if (list.some((c) => items[c.item]!.names[0] !== name) || taken.has(name)) continue;
    const fn = functions[f]!;
    const had = proposalAt.get(fn.address);
    if (had !== undefined && (had.name !== null || !had.candidates.some((c) => c.name === name))) continue;
    taken.add(name);
    // The candidate its bytes matched, when they did (an ambiguous proposal's).
    const matched = had?.candidates.find((c) => c.name === name);
    const candidate = matched
      ? { ...matched, refsAgreed: matched.refsAgreed + list.length }
      : { ...candidateOf(items[list[0]!.item]!, 0), refsAgreed: list.length, refsUnchecked: 0 };
    const proposal: Proposal = {
      key: fn.key,
      address: fn.address,
      mode: fn.mode,
      tier: 'supported',
      name,
      score: candidate.comparedBytes + AGREE_WEIGHT * candidate.refsAgreed,
      candidates: [candidate],
      alsoAt: [],
      reasons: [
        `${list.map((c) => c.why).join('; ')}, as ${name} is in ${items[list[0]!.item]!.origin}`,
        had === undefined
          ? `its bytes are not the signature's (changed, or built otherwise): named by the data holding it`
          : `of the ${had.candidates.length} names its bytes match, the one the data holding it names`,
      ],
      inMap: true,
    };
    out.push({ proposal, replaces: had ?? null });
  }
  return out;
}
