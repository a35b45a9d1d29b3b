// The map service: builds whole-program maps for a ROM and keeps them, keyed by the ROM's SHA-256 and
// size, the processor and the evidence classes, so later questions are lookups. Built inside the
// caller's RomStore operation; a map is kept only once the ROM is verified unchanged after the build.
// Concurrent requests for one key share one build. The start-up copy detection is kept per ROM and
// processor too (the ARM tools resolve addresses in copied code with it). A build reserves what it
// holds at its peak from the server's memory budget first (the kept maps are bounded apart, by
// MAX_MAPS and MAX_MAP_BYTES), so concurrent builds of large programs wait their turn. A complete map
// is also written to the workspace (map-store.ts) and a later process reads it back instead of building
// it again; a file that is not right for the question is refused and the map built as if it were absent.
import { prepareDecoder } from '../../arm/decoder.js';
import type { ArmMode } from '../../arm/types.js';
import { driveSteps } from '../../core/cooperative.js';
import { ReMcpError, throwIfCancelled } from '../../core/errors.js';
import { limitHeapGrowth } from '../../core/heap-growth.js';
import type { MemoryBudget, Reservation } from '../../core/memory-budget.js';
import type { Processor } from '../../core/vocabulary.js';
import { engineId } from '../../engine.js';
import type { RomHandle, RomStore } from '../../roms/rom-store.js';
import { type Services, serviceKey } from '../../services.js';
import { type CopyDetection, detectCopiesSteps } from '../evidence/copied-code.js';
import { EVIDENCE_CLASSES, type EvidenceId } from '../evidence/index.js';
import { type BuiltMap, buildProgramMap } from './build.js';
import { type ComponentSet, loadComponents } from './components.js';
import { ProgramMap } from './map.js';
import type { MapFileIdentity } from './map-file.js';
import { builtFromFile } from './map-file-walk.js';
import { MapStore } from './map-store.js';
import { summarize } from './map-summary.js';
import { ByteClass, TIER_RANK } from './types.js';

/** Bounds of one map: code bytes classified and wall time, with defaults for the tools. */
export const MAP_LIMITS = {
  maxCodeBytes: {
    default: 16 * 1024 * 1024,
    max: 64 * 1024 * 1024,
    min: 1024,
    unit: 'bytes of code classified',
  },
  maxSeconds: { default: 120, max: 600, min: 1, unit: 'seconds of map building' },
} as const;

/** Maps kept at once, and their estimated bytes. */
const MAX_MAPS = 6;
const MAX_MAP_BYTES = 512 * 1024 * 1024;
/**
 * What a kept map holds against what ProgramMap.bytes() counts of it (its columns and records; the
 * rest is the components' bytes and V8's object overhead). Measured: a 12 MiB program's map 176 MiB
 * counted, 304 MiB held on the heap after a collection (4 MiB: 59 and 108).
 */
const KEPT_PER_COUNTED = 1.75;
const keptBytes = (map: ProgramMap) => Math.ceil(map.bytes() * KEPT_PER_COUNTED);
/**
 * What a build holds at its peak beyond the kept map, reserved from the server's memory budget before
 * it starts: a fixed part (the decoder's tables, the walk's working sets) and a part per byte of code
 * (measured: a 4 MiB build peaks about 190 MB above the process it runs in).
 */
const BUILD_FIXED_BYTES = 32 * 1024 * 1024;
const BUILD_BYTES_PER_CODE_BYTE = 48;

interface MapRequest {
  processor: Processor;
  evidence: readonly EvidenceId[];
  maxCodeBytes: number;
  maxSeconds: number;
  signal?: AbortSignal | undefined;
  /** Bytes of code classified so far. */
  onProgress?: ((codeBytes: number) => void) | undefined;
}

interface Building {
  promise: Promise<ProgramMap>;
}

export class ProgramMapService {
  /** The kept maps' shares of the server's memory budget, by key. */
  private readonly held = new Map<string, Reservation>();

  constructor(
    private readonly memory: MemoryBudget | null = null,
    /** Where complete maps are kept for later processes (null: not kept; RE_MCP_MAP_CACHE=off). */
    private readonly files: MapStore | null = null,
  ) {
    // A call that needs memory the kept maps hold makes them go, oldest first.
    memory?.onPressure((bytes) => {
      let freed = 0;
      for (const key of [...this.maps.keys()]) {
        if (freed >= bytes) break;
        freed += this.held.get(key)?.bytes ?? 0;
        this.drop(key);
      }
    });
  }

  private readonly maps = new Map<string, ProgramMap>();
  private readonly building = new Map<string, Building>();
  private readonly copies = new Map<string, CopyDetection>();

  /** The copies the start-up path of `processor` makes (see evidence/copied-code.ts), per ROM. */
  async copied(
    store: RomStore,
    rom: RomHandle,
    processor: Processor,
    signal?: AbortSignal,
  ): Promise<CopyDetection> {
    const key = `${rom.identity.sha256}:${rom.identity.size}:${processor}`;
    const known = this.copies.get(key);
    if (known) return known;
    // Kept in the workspace by an earlier process (copies-file.ts).
    const id = { engine: engineId(), sha256: rom.identity.sha256, size: rom.identity.size, processor };
    const kept = await this.files?.loadCopies(id);
    if (kept) {
      this.rememberCopies(key, kept);
      return kept;
    }
    const main = await store.decoded.runtimeImage(rom, processor, null, signal);
    // Millions of instructions at most: run in slices, the server answering meanwhile.
    const found = await driveSteps(
      detectCopiesSteps(
        { start: main.ramAddress, bytes: main.bytes },
        rom.model[processor].entryAddress,
        processor,
      ),
      signal ? { signal } : {},
    );
    await rom.verifyUnchanged(signal);
    this.rememberCopies(key, found);
    await this.files?.saveCopies(id, found);
    return found;
  }

  private rememberCopies(key: string, found: CopyDetection): void {
    this.copies.set(key, found);
    if (this.copies.size > 64) this.copies.delete(this.copies.keys().next().value!);
  }

  /**
   * The mode the maps already built for this ROM and processor give `address` at their proven tier
   * (the head or body of walked code); null when none does, or when two disagree. Builds nothing.
   */
  provenMode(
    sha256: string,
    processor: Processor,
    address: number,
    overlayId: number | null,
  ): ArmMode | null {
    const modes = new Set<ArmMode>();
    for (const [key, map] of this.maps) {
      if (!key.startsWith(`${sha256}:`) || map.built.processor !== processor) continue;
      for (const c of map.set.holding(address)) {
        if ((c.overlayId ?? null) !== (overlayId ?? null)) continue;
        const o = address - c.start;
        if (c.tier[o] !== TIER_RANK.proven) continue;
        const cls = c.cls[o];
        if (cls === ByteClass.armHead || cls === ByteClass.armBody) modes.add('arm');
        else if (cls === ByteClass.thumbHead || cls === ByteClass.thumbBody) modes.add('thumb');
      }
    }
    return modes.size === 1 ? [...modes][0]! : null;
  }

  /** The map for `req` on `rom` (the caller holds the ROM through RomStore.withRom). */
  async map(store: RomStore, rom: RomHandle, req: MapRequest): Promise<ProgramMap> {
    const ids = [...new Set(req.evidence)].sort();
    const key = `${rom.identity.sha256}:${rom.identity.size}:${req.processor}:${ids.join(',')}`;
    const kept = this.maps.get(key);
    // A map that stopped at its budget is rebuilt when asked with a larger one.
    if (kept && (kept.built.status === 'complete' || !this.larger(kept, req))) {
      this.maps.delete(key);
      this.maps.set(key, kept);
      return kept;
    }
    const pending = this.building.get(key);
    if (pending) return this.await(pending.promise, req.signal);
    const promise = this.build(store, rom, req, ids);
    this.building.set(key, { promise });
    try {
      const map = await promise;
      this.keep(key, map);
      return map;
    } finally {
      this.building.delete(key);
    }
  }

  private larger(kept: ProgramMap, req: MapRequest): boolean {
    const b = kept.built;
    return b.truncation.includes('time-limit')
      ? req.maxSeconds * 1000 > b.millis
      : req.maxCodeBytes > b.codeBytesLimit;
  }

  private async await(p: Promise<ProgramMap>, signal?: AbortSignal): Promise<ProgramMap> {
    if (!signal) return p;
    throwIfCancelled(signal);
    return new Promise<ProgramMap>((resolve, reject) => {
      const abort = () => reject(new ReMcpError('cancelled', 'the request was cancelled'));
      signal.addEventListener('abort', abort, { once: true });
      p.then(
        (m) => {
          signal.removeEventListener('abort', abort);
          resolve(m);
        },
        (e) => {
          signal.removeEventListener('abort', abort);
          reject(e);
        },
      );
    });
  }

  private async build(store: RomStore, rom: RomHandle, req: MapRequest, ids: string[]): Promise<ProgramMap> {
    const id: MapFileIdentity = {
      engine: engineId(),
      sha256: rom.identity.sha256,
      size: rom.identity.size,
      processor: req.processor,
      evidence: ids,
    };
    const kept = await this.readKept(store, rom, req, id);
    if (kept) return kept;
    // A cold build grows the heap by tens of megabytes: V8 keeps it near its live size from now on.
    limitHeapGrowth();
    // Capstone compiles while the copies are detected and the components loaded.
    prepareDecoder();
    const enabled = new Set(ids);
    const found = enabled.has('copied-code')
      ? await this.copied(store, rom, req.processor, req.signal)
      : null;
    const set = await componentsWith(store, rom, req, found);
    const code = Math.min(
      req.maxCodeBytes,
      set.list.reduce((n, c) => n + c.cls.length, 0),
    );
    const held = await this.memory?.reserve(
      Math.min(this.memory.totalBytes, BUILD_FIXED_BYTES + BUILD_BYTES_PER_CODE_BYTE * code),
      `the ${req.processor} program map`,
      req.signal ? { signal: req.signal } : {},
    );
    try {
      const built = await buildProgramMap({
        set,
        processor: req.processor,
        entry: rom.model[req.processor].entryAddress,
        classes: EVIDENCE_CLASSES.filter((c) => enabled.has(c.id)),
        codeBytes: req.maxCodeBytes,
        // The time spent waiting for memory is not the build's.
        deadline: Date.now() + req.maxSeconds * 1000,
        signal: req.signal,
        onProgress: req.onProgress,
      });
      await rom.verifyUnchanged(req.signal);
      // Written while the build's memory is still held (the file is made from its columns and summary).
      if (built.status === 'complete' && this.files) {
        built.summary = await summarize(built, set);
        await this.files.save(built, set, found, id);
      }
      return await ProgramMap.of(built, set, rom.identity.sha256);
    } finally {
      held?.release();
    }
  }

  /**
   * The map kept in the workspace for `id`, read back over the components made again from the ROM
   * with the file's start-up copies; null when there is none or it is refused (then it is built).
   */
  private async readKept(
    store: RomStore,
    rom: RomHandle,
    req: MapRequest,
    id: MapFileIdentity,
  ): Promise<ProgramMap | null> {
    if (!this.files) return null;
    let held: Reservation | undefined;
    try {
      const contents = await this.files.load(
        id,
        async (bytes) => {
          // The file, and the function bodies made from it (a fraction of a build's peak).
          held = await this.memory?.reserve(
            Math.min(this.memory.totalBytes, BUILD_FIXED_BYTES + 2 * bytes),
            `reading the ${req.processor} program map`,
            req.signal ? { signal: req.signal } : {},
          );
        },
        req.signal,
      );
      if (!contents) return null;
      const found = contents.header.copies;
      const set = await componentsWith(store, rom, req, found);
      // Checked throughout; anything it still cannot make sense of is a refusal, never a failure.
      const built: BuiltMap | string = await builtFromFile(contents, set, MapStore.path(id)).catch(
        (e: unknown) => {
          if (e instanceof ReMcpError && e.code === 'cancelled') throw e;
          return `unreadable (${String(e)})`;
        },
      );
      if (typeof built === 'string') {
        this.files.refuse(id, built);
        return null;
      }
      await rom.verifyUnchanged(req.signal);
      if (found) this.rememberCopies(`${rom.identity.sha256}:${rom.identity.size}:${req.processor}`, found);
      return await ProgramMap.of(built, set, rom.identity.sha256);
    } finally {
      held?.release();
    }
  }

  /**
   * Keeps `map` for later questions when its share of the memory budget can be had (older maps go to
   * make room), within MAX_MAPS and MAX_MAP_BYTES; a map there is no room for is not kept.
   */
  private keep(key: string, map: ProgramMap): void {
    this.drop(key);
    const bytes = keptBytes(map);
    let share = this.memory ? this.memory.hold(bytes) : null;
    while (this.memory && share === null && this.maps.size > 0) {
      this.drop(this.maps.keys().next().value!);
      share = this.memory.hold(bytes);
    }
    if (this.memory && share === null) return;
    this.maps.set(key, map);
    if (share) this.held.set(key, share);
    let total = 0;
    for (const m of this.maps.values()) total += keptBytes(m);
    for (const [k, m] of this.maps) {
      if ((this.maps.size <= MAX_MAPS && total <= MAX_MAP_BYTES) || this.maps.size <= 1) break;
      total -= keptBytes(m);
      this.drop(k);
    }
  }

  private drop(key: string): void {
    this.maps.delete(key);
    this.held.get(key)?.release();
    this.held.delete(key);
  }
}

/** The components of the processor, with the copies the start-up path makes (none when not detected). */
function componentsWith(
  store: RomStore,
  rom: RomHandle,
  req: MapRequest,
  found: CopyDetection | null,
): Promise<ComponentSet> {
  return loadComponents(store, rom, req.processor, found?.copies ?? [], req.signal, found?.dataCopies ?? []);
}

/** A kept file (a map, start-up copies) refused or not written is said on stderr (the question is answered all the same). */
const KEPT_FILE_EVENTS = {
  refused: (path: string, why: string) =>
    process.stderr.write(`re-mcp: the kept analysis file ${path} is not used (${why}); it is made again\n`),
  failed: (path: string, error: unknown) =>
    process.stderr.write(
      `re-mcp: the kept analysis file ${path} could not be read or written: ${String(error)}\n`,
    ),
};

const PROGRAM_MAPS = serviceKey<ProgramMapService>('program-maps');

export function getProgramMaps(services: Services): ProgramMapService {
  return services.lazy(
    PROGRAM_MAPS,
    () =>
      new ProgramMapService(
        services.memory,
        services.config.mapCache ? new MapStore(services.workspace, KEPT_FILE_EVENTS) : null,
      ),
  );
}
