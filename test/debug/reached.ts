// The modules a file reaches through its relative imports (static, type-only and dynamic alike),
// repo-relative: what the backend seam tests check a backend's folder does not reach.
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { REPO_ROOT } from '../kit/mcp-harness.js';

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g;

export function reachedModules(entry: string): string[] {
  const seen = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      if (spec!.startsWith('.')) pending.push(resolve(dirname(file), spec!.replace(/\.js$/, '.ts')));
    }
  }
  return [...seen].map((f) => relative(REPO_ROOT, f));
}
