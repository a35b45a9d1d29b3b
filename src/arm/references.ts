// Proven single-instruction references: only what one decoded instruction determines by itself.
// A literal-pool reference is the slot's address (the word stored there is not read or interpreted);
// immediates that merely look like addresses are never references; no register or data flow.
import type { ArmMode, DecodedInstruction } from './types.js';

export const REFERENCE_KINDS = [
  'direct-branch',
  'direct-call',
  'literal-pool',
  'pc-relative-address',
] as const;
type ReferenceKind = (typeof REFERENCE_KINDS)[number];

export interface ArmReference {
  /** Address of the referencing instruction. */
  from: number;
  kind: ReferenceKind;
  /** Branch/call target, literal slot address, or the address ADR / ADD|SUB Rd, PC, #imm builds. */
  to: number;
  /** Mode at the target, only for branches/calls and only when the instruction proves it. */
  targetMode?: ArmMode;
  /** Condition code of a conditional instruction. */
  condition?: string;
}

/** The references one decoded instruction carries (zero, one, or - never more than one today). */
export function referencesOf(instruction: DecodedInstruction): ArmReference[] {
  const out: ArmReference[] = [];
  const base = (kind: ReferenceKind, to: number): ArmReference => {
    const ref: ArmReference = { from: instruction.address, kind, to };
    if (instruction.condition) ref.condition = instruction.condition;
    return ref;
  };
  if ((instruction.flow === 'branch' || instruction.flow === 'call') && instruction.target !== undefined) {
    const ref = base(instruction.flow === 'call' ? 'direct-call' : 'direct-branch', instruction.target);
    if (instruction.targetMode) ref.targetMode = instruction.targetMode;
    out.push(ref);
  }
  if (instruction.pcRelative) out.push(base(instruction.pcRelative.kind, instruction.pcRelative.address));
  return out;
}

/** All references of a decoded window, in instruction order. */
export function referencesOfWindow(instructions: readonly DecodedInstruction[]): ArmReference[] {
  return instructions.flatMap(referencesOf);
}
