// Names per ROM: a symbol store under analysis/generated/nds/<sha16>/symbols.json, keyed by the ROM's
// SHA-256, written atomically under the ROM directory's lock and read back on every use (so names
// survive restarts and other servers' writes). Every name is user-asserted: imported from a file the
// user gave or set by the assistant, never evidence of anything. One name per place (processor,
// overlay, address); an import that names a place differently, or an address several overlays hold
// without saying which, is reported as a conflict and never resolved silently.
// A store of 200,000 names is read, changed and written in slices (the server answers meanwhile): the
// file is laid out one name a line and read back a line at a time (symbol-store-file.ts), and a change
// is a generator.
import { lstatSync, statSync } from 'node:fs';
import { driveSteps, runSteps, type Steps, sha256Steps } from '../core/cooperative.js';
import { ReMcpError } from '../core/errors.js';
import type { Processor } from '../core/vocabulary.js';
import { resolveRuntimeAddress } from '../formats/nds/address-map.js';
import { type RawSymbol, SYMBOL_LIMITS } from '../formats/symbols/types.js';
import type { RomHandle } from '../roms/rom-store.js';
import { type Services, serviceKey } from '../services.js';
import { readWhole } from '../workspace/read-whole.js';
import type { Workspace } from '../workspace/workspace.js';
import { romDirSegments } from './artifacts.js';
import { withRomDirLock } from './promote.js';
import {
  decodeSteps,
  encodeSteps,
  STEP_NAMES,
  STORE_FILE,
  type StoredSymbol,
  type SymbolSource,
} from './symbol-store-file.js';

export const SYMBOL_STORE_LIMITS = {
  /** Names kept per ROM. */
  maxSymbols: { max: SYMBOL_LIMITS.maxSymbols.max, unit: 'symbols per ROM' },
  /** Bytes of the store file read back. */
  storeBytes: { max: 64 * 1024 * 1024, unit: 'bytes' },
  /** Farthest a name reaches past its address when the symbol has no size. */
  reach: { max: 0x1000, unit: 'bytes' },
} as const;

export type { StoredSymbol } from './symbol-store-file.js';

interface Conflict {
  name: string;
  address: number;
  processor: Processor;
  why: string;
}

const placeKey = (s: { processor: Processor; overlayId: number | null; address: number }) =>
  `${s.processor}:${s.overlayId ?? '-'}:${s.address}`;

/** What SymbolTable looks names up by: per processor sorted by address, and by processor and name. */
interface TableIndex {
  byProcessor: Map<string, StoredSymbol[]>;
  byName: Map<string, StoredSymbol[]>;
}

/** Names sorted in one piece before the pieces are merged (in steps). */
const SORT_RUN = 2048;

/**
 * `list` sorted by address, in steps: runs of SORT_RUN sorted at once, then merged pairwise with a
 * yield every STEP_NAMES names. Stable (the same order as one stable sort), so a 200,000-name store
 * is sorted without holding the event loop.
 */
export function* sortByAddress(list: StoredSymbol[]): Steps<StoredSymbol[]> {
  const byAddress = (a: StoredSymbol, b: StoredSymbol) => a.address - b.address;
  const n = list.length;
  let src = list;
  for (let i = 0; i < n; i += SORT_RUN) {
    const run = src.slice(i, i + SORT_RUN).sort(byAddress);
    for (let k = 0; k < run.length; k++) src[i + k] = run[k]!;
    yield;
  }
  let dst: StoredSymbol[] = new Array(n);
  let moved = 0;
  for (let width = SORT_RUN; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      let a = lo;
      let b = mid;
      for (let out = lo; out < hi; out++) {
        // Ties take the left run first: stable.
        dst[out] = b >= hi || (a < mid && src[a]!.address <= src[b]!.address) ? src[a++]! : src[b++]!;
        if (++moved % STEP_NAMES === 0) yield;
      }
    }
    [src, dst] = [dst, src];
  }
  return src;
}

/** The table's indexes of `symbols`, in steps. */
function* indexSteps(symbols: StoredSymbol[]): Steps<TableIndex> {
  const grouped = new Map<string, StoredSymbol[]>();
  const byName = new Map<string, StoredSymbol[]>();
  for (const [i, s] of symbols.entries()) {
    if (i % STEP_NAMES === 0) yield;
    const list = grouped.get(s.processor);
    if (list) list.push(s);
    else grouped.set(s.processor, [s]);
    const key = `${s.processor}:${s.name}`;
    const named = byName.get(key);
    if (named) named.push(s);
    else byName.set(key, [s]);
  }
  const byProcessor = new Map<string, StoredSymbol[]>();
  for (const [processor, list] of grouped) byProcessor.set(processor, yield* sortByAddress(list));
  return { byProcessor, byName };
}

/**
 * The names of one ROM, sorted for lookups. The server makes it with SymbolTable.build (the indexes
 * made in slices); the constructor makes them at once (small tables, tests).
 */
export class SymbolTable {
  private readonly byProcessor: Map<string, StoredSymbol[]>;
  private readonly byName: Map<string, StoredSymbol[]>;

  constructor(
    readonly symbols: StoredSymbol[],
    index?: TableIndex,
  ) {
    const made = index ?? runSteps(indexSteps(symbols));
    this.byProcessor = made.byProcessor;
    this.byName = made.byName;
  }

  /** The table of `symbols`, its indexes made in slices (driveSteps: the server answers meanwhile). */
  static async build(symbols: StoredSymbol[], signal?: AbortSignal): Promise<SymbolTable> {
    return new SymbolTable(symbols, await driveSteps(indexSteps(symbols), signal ? { signal } : {}));
  }

  get size(): number {
    return this.symbols.length;
  }

  /** Every place `name` names on `processor`. */
  named(processor: Processor, name: string): StoredSymbol[] {
    return this.byName.get(`${processor}:${name}`) ?? [];
  }

  /**
   * Up to `max` names of `processor` like `text` (case-insensitive): those containing it, shortest
   * first; when none does, those sharing its longest common prefix (3 characters at least), a typo's.
   */
  like(processor: Processor, text: string, max: number): string[] {
    const needle = text.toLowerCase();
    const found = new Set<string>();
    const byPrefix = new Map<number, Set<string>>();
    let best = 3;
    for (const s of this.byProcessor.get(processor) ?? []) {
      const name = s.name.toLowerCase();
      if (name.includes(needle)) {
        found.add(s.name);
        continue;
      }
      if (found.size > 0) continue;
      let n = 0;
      while (n < name.length && n < needle.length && name[n] === needle[n]) n++;
      if (n < best) continue;
      best = n;
      const set = byPrefix.get(n) ?? new Set<string>();
      if (set.size < max) set.add(s.name);
      byPrefix.set(n, set);
    }
    const list = found.size > 0 ? [...found] : [...(byPrefix.get(best) ?? [])];
    return list.sort((a, b) => a.length - b.length || (a < b ? -1 : 1)).slice(0, max);
  }

  /**
   * The name of `address` as `name` or `name+0x10`: the nearest symbol at or below it on that processor,
   * in the same overlay (or outside overlays when `overlayId` is null; a main-memory name also serves an
   * overlay's code that calls it), reaching as far as its size or, without one, SYMBOL_STORE_LIMITS.reach.
   */
  nameOf(processor: Processor, address: number, overlayId: number | null = null): string | null {
    const list = this.byProcessor.get(processor);
    if (!list || list.length === 0) return null;
    let lo = 0;
    let hi = list.length - 1;
    let at = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid]!.address <= address) {
        at = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    for (let i = at; i >= 0 && address - list[i]!.address <= SYMBOL_STORE_LIMITS.reach.max; i--) {
      const s = list[i]!;
      if (s.overlayId !== null && s.overlayId !== overlayId) continue;
      const off = address - s.address;
      const reach = s.size ?? SYMBOL_STORE_LIMITS.reach.max;
      if (off !== 0 && off >= reach) return null;
      return off === 0 ? s.name : `${s.name}+0x${off.toString(16)}`;
    }
    return null;
  }
}

export interface ImportResult {
  added: number;
  replaced: number;
  unchanged: number;
  conflicts: Conflict[];
  total: number;
}

const EMPTY = new SymbolTable([]);

/** What names a ROM's store: its SHA-256. */
export interface RomIdentity {
  identity: { sha256: string };
}

/**
 * The stat key of what `lexical` names (links followed) as text; null when neither it nor a link is
 * there (nothing to read); undefined when that cannot be told (the full path decides).
 */
function fileKey(lexical: string): string | null | undefined {
  try {
    const s = statSync(lexical, { bigint: true, throwIfNoEntry: false });
    if (s) return s.isFile() ? `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}` : undefined;
    return lstatSync(lexical, { throwIfNoEntry: false }) === undefined ? null : undefined;
  } catch {
    return undefined;
  }
}

/** One ROM's store: read, change under the lock, write atomically. */
export class SymbolStore {
  /** By ROM SHA-256: the names last read (their file's hash, and its stat key once read from disk). */
  private cache = new Map<string, { stamp: string; table: SymbolTable; key?: string }>();

  constructor(private readonly workspace: Workspace) {}

  private async dirs(rom: RomHandle) {
    const [area, sha16] = romDirSegments(rom.identity.sha256) as [string, string];
    return { areaDir: await this.workspace.outputDir('analysis/generated', [area]), sha16 };
  }

  /** The workspace-relative path of the store file. */
  path(rom: RomIdentity): string {
    const [area, sha16] = romDirSegments(rom.identity.sha256);
    return `analysis/generated/${area}/${sha16}/${STORE_FILE}`;
  }

  /**
   * The ROM's names (empty when none were ever stored). Read through the workspace's path policy and
   * never creating anything: read-only tools call it to show names.
   */
  async table(rom: RomIdentity): Promise<SymbolTable> {
    // Fast paths (a warm answer asks for the names on every call): the store file unchanged since it
    // was read (same device, inode, size and times) holds the names read then; nothing at its path,
    // not even a link, holds none. Anything else is read through the path policy.
    const lexical = this.workspace.lexicalPath(this.path(rom));
    const hit = this.cache.get(rom.identity.sha256);
    const now = fileKey(lexical);
    if (now === null) return EMPTY;
    if (hit?.key !== undefined && hit.key === now) return hit.table;
    let opened: Awaited<ReturnType<Workspace['openFile']>>;
    try {
      opened = await this.workspace.openFile(this.path(rom));
    } catch (error) {
      if (error instanceof ReMcpError && error.code === 'not-found') return EMPTY;
      throw error;
    }
    let bytes: Buffer;
    try {
      const size = (await opened.handle.stat()).size;
      if (size > SYMBOL_STORE_LIMITS.storeBytes.max)
        throw new ReMcpError(
          'limit-exceeded',
          `the symbol store is ${size} bytes, over ${SYMBOL_STORE_LIMITS.storeBytes.max}`,
        );
      bytes = await readWhole(opened.handle, size);
    } finally {
      await opened.handle.close();
    }
    const stamp = await driveSteps(sha256Steps(bytes));
    // The key taken before the read: a write since then changes it, and the next call reads again.
    const key = now === undefined ? {} : { key: now };
    if (hit && hit.stamp === stamp) {
      this.cache.set(rom.identity.sha256, { ...hit, ...key });
      return hit.table;
    }
    const table = await SymbolTable.build(await driveSteps(decodeSteps(bytes, rom.identity.sha256)));
    this.cache.set(rom.identity.sha256, { stamp, table, ...key });
    return table;
  }

  /**
   * Applies `change` (steps over the names, changing them in place) to the ROM's names under its
   * directory lock and writes them back atomically.
   */
  async update<T>(
    rom: RomHandle,
    change: (symbols: StoredSymbol[]) => Steps<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    const { areaDir, sha16 } = await this.dirs(rom);
    try {
      return await withRomDirLock(
        areaDir,
        sha16,
        async () => {
          const dir = await areaDir.child(sha16);
          try {
            const bytes = await dir.readIfSmall(STORE_FILE, SYMBOL_STORE_LIMITS.storeBytes.max);
            const drive = signal ? { signal } : {};
            const symbols =
              bytes === null ? [] : await driveSteps(decodeSteps(bytes, rom.identity.sha256), drive);
            const result = await driveSteps(change(symbols), drive);
            if (symbols.length > SYMBOL_STORE_LIMITS.maxSymbols.max)
              throw new ReMcpError(
                'limit-exceeded',
                `a ROM keeps at most ${SYMBOL_STORE_LIMITS.maxSymbols.max} names; this change would make ${symbols.length}`,
              );
            await rom.verifyUnchanged(signal);
            const text = Buffer.from(await driveSteps(encodeSteps(symbols, rom.identity.sha256), drive));
            this.cache.delete(rom.identity.sha256);
            await dir.writeAtomic(STORE_FILE, text);
            await dir.verifyInPlace();
            // What was written is what the next read finds: kept, so it is not decoded again.
            const stamp = await driveSteps(sha256Steps(text), drive);
            this.cache.set(rom.identity.sha256, { stamp, table: await SymbolTable.build(symbols) });
            return result;
          } finally {
            await dir.close();
          }
        },
        signal,
      );
    } finally {
      await areaDir.close();
    }
  }
}

/**
 * Where code the start-up copies runs, per processor (the program map's detection): a name there is
 * owned by the copy (`copied`), not by what holds the address statically (nothing: ITCM; or main, for
 * a program copied below where it is loaded).
 */
export type CopiedRuns = (processor: Processor, address: number) => boolean;

/** Where `address` lies statically on `processor`: a component label and the overlay, or a conflict. */
export function placeOf(
  rom: RomHandle,
  processor: Processor,
  address: number,
  overlayId: number | null,
  copied?: CopiedRuns,
): { component: string; overlayId: number | null } | { why: string } {
  const place = staticPlaceOf(rom, processor, address, overlayId);
  if (
    copied !== undefined &&
    'component' in place &&
    (place.component === 'unmapped' || place.component === 'main') &&
    copied(processor, address)
  )
    return { component: 'copied', overlayId: null };
  return place;
}

function staticPlaceOf(
  rom: RomHandle,
  processor: Processor,
  address: number,
  overlayId: number | null,
): { component: string; overlayId: number | null } | { why: string } {
  // A file's line naming an overlay the ROM does not have is that line's problem (a conflict), never
  // the whole import's.
  if (overlayId !== null && !rom.model.overlays[processor].some((o) => o.id === overlayId))
    return { why: `${processor} has no overlay with ID ${overlayId}` };
  const r = resolveRuntimeAddress(rom.model, processor, address, overlayId ?? undefined);
  if (r.status === 'unmapped') {
    if (overlayId !== null) return { why: `overlay ${overlayId} does not hold this address` };
    return { component: 'unmapped', overlayId: null };
  }
  const overlays = r.candidates.filter((c) => c.component === 'overlay');
  const others = r.candidates.filter((c) => c.component !== 'overlay');
  if (overlayId !== null) {
    if (!overlays.some((c) => c.overlayId === overlayId))
      return { why: `overlay ${overlayId} does not hold this address` };
    return { component: 'overlay', overlayId };
  }
  if (overlays.length > 1)
    return {
      why: `overlays ${overlays.map((c) => c.overlayId).join(', ')} all hold this address: name the overlay`,
    };
  if (overlays.length === 1 && others.length === 0)
    return { component: 'overlay', overlayId: overlays[0]!.overlayId };
  const c = others[0] ?? overlays[0]!;
  return { component: c.component, overlayId: c.component === 'overlay' ? c.overlayId : null };
}

/**
 * Merges parsed symbols into `symbols` (one name per place; conflicts reported, existing names kept
 * unless `replace`), in steps.
 */
export function* mergeSymbols(
  rom: RomHandle,
  symbols: StoredSymbol[],
  incoming: RawSymbol[],
  defaults: { processor: Processor; source: SymbolSource; replace: boolean; copied?: CopiedRuns },
): Steps<ImportResult> {
  const index = new Map<string, number>();
  for (const [i, s] of symbols.entries()) {
    if (i % STEP_NAMES === 0) yield;
    index.set(placeKey(s), i);
  }
  const seenInFile = new Map<string, string>();
  const result: ImportResult = { added: 0, replaced: 0, unchanged: 0, conflicts: [], total: 0 };
  const conflict = (c: Conflict) => {
    if (result.conflicts.length < 200) result.conflicts.push(c);
  };
  for (const [i, raw] of incoming.entries()) {
    if (i % STEP_NAMES === 0) yield;
    const processor = raw.processor ?? defaults.processor;
    const place = placeOf(rom, processor, raw.address, raw.overlayId, defaults.copied);
    if ('why' in place) {
      conflict({ name: raw.name, address: raw.address, processor, why: place.why });
      continue;
    }
    const s: StoredSymbol = {
      processor,
      address: raw.address,
      overlayId: place.overlayId,
      component: place.component,
      mode: raw.mode,
      name: raw.name,
      size: raw.size,
      comment: raw.comment,
      source: defaults.source,
    };
    const key = placeKey(s);
    const earlier = seenInFile.get(key);
    if (earlier !== undefined && earlier !== s.name) {
      conflict({ name: s.name, address: s.address, processor, why: `the same file names it ${earlier} too` });
      continue;
    }
    seenInFile.set(key, s.name);
    const at = index.get(key);
    if (at === undefined) {
      index.set(key, symbols.length);
      symbols.push(s);
      result.added++;
      continue;
    }
    const old = symbols[at]!;
    if (old.name === s.name && old.mode === s.mode) {
      result.unchanged++;
      continue;
    }
    if (!defaults.replace) {
      conflict({
        name: s.name,
        address: s.address,
        processor,
        why: `already named ${old.name} (replace: true to rename)`,
      });
      continue;
    }
    symbols[at] = { ...s, comment: s.comment ?? old.comment };
    result.replaced++;
  }
  result.total = symbols.length;
  return result;
}

export { placeKey };

const SYMBOL_STORE = serviceKey<SymbolStore>('symbols');

/** The server's one symbol store. */
export function getSymbolStore(services: Services): SymbolStore {
  return services.lazy(SYMBOL_STORE, () => new SymbolStore(services.workspace));
}
