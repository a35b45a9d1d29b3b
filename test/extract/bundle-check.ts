// Independent completeness check of a bundle directory: the manifest parses, every file it lists is
// present with the listed size and SHA-256, and no other bundle file exists (components/ aside).
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { sha256 } from './fixture.js';

export const REQUIRED = [
  'manifest.json',
  'address-map.json',
  'filesystem.json',
  'overlays.json',
  'arm9.bin',
  'arm7.bin',
];

export async function checkCompleteBundle(dir: string, sourceSha256: string): Promise<{ bundleId: string }> {
  const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
  assert.equal(manifest.format, 're-mcp-nds-analysis-bundle');
  assert.equal(manifest.source.sha256, sourceSha256);
  const listed = new Set<string>(['manifest.json']);
  for (const f of manifest.files as Array<{ path: string; size: number; sha256: string }>) {
    const data = await readFile(join(dir, f.path));
    assert.equal(data.length, f.size, f.path);
    assert.equal(sha256(data), f.sha256, f.path);
    listed.add(f.path);
  }
  for (const name of REQUIRED) assert.ok(listed.has(name), `manifest lists ${name}`);
  const onDisk = (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .filter((p) => !p.startsWith('components/'));
  assert.deepEqual(onDisk.sort(), [...listed].sort(), 'exactly the manifest files are present');
  return { bundleId: manifest.bundleId };
}
