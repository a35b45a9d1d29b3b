// Where a longer thing can go, with the proof of each place, and nothing invented:
// - NitroFS: add-file appends a new file after the ROM's last used byte; the rebuild raises the header's
//   device capacity as needed, up to the largest DS cartridge (512 MiB). The game must load it through
//   its file system (a code change of its own).
// - An overlay's BSS: replace-overlay accepts a decoded image up to the overlay's RAM size plus its BSS
//   (the BSS shrinks by the growth). The BSS is zeroed at load and may hold the program's variables:
//   the space is the rebuild's rule, not proven unused (proven: false).
// - Bytes the whole-program map proved unused: alignment padding the proven walk established between
//   code (no instruction, literal or table reaches it). Zero runs a sweep found are not offered: zeros
//   that look free may be data the program addresses at run time.
import type { ProgramMap } from '../analysis/program-map/map.js';
import { ByteClass, NO_TIER, TIER_RANK } from '../analysis/program-map/types.js';
import type { Processor } from '../core/vocabulary.js';
import type { NdsRomModel } from '../formats/nds/index.js';

export const LARGEST_CARTRIDGE = 512 * 1024 * 1024;

/** The kinds of place new bytes can go: a new NitroFS file, an overlay's BSS, padding proven unused. */
export const SPACE_KINDS = ['nitrofs-add-file', 'overlay-bss', 'proven-padding'] as const;
type SpaceKind = (typeof SPACE_KINDS)[number];

interface SpaceCandidate {
  kind: SpaceKind;
  bytes: number;
  /** Whether the bytes are proven unused (the NitroFS append is new space; BSS is not proven). */
  proven: boolean;
  processor: Processor | null;
  overlayId: number | null;
  /** Runtime range, where the space has one. */
  start: number | null;
  end: number | null;
  romOffset: number | null;
  proof: string;
}

/** The NitroFS and overlay candidates of a ROM (no map needed). */
export function modelSpace(model: NdsRomModel, romSize: number): SpaceCandidate[] {
  const out: SpaceCandidate[] = [
    {
      kind: 'nitrofs-add-file',
      bytes: Math.max(0, LARGEST_CARTRIDGE - romSize),
      proven: true,
      processor: null,
      overlayId: null,
      start: null,
      end: null,
      romOffset: romSize,
      proof: `add-file appends after the ROM's ${romSize} bytes; the rebuild raises the device capacity up to a 512 MiB cartridge; the game must load the file itself`,
    },
  ];
  for (const processor of ['arm9', 'arm7'] as const) {
    for (const o of model.overlays[processor]) {
      if (o.bssSize <= 0) continue;
      out.push({
        kind: 'overlay-bss',
        bytes: o.bssSize,
        proven: false,
        processor,
        overlayId: o.id,
        start: o.ramAddress + o.ramSize,
        end: o.ramAddress + o.ramSize + o.bssSize,
        romOffset: null,
        proof: `replace-overlay accepts a decoded image up to RAM size ${o.ramSize} + BSS ${o.bssSize}; the BSS is zeroed at load and may hold variables: not proven unused`,
      });
    }
  }
  return out;
}

/** Runs of alignment padding the proven walk classified, in every component of the map. */
export function provenPadding(map: ProgramMap, minBytes: number, max: number): SpaceCandidate[] {
  const out: SpaceCandidate[] = [];
  const proven = TIER_RANK.proven;
  for (const c of map.set.list) {
    let run = -1;
    const close = (end: number) => {
      if (run >= 0 && end - run >= minBytes && out.length < max) {
        const start = c.start + run;
        out.push({
          kind: 'proven-padding',
          bytes: end - run,
          proven: true,
          processor: map.processor,
          overlayId: c.overlayId,
          start,
          end: c.start + end,
          romOffset: c.derived || c.romOffset === null ? null : c.romOffset + run,
          proof:
            'alignment padding between code the proven walk established; no instruction, literal or table of the map reaches it',
        });
      }
      run = -1;
    };
    for (let o = 0; o < c.bytes.length; o++) {
      const padding = c.cls[o] === ByteClass.padding && c.tier[o] !== NO_TIER && c.tier[o]! <= proven;
      // A byte some reference names is not free, whatever its class.
      if (padding && map.built.walker.refs.to_(c.start + o).length === 0) {
        if (run < 0) run = o;
      } else close(o);
    }
    close(c.bytes.length);
  }
  return out;
}
