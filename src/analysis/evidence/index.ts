// The evidence classes, in tier order: the one list every tool derives its evidence enum, defaults and
// descriptions from. Adding a class is one file (registry.ts says what it exports) and one line here.
import { addressTaken } from './address-taken.js';
import { constantRegisterCall } from './constant-register-call.js';
import { copiedCode } from './copied-code.js';
import { directCall } from './direct-call.js';
import { initArray } from './init-array.js';
import { pointerTable } from './pointer-table.js';
import { programEntry } from './program-entry.js';
import type { EvidenceClass } from './registry.js';
import { sweep } from './sweep.js';
import { tailCall } from './tail-call.js';
import { unwindIndex } from './unwind-index.js';
import { vector } from './vector.js';

export const EVIDENCE_CLASSES = [
  programEntry,
  directCall,
  tailCall,
  constantRegisterCall,
  copiedCode,
  vector,
  addressTaken,
  pointerTable,
  initArray,
  unwindIndex,
  sweep,
] as const satisfies readonly EvidenceClass[];

export type EvidenceId = (typeof EVIDENCE_CLASSES)[number]['id'];
export const EVIDENCE_IDS = EVIDENCE_CLASSES.map((c) => c.id) as [EvidenceId, ...EvidenceId[]];
/** The two analyses: the bounded search from the entry point and the whole-program map. */
export const ANALYSIS_SCOPES = ['bounded', 'program'] as const;
export type AnalysisScope = (typeof ANALYSIS_SCOPES)[number];

/** The specification's original classes: what the bounded searches support, and their default. */
export const BOUNDED_EVIDENCE_IDS = EVIDENCE_CLASSES.filter((c) => c.bounded).map((c) => c.id) as [
  EvidenceId,
  ...EvidenceId[],
];
