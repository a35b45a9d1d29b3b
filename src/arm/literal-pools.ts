// Linear decoding that knows its own literal pools: a word that a literal load earlier in the same
// window provably reads (`ldr rN, [pc, #imm]` naming a slot inside the window) is data, so it is
// shown as the word it holds instead of being decoded as an instruction (which can even look like a
// branch writing PC). Only slots named by loads decoded before them are marked: pools follow the
// code that uses them, and nothing is guessed from values. Pure.
import type { Processor } from '../core/vocabulary.js';
import { u32 } from '../formats/le.js';
import { decodeWindow } from './decoder.js';
import type { ArmMode, DecodedInstruction, DecodeWindowResult } from './types.js';

interface LiteralPoolData {
  kind: 'literal-pool-data';
  address: number;
  size: 4;
  /** The word's bytes as lowercase hex, in memory order. */
  bytes: string;
  /** The little-endian word. */
  value: number;
  /** The loads in this window that read it. */
  loadedBy: number[];
}

export type LinearItem = DecodedInstruction | LiteralPoolData;

export const isLiteralPoolData = (item: LinearItem): item is LiteralPoolData =>
  (item as LiteralPoolData).kind === 'literal-pool-data';

interface LinearWindowResult {
  /** Instructions and marked pool words, in address order. */
  items: LinearItem[];
  stop: DecodeWindowResult['stop'];
}

/** The 4-byte slot a word LDR reads, when it is a PC-relative literal load. */
export function literalSlotOf(instruction: DecodedInstruction): number | null {
  if (instruction.pcRelative?.kind !== 'literal-pool') return null;
  // Word loads only (ldr / ldr<cond>): ldrb/ldrh/ldrd read other widths.
  const base = instruction.condition
    ? instruction.mnemonic.slice(0, -instruction.condition.length)
    : instruction.mnemonic;
  return base === 'ldr' ? instruction.pcRelative.address : null;
}

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/**
 * decodeWindow's linear walk, with every literal-pool slot proven by an earlier load in the window
 * shown as `literal-pool-data`. `maxItems` bounds instructions and data words together.
 */
export async function decodeLinearItems(
  bytes: Uint8Array,
  address: number,
  mode: ArmMode,
  processor: Processor,
  maxItems: number,
): Promise<LinearWindowResult> {
  const end = address + bytes.length;
  const unit = mode === 'arm' ? 4 : 2;
  const slots = new Map<number, number[]>();
  const items: LinearItem[] = [];
  let at = address;
  const noteSlots = (ins: DecodedInstruction) => {
    const slot = literalSlotOf(ins);
    // Inside the window, ahead of the load, on the instruction grid.
    if (slot === null || slot <= ins.address || slot + 4 > end || (slot - address) % unit !== 0) return;
    const loads = slots.get(slot) ?? [];
    loads.push(ins.address);
    slots.set(slot, loads);
  };
  while (items.length < maxItems && at < end) {
    const loads = slots.get(at);
    if (loads) {
      const own = bytes.subarray(at - address, at - address + 4);
      items.push({
        kind: 'literal-pool-data',
        address: at,
        size: 4,
        bytes: hex(own),
        value: u32(own, 0),
        loadedBy: loads,
      });
      at += 4;
      continue;
    }
    // Decode up to the next known slot; a slot learned inside this run cuts it there.
    let next = end;
    for (const slot of slots.keys()) if (slot > at && slot < next) next = slot;
    const r = await decodeWindow(
      bytes.subarray(at - address, next - address),
      at,
      mode,
      processor,
      maxItems - items.length,
    );
    let cut = false;
    for (const ins of r.instructions) {
      const covered = [...slots.keys()].some((s) => s >= ins.address && s < ins.address + ins.size);
      if (covered) {
        at = ins.address;
        cut = true;
        break;
      }
      items.push(ins);
      at = ins.address + ins.size;
      noteSlots(ins);
    }
    if (cut) {
      // The slot starts inside the instruction at `at` (a Thumb pair over it): linear decoding and
      // the proven slot disagree; report the stop there rather than guess which is right.
      if (!slots.has(at)) return { items, stop: { reason: 'truncated-instruction', address: at } };
      continue;
    }
    if (r.stop) return { items, stop: r.stop };
    if (r.instructions.length === 0) break;
  }
  return { items, stop: null };
}
