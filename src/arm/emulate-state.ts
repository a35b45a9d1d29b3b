// The interpreter's state and memory (see emulate.ts): the register file with the provenance of loaded
// bytes, the flags, the caller's memory, and the accesses every step makes through them (register
// writes, loads with provenance, stores, rotated word loads, PC writes, the system-instruction
// policy). A run ends from deep inside a step by throwing a Stop.
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

/** Sets a register (never PC: see branchTo); `source` is the provenance of a plain load or move. */
export function set(state: EmuState, n: number, value: Value, source: number | null = null, width = 0): void {
  state.r[n] = value;
  state.prov[n] = value === null ? null : source;
  state.provWidth[n] = source === null ? 0 : width;
}

/** The provenance of `width` bytes loaded from `address`: where they came from, if one contiguous run. */
function loadedFrom(mem: EmuMemory, address: Value, width: number): number | null {
  if (address === null) return null;
  const first = mem.source8 ? mem.source8(address) : address;
  if (first === null) return null;
  for (let i = 1; i < width; i++) {
    const next = mem.source8 ? mem.source8(u32(address + i)) : u32(address + i);
    if (next !== u32(first + i)) return null;
  }
  return first;
}

/** A load into register `n` of `width` bytes from `address`, with its provenance. */
export function load(
  state: EmuState,
  mem: EmuMemory,
  n: number,
  value: Value,
  address: Value,
  width: number,
): void {
  set(state, n, value, value === null ? null : loadedFrom(mem, address, width), width);
}

/** Ends a run from deep inside a step. Not an Error: runs stop often and need no stack trace. */
export class Stop {
  constructor(readonly reason: EmuStop) {}
}

export function read(mem: EmuMemory, address: Value, size: 1 | 2 | 4, fetch = false): Value {
  if (address === null) return null;
  let out = 0;
  for (let i = 0; i < size; i++) {
    const b = mem.read8(u32(address + i), fetch);
    if (b === null) return null;
    out |= b << (8 * i);
  }
  return u32(out);
}

/**
 * Stores `size` bytes of `value`; `state`/`reg` give the stored register's provenance (kept only
 * when the register holds at least `size` loaded bytes unchanged).
 */
export function write(
  mem: EmuMemory,
  address: Value,
  size: 1 | 2 | 4,
  value: Value,
  state?: EmuState,
  reg?: number,
): void {
  if (address === null) throw new Stop('unknown-address');
  const source =
    state !== undefined && reg !== undefined && reg !== 15 && state.provWidth[reg]! >= size
      ? state.prov[reg]!
      : null;
  for (let i = 0; i < size; i++) {
    const b = value === null ? null : (value >>> (8 * i)) & 0xff;
    if (!mem.write8(u32(address + i), b, source === null || b === null ? null : u32(source + i)))
      throw new Stop('memory');
  }
}

/** Rotated/misaligned word load as the ARM9/ARM7 do it: an unaligned LDR rotates the aligned word. */
export function loadWord(mem: EmuMemory, address: Value): Value {
  if (address === null) return null;
  const aligned = read(mem, u32(address & ~3), 4);
  if (aligned === null) return null;
  const rot = (address & 3) * 8;
  return rot === 0 ? aligned : u32((aligned >>> rot) | (aligned << (32 - rot)));
}

/** Writes PC from a value: `interwork` (BX, LDR PC on ARMv5, POP PC on ARMv5) takes the mode from bit 0. */
export function branchTo(state: EmuState, target: Value, interwork: boolean): void {
  if (target === null) throw new Stop('unknown-branch');
  if (interwork) {
    state.thumb = (target & 1) === 1;
    state.r[15] = u32(target & ~1);
  } else state.r[15] = u32(state.thumb ? target & ~1 : target & ~3);
}

/** An instruction outside the modelled set: stops, or (system 'skip') clobbers what it may write. */
export function system(state: EmuState, ctx: Ctx, clobbers: number[]): void {
  if (!ctx.skip) throw new Stop('unsupported');
  for (const n of clobbers) set(state, n, null);
}

export function popcount(x: number): number {
  let n = 0;
  for (let v = x; v; v &= v - 1) n++;
  return n;
}
