// Data of a signature set found in a program, and the functions its address words name: a string
// whose every byte is compared (a type's name, `St9exception`) found once in the program's memory;
// then each data item one of whose address words names something found (a type_info naming that
// string, a vtable naming that type_info) at the one place its pattern matches with every such word
// agreeing; then, through each found item's words that name functions (a vtable's slots), the
// functions there. Distinct classes' methods are often the same bytes (deleting destructors, what());
// their vtables are not. Pure; bounded by the program's size and the set's.
import type { Steps } from '../../core/cooperative.js';
import { u32 } from '../../formats/le.js';
import { matchesAt, type ProgramMemory, type SigItem } from './types.js';

/** A string item this short could be found by chance: not searched for. */
const MIN_FOUND_BYTES = 6;
/** Rounds of finding data through data (a string, its type_info, its vtable). */
const DATA_ROUNDS = 3;

/** A function a found data item names. */
interface DataNamed {
  address: number;
  want: string;
  why: string;
}

const allCompared = (item: SigItem) => item.mask.every((m) => m === 1);

/** Every place `needle` occurs in `regions`, at most `max` (more: the caller treats it as not unique). */
function occurrences(
  regions: readonly { start: number; bytes: Uint8Array }[],
  needle: Uint8Array,
  max: number,
): number[] {
  const out: number[] = [];
  const n = Buffer.from(needle.buffer, needle.byteOffset, needle.length);
  for (const r of regions) {
    const hay = Buffer.from(r.bytes.buffer, r.bytes.byteOffset, r.bytes.length);
    for (let o = hay.indexOf(n); o >= 0 && out.length <= max; o = hay.indexOf(n, o + 1))
      out.push(r.start + o);
  }
  return out;
}

/** The functions named by the set's data found in `memory` (nothing when it cannot list its regions). */
export function* dataNamedSteps(
  items: readonly SigItem[],
  byName: ReadonlyMap<string, number>,
  memory: ProgramMemory,
): Steps<DataNamed[]> {
  const regions = memory.regions?.() ?? [];
  if (regions.length === 0) return [];
  // Aligned words of the program, by value (where each value is stored).
  const wordsAt = new Map<number, number[]>();
  for (const r of regions) {
    for (let o = (4 - (r.start & 3)) & 3; o + 4 <= r.bytes.length; o += 4) {
      const v = u32(r.bytes, o);
      const list = wordsAt.get(v);
      if (list) list.push(r.start + o);
      else wordsAt.set(v, [r.start + o]);
    }
    yield;
  }
  const found = new Map<number, number>();
  for (const [i, item] of items.entries()) {
    if (item.kind !== 'data' || item.refs.length > 0 || item.bytes.length < MIN_FOUND_BYTES) continue;
    if (!allCompared(item) || item.bytes[item.bytes.length - 1] !== 0) continue;
    const hits = occurrences(regions, item.bytes, 1);
    if (hits.length === 1) found.set(i, hits[0]!);
    if (i % 256 === 0) yield;
  }
  const matchesHere = (item: SigItem, address: number) => {
    const there = memory.read(address, item.bytes.length);
    return there !== null && matchesAt(item, there, 0);
  };
  for (let round = 0; round < DATA_ROUNDS; round++) {
    let more = false;
    for (const [i, item] of items.entries()) {
      if (item.kind !== 'data' || found.has(i) || item.bytes.length === 0) continue;
      const words = item.refs.filter((r) => r.kind === 'word' && r.target !== null);
      const known = words.filter((r) => found.has(byName.get(r.target!) ?? -1));
      if (known.length === 0) continue;
      const first = known[0]!;
      const value = (found.get(byName.get(first.target!)!)! + first.offset) >>> 0;
      const places = (wordsAt.get(value) ?? [])
        .map((a) => (a - first.at) >>> 0)
        .filter(
          (a) =>
            matchesHere(item, a) &&
            known.every((r) => {
              const w = memory.read(a + r.at, 4);
              return w !== null && u32(w, 0) === (found.get(byName.get(r.target!)!)! + r.offset) >>> 0;
            }),
        );
      if (places.length === 1) {
        found.set(i, places[0]!);
        more = true;
      }
      if (i % 256 === 0) yield;
    }
    if (!more) break;
  }
  const out: DataNamed[] = [];
  for (const [i, address] of found) {
    const item = items[i]!;
    for (const r of item.refs) {
      if (r.kind !== 'word' || r.target === null) continue;
      const named = byName.get(r.target);
      if (named === undefined || items[named]!.kind !== 'function') continue;
      const w = memory.read(address + r.at, 4);
      if (w === null) continue;
      out.push({
        address: ((u32(w, 0) & ~1) - r.offset) >>> 0,
        want: items[named]!.names[0]!,
        why: `named by ${item.names[0]} (0x${address.toString(16)}) at +${r.at}`,
      });
    }
  }
  return out;
}
