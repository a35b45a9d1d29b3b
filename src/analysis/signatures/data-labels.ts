// Data labels carried by the code that uses them: a function a signature names holds, at each address
// word its signature's relocation (or link) says names a data item, that item's address in this
// program (the word, less the offset into the item it names). Every function so named that uses an
// item says where it is; where they all agree (and the item's bytes, when it has any, are there) the
// item's name is proposed at that address. Disagreeing words, or two items at one address, make the
// proposal ambiguous (never one chosen); bytes that differ rule the item out. Pure.
import { candidateOf, comparedBytes, matchesAt, type ProgramMemory, type SigItem } from './types.js';

/** A function named by one signature: where it is, its bytes' reader, the item that names it. */
export interface NamedFunction {
  address: number;
  name: string;
  item: number;
  /** The 4 bytes at `address + at` as this function's component holds them (null past them). */
  word(at: number): number | null;
}

export interface DataProposal {
  /** The data item placed. */
  item: number;
  address: number;
  /** Null when ambiguous. */
  name: string | null;
  tier: 'strong' | 'supported' | 'ambiguous';
  /** Compared bytes of its content that are equal, plus 16 per function using it. */
  score: number;
  candidates: { name: string; aliases: string[]; origin: string; comparedBytes: number; size: number }[];
  /** Other addresses the same item's users name (ambiguous then). */
  alsoAt: number[];
  /** The functions whose words name it here (their addresses, in order). */
  usedBy: number[];
  /** Found by the functions it holds instead (apply.ts): their addresses. */
  holds: number[];
  reasons: string[];
}

const USE_WEIGHT = 16;
/** Users named in a proposal's reasons at most. */
const REASON_USERS = 3;

const hex = (n: number) => `0x${n.toString(16)}`;

/** The data proposals of the functions in `named` (see the file comment). */
export function dataLabels(
  items: readonly SigItem[],
  byName: ReadonlyMap<string, number>,
  named: readonly NamedFunction[],
  memory: ProgramMemory,
  minCompared: number,
): DataProposal[] {
  // item -> address -> the functions naming it there (address and name).
  const claims = new Map<number, Map<number, { address: number; name: string }[]>>();
  for (const fn of named) {
    for (const r of items[fn.item]!.refs) {
      if (r.kind !== 'word' || r.target === null) continue;
      const t = byName.get(r.target);
      if (t === undefined || items[t]!.kind !== 'data') continue;
      const value = fn.word(r.at);
      if (value === null) continue;
      const address = (value - r.offset) >>> 0;
      const byAddress = claims.get(t) ?? new Map<number, { address: number; name: string }[]>();
      claims.set(t, byAddress);
      const users = byAddress.get(address) ?? [];
      if (!users.some((u) => u.address === fn.address)) users.push({ address: fn.address, name: fn.name });
      byAddress.set(address, users);
    }
  }
  const out: DataProposal[] = [];
  for (const [t, byAddress] of claims) {
    const item = items[t]!;
    const sorted = [...byAddress].sort((a, b) => a[0] - b[0]);
    // Content that differs at an address rules that address out.
    const kept = sorted.filter(([address]) => contentAt(item, address, memory) !== false);
    if (kept.length === 0) continue;
    const [address, users] = kept[0]!;
    const compared = contentAt(item, address, memory) || 0;
    const one = kept.length === 1;
    const tier = !one ? 'ambiguous' : users.length >= 2 || compared >= minCompared ? 'strong' : 'supported';
    const shown = users
      .slice(0, REASON_USERS)
      .map((u) => `${u.name} (${hex(u.address)})`)
      .join(', ');
    out.push({
      item: t,
      address,
      name: one ? item.names[0]! : null,
      tier,
      score: compared + USE_WEIGHT * users.length,
      candidates: [candidateOf(item, compared)],
      alsoAt: kept.slice(1).map(([a]) => a),
      usedBy: users.map((u) => u.address).sort((a, b) => a - b),
      holds: [],
      reasons: [
        `named by the address words of ${users.length} function(s) the set names: ${shown}${users.length > REASON_USERS ? ', …' : ''}`,
        compared > 0
          ? `${compared} of its ${item.bytes.length} bytes compared and equal`
          : 'no content to compare (uninitialised, or none kept)',
        ...(one ? [] : [`its users name ${kept.length} different addresses`]),
      ],
    });
  }
  return sharedAddresses(out);
}

/** The compared bytes of `item` at `address` when equal, false when they differ, 0 when none can be compared. */
function contentAt(item: SigItem, address: number, memory: ProgramMemory): number | false {
  const n = comparedBytes(item);
  if (n === 0) return 0;
  const there = memory.read(address, item.bytes.length);
  if (there === null) return 0;
  return matchesAt(item, there, 0) ? n : false;
}

/** Two items proposed at one address: both made ambiguous, each listing the other as a candidate. */
function sharedAddresses(proposals: DataProposal[]): DataProposal[] {
  const at = new Map<number, DataProposal[]>();
  for (const p of proposals) at.set(p.address, [...(at.get(p.address) ?? []), p]);
  const out: DataProposal[] = [];
  for (const [, list] of [...at].sort((a, b) => a[0] - b[0])) {
    if (list.length === 1) {
      out.push(list[0]!);
      continue;
    }
    const first = list[0]!;
    out.push({
      ...first,
      name: null,
      tier: 'ambiguous',
      candidates: list.flatMap((p) => p.candidates),
      usedBy: [...new Set(list.flatMap((p) => p.usedBy))].sort((a, b) => a - b),
      reasons: [...first.reasons, `${list.length} data items are named at this address`],
    });
  }
  return out;
}
