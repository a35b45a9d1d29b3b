// Proposals made of what the passes of apply.ts found: a function the layout of its object places
// where the map has none, a data label, and one name proposed at several functions made ambiguous at
// each. Pure.
import type { DataProposal } from './data-labels.js';
import type { Outside } from './narrow.js';
import { candidateOf, type Proposal, type SigItem } from './types.js';

/** The proposal of a function the map did not find, placed by its object's layout (`o`). */
export function outsideProposal(
  address: number,
  o: Outside,
  items: readonly SigItem[],
  compared: number,
): Proposal {
  const item = items[o.item]!;
  return {
    key: o.key,
    address,
    mode: item.mode!,
    tier: 'supported',
    name: item.names[0]!,
    score: compared,
    candidates: [
      {
        ...candidateOf(item, compared),
        refsAgreed: 0,
        refsUnchecked: item.refs.length,
      },
    ],
    alsoAt: [],
    reasons: [
      'the map found no function here: the layout of its object places one',
      `${compared} of ${item.bytes.length} bytes compared and equal`,
      o.why,
    ],
    inMap: false,
  };
}

/** One name proposed at several functions: made ambiguous at each, each naming the others. */
export function markSharedNames(proposals: readonly Proposal[]): void {
  const at = new Map<string, Proposal[]>();
  for (const p of proposals)
    if (p.name !== null) {
      const list = at.get(p.name) ?? [];
      list.push(p);
      at.set(p.name, list);
    }
  for (const list of at.values()) {
    if (list.length < 2) continue;
    for (const p of list) {
      p.alsoAt = list.filter((q) => q !== p).map((q) => q.address);
      p.tier = 'ambiguous';
      p.reasons.push(`the same name matches ${list.length} functions of the program`);
      p.name = null;
    }
  }
}

/** A data label as a proposal (mode `data`; `key` the key of its first user, whose component it is read from). */
export function dataProposal(d: DataProposal, key: string): Proposal {
  return {
    key,
    address: d.address,
    mode: 'data',
    tier: d.tier,
    name: d.name,
    score: d.score,
    candidates: d.candidates.map((c) => ({
      ...c,
      refsAgreed: d.usedBy.length + d.holds.length,
      refsUnchecked: 0,
    })),
    alsoAt: d.alsoAt,
    reasons: d.reasons,
    inMap: null,
  };
}
