// The vocabulary of the whole-program map: evidence tiers, what each byte of an executable component
// is, and the shapes the map's users read. Pure data.
import { ARM_MODES, type ArmMode } from '../../arm/types.js';

/**
 * How strongly a fact is known, best first: `proven` (the program entry and what provably runs from
 * it), `referenced` (a code address the program holds in its code or data, checked to start
 * well-formed code), `heuristic` (a linear sweep's judgement).
 */
export const TIERS = ['proven', 'referenced', 'heuristic'] as const;
export type Tier = (typeof TIERS)[number];
export const TIER_RANK: Record<Tier, number> = { proven: 0, referenced: 1, heuristic: 2 };
/** No tier: the byte is unclassified. */
export const NO_TIER = 255;

/** What one byte of an executable component is, as the map established it. */
export const ByteClass = {
  unknown: 0,
  armHead: 1,
  armBody: 2,
  thumbHead: 3,
  thumbBody: 4,
  literalPool: 5,
  jumpTable: 6,
  pointerTable: 7,
  string: 8,
  padding: 9,
  /** Stored bytes of copied code or data, which run (or are used) at another address. */
  copiedSource: 10,
  /** Judged not to be code by the sweep (no well-formed code starts there). */
  data: 11,
} as const;

export const BYTE_CLASS_NAMES = [
  'unknown',
  'arm-code',
  'thumb-code',
  'literal-pool',
  'jump-table',
  'pointer-table',
  'string',
  'padding',
  'copied-source',
  'data',
] as const;
export type ByteClassName = (typeof BYTE_CLASS_NAMES)[number];

export function byteClassName(code: number): ByteClassName {
  switch (code) {
    case ByteClass.armHead:
    case ByteClass.armBody:
      return 'arm-code';
    case ByteClass.thumbHead:
    case ByteClass.thumbBody:
      return 'thumb-code';
    case ByteClass.literalPool:
      return 'literal-pool';
    case ByteClass.jumpTable:
      return 'jump-table';
    case ByteClass.pointerTable:
      return 'pointer-table';
    case ByteClass.string:
      return 'string';
    case ByteClass.padding:
      return 'padding';
    case ByteClass.copiedSource:
      return 'copied-source';
    case ByteClass.data:
      return 'data';
    default:
      return 'unknown';
  }
}

export const isCode = (c: number): boolean => c >= ByteClass.armHead && c <= ByteClass.thumbBody;
export const headOf = (mode: ArmMode): number => (mode === 'arm' ? ByteClass.armHead : ByteClass.thumbHead);
export const bodyOf = (mode: ArmMode): number => (mode === 'arm' ? ByteClass.armBody : ByteClass.thumbBody);

/** What an executable component is: the processor's main image, an overlay, an ARM9 autoload block,
 * or a block the start-up code copies to its run address. */
export const COMPONENT_KINDS = ['main', 'overlay', 'autoload', 'copied'] as const;
export type ComponentKind = (typeof COMPONENT_KINDS)[number];

/** How a function holds a byte: code of its body, or data its code reads (a literal pool, a jump table). */
export const HOLDER_VIAS = ['body', 'literal', 'jump-table'] as const;

/** Why a map build stopped early: its code-byte budget or its deadline. */
export const MAP_TRUNCATIONS = ['code-byte-limit', 'time-limit'] as const;
export type MapTruncation = (typeof MAP_TRUNCATIONS)[number];

/** The mode of a reference's source: an instruction's, or `data` for a word in a table. */
export const REF_MODES = [...ARM_MODES, 'data'] as const;

/** Stored bytes copied elsewhere at start-up, as a detector established it. */
export interface CopiedBlock {
  index: number;
  /** Run address and length of the copy. */
  start: number;
  size: number;
  /** Where the bytes come from: the main component's runtime address. */
  source: number;
  /** The instruction that stored the first byte (the copy routine's store). */
  storedBy: number;
  /** Whether the start-up run executed the copied bytes. */
  executed: boolean;
}

/** How a function entry is known: one observation of one evidence class. */
export interface EntryEvidence {
  class: string;
  tier: Tier;
  /** The instruction, slot or table word that gives the evidence (absent for the program entry). */
  from?: number;
  /** The component index `from` lies in. */
  fromComponent?: number;
}
