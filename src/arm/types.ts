// The decoder's public vocabulary. Kept compact on purpose: tools put these objects in front of an
// assistant that reads every byte, so facts that are usually absent are optional, never `false`.

export type ArmMode = 'arm' | 'thumb';

/**
 * How an instruction changes control flow, judged from this one instruction:
 * - `branch`/`call`: direct, with a proven `target` (B, BL, BLX label);
 * - `branch-indirect`/`call-indirect`: the target lives in a register or memory (BX Rm other than
 *   LR, BLX Rm, LDR PC, MOV/ADD PC, LDM without SP base...);
 * - `return`: BX LR, MOV PC,LR, POP/LDM SP with PC, LDR PC,[SP],#4, SUBS/MOVS PC,LR (exception return).
 */
export type FlowKind = 'branch' | 'call' | 'return' | 'branch-indirect' | 'call-indirect';

export interface PcRelative {
  /** `literal-pool`: the computed address of the loaded slot (its contents are not interpreted);
   * `pc-relative-address`: the address built by ADR / ADD|SUB Rd, PC, #imm. */
  kind: 'literal-pool' | 'pc-relative-address';
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

export type DecodeStopReason = 'undecodable' | 'architecture' | 'truncated-instruction';

export interface DecodeWindowResult {
  instructions: DecodedInstruction[];
  /** Why decoding stopped before the byte/instruction budget ran out; null when it did not. */
  stop: null | { reason: DecodeStopReason; address: number };
}
