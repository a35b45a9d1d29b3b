// A whole-program map as the signature matcher and the ROM-sourced builder read it: its functions
// with their components' bytes, and its memory (bytes at an address when every component holding it
// agrees on them: overlays sharing a range that differ there give nothing).
import type { ProgramMap } from '../program-map/map.js';
import type { ProgramFunction, ProgramMemory } from './apply.js';

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

export function programMemory(map: ProgramMap): ProgramMemory & { isAddress(value: number): boolean } {
  return {
    read(address, length) {
      if (!Number.isInteger(address) || length <= 0) return null;
      let out: Uint8Array | null = null;
      for (const c of map.set.holding(address)) {
        const o = address - c.start;
        if (o + length > c.bytes.length) return null;
        const here = c.bytes.subarray(o, o + length);
        if (out === null) out = here;
        else if (!out.every((x, i) => x === here[i])) return null;
      }
      return out;
    },
    isAddress(value) {
      if (value >= 0x80000000) return false;
      const found = map.set.lookup(value);
      return !('unresolved' in found) || found.unresolved !== 'unmapped';
    },
  };
}
