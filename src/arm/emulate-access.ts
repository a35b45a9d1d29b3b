// The accesses an interpreter step makes (see emulate.ts): register writes with provenance, loads
// that keep where their bytes came from, stores (a refused one or one to an unknown address stops
// the run), the rotated word load, PC writes with interworking, and the system-instruction policy.
import { type Ctx, type EmuMemory, type EmuState, Stop, u32, type Value } from './emulate-state.js';

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
