// Paths of the shared, read-only test inputs. CI places `shared/` beside the clone, so it is found at
// <repo root>/../shared; tests read from there and never copy the files into the repository.
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
export const SHARED_DIR = resolve(REPO_ROOT, '..', 'shared');
export const SHARED_ROMS_DIR = join(SHARED_DIR, 'roms');
export const SHARED_BLZ_DIR = join(SHARED_DIR, 'blz');
export const SHARED_BLZ_INPUTS_DIR = join(SHARED_BLZ_DIR, 'in');

/** The NDS ROM that is known to be invalid (a flash-cart patched build with a garbage header). */
export const INVALID_SHARED_ROM = 'dslua-supercard-patched.sc.nds';

/** Names of every `.nds` file in ../shared/roms, sorted. */
export function sharedRomNames(): string[] {
  return readdirSync(SHARED_ROMS_DIR)
    .filter((name) => name.endsWith('.nds'))
    .sort();
}

export function sharedRomPath(name: string): string {
  return join(SHARED_ROMS_DIR, name);
}

export function sharedBlzInputPath(name: string): string {
  return join(SHARED_BLZ_INPUTS_DIR, name);
}
