// The interpreter's state (see emulate.ts): the register file with the provenance of loaded bytes,
// the flags, the caller's memory, what a step sees of the run, and how a run ends from deep inside a
// step (a thrown Stop). The accesses a step makes through them are emulate-access.ts.
export type Value = number | null;

export interface EmuFlags {
  n: boolean | null;
  z: boolean | null;
  c: boolean | null;
  v: boolean | null;
}

export interface EmuState {
  /** r0..r15; r15 is the address of the next instruction to execute. */
  r: Value[];
  /**
   * Provenance of each register's value: the address it was loaded from, while it holds those bytes
   * unchanged (a plain load through a register base, or a move of such a value); null otherwise (a
   * PC-relative literal is a constant, not bytes being moved). `provWidth` is the load's width in bytes.
   */
  prov: (number | null)[];
  provWidth: number[];
  thumb: boolean;
  flags: EmuFlags;
}

export interface EmuMemory {
  /** The byte at `address`, or null when unknown; `fetch` for instruction fetches. */
  read8(address: number, fetch: boolean): number | null;
  /**
   * Stores a byte (null: unknown); `source` is the address the byte was loaded from when the stored
   * value is an unchanged loaded value (see EmuState.prov), else null. False refuses the store.
   */
  write8(address: number, value: number | null, source: number | null): boolean;
  /** Where the byte now at `address` came from (its own address for never-written bytes); null if unknown. */
  source8?(address: number): number | null;
}

export type EmuStop =
  | 'stopped' // the caller's stop predicate said so (the PC is about to execute there)
  | 'step-limit'
  | 'unknown-branch' // a branch target or a PC write depends on an unknown value
  | 'unknown-condition' // a condition depends on an unknown flag
  | 'unknown-address' // a store or a load address is unknown
  | 'memory' // the memory refused a store
  | 'undefined' // not an instruction of this processor
  | 'unsupported'; // an instruction this interpreter does not model

/** One MCR: coprocessor, its opcodes and registers, and the value of the general register written. */
export interface CoprocessorWrite {
  cp: number;
  opc1: number;
  crn: number;
  crm: number;
  opc2: number;
  value: Value;
}

/** What a step sees of the run: the memory, the processor (v5: ARM9), and the caller's policies. */
export interface Ctx {
  mem: EmuMemory;
  v5: boolean;
  skip: boolean;
  join: boolean;
  onMcr: ((write: CoprocessorWrite) => void) | undefined;
}

export const u32 = (v: number): number => v >>> 0;
export const bit = (w: number, n: number): number => (w >>> n) & 1;

/** A fresh state: every register unknown but the PC, flags unknown. */
export function emuState(pc: number, thumb: boolean, registers: Record<number, number> = {}): EmuState {
  const r: Value[] = new Array<Value>(16).fill(null);
  for (const [k, v] of Object.entries(registers)) r[Number(k)] = u32(v);
  r[15] = u32(pc);
  return {
    r,
    prov: new Array<number | null>(16).fill(null),
    provWidth: new Array<number>(16).fill(0),
    thumb,
    flags: { n: null, z: null, c: null, v: null },
  };
}

/** Ends a run from deep inside a step. Not an Error: runs stop often and need no stack trace. */
export class Stop {
  constructor(readonly reason: EmuStop) {}
}
