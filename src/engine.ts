// Which analysis code this is, as one SHA-256: what a file the analysis wrote for itself (the kept
// program maps, analysis/program-map/map-store.ts) is checked against before it is read back, so a
// file written by other code is never trusted. It is the hash of every source file under src/ (its
// path and bytes, in path order) and of package-lock.json (the decoder and the other packages'
// versions). The build computes it once and writes it into the bundle as a literal
// (scripts/bundle.mjs defines __RE_MCP_ENGINE__); running from source computes it from the files on
// first use.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

declare const __RE_MCP_ENGINE__: string | undefined;

/** Source files hashed at most (the tree has a few hundred). */
const MAX_FILES = 20_000;

/** The engine hash of the checkout whose src/ folder is `srcDir`. */
export function engineOfSources(srcDir: string): string {
  const files: string[] = [];
  const visit = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (files.length > MAX_FILES) throw new Error(`more than ${MAX_FILES} source files under ${srcDir}`);
      const path = join(dir, e.name);
      if (e.isDirectory()) visit(path);
      else if (e.isFile() && e.name.endsWith('.ts')) files.push(path);
    }
  };
  visit(srcDir);
  files.sort();
  const hash = createHash('sha256');
  for (const path of [...files, join(srcDir, '..', 'package-lock.json')]) {
    const bytes = readFileSync(path);
    hash.update(`${relative(srcDir, path)}\0${bytes.length}\0`);
    hash.update(bytes);
  }
  return hash.digest('hex');
}

let fromSources: string | null = null;

/** This code's engine hash (see the top of this file). */
export function engineId(): string {
  if (typeof __RE_MCP_ENGINE__ === 'string') return __RE_MCP_ENGINE__;
  fromSources ??= engineOfSources(fileURLToPath(new URL('.', import.meta.url)));
  return fromSources;
}
