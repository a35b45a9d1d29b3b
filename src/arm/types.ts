// The decoder's public vocabulary. Kept compact on purpose: tools put these objects in front of an
// assistant that reads every byte, so facts that are usually absent are optional, never `false`.

export const ARM_MODES = ['arm', 'thumb'] as const;
export type ArmMode = (typeof ARM_MODES)[number];

/**
 * How an instruction changes control flow, judged from this one instruction:
 * - `branch`/`call`: direct, with a proven `target` (B, BL, BLX label);
 * - `branch-indirect`/`call-indirect`: the target lives in a register or memory (BX Rm other than
 *   LR, BLX Rm, LDR PC, MOV/ADD PC, LDM without SP base...);
 * - `return`: BX LR, MOV PC,LR, POP/LDM SP with PC, LDR PC,[SP],#4, SUBS/MOVS PC,LR (exception return).
 */
export const FLOW_KINDS = ['branch', 'call', 'return', 'branch-indirect', 'call-indirect'] as const;
export type FlowKind = (typeof FLOW_KINDS)[number];

/** `literal-pool`: the computed address of the loaded slot (its contents are not interpreted);
 * `pc-relative-address`: the address built by ADR / ADD|SUB Rd, PC, #imm. */
export const PC_RELATIVE_KINDS = ['literal-pool', 'pc-relative-address'] as const;

export interface PcRelative {
  kind: (typeof PC_RELATIVE_KINDS)[number];
  address: number;
}

export interface DecodedInstruction {
  address: number;
  /** 2 or 4. */
  size: number;
  /** The instruction bytes as lowercase hex, in memory order. */
  bytes: string;
  mnemonic: string;
  /** Operand text as Capstone prints it ('' when none). */
  operands: string;
  /** Condition code when not always ('eq', 'ne', 'hs', 'lo', ...). */
  condition?: string;
  flow?: FlowKind;
  /** Direct target address (only for `branch`/`call`). */
  target?: number;
  /** Proven mode at `target`: BL/B keep the mode, BLX label switches. Never guessed. */
  targetMode?: ArmMode;
  pcRelative?: PcRelative;
  /** Reads PC as a value (not only as the implicit fetch address). */
  readsPc?: true;
  writesPc?: true;
}

export const DECODE_STOP_REASONS = ['undecodable', 'architecture', 'truncated-instruction'] as const;
export type DecodeStopReason = (typeof DECODE_STOP_REASONS)[number];

export interface DecodeWindowResult {
  instructions: DecodedInstruction[];
  /** Why decoding stopped before the byte/instruction budget ran out; null when it did not. */
  stop: null | { reason: DecodeStopReason; address: number };
}
