// A build's identity: the engine version, the manifest as stored with the build (canonical JSON,
// addresses in the one output form) and the build ID hashed from them and the planned bytes.
import { createHash } from 'node:crypto';
import { formatAddress } from '../../core/vocabulary.js';
import type { Manifest } from '../manifest.js';
import type { PlannedOperation } from './types.js';

export const ENGINE = 're-mcp-rebuild/3';

/** Canonical JSON (sorted keys) of the manifest's content: the build identity hashes it. */
export function canonicalJson(value: unknown): string {
  const norm = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(norm);
    if (v && typeof v === 'object') {
      return Object.fromEntries(
        Object.keys(v)
          .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
          .sort()
          .map((k) => [k, norm((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  return JSON.stringify(norm(value), null, 1);
}

/** The manifest as stored with the build: addresses in the one output form. */
export function normalizeManifest(m: Manifest): unknown {
  return {
    ...m,
    operations: m.operations.map((o) =>
      o.op === 'patch'
        ? {
            ...o,
            offset: formatAddress(o.offset),
            original: o.original.toLowerCase(),
            replacement: o.replacement.toLowerCase(),
            runtimeAddress: o.runtimeAddress === undefined ? undefined : formatAddress(o.runtimeAddress),
          }
        : o,
    ),
  };
}

/** The build ID: 16 hex digits of the SHA-256 of the engine, the manifest and every planned payload's hash. */
export function buildIdOf(manifest: Manifest, planned: readonly PlannedOperation[]): string {
  const identity = canonicalJson({
    engine: ENGINE,
    manifest: normalizeManifest(manifest),
    artifacts: planned.map((p) => p.afterSha256),
  });
  return createHash('sha256').update(identity).digest('hex').slice(0, 16);
}
