// RomStore: the service that turns a workspace path into a validated NDS model, identified by SHA-256
// and size. Identity is cached per file and keyed by (dev, ino, size, mtimeNs, ctimeNs): an unchanged
// file is never rehashed, any change triggers a rehash. Models are cached by SHA-256, so a touched but
// identical file reuses its model. Operations run through withRom(), which re-checks the identity
// after the work: a ROM modified meanwhile fails the operation with 'rom-changed', whatever the work
// itself returned or threw.
import { closeSync, openSync, readSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { isReMcpError, ReMcpError } from '../core/errors.js';
import type { ByteSource } from '../formats/nds/index.js';
import { type NdsRomModel, parseNdsRom } from '../formats/nds/index.js';
import type { Services } from '../services.js';
import { sha256File } from '../workspace/hash.js';
import type { Workspace } from '../workspace/workspace.js';
import { DecodedImageCache } from './decoded-images.js';

export interface RomIdentity {
  sha256: string;
  size: number;
}

interface StatKey {
  dev: bigint;
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
}

export interface RomHandle {
  /** Workspace-relative path as resolved on disk. */
  path: string;
  absolute: string;
  identity: RomIdentity;
  model: NdsRomModel;
  /** Re-stats the file (cheap); rehashes only when the stat changed; throws 'rom-changed' if the bytes did. */
  verifyUnchanged(signal?: AbortSignal): Promise<void>;
  /** Reads physical ROM bytes (bounds-checked). Callers verify identity afterwards (withRom does). */
  readBytes(offset: number, length: number): Uint8Array;
}

/** Models kept in memory at once; each is small (tables only), a few hundred KiB for big ROMs. */
const MAX_CACHED_MODELS = 16;
/** Files whose identity is remembered (stat key -> SHA-256); the oldest is forgotten beyond this. */
const MAX_CACHED_IDENTITIES = 256;

/** Hashing progress of a cold open: bytes hashed so far and the file size. */
export type HashProgress = (done: number, total: number) => void;

function sameKey(a: StatKey, b: StatKey): boolean {
  return (
    a.dev === b.dev &&
    a.ino === b.ino &&
    a.size === b.size &&
    a.mtimeNs === b.mtimeNs &&
    a.ctimeNs === b.ctimeNs
  );
}

async function statKey(absolute: string): Promise<StatKey> {
  try {
    const s = await stat(absolute, { bigint: true });
    return { dev: s.dev, ino: s.ino, size: s.size, mtimeNs: s.mtimeNs, ctimeNs: s.ctimeNs };
  } catch {
    throw new ReMcpError('rom-changed', 'the ROM disappeared while it was in use');
  }
}

function readRange(absolute: string, offset: number, length: number, fileSize: number): Uint8Array {
  if (
    !Number.isSafeInteger(offset) ||
    !Number.isSafeInteger(length) ||
    offset < 0 ||
    length < 0 ||
    (length > 0 && offset + length > fileSize)
  ) {
    throw new ReMcpError('invalid-argument', 'requested ROM bytes lie outside the file', { offset, length });
  }
  // A zero-length range holds no bytes, wherever it points (the model keeps such FAT entries of short
  // dumps, which may lie past the physical end).
  if (length === 0) return new Uint8Array(0);
  const fd = openSync(absolute, 'r');
  try {
    return readAt(fd, offset, length);
  } finally {
    closeSync(fd);
  }
}

function readAt(fd: number, offset: number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  let done = 0;
  // Bounded: each pass reads at least one byte or stops at end of file.
  while (done < length) {
    const n = readSync(fd, out, done, length - done, offset + done);
    if (n === 0) break;
    done += n;
  }
  return done === length ? out : out.subarray(0, done);
}

export class RomStore {
  private readonly identities = new Map<string, { key: StatKey; identity: RomIdentity }>();
  private readonly models = new Map<string, NdsRomModel | ReMcpError>();
  readonly decoded = new DecodedImageCache();

  constructor(private readonly workspace: Workspace) {}

  /** Resolves, identifies and parses a ROM; throws 'invalid-rom' for a file that is not a usable NDS image. */
  async openRom(rel: string, signal?: AbortSignal, onProgress?: HashProgress): Promise<RomHandle> {
    const resolved = await this.workspace.resolveExisting(rel, 'file');
    const absolute = resolved.absolute;
    const { key, identity } = await this.identify(absolute, signal, onProgress);
    const model = this.modelFor(absolute, identity);
    // The model was read from the file after hashing: if the file moved underneath, neither is trusted.
    if (!sameKey(key, await statKey(absolute))) {
      this.identities.delete(absolute);
      throw new ReMcpError('rom-changed', 'the ROM changed while it was being read', {
        path: resolved.relative,
      });
    }
    if (model instanceof ReMcpError) throw model;
    const handle: RomHandle = {
      path: resolved.relative,
      absolute,
      identity,
      model,
      verifyUnchanged: (s) => this.verify(absolute, identity, resolved.relative, s),
      readBytes: (offset, length) => readRange(absolute, offset, length, identity.size),
    };
    return handle;
  }

  /** Runs `fn` on an identified ROM and re-verifies the identity afterwards (also when `fn` throws). */
  async withRom<T>(
    rel: string,
    fn: (rom: RomHandle) => Promise<T> | T,
    signal?: AbortSignal,
    onProgress?: HashProgress,
  ): Promise<T> {
    const rom = await this.openRom(rel, signal, onProgress);
    let result: T;
    try {
      result = await fn(rom);
    } catch (error) {
      await rom.verifyUnchanged(signal);
      throw error;
    }
    await rom.verifyUnchanged(signal);
    return result;
  }

  private async identify(
    absolute: string,
    signal?: AbortSignal,
    onProgress?: HashProgress,
  ): Promise<{ key: StatKey; identity: RomIdentity }> {
    const key = await statKey(absolute);
    const cached = this.identities.get(absolute);
    if (cached && sameKey(cached.key, key)) return cached;
    const { sha256, size } = await sha256File(absolute, {
      ...(signal ? { signal } : {}),
      ...(onProgress ? { onProgress } : {}),
    });
    if (!sameKey(key, await statKey(absolute))) {
      throw new ReMcpError('rom-changed', 'the ROM changed while it was being hashed');
    }
    const entry = { key, identity: { sha256, size } };
    this.identities.delete(absolute);
    this.identities.set(absolute, entry);
    if (this.identities.size > MAX_CACHED_IDENTITIES)
      this.identities.delete(this.identities.keys().next().value!);
    return entry;
  }

  private modelFor(absolute: string, identity: RomIdentity): NdsRomModel | ReMcpError {
    const id = `${identity.sha256}:${identity.size}`;
    const cached = this.models.get(id);
    if (cached) {
      // Refresh LRU position.
      this.models.delete(id);
      this.models.set(id, cached);
      return cached;
    }
    let result: NdsRomModel | ReMcpError;
    const fd = openSync(absolute, 'r');
    try {
      const source: ByteSource = {
        size: identity.size,
        read: (offset, length) => readAt(fd, offset, length),
      };
      result = parseNdsRom(source);
    } catch (error) {
      if (!isReMcpError(error)) throw error;
      result = error; // a refusal is a property of these bytes: cache it like a model
    } finally {
      closeSync(fd);
    }
    this.models.set(id, result);
    if (this.models.size > MAX_CACHED_MODELS) this.models.delete(this.models.keys().next().value!);
    return result;
  }

  private async verify(
    absolute: string,
    identity: RomIdentity,
    rel: string,
    signal?: AbortSignal,
  ): Promise<void> {
    const key = await statKey(absolute);
    const cached = this.identities.get(absolute);
    if (cached && sameKey(cached.key, key) && cached.identity.sha256 === identity.sha256) return;
    // The stat changed (or another call re-identified the file): only the bytes decide.
    const now = await this.identify(absolute, signal);
    if (now.identity.sha256 !== identity.sha256 || now.identity.size !== identity.size) {
      throw new ReMcpError('rom-changed', `the ROM changed on disk during the operation: ${rel}`, {
        path: rel,
        expectedSha256: identity.sha256,
        actualSha256: now.identity.sha256,
      });
    }
  }
}

export function getRomStore(services: Services): RomStore {
  return services.lazy('roms', () => new RomStore(services.workspace));
}
