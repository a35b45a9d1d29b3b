// Builds the bundled demo ROM (examples/demo-workspace/roms/demo.nds) from the test kit's real
// compiled ARM code: ARM9 + ARM7 programs, a small NitroFS tree, one plain and one BLZ-compressed
// overlay. Deterministic: a test checks the committed file equals a fresh build.
//   node --import tsx scripts/make-demo-rom.ts [output path]
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadArmProgram } from '../test/kit/arm/index.js';
import { buildRom, type RomSpec } from '../test/kit/rom-builder.js';

export const DEMO_ROM_PATH = join(
  import.meta.dirname,
  '..',
  'examples',
  'demo-workspace',
  'roms',
  'demo.nds',
);

export function demoRomSpec(): RomSpec {
  const arm9 = loadArmProgram('arm9-analysis');
  const arm7 = loadArmProgram('arm7-analysis');
  const text = (s: string) => new TextEncoder().encode(s);
  // A compressible overlay: the ARM9 code repeated, so BLZ finds matches.
  const repeated = new Uint8Array(arm9.bytes.length * 8);
  for (let i = 0; i < 8; i++) repeated.set(arm9.bytes, i * arm9.bytes.length);
  return {
    title: 'RE-MCP DEMO',
    gameCode: 'RDMO',
    makerCode: '01',
    arm9: { code: arm9.bytes, ramAddress: arm9.loadAddress, entry: arm9.entry },
    arm7: { code: arm7.bytes, ramAddress: arm7.loadAddress, entry: arm7.entry },
    files: [
      { path: 'data/readme.txt', data: text('Hello from the re-mcp demo ROM.\n') },
      { path: 'data/levels/level1.bin', data: new Uint8Array(64).fill(1) },
      { path: 'data/levels/level2.bin', data: new Uint8Array(64).fill(2) },
      { path: 'sound/empty.sdat', data: new Uint8Array(0) },
    ],
    arm9Overlays: [
      { id: 0, ramAddress: 0x02100000, data: arm9.bytes, bssSize: 0x40 },
      { id: 1, ramAddress: 0x02100000, data: repeated, compress: true },
    ],
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = process.argv[2] ?? DEMO_ROM_PATH;
  const { bytes } = buildRom(demoRomSpec());
  writeFileSync(out, bytes);
  process.stderr.write(`wrote ${bytes.length} bytes to ${out}\n`);
}
