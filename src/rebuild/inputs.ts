// The inputs of a rebuild, read for nds_mutation_validate / _build / _verify (service.ts): the
// manifest file (bounded, strict JSON, its schema), the artifacts it names (each read once, bounded,
// hashed and checked against the manifest), and the check that they are unchanged when a build
// writes its output.
import type { FileHandle } from 'node:fs/promises';
import { driveSteps, sha256Steps } from '../core/cooperative.js';
import { ReMcpError, throwIfCancelled } from '../core/errors.js';
import { duplicateJsonKey } from '../core/json-keys.js';
import { readOpenFile } from '../core/small-file.js';
import { sha256File } from '../workspace/hash.js';
import type { Workspace } from '../workspace/workspace.js';
import { type Manifest, manifestSchema, REBUILD_LIMITS } from './manifest.js';
import type { LoadedArtifact } from './plan/index.js';

/** The manifest file's bytes, at most REBUILD_LIMITS.manifestBytes. */
async function readManifestFile(workspace: Workspace, path: string): Promise<Buffer> {
  const { resolved, handle } = await workspace.openFile(path);
  const max = REBUILD_LIMITS.manifestBytes.max;
  try {
    return await readOpenFile(handle, {
      maxBytes: max,
      label: `the manifest ${resolved.relative}`,
      tooLarge: (size) => `the manifest ${resolved.relative} is ${size} bytes, over ${max}`,
    });
  } finally {
    await handle.close();
  }
}

export async function loadManifest(workspace: Workspace, path: string): Promise<Manifest> {
  const text = await readManifestFile(workspace, path);
  let json: unknown;
  try {
    json = JSON.parse(text.toString('utf8'));
  } catch (error) {
    throw new ReMcpError('invalid-argument', `the manifest is not JSON: ${(error as Error).message}`);
  }
  // JSON.parse would keep the last of two equal keys silently: a manifest saying one thing twice is refused.
  const duplicate = duplicateJsonKey(text.toString('utf8'));
  if (duplicate !== null) {
    throw new ReMcpError(
      'invalid-argument',
      `the manifest names "${duplicate.key}" twice in ${duplicate.path === '' ? 'its top-level object' : duplicate.path}`,
      { key: duplicate.key, path: duplicate.path },
    );
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) {
    throw new ReMcpError('invalid-argument', 'the manifest does not match the schema', {
      issues: parsed.error.issues.slice(0, 20).map((i) => ({ path: i.path.join('.'), message: i.message })),
    });
  }
  return parsed.data;
}

/** Reads exactly `size` bytes from the start of `handle` (a file that shrank meanwhile is refused). */
async function readExactly(handle: FileHandle, size: number, what: string): Promise<Buffer> {
  const bytes = Buffer.allocUnsafe(size);
  let done = 0;
  while (done < size) {
    const { bytesRead } = await handle.read(bytes, done, size - done, done);
    if (bytesRead === 0) throw new ReMcpError('rom-changed', `${what} shrank while it was read`);
    done += bytesRead;
  }
  return bytes;
}

/**
 * Loads every artifact the manifest names. A file is identified by its device and inode: however
 * many paths or operations name it, it is read and hashed once, and counts once against
 * artifactTotalBytes. Hashing yields to the event loop and honours `signal`.
 */
export async function loadArtifacts(
  workspace: Workspace,
  manifest: Manifest,
  signal?: AbortSignal,
): Promise<Map<string, LoadedArtifact>> {
  const out = new Map<string, LoadedArtifact>();
  const byFile = new Map<string, LoadedArtifact>();
  let total = 0;
  for (const op of manifest.operations) {
    if (!('artifact' in op) || out.has(op.artifact)) continue;
    throwIfCancelled(signal);
    const { resolved, handle } = await workspace.openFile(op.artifact);
    try {
      const info = await handle.stat();
      const key = `${info.dev}:${info.ino}`;
      let loaded = byFile.get(key);
      if (loaded === undefined) {
        const max = REBUILD_LIMITS.artifactBytes.max;
        if (info.size > max) {
          throw new ReMcpError(
            'limit-exceeded',
            `the artifact ${resolved.relative} is ${info.size} bytes, over ${max}`,
            {
              size: info.size,
              max,
            },
          );
        }
        total += info.size;
        const totalMax = REBUILD_LIMITS.artifactTotalBytes.max;
        if (total > totalMax) {
          throw new ReMcpError(
            'limit-exceeded',
            `the manifest's distinct artifacts hold over ${totalMax} bytes (at ${resolved.relative})`,
            { max: totalMax },
          );
        }
        const bytes = await readExactly(handle, info.size, `the artifact ${resolved.relative}`);
        const sha256 = await driveSteps(sha256Steps(bytes), { signal });
        loaded = {
          path: op.artifact,
          sha256,
          bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length),
        };
        byFile.set(key, loaded);
      }
      out.set(op.artifact, loaded);
    } finally {
      await handle.close();
    }
  }
  return out;
}

/**
 * The artifacts must still be what was planned from: each distinct file is hashed again from disk,
 * streamed (nothing is held whole a second time).
 */
export async function verifyArtifacts(
  workspace: Workspace,
  manifest: Manifest,
  signal?: AbortSignal,
): Promise<void> {
  const byFile = new Map<string, string>();
  const checked = new Set<string>();
  for (const op of manifest.operations) {
    if (!('artifact' in op)) continue;
    const changed = () =>
      new ReMcpError('invalid-argument', `operation "${op.id}": the artifact changed during the build`);
    if (checked.has(`${op.artifact}\0${op.artifactSha256}`)) continue;
    const { handle } = await workspace.openFile(op.artifact).catch(() => {
      throw changed();
    });
    try {
      const info = await handle.stat();
      const key = `${info.dev}:${info.ino}`;
      let sha256 = byFile.get(key);
      if (sha256 === undefined) {
        sha256 = (await sha256File(handle, { signal })).sha256;
        byFile.set(key, sha256);
      }
      if (sha256 !== op.artifactSha256) throw changed();
    } finally {
      await handle.close();
    }
    checked.add(`${op.artifact}\0${op.artifactSha256}`);
  }
}
