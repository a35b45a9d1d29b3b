// The executable components of one processor as the map sees them: the main executable (decoded when
// compressed), ARM9 autoload blocks, copied blocks the start-up code establishes, and every overlay
// record (decoded BLZ images included), each with its own byte classification. An address resolves
// to a component only when exactly one holds it; overlays sharing a runtime range stay distinct, and a
// target inside the range of several is ambiguous, never guessed. Code in an overlay that branches
// inside its own runtime extent stays in that overlay (it is the one loaded while it runs).
import type { CodeSpan } from '../../arm/cfg.js';
import { turnTaker } from '../../core/cooperative.js';
import { ReMcpError } from '../../core/errors.js';
import { formatAddress, type Processor } from '../../core/vocabulary.js';
import { autoloadImageOffset, type NdsRomModel } from '../../formats/nds/index.js';
import type { RomHandle, RomStore } from '../../roms/rom-store.js';
import { ByteClass, type ComponentKind, type CopiedBlock, NO_TIER } from './types.js';

export interface MapComponent {
  index: number;
  kind: ComponentKind;
  overlayId: number | null;
  autoloadIndex: number | null;
  copiedIndex: number | null;
  /** Overlay table record (overlays only). */
  tableIndex: number | null;
  /** Runtime address of bytes[0]; `end` is exclusive. */
  start: number;
  end: number;
  /** End of the runtime extent including BSS (overlays); `end` elsewhere. */
  extentEnd: number;
  bytes: Uint8Array;
  /** ROM offset of bytes[0] when stored one-to-one; null for decoded (derived) bytes. */
  romOffset: number | null;
  derived: boolean;
  /** What each byte is (ByteClass) and the tier that classified it (NO_TIER: none). */
  cls: Uint8Array;
  tier: Uint8Array;
  /** The CFG layer's view of the same bytes. */
  span: CodeSpan;
  copied: CopiedBlock | null;
  /** An overlay's static-initializer table range from its table record (runtime addresses). */
  staticInit: { start: number; end: number } | null;
}

/** A component that could not be read (a compressed overlay whose BLZ data is malformed). */
interface UnavailableComponent {
  kind: ComponentKind;
  overlayId: number | null;
  start: number;
  end: number;
  reason: string;
}

type Lookup =
  | { readonly component: MapComponent }
  | { readonly unresolved: 'unmapped' | 'bss' | 'ambiguous-code-source' | 'not-decodable' };

/** The answers that name no component, made once (lookup runs for every call and branch). */
const UNRESOLVED = {
  unmapped: { unresolved: 'unmapped' },
  bss: { unresolved: 'bss' },
  'ambiguous-code-source': { unresolved: 'ambiguous-code-source' },
  'not-decodable': { unresolved: 'not-decodable' },
} as const satisfies Record<string, Lookup>;

export class ComponentSet {
  readonly list: MapComponent[] = [];
  readonly unavailable: UnavailableComponent[] = [];
  /** Overlay BSS ranges and unreadable components: a target there is not unmapped but has no bytes. */
  private readonly bssRanges: { start: number; end: number }[] = [];
  private sorted: MapComponent[] = [];
  /** Each component's lookup answer, made once. */
  private readonly found: { readonly component: MapComponent }[] = [];
  private maxEnd: number[] = [];

  constructor(readonly processor: Processor) {}

  /** Adds a component; `tier`, when given, is its tier column already made (all NO_TIER). */
  add(c: Omit<MapComponent, 'index' | 'cls' | 'tier' | 'span' | 'end'>, tier?: Uint8Array): MapComponent {
    if (!inAddressSpace(c.start, c.extentEnd - c.start) || !inAddressSpace(c.start, c.bytes.length))
      throw new ReMcpError(
        'unsupported',
        `a ${c.kind} component at ${formatAddress(c.start)} lies beyond the address space the map covers (below ${formatAddress(ADDRESS_LIMIT)})`,
      );
    const index = this.list.length;
    // Addresses as small integers (`| 0` is exact below ADDRESS_LIMIT): every block, call and
    // reference the walk makes from this start then holds its address unboxed.
    const start = c.start | 0;
    const comp: MapComponent = {
      ...c,
      start,
      extentEnd: c.extentEnd | 0,
      index,
      end: (start + c.bytes.length) | 0,
      cls: new Uint8Array(c.bytes.length),
      tier: tier?.length === c.bytes.length ? tier : new Uint8Array(c.bytes.length).fill(NO_TIER),
      span: {
        component: c.kind,
        overlayId: c.overlayId,
        ...(c.autoloadIndex !== null ? { autoloadIndex: c.autoloadIndex } : {}),
        ...(c.copiedIndex !== null ? { copiedIndex: c.copiedIndex } : {}),
        start,
        bytes: c.bytes,
      },
    };
    this.list.push(comp);
    this.found.push({ component: comp });
    if (comp.extentEnd > comp.end) this.bssRanges.push({ start: comp.end, end: comp.extentEnd });
    this.index();
    return comp;
  }

  addUnavailable(u: UnavailableComponent): void {
    this.unavailable.push(u);
    this.bssRanges.push({ start: u.start, end: u.end });
  }

  private index(): void {
    this.sorted = [...this.list].sort((a, b) => a.start - b.start || a.index - b.index);
    let m = 0;
    this.maxEnd = this.sorted.map((c) => (m = Math.max(m, c.end)));
  }

  /** The number of sorted components starting at or below `address` (the candidates end there). */
  private below(address: number): number {
    const s = this.sorted;
    let lo = 0;
    let hi = s.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (s[mid]!.start <= address) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Whether any component's bytes hold `address` (holding(address).length > 0, with no list made). */
  holds(address: number): boolean {
    const s = this.sorted;
    for (let i = this.below(address) - 1; i >= 0 && this.maxEnd[i]! > address; i--)
      if (address < s[i]!.end) return true;
    return false;
  }

  /** Every component whose bytes hold `address`. */
  holding(address: number): MapComponent[] {
    const s = this.sorted;
    const out: MapComponent[] = [];
    for (let i = this.below(address) - 1; i >= 0 && this.maxEnd[i]! > address; i--) {
      if (address < s[i]!.end) out.push(s[i]!);
    }
    return out.sort((a, b) => a.index - b.index);
  }

  /**
   * The one component holding `address`; null when none, undefined when several. Where a block the
   * start-up code copies lies over the main image's own range (main code copied below where it is
   * loaded), the copy is what is there once start-up is over: it is the one, main is not.
   */
  private single(address: number): MapComponent | null | undefined {
    const s = this.sorted;
    let one: MapComponent | null = null;
    let main: MapComponent | null = null;
    for (let i = this.below(address) - 1; i >= 0 && this.maxEnd[i]! > address; i--) {
      const c = s[i]!;
      if (address >= c.end) continue;
      if (c.kind === 'main') {
        main = c;
        continue;
      }
      if (one !== null) return undefined;
      one = c;
    }
    if (one !== null && main !== null && one.kind !== 'copied') return undefined;
    return one ?? main;
  }

  /** The one component holding a target reached from code in `from` (see the file comment). */
  lookup(address: number, from?: MapComponent): Lookup {
    if (from && address >= from.start && address < from.extentEnd) {
      if (address < from.end) return this.found[from.index]!;
      return UNRESOLVED.bss;
    }
    const one = this.single(address);
    if (one) return this.found[one.index]!;
    if (one === undefined) return UNRESOLVED['ambiguous-code-source'];
    // (Indexed loops: this runs for every data word a detector checks, most of them no address, and
    // an iterator makes objects per element until the code is optimized.)
    const unavailable = this.unavailable;
    for (let i = 0; i < unavailable.length; i++)
      if (address >= unavailable[i]!.start && address < unavailable[i]!.end)
        return UNRESOLVED['not-decodable'];
    const bss = this.bssRanges;
    for (let i = 0; i < bss.length; i++)
      if (address >= bss[i]!.start && address < bss[i]!.end) return UNRESOLVED.bss;
    return UNRESOLVED.unmapped;
  }
}

/** Components end below 2^31: every address in one, its end included, is an exact 32-bit signed integer. */
export const ADDRESS_LIMIT = 0x80000000;
const inAddressSpace = (start: number, size: number): boolean =>
  Number.isInteger(start) && start >= 0 && size >= 0 && start + size < ADDRESS_LIMIT;

/** Where code can run: the ARM9 from ITCM, main RAM and shared WRAM; the ARM7 from main RAM and its WRAM. */
function executableRegion(processor: Processor, start: number, end: number): boolean {
  const inside = (lo: number, hi: number) => start >= lo && end <= hi;
  if (inside(0x02000000, 0x03000000) || inside(0x03000000, 0x04000000)) return true;
  return processor === 'arm9' && inside(0x00000000, 0x02000000);
}

/**
 * The copies that become components: inside an executable region, clear of the autoload blocks and
 * overlays' runtime extents the ROM declares, with their source inside main. A copy may lie over
 * main's own range (the main program copied below where it is loaded): there it is what runs.
 */
export function usableCopies(
  model: NdsRomModel,
  processor: Processor,
  copies: readonly CopiedBlock[],
): CopiedBlock[] {
  const main = model[processor];
  const mainEnd = main.ramAddress + (main.decodedSize ?? main.size);
  const declared = [
    ...(processor === 'arm9'
      ? (model.autoloads ?? []).map((b) => ({ start: b.ramAddress, end: b.ramAddress + b.codeSize }))
      : []),
    ...model.overlays[processor].map((o) => ({ start: o.initialized.start, end: o.bss.end })),
  ];
  return copies.filter((c) => {
    const end = c.start + c.size;
    if (c.source < main.ramAddress || c.source + c.size > mainEnd) return false;
    if (!executableRegion(processor, c.start, end)) return false;
    // Over main's own range is where start-up code copies the main program (it runs there after).
    return !declared.some((d) => c.start < d.end && end > d.start);
  });
}

/**
 * A tier column of `n` bytes, all NO_TIER, filled 256 KiB at a time with event-loop turns: the first
 * touch of a 12 MiB program's column takes tens of milliseconds (more under memory pressure).
 */
async function noTierColumn(n: number): Promise<Uint8Array> {
  const column = new Uint8Array(n);
  const turn = turnTaker(undefined, 1);
  for (let at = 0; at < n; at += 1 << 18) {
    column.fill(NO_TIER, at, Math.min(n, at + (1 << 18)));
    const pause = turn();
    if (pause) await pause;
  }
  return column;
}

/**
 * Loads every component of `processor`: main, ARM9 autoload blocks, the copied blocks given (those
 * usableCopies keeps), overlays. Stored bytes of autoload blocks and of every copy (of code or of
 * data) inside main are classified `copied-source` at the copy's tier.
 */
export async function loadComponents(
  store: RomStore,
  rom: RomHandle,
  processor: Processor,
  copied: readonly CopiedBlock[],
  signal?: AbortSignal,
  /** Copies of data the start-up code makes: their stored bytes are copied-source too. */
  dataCopied: readonly CopiedBlock[] = [],
): Promise<ComponentSet> {
  const set = new ComponentSet(processor);
  const model = rom.model;
  const main = await store.decoded.runtimeImage(rom, processor, null, signal);
  const mainComp = set.add(
    {
      kind: 'main',
      overlayId: null,
      autoloadIndex: null,
      copiedIndex: null,
      tableIndex: null,
      start: main.ramAddress,
      extentEnd: main.ramAddress + main.bytes.length,
      bytes: main.bytes,
      romOffset: main.romOffset,
      derived: main.derived,
      copied: null,
      staticInit: null,
    },
    await noTierColumn(main.bytes.length),
  );
  const markSource = (runtime: number, size: number) => {
    const o = runtime - mainComp.start;
    if (o < 0 || size <= 0 || o + size > mainComp.bytes.length) return;
    mainComp.cls.fill(ByteClass.copiedSource, o, o + size);
    mainComp.tier.fill(0, o, o + size);
  };
  if (processor === 'arm9') {
    for (const b of model.autoloads ?? []) {
      const at = autoloadImageOffset(model, b.index);
      if (at === null || b.codeSize <= 0 || at + b.codeSize > main.bytes.length) continue;
      if (!inAddressSpace(b.ramAddress, b.codeSize)) {
        set.addUnavailable({
          kind: 'autoload',
          overlayId: null,
          start: b.ramAddress,
          end: b.ramAddress + b.codeSize,
          reason: `unsupported: runs at ${formatAddress(b.ramAddress)}, beyond the address space the map covers`,
        });
        continue;
      }
      set.add({
        kind: 'autoload',
        overlayId: null,
        autoloadIndex: b.index,
        copiedIndex: null,
        tableIndex: null,
        start: b.ramAddress,
        extentEnd: b.ramAddress + b.codeSize,
        bytes: main.bytes.subarray(at, at + b.codeSize),
        romOffset: main.romOffset === null ? null : main.romOffset + at,
        derived: main.derived,
        copied: null,
        staticInit: null,
      });
      markSource(main.ramAddress + at, b.codeSize);
    }
  }
  const overlays = model.overlays[processor];
  // Every copy's stored bytes are copied-source; the usable ones are components at their run address.
  for (const c of [...copied, ...dataCopied]) markSource(c.source, c.size);
  for (const c of usableCopies(model, processor, copied)) {
    const end = c.start + c.size;
    const src = c.source - mainComp.start;
    set.add({
      kind: 'copied',
      overlayId: null,
      autoloadIndex: null,
      copiedIndex: c.index,
      tableIndex: null,
      start: c.start,
      extentEnd: end,
      bytes: mainComp.bytes.subarray(src, src + c.size),
      romOffset: mainComp.romOffset === null ? null : mainComp.romOffset + src,
      derived: mainComp.derived,
      copied: c,
      staticInit: null,
    });
  }
  for (const o of overlays) {
    try {
      const image = await store.decoded.runtimeImage(rom, processor, o.id, signal, o.tableIndex);
      set.add({
        kind: 'overlay',
        overlayId: o.id,
        autoloadIndex: null,
        copiedIndex: null,
        tableIndex: o.tableIndex,
        start: image.ramAddress,
        extentEnd: Math.max(o.bss.end, image.ramAddress + image.bytes.length),
        bytes: image.bytes,
        romOffset: image.romOffset,
        derived: image.derived,
        copied: null,
        staticInit: { start: o.staticInit.start, end: o.staticInit.end },
      });
    } catch (error) {
      if (!(error instanceof ReMcpError) || error.code === 'cancelled') throw error;
      set.addUnavailable({
        kind: 'overlay',
        overlayId: o.id,
        start: o.initialized.start,
        end: o.bss.end,
        reason: `${error.code}: ${error.message}`,
      });
    }
  }
  return set;
}
