// A synthetic ROM with every kind of component the extraction tools name, written into a fresh
// workspace; the builder's layout is the ground truth for what each artifact must hold.
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildRom, type RomLayout, type RomSpec } from '../kit/rom-builder.js';

const fill = (length: number, byte: number) => new Uint8Array(length).fill(byte);

export const extractSpec: RomSpec = {
  title: 'EXTRACTTEST',
  arm9: { code: fill(0x1000, 0x91) },
  arm7: { code: fill(0x600, 0x71) },
  arm9Overlays: [
    { id: 0, ramAddress: 0x02100000, data: fill(0x300, 0xa0) },
    { id: 2, ramAddress: 0x02100000, data: new Uint8Array(0x900).map((_, i) => i & 0x3f), compress: true },
  ],
  arm7Overlays: [{ id: 1, ramAddress: 0x03800000, data: fill(0x100, 0xb1) }],
  files: [
    { path: 'data/one.bin', data: fill(0x123, 0x01) },
    { path: 'data/sub/two.txt', data: new TextEncoder().encode('hello two') },
    { path: 'empty.bin', data: new Uint8Array(0) },
  ],
};

export interface Fixture {
  root: string;
  rel: string;
  bytes: Uint8Array;
  layout: RomLayout;
  sha256: string;
  sha16: string;
}

export const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex');

export async function writeFixture(
  root: string,
  spec: RomSpec = extractSpec,
  name = 'test.nds',
): Promise<Fixture> {
  const { bytes, layout } = buildRom(spec);
  await mkdir(join(root, 'roms'), { recursive: true });
  await writeFile(join(root, 'roms', name), bytes);
  const digest = sha256(bytes);
  return { root, rel: `roms/${name}`, bytes, layout, sha256: digest, sha16: digest.slice(0, 16) };
}

export async function fileSha(path: string): Promise<string> {
  return sha256(await readFile(path));
}
