// Names follow builds: a ROM made from another (a rebuild, a patch applied) inherits the source ROM's
// names where they still name the same bytes. A name in a component (main executable or overlay, as
// run: decoded when compressed) whose bytes are unchanged is carried; in a changed component, only
// where the bytes at its address still hold the same instruction (4 bytes ARM, 2 Thumb, up to 16 of
// data, 4 without a mode). A name of code the start-up copies is judged by the bytes it is copied from;
// a name of RAM or I/O (no bytes in the ROM) is carried as it is. Names the output already has are
// kept (a place's name is never replaced). What was dropped is listed with why
// (CARRY_LIMITS.listed at most) and counted in full.
import type { StartupCopies } from '../analysis/run-address.js';
import { storedOfRun } from '../analysis/run-address.js';
import { isReMcpError } from '../core/errors.js';
import type { Processor } from '../core/vocabulary.js';
import type { RuntimeImage } from '../roms/decoded-images.js';
import type { RomHandle, RomStore } from '../roms/rom-store.js';
import type { Services } from '../services.js';
import { getSymbolStore, placeKey, type StoredSymbol } from './symbol-store.js';

const CARRY_LIMITS = {
  /** Dropped names listed in an answer (all are counted). */
  listed: { max: 100, unit: 'dropped names' },
  /** Bytes of data compared at a name without a mode-given width. */
  dataBytes: { max: 16, unit: 'bytes' },
} as const;

export interface CarriedNames {
  /** The output ROM's store. */
  store: string;
  carried: number;
  /** Names the output already had at the same place (kept as they were). */
  alreadyNamed: number;
  dropped: number;
  droppedNames: {
    name: string;
    processor: Processor;
    address: number;
    overlayId: number | null;
    why: string;
  }[];
}

/** How many bytes at a name must be unchanged for it to name the same thing. */
function widthOf(s: StoredSymbol): number {
  if (s.mode === 'thumb') return 2;
  if (s.mode === 'data' && s.size !== null) return Math.max(1, Math.min(s.size, CARRY_LIMITS.dataBytes.max));
  return 4;
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

interface ImagePair {
  from: RuntimeImage;
  /** Null when the output has no such component (or it cannot be decoded). */
  to: RuntimeImage | null;
  same: boolean;
}

/** Each component's two images (source, output), read once when first asked, and whether they are equal. */
function componentImages(
  roms: RomStore,
  source: RomHandle,
  output: RomHandle,
  signal?: AbortSignal,
): (processor: Processor, overlayId: number | null) => Promise<ImagePair> {
  const images = new Map<string, Promise<ImagePair>>();
  return (processor, overlayId) => {
    const key = `${processor}:${overlayId}`;
    let known = images.get(key);
    if (!known) {
      known = (async () => {
        const from = await roms.decoded.runtimeImage(source, processor, overlayId, signal);
        let to: RuntimeImage | null = null;
        try {
          to = await roms.decoded.runtimeImage(output, processor, overlayId, signal);
        } catch (error) {
          // The output has no such overlay (or cannot be decoded): its names cannot follow.
          if (!isReMcpError(error)) throw error;
        }
        return { from, to, same: to !== null && sameBytes(from.bytes, to.bytes) };
      })();
      images.set(key, known);
    }
    return known;
  };
}

/**
 * Carries `source`'s names to `output` (see the file comment); `copies` gives the source's start-up
 * copies of a processor (asked only when a name is in one).
 */
export async function carryNames(
  services: Services,
  roms: RomStore,
  source: RomHandle,
  output: RomHandle,
  copies: (processor: Processor) => Promise<StartupCopies>,
  signal?: AbortSignal,
): Promise<CarriedNames> {
  const symbols = getSymbolStore(services);
  const result: CarriedNames = {
    store: symbols.path(output),
    carried: 0,
    alreadyNamed: 0,
    dropped: 0,
    droppedNames: [],
  };
  const table = await symbols.table(source);
  if (table.size === 0 || source.identity.sha256 === output.identity.sha256) return result;
  const imagesOf = componentImages(roms, source, output, signal);
  const copiesOf = new Map<Processor, Promise<StartupCopies>>();
  const carried: StoredSymbol[] = [];
  const drop = (s: StoredSymbol, why: string) => {
    result.dropped++;
    if (result.droppedNames.length < CARRY_LIMITS.listed.max)
      result.droppedNames.push({
        name: s.name,
        processor: s.processor,
        address: s.address,
        overlayId: s.overlayId,
        why,
      });
  };
  for (const s of table.symbols) {
    if (signal?.aborted) break;
    if (s.component === 'unmapped') {
      carried.push(s);
      continue;
    }
    let address = s.address;
    if (s.component === 'copied') {
      let c = copiesOf.get(s.processor);
      if (!c) {
        c = copies(s.processor);
        copiesOf.set(s.processor, c);
      }
      const m = storedOfRun(await c, s.address);
      if (m === null) {
        drop(s, 'no start-up copy of the source runs there');
        continue;
      }
      address = m.stored;
    }
    // Autoload blocks are part of the main ARM9's bytes: judged with them, whole.
    const overlayId = s.component === 'overlay' ? s.overlayId : null;
    const pair = await imagesOf(s.processor, overlayId);
    if (pair.to === null) {
      drop(
        s,
        `the output has no ${overlayId === null ? `${s.processor} executable` : `overlay ${overlayId}`}`,
      );
      continue;
    }
    if (pair.same) {
      carried.push(s);
      continue;
    }
    if (s.component === 'autoload') {
      drop(s, 'its autoload block lies in a changed ARM9');
      continue;
    }
    const at = address - pair.from.ramAddress;
    const width = widthOf(s);
    const to = address - pair.to.ramAddress;
    if (at < 0 || at + width > pair.from.bytes.length || to < 0 || to + width > pair.to.bytes.length) {
      drop(s, 'its address is not inside the changed component on both sides');
      continue;
    }
    if (sameBytes(pair.from.bytes.subarray(at, at + width), pair.to.bytes.subarray(to, to + width)))
      carried.push(s);
    else drop(s, `the ${width} byte(s) at its address changed`);
  }
  if (signal?.aborted) return result;
  if (carried.length === 0) return result;
  await symbols.update(
    output,
    function* (existing) {
      const have = new Set(existing.map(placeKey));
      for (const [i, s] of carried.entries()) {
        if (i % 4096 === 0) yield;
        if (have.has(placeKey(s))) result.alreadyNamed++;
        else {
          existing.push({ ...s });
          have.add(placeKey(s));
          result.carried++;
        }
      }
    },
    signal,
  );
  return result;
}
