// The real-data corpora some tests read, each from one setting (never a path outside the repository
// guessed by the tests):
// - RE_MCP_TEST_ROMS: the folder of real homebrew .nds ROMs (the project's CI sets it);
// - RE_MCP_TEST_BLZ: the folder of third-party golden BLZ encodings (in/, cue-greedy/, cue-optimal/).
// Unset, the tests that need a corpus are skipped with that reason (the runner prints one line for
// each); set to a folder that does not exist, they fail. Tests read the files in place, never copy
// them into the repository.
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');

function corpus(variable: string): string | null {
  const value = process.env[variable];
  if (value === undefined || value === '') return null;
  const dir = resolve(value);
  if (!existsSync(dir))
    throw new Error(`${variable}=${value}: no such folder (unset it to skip those tests)`);
  return dir;
}

const ROMS_DIR = corpus('RE_MCP_TEST_ROMS');
const BLZ_DIR = corpus('RE_MCP_TEST_BLZ');

/** The skip reason when the ROM corpus is not configured, else false (for node:test's `skip`). */
export const NO_ROMS: string | false =
  ROMS_DIR === null ? 'RE_MCP_TEST_ROMS is not set (the real-ROM corpus folder)' : false;
/** The skip reason when the golden BLZ corpus is not configured, else false. */
export const NO_BLZ: string | false =
  BLZ_DIR === null ? 'RE_MCP_TEST_BLZ is not set (the golden BLZ corpus folder)' : false;

/** The NDS ROM of the corpus that is known to be invalid (a flash-cart patched build with a garbage header). */
export const INVALID_SHARED_ROM = 'dslua-supercard-patched.sc.nds';

/** Names of every `.nds` file in the ROM corpus, sorted; none when it is not configured. */
export function sharedRomNames(): string[] {
  if (ROMS_DIR === null) return [];
  return readdirSync(ROMS_DIR)
    .filter((name) => name.endsWith('.nds'))
    .sort();
}

export function sharedRomPath(name: string): string {
  if (ROMS_DIR === null) throw new Error(`${NO_ROMS}: ${name} is not available`);
  return join(ROMS_DIR, name);
}

/** The golden BLZ corpus folder (in/, cue-greedy/, cue-optimal/). */
export function sharedBlzDir(): string {
  if (BLZ_DIR === null) throw new Error(`${NO_BLZ}`);
  return BLZ_DIR;
}
