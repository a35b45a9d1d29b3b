// RomStore: the service that turns a workspace path into a validated NDS model, identified by SHA-256
// and size. Identity is cached per file and keyed by (dev, ino, size, mtimeNs, ctimeNs): an unchanged
// file is never rehashed, any change triggers a rehash. Models are cached by SHA-256, so a touched but
// identical file reuses its model. Operations run through withRom(), which re-checks the identity
// after the work: a ROM modified meanwhile fails the operation with 'rom-changed', whatever the work
// itself returned or threw.
// The file is opened through Workspace.openFile, which proves the handle is the checked regular file
// (no symlink or FIFO swapped in between the check and the open). The identity hash, the model and
// every read of the operation go through that handle. withRom() ends the operation's use of it; the
// handle is then kept open for a while (kept-rom-files.ts) and a later operation on the same path
// reuses it while the path still names that unchanged file.
import { fstatSync, readSync, statSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { isReMcpError, ReMcpError } from '../core/errors.js';
import type { ByteSource } from '../formats/nds/index.js';
import { type NdsRomModel, parseNdsRom } from '../formats/nds/index.js';
import { type Services, serviceKey } from '../services.js';
import { sha256File } from '../workspace/hash.js';
import type { ResolvedPath, Workspace } from '../workspace/workspace.js';
import { DecodedImageCache } from './decoded-images.js';
import { type FileKey, type KeptFile, KeptRomFiles } from './kept-rom-files.js';
import type { RomHandle, RomIdentity } from './rom-handle.js';

export type { RomHandle, RomIdentity };

type StatKey = FileKey;

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

/**
 * The stat key of what `file` names now: a path (followed) or the open handle itself. One stat call,
 * made synchronously: a stat of a local file costs microseconds, a trip through the thread pool
 * several times that, and a warm answer makes a few of them.
 */
async function statKey(file: string | FileHandle): Promise<StatKey> {
  try {
    const s =
      typeof file === 'string' ? statSync(file, { bigint: true }) : fstatSync(file.fd, { bigint: true });
    return { dev: s.dev, ino: s.ino, size: s.size, mtimeNs: s.mtimeNs, ctimeNs: s.ctimeNs };
  } catch {
    throw new ReMcpError('rom-changed', 'the ROM disappeared while it was in use');
  }
}

function checkRange(offset: number, length: number, fileSize: number): void {
  if (
    !Number.isSafeInteger(offset) ||
    !Number.isSafeInteger(length) ||
    offset < 0 ||
    length < 0 ||
    (length > 0 && offset + length > fileSize)
  ) {
    throw new ReMcpError('invalid-argument', 'requested ROM bytes lie outside the file', { offset, length });
  }
}

function readRange(fd: number, offset: number, length: number, fileSize: number): Uint8Array {
  checkRange(offset, length, fileSize);
  // A zero-length range holds no bytes, wherever it points (the model keeps such FAT entries of short
  // dumps, which may lie past the physical end).
  if (length === 0) return new Uint8Array(0);
  return readAt(fd, offset, length);
}

function readAt(fd: number, offset: number, length: number): Uint8Array {
  return readAtInto(fd, offset, new Uint8Array(length));
}

function readAtInto(fd: number, offset: number, out: Uint8Array): Uint8Array {
  const length = out.length;
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
  private readonly files = new KeptRomFiles();

  constructor(private readonly workspace: Workspace) {}

  /** Resolves, identifies and parses a ROM; throws 'invalid-rom' for a file that is not a usable NDS image. */
  /**
   * Resolves, opens (a handle proven to be the checked regular file), identifies and parses a ROM;
   * throws 'invalid-rom' for a file that is not a usable NDS image. The caller closes the result
   * (withRom does).
   */
  async openRom(rel: string, signal?: AbortSignal, onProgress?: HashProgress): Promise<RomHandle> {
    const lexical = this.workspace.lexicalPath(rel);
    const warm = await this.reopen(lexical);
    if (warm) return warm;
    const { resolved, handle: file } = await this.workspace.openFile(rel);
    const absolute = resolved.absolute;
    let handed = false;
    try {
      const { key, identity } = await this.identify(absolute, file, signal, onProgress);
      const model = this.modelFor(file.fd, identity);
      // The model was read after hashing: if the file changed underneath, or the path no longer names
      // it, neither is trusted.
      const [byHandle, byPath] = await Promise.all([statKey(file), statKey(absolute)]);
      if (!sameKey(key, byHandle) || !sameKey(key, byPath)) {
        this.identities.delete(absolute);
        throw new ReMcpError('rom-changed', 'the ROM changed while it was being read', {
          path: resolved.relative,
        });
      }
      if (model instanceof ReMcpError) throw model;
      const opened = { resolved, file, key };
      const kept = this.files.keep(lexical, opened);
      const close = kept ? () => this.files.release(kept) : () => file.close();
      const handle = this.handleOf(opened, identity, model, close);
      handed = true;
      return handle;
    } finally {
      if (!handed) await file.close();
    }
  }

  /**
   * The ROM through the handle kept from an earlier operation, when the caller's path still names
   * that unchanged file and its identity and model are known (kept-rom-files.ts); else null.
   */
  private async reopen(lexical: string): Promise<RomHandle | null> {
    const kept = await this.files.take(lexical, async (k) => {
      const [named, opened] = await Promise.all([statKey(lexical), statKey(k.file)]);
      return sameKey(named, k.key) && sameKey(opened, k.key);
    });
    if (!kept) return null;
    const known = this.identities.get(kept.resolved.absolute);
    const model = known && sameKey(known.key, kept.key) ? this.modelFor(kept.file.fd, known.identity) : null;
    if (!known || model === null || model instanceof ReMcpError) {
      this.files.forget(lexical);
      await this.files.release(kept);
      return null;
    }
    return this.handleOf(kept, known.identity, model, () => this.files.release(kept));
  }

  /** The operation's view of an open, identified ROM; `release` ends its use of the file. */
  private handleOf(
    opened: KeptFile,
    identity: RomIdentity,
    model: NdsRomModel,
    release: () => Promise<void>,
  ): RomHandle {
    const { file, key, resolved } = opened;
    let closed = false;
    return {
      path: resolved.relative,
      absolute: resolved.absolute,
      identity,
      model,
      verifyUnchanged: (s) => this.verify(file, key, resolved, identity, s),
      unmodifiedSinceIdentified: async () => sameKey(key, await statKey(file)),
      readBytes: (offset, length) => {
        // A closed descriptor number may already name another file: never read through it.
        if (closed) throw new ReMcpError('internal-error', 'the ROM handle is closed');
        return readRange(file.fd, offset, length, identity.size);
      },
      readChunk: async (into, position) => {
        if (closed) throw new ReMcpError('internal-error', 'the ROM handle is closed');
        let done = 0;
        // Bounded: every pass reads at least one byte or stops at the end of the file.
        while (done < into.length) {
          const { bytesRead } = await file.read(into, done, into.length - done, position + done);
          if (bytesRead === 0) break;
          done += bytesRead;
        }
        return done;
      },
      close: async () => {
        if (closed) return;
        closed = true;
        await release();
      },
    };
  }

  /** Runs `fn` on an identified ROM and re-verifies the identity afterwards (also when `fn` throws). */
  async withRom<T>(
    rel: string,
    fn: (rom: RomHandle) => Promise<T> | T,
    signal?: AbortSignal,
    onProgress?: HashProgress,
  ): Promise<T> {
    const rom = await this.openRom(rel, signal, onProgress);
    try {
      let result: T;
      try {
        result = await fn(rom);
      } catch (error) {
        await rom.verifyUnchanged(signal);
        throw error;
      }
      await rom.verifyUnchanged(signal);
      return result;
    } finally {
      await rom.close();
    }
  }

  /** Identifies the file open as `file` (remembered under its real path `absolute`). */
  private async identify(
    absolute: string,
    file: FileHandle,
    signal?: AbortSignal,
    onProgress?: HashProgress,
  ): Promise<{ key: StatKey; identity: RomIdentity }> {
    const key = await statKey(file);
    const cached = this.identities.get(absolute);
    if (cached && sameKey(cached.key, key)) return cached;
    const { sha256, size } = await sha256File(file, {
      ...(signal ? { signal } : {}),
      ...(onProgress ? { onProgress } : {}),
    });
    if (!sameKey(key, await statKey(file))) {
      throw new ReMcpError('rom-changed', 'the ROM changed while it was being hashed');
    }
    const entry = { key, identity: { sha256, size } };
    this.identities.delete(absolute);
    this.identities.set(absolute, entry);
    if (this.identities.size > MAX_CACHED_IDENTITIES)
      this.identities.delete(this.identities.keys().next().value!);
    return entry;
  }

  private modelFor(fd: number, identity: RomIdentity): NdsRomModel | ReMcpError {
    const id = `${identity.sha256}:${identity.size}`;
    const cached = this.models.get(id);
    if (cached) {
      // Refresh LRU position.
      this.models.delete(id);
      this.models.set(id, cached);
      return cached;
    }
    let result: NdsRomModel | ReMcpError;
    try {
      const source: ByteSource = {
        size: identity.size,
        read: (offset, length) => readAt(fd, offset, length),
      };
      result = parseNdsRom(source);
    } catch (error) {
      if (!isReMcpError(error)) throw error;
      result = error; // a refusal is a property of these bytes: cache it like a model
    }
    this.models.set(id, result);
    if (this.models.size > MAX_CACHED_MODELS) this.models.delete(this.models.keys().next().value!);
    return result;
  }

  /**
   * The bytes read through `file` are still `identity`, and the ROM's path still holds them: a stat
   * change of either is settled by the bytes alone (a rewrite with equal bytes passes). A path that
   * no longer opens as the checked regular file fails with 'rom-changed'.
   */
  private async verify(
    file: FileHandle,
    openedKey: StatKey,
    resolved: ResolvedPath,
    identity: RomIdentity,
    signal?: AbortSignal,
  ): Promise<void> {
    const { absolute, relative: rel } = resolved;
    const changed = (actualSha256: string | null) =>
      new ReMcpError('rom-changed', `the ROM changed on disk during the operation: ${rel}`, {
        path: rel,
        expectedSha256: identity.sha256,
        actualSha256,
      });
    const same = (now: { identity: RomIdentity }) =>
      now.identity.sha256 === identity.sha256 && now.identity.size === identity.size;
    const current = await statKey(file);
    if (!sameKey(current, openedKey)) {
      const now = await this.identify(absolute, file, signal);
      if (!same(now)) throw changed(now.identity.sha256);
    }
    const named = await statKey(absolute);
    if (named.dev === current.dev && named.ino === current.ino) return;
    // The path names another file now: open it as the checked regular file; only its bytes decide.
    let other: FileHandle;
    try {
      other = await this.workspace.openResolved(resolved);
    } catch (error) {
      if (isReMcpError(error)) throw changed(null);
      throw error;
    }
    try {
      const now = await this.identify(absolute, other, signal);
      if (!same(now)) throw changed(now.identity.sha256);
    } finally {
      await other.close();
    }
  }
}

const ROM_STORE = serviceKey<RomStore>('roms');

export function getRomStore(services: Services): RomStore {
  return services.lazy(ROM_STORE, () => new RomStore(services.workspace));
}
