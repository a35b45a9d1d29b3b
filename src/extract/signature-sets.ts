// Signature sets in the workspace: built from the user's files (archives, objects, ELF executables,
// each read through the workspace's path policy, bounded) and written atomically as
// analysis/generated/signatures/<name>.json; a shared set file imported there after a full check;
// a set applied to one processor's whole-program map of a ROM (proposals with evidence, nothing
// written); and the proposals a caller accepts merged into the ROM's symbol store as source
// `signature`, conflicts reported as every import's are.
import { createHash } from 'node:crypto';
import type { ProgramMap } from '../analysis/program-map/map.js';
import { type ApplyCounts, applySteps, type Proposal } from '../analysis/signatures/apply.js';
import { programFunctions, programMemory, romItemSteps } from '../analysis/signatures/program.js';
import { type BuiltSet, buildSetSteps, decodeSetSteps, encodeSetSteps } from '../analysis/signatures/set.js';
import { SET_NAME, type SignatureSet } from '../analysis/signatures/types.js';
import { driveSteps } from '../core/cooperative.js';
import { ReMcpError } from '../core/errors.js';
import type { Processor } from '../core/vocabulary.js';
import type { RawSymbol } from '../formats/symbols/types.js';
import type { RomHandle } from '../roms/rom-store.js';
import { type Services, serviceKey } from '../services.js';
import type { Workspace } from '../workspace/workspace.js';
import { getSymbolStore, type ImportResult, mergeSymbols } from './symbol-store.js';

export const SIGNATURE_FILE_LIMITS = {
  /** Bytes of one input file (an archive, object or executable) or set file read. */
  fileBytes: { max: 64 * 1024 * 1024, unit: 'bytes' },
  /** Input files of one build. */
  files: { max: 16, unit: 'files' },
  /** Time a build, a set's reading or an application may take (each runs in slices). */
  workMs: { max: 60_000, unit: 'milliseconds' },
} as const;

const AREA = 'signatures';
/** The workspace-relative path of set `name`'s file. */
export const setPath = (name: string): string => `analysis/generated/${AREA}/${name}.json`;

async function readBounded(workspace: Workspace, path: string): Promise<{ path: string; bytes: Uint8Array }> {
  const { resolved, handle } = await workspace.openFile(path);
  try {
    const info = await handle.stat();
    if (info.size > SIGNATURE_FILE_LIMITS.fileBytes.max)
      throw new ReMcpError(
        'limit-exceeded',
        `${resolved.relative} is ${info.size} bytes; read up to ${SIGNATURE_FILE_LIMITS.fileBytes.max}`,
      );
    const bytes = new Uint8Array(info.size);
    let at = 0;
    while (at < bytes.length) {
      const { bytesRead } = await handle.read(bytes, at, bytes.length - at, at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    return { path: resolved.relative, bytes: bytes.subarray(0, at) };
  } finally {
    await handle.close();
  }
}

const drive = (signal: AbortSignal | undefined, what: string) => ({
  ...(signal ? { signal } : {}),
  deadline: { ms: SIGNATURE_FILE_LIMITS.workMs.max, what },
});

async function writeSet(
  workspace: Workspace,
  set: SignatureSet,
  signal?: AbortSignal,
): Promise<{ path: string; bytes: number }> {
  const text = await driveSteps(encodeSetSteps(set), drive(signal, `writing signature set ${set.name}`));
  const dir = await workspace.outputDir('analysis/generated', [AREA]);
  try {
    await dir.writeAtomic(`${set.name}.json`, text);
  } finally {
    await dir.close();
  }
  return { path: setPath(set.name), bytes: Buffer.byteLength(text) };
}

/** Builds set `name` from workspace files and writes it (replacing a set of that name). */
export async function buildSignatureSet(
  workspace: Workspace,
  name: string,
  files: readonly string[],
  signal?: AbortSignal,
  onProgress?: (done: number, total: number) => void,
): Promise<BuiltSet & { path: string; bytes: number }> {
  if (!SET_NAME.test(name))
    throw new ReMcpError(
      'invalid-argument',
      'a set name is 1-64 letters, digits, ., _ or - (first a letter or digit)',
    );
  if (files.length === 0 || files.length > SIGNATURE_FILE_LIMITS.files.max)
    throw new ReMcpError(
      'invalid-argument',
      `a set is built from 1 to ${SIGNATURE_FILE_LIMITS.files.max} files`,
    );
  const inputs = [];
  for (const [i, f] of files.entries()) {
    const { path, bytes } = await readBounded(workspace, f);
    inputs.push({ path, bytes, sha256: createHash('sha256').update(bytes).digest('hex') });
    onProgress?.(i + 1, files.length + 1);
  }
  const built = await driveSteps(
    buildSetSteps(name, inputs),
    drive(signal, `building signature set ${name}`),
  );
  if (built.set.items.length === 0)
    throw new ReMcpError(
      'invalid-argument',
      `no function or data symbol in ${files.join(', ')}: nothing to make signatures of`,
    );
  const written = await writeSet(workspace, built.set, signal);
  onProgress?.(files.length + 1, files.length + 1);
  return { ...built, ...written };
}

/** What a server keeps of the sets it has read and applied. */
const SET_CACHE_LIMITS = {
  /** Decoded sets kept (the least recently read is dropped first). */
  sets: { max: 2, unit: 'sets' },
  /**
   * File bytes of the decoded sets kept, together (decoded, a set takes several times its file): a
   * larger set file is decoded on every call and not kept.
   */
  bytes: { max: 16 * 1024 * 1024, unit: 'bytes' },
} as const;

/**
 * Sets decoded once per file content (the file is read and hashed on every call: a changed file is
 * decoded again), and each set's application to each map kept while both live (pages of one
 * application cost a page).
 */
class SetCache {
  private readonly sets = new Map<string, { sha256: string; bytes: number; set: SignatureSet }>();
  private readonly applied = new WeakMap<ProgramMap, WeakMap<SignatureSet, Map<number, AppliedSet>>>();

  async read(workspace: Workspace, name: string, signal?: AbortSignal): Promise<SignatureSet> {
    if (!SET_NAME.test(name)) throw new ReMcpError('invalid-argument', 'not a set name');
    let read: { bytes: Uint8Array };
    try {
      read = await readBounded(workspace, setPath(name));
    } catch (error) {
      if (error instanceof ReMcpError && error.code === 'not-found')
        throw new ReMcpError('not-found', `no signature set ${name} (build or import it first)`);
      throw error;
    }
    const sha256 = createHash('sha256').update(read.bytes).digest('hex');
    const had = this.sets.get(name);
    this.sets.delete(name);
    if (had !== undefined && had.sha256 === sha256) {
      this.sets.set(name, had);
      return had.set;
    }
    const set = await decodeFile(read.bytes, setPath(name), signal);
    if (read.bytes.length > SET_CACHE_LIMITS.bytes.max) return set;
    this.sets.set(name, { sha256, bytes: read.bytes.length, set });
    let total = 0;
    for (const e of this.sets.values()) total += e.bytes;
    for (const [k, e] of this.sets) {
      if (this.sets.size <= SET_CACHE_LIMITS.sets.max && total <= SET_CACHE_LIMITS.bytes.max) break;
      if (k === name) continue;
      this.sets.delete(k);
      total -= e.bytes;
    }
    return set;
  }

  async apply(set: SignatureSet, map: ProgramMap, minCompared: number, signal?: AbortSignal) {
    let bySet = this.applied.get(map);
    if (bySet === undefined) {
      bySet = new WeakMap();
      this.applied.set(map, bySet);
    }
    let byMin = bySet.get(set);
    if (byMin === undefined) {
      byMin = new Map();
      bySet.set(set, byMin);
    }
    const had = byMin.get(minCompared);
    if (had !== undefined) return had;
    const r = await applySignatureSet(set, map, minCompared, signal);
    byMin.set(minCompared, r);
    return r;
  }
}

const SET_CACHE = serviceKey<SetCache>('signature-sets');
const setCache = (services: Services) => services.lazy(SET_CACHE, () => new SetCache());

/** Set `name` read back from its file (decoded again only when the file's content changed). */
export function readSignatureSet(
  services: Services,
  name: string,
  signal?: AbortSignal,
): Promise<SignatureSet> {
  return setCache(services).read(services.workspace, name, signal);
}

/**
 * Set applied to a processor's map (built by the caller), once per set, map and minimum: the same
 * objects give the same application. The result is shared: callers never change it.
 */
export function appliedSignatureSet(
  services: Services,
  set: SignatureSet,
  map: ProgramMap,
  minCompared: number,
  signal?: AbortSignal,
): Promise<AppliedSet> {
  return setCache(services).apply(set, map, minCompared, signal);
}

async function decodeFile(bytes: Uint8Array, path: string, signal?: AbortSignal): Promise<SignatureSet> {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  try {
    return await driveSteps(decodeSetSteps(text), drive(signal, `reading ${path}`));
  } catch (error) {
    if (error instanceof ReMcpError && error.code === 'invalid-argument')
      throw new ReMcpError('invalid-argument', `${path}: ${error.message}`);
    throw error;
  }
}

/** A set file from anywhere in the workspace, checked whole, then stored under its own name. */
export async function importSignatureSet(
  workspace: Workspace,
  file: string,
  signal?: AbortSignal,
): Promise<{ set: SignatureSet; path: string; bytes: number }> {
  const { path, bytes } = await readBounded(workspace, file);
  const set = await decodeFile(bytes, path, signal);
  return { set, ...(await writeSet(workspace, set, signal)) };
}

export interface AppliedSet {
  proposals: (Proposal & { overlayId: number | null })[];
  counts: ApplyCounts;
  /** The program's functions no proposal is at, and the names of the set's functions none names. */
  unmatched: {
    functions: { address: number; overlayId: number | null }[];
    items: string[];
  };
}

/** Set applied to a processor's map (built by the caller). */
async function applySignatureSet(
  set: SignatureSet,
  map: ProgramMap,
  minCompared: number,
  signal?: AbortSignal,
): Promise<AppliedSet> {
  const fns = programFunctions(map);
  const overlay = new Map(map.functions.map((f) => [f.key, f.component.overlayId]));
  const component = new Map(map.functions.map((f) => [f.key, f.component]));
  // A data label is in its user's overlay only when it lies in that overlay's extent.
  const overlayOf = (p: Proposal) => {
    if (p.mode !== 'data') return overlay.get(p.key) ?? null;
    const c = component.get(p.key);
    return c !== undefined && p.address >= c.start && p.address < c.extentEnd ? c.overlayId : null;
  };
  const r = await driveSteps(
    applySteps(set, fns, programMemory(map), minCompared),
    drive(signal, `applying signature set ${set.name}`),
  );
  return {
    counts: r.counts,
    proposals: r.proposals.map((p) => ({ ...p, overlayId: overlayOf(p) })),
    unmatched: {
      functions: r.unmatched.functions.map((f) => ({
        address: f.address,
        overlayId: overlay.get(f.key) ?? null,
      })),
      items: r.unmatched.items.map((i) => set.items[i]!.names[0]!),
    },
  };
}

/** Accepted proposals into the ROM's symbol store (source `signature`). */
export async function acceptProposals(
  services: Services,
  rom: RomHandle,
  processor: Processor,
  set: SignatureSet,
  accepted: readonly (Proposal & { overlayId: number | null })[],
  replace: boolean,
  signal?: AbortSignal,
): Promise<ImportResult> {
  const incoming: RawSymbol[] = accepted
    .filter((p) => p.name !== null)
    .map((p, i) => ({
      address: p.address,
      name: p.name!,
      mode: p.mode,
      size: p.candidates[0]?.size ?? null,
      comment:
        `signature set ${set.name}: ${p.candidates[0]?.origin ?? ''}, ${p.tier}, score ${p.score}`.slice(
          0,
          200,
        ),
      processor,
      overlayId: p.overlayId,
      line: i + 1,
    }));
  const store = getSymbolStore(services);
  return store.update(
    rom,
    (symbols) => mergeSymbols(rom, symbols, incoming, { processor, source: 'signature', replace }),
    signal,
  );
}

/** Sets listed at once. */
export const SETS_LISTED = { max: 1000, unit: 'sets' } as const;

/** The sets stored in the workspace: name, path, bytes (by name; at most SETS_LISTED). */
export async function listSignatureSets(
  workspace: Workspace,
): Promise<{ sets: { name: string; path: string; bytes: number }[]; more: boolean }> {
  const dir = await workspace.outputDir('analysis/generated', [AREA]);
  try {
    const { sizes, more } = await dir.fileSizes(SETS_LISTED.max * 2);
    const sets = [...sizes]
      .filter(([n]) => n.endsWith('.json') && SET_NAME.test(n.slice(0, -5)))
      .map(([n, bytes]) => ({ name: n.slice(0, -5), path: setPath(n.slice(0, -5)), bytes }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { sets: sets.slice(0, SETS_LISTED.max), more: more || sets.length > SETS_LISTED.max };
  } finally {
    await dir.close();
  }
}

/**
 * Builds set `name` from a ROM whose symbol store names functions of `processor` (each named function
 * of its map, from its entry to where its code ends) and writes it: names carried to another build.
 */
export async function buildSignatureSetFromRom(
  services: Services,
  rom: RomHandle,
  romPath: string,
  map: ProgramMap,
  name: string,
  signal?: AbortSignal,
): Promise<BuiltSet & { path: string; bytes: number }> {
  if (!SET_NAME.test(name))
    throw new ReMcpError(
      'invalid-argument',
      'a set name is 1-64 letters, digits, ., _ or - (first a letter or digit)',
    );
  const table = await getSymbolStore(services).table(rom);
  const names = table.symbols
    .filter((s) => s.processor === map.processor)
    .map((s) => ({ address: s.address, name: s.name, overlayId: s.overlayId, mode: s.mode, size: s.size }));
  const file = romPath.slice(romPath.lastIndexOf('/') + 1);
  const r = await driveSteps(romItemSteps(map, names, file), drive(signal, `building signature set ${name}`));
  if (r.items.length === 0)
    throw new ReMcpError(
      'invalid-argument',
      `no stored name of ${map.processor} names a function of the map: nothing to make signatures of`,
    );
  const set: SignatureSet = {
    name,
    sources: [{ kind: 'rom', path: romPath, sha256: rom.identity.sha256 }],
    items: r.items,
  };
  const written = await writeSet(services.workspace, set, signal);
  return {
    set,
    inputs: [{ path: romPath, kind: 'rom', members: 1, items: r.items.length }],
    skipped: r.skipped.slice(0, 200),
    skippedMore: Math.max(0, r.skipped.length - 200),
    duplicates: 0,
    ...written,
  };
}
