// A whole-program map as the signature matcher and the ROM-sourced builder read it: its functions
// with their components' bytes, and its memory (bytes at an address when every component holding it
// agrees on them: overlays sharing a range that differ there give nothing; where start-up copies code
// over the main image's own range, the copy alone).

import type { Steps } from '../../core/cooperative.js';
import type { ProgramMap } from '../program-map/map.js';
import type { ProgramFunction, ProgramMemory } from './apply.js';
import { type ImagePlace, imageItemSteps } from './from-image.js';
import { SIGNATURE_LIMITS, type SigItem } from './types.js';

export function programFunctions(map: ProgramMap): ProgramFunction[] {
  return map.functions.map((f) => ({
    key: f.key,
    address: f.address,
    mode: f.mode,
    end: f.end,
    bytes: f.component.bytes,
    start: f.component.start,
  }));
}

/**
 * Each component's bytes where they are used: the bytes a start-up copy takes from the main program
 * appear at the copy's run address only (else every datum in them would be found twice).
 */
function programRegions(map: ProgramMap): { start: number; bytes: Uint8Array }[] {
  const sources = map.set.list
    .filter((c) => c.kind === 'copied' && c.copied !== null)
    .map((c) => ({ start: c.copied!.source, end: c.copied!.source + c.copied!.size }))
    .sort((a, b) => a.start - b.start);
  const out: { start: number; bytes: Uint8Array }[] = [];
  for (const c of map.set.list) {
    if (c.kind !== 'main') {
      out.push({ start: c.start, bytes: c.bytes });
      continue;
    }
    let at = c.start;
    const end = c.start + c.bytes.length;
    for (const s of sources) {
      if (s.end <= at || s.start >= end) continue;
      if (s.start > at) out.push({ start: at, bytes: c.bytes.subarray(at - c.start, s.start - c.start) });
      at = Math.max(at, s.end);
    }
    if (at < end) out.push({ start: at, bytes: c.bytes.subarray(at - c.start) });
  }
  return out;
}

export function programMemory(map: ProgramMap): ProgramMemory & { isAddress(value: number): boolean } {
  return {
    read(address, length) {
      if (!Number.isInteger(address) || length <= 0) return null;
      let out: Uint8Array | null = null;
      const holding = map.set.holding(address);
      // Where start-up copies code over the main image's own range, the copy is what is there.
      const copied = holding.some((c) => c.kind === 'copied');
      for (const c of holding) {
        if (copied && c.kind === 'main') continue;
        const o = address - c.start;
        if (o + length > c.bytes.length) return null;
        const here = c.bytes.subarray(o, o + length);
        if (out === null) out = here;
        else if (!out.every((x, i) => x === here[i])) return null;
      }
      return out;
    },
    regions: () => programRegions(map),
    isAddress(value) {
      if (value >= 0x80000000) return false;
      const found = map.set.lookup(value);
      return !('unresolved' in found) || found.unresolved !== 'unmapped';
    },
  };
}

/** A name a ROM's symbol store gives an address of the processor. */
interface KnownName {
  address: number;
  name: string;
  overlayId: number | null;
  /** `data` for a data label (else a function's name, or unknown). */
  mode?: 'arm' | 'thumb' | 'data' | null;
  /** Its extent in bytes when the store knows it. */
  size?: number | null;
}

/**
 * Signatures of the functions of a ROM's map that `names` name (at their entry exactly, in the same
 * overlay or outside overlays): each function's code from its entry to where its code ends, masked as
 * a linked program's are (from-image.ts). Aliases at one place make one item.
 */
export function* romItemSteps(
  map: ProgramMap,
  names: readonly KnownName[],
  origin: string,
): Steps<{ items: SigItem[]; skipped: string[] }> {
  const memory = programMemory(map);
  const byPlace = new Map<string, ImagePlace>();
  const fnAt = new Map<string, { address: number; end: number; mode: 'arm' | 'thumb' }>();
  for (const f of map.functions) fnAt.set(`${f.component.overlayId ?? '-'}:${f.address}`, f);
  let n = 0;
  for (const s of names) {
    if (n++ % 1024 === 0) yield;
    const key = `${s.overlayId ?? '-'}:${s.address}`;
    const f = fnAt.get(key);
    const known = byPlace.get(key);
    if (known) {
      if (known.names.length < SIGNATURE_LIMITS.namesPerItem.max && !known.names.includes(s.name))
        known.names.push(s.name);
      continue;
    }
    // Each overlay apart from the rest (their places are addresses).
    const section = s.overlayId === null ? 0 : s.overlayId + 1;
    if (s.mode === 'data' && !f)
      // A data label: an item of its stored extent (at least a byte), named through the code using it.
      byPlace.set(key, {
        names: [s.name],
        address: s.address,
        mode: null,
        size: Math.max(1, s.size ?? 1),
        section,
      });
    else if (f && f.end > f.address)
      byPlace.set(key, {
        names: [s.name],
        address: f.address,
        mode: f.mode,
        size: f.end - f.address,
        section,
      });
  }
  // A name at several places (static functions of two files): each keyed by its place too.
  const uses = new Map<string, number>();
  for (const p of byPlace.values()) uses.set(p.names[0]!, (uses.get(p.names[0]!) ?? 0) + 1);
  for (const p of byPlace.values())
    if (uses.get(p.names[0]!)! > 1) p.key = `${p.names[0]}@${p.address.toString(16).padStart(8, '0')}`;
  return yield* imageItemSteps(memory, [...byPlace.values()], origin);
}
