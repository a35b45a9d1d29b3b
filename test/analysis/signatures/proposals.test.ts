// Proposals made of what the passes found: one name proposed at two functions is ambiguous at both,
// each listing the other; a data label counts its users, or the functions it was found by, as its
// agreeing references; a function placed by its object's layout is supported, not in the map.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  dataProposal,
  markSharedNames,
  outsideProposal,
} from '../../../src/analysis/signatures/proposals.js';
import type { Proposal, SigItem } from '../../../src/analysis/signatures/types.js';

const proposal = (address: number, name: string | null): Proposal => ({
  key: `k${address}`,
  address,
  mode: 'thumb',
  tier: 'strong',
  name,
  score: 20,
  candidates: [],
  alsoAt: [],
  reasons: ['bytes'],
  inMap: true,
});

test('one name at two functions: both ambiguous, each naming the other; a third untouched', () => {
  const ps = [proposal(0x100, 'f'), proposal(0x200, 'f'), proposal(0x300, 'g')];
  markSharedNames(ps);
  assert.deepEqual(
    ps.map((p) => [p.name, p.tier, p.alsoAt]),
    [
      [null, 'ambiguous', [0x200]],
      [null, 'ambiguous', [0x100]],
      ['g', 'strong', []],
    ],
  );
  assert.match(ps[0]!.reasons.at(-1)!, /the same name matches 2 functions/);
});

test('a data label: its users, or the functions it was found by, agree', () => {
  const base = {
    item: 0,
    address: 0x2100,
    name: 't',
    tier: 'supported' as const,
    score: 32,
    candidates: [{ name: 't', aliases: [], origin: 'a.nds', comparedBytes: 0, size: 12 }],
    alsoAt: [],
    reasons: ['why'],
  };
  const byUsers = dataProposal({ ...base, usedBy: [0x100, 0x200], holds: [] }, 'k');
  const byHeld = dataProposal({ ...base, usedBy: [], holds: [0x300, 0x310, 0x320] }, 'k');
  assert.equal(byUsers.candidates[0]!.refsAgreed, 2);
  assert.equal(byHeld.candidates[0]!.refsAgreed, 3);
  for (const p of [byUsers, byHeld]) {
    assert.equal(p.mode, 'data');
    assert.equal(p.inMap, null);
    assert.equal(p.key, 'k');
  }
});

test('a function placed by its layout: supported, outside the map, its references unchecked', () => {
  const item: SigItem = {
    kind: 'function',
    key: 'h',
    names: ['h', 'h_alias'],
    mode: 'arm',
    size: 8,
    bytes: new Uint8Array(8),
    mask: new Uint8Array(8).fill(1),
    refs: [{ at: 4, kind: 'call', target: 'x', offset: 0, content: null }],
    origin: 'lib.a(h.o)',
  };
  const p = outsideProposal(0x2000, { item: 0, why: 'laid out between a and b', key: 'k' }, [item], 8);
  assert.equal(p.tier, 'supported');
  assert.equal(p.inMap, false);
  assert.equal(p.name, 'h');
  assert.deepEqual(p.candidates[0]!.aliases, ['h_alias']);
  assert.equal(p.candidates[0]!.refsUnchecked, 1);
  assert.ok(p.reasons.includes('laid out between a and b'));
});
