// The folder of a ROM's generated files: analysis/generated/nds/<first 16 hex of its SHA-256>/ holds
// everything made for that ROM (extracted components, its names, its kept program maps).
import { ReMcpError } from '../core/errors.js';

/** The segments under analysis/generated of a ROM's folder: ["nds", <first 16 hex of the SHA-256>]. */
export function romDirSegments(sha256: string): string[] {
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw new ReMcpError('internal-error', 'not a SHA-256');
  return ['nds', sha256.slice(0, 16)];
}
