// Evidence class `tail-call` (proven): the target of an unconditional direct branch that leaves its
// function: into another component (no function spans two), or onto code another function's walk
// already reached (code two functions branch to is a function of its own, a shared tail). Named by the
// walk (program-map/resolvers/tails.ts: tailCall, and sharedTail when a branch meets another
// function's walk), at the tier of the branching code.
import type { EvidenceClass } from './registry.js';

export const tailCall = {
  id: 'tail-call',
  tier: 'proven',
  description: 'the target of a branch that leaves its function: into another component, or shared by two',
  bounded: false,
} as const satisfies EvidenceClass;
