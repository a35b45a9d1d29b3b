// The kit's program whose start-up copies code elsewhere, as the run-address tests share it: the
// realistic ARM9 (its crt0 copies .itcm from main RAM into ITCM) and ARM7 in one ROM, each entered at
// its load address; itcm_fast_copy, an ITCM function, with its run address (fn.address) and the
// address where the ROM stores its bytes (stored) and their ROM offset; a fresh workspace holding the
// ROM as roms/program.nds with tools called in-process; and GNU as + ld's bytes for a source linked
// to run at an address, the reference a patch's assembly is compared with.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after } from 'node:test';
import { loadConfig } from '../../src/config/config.js';
import { formatAddress } from '../../src/core/vocabulary.js';
import { Services } from '../../src/services.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { loadProgramTruth, truthFunction } from './arm/index.js';
import { inProcess } from './in-process.js';
import { makeWorkspace } from './mcp-harness.js';
import { buildRom } from './rom-builder.js';

export const a9 = loadProgramTruth('arm9-program');
export const a7 = loadProgramTruth('arm7-program');
/** The ROM and its layout (where each part is stored). */
export const built = buildRom({
  arm9: { code: a9.bytes, ramAddress: a9.loadAddress, entry: a9.loadAddress },
  arm7: { code: a7.bytes, ramAddress: a7.loadAddress, entry: a7.loadAddress },
});
export const itcm = a9.sections.find((s) => s.name === '.itcm')!;
/** itcm_fast_copy: its address is where it runs (ITCM). */
export const fn = truthFunction(a9, 'itcm_fast_copy');
/** Where the ROM stores the function's bytes (main RAM, before the copy). */
export const stored = itcm.lma + (fn.address - itcm.vma);
/** The ROM offset of those bytes. */
export const romOffset = built.layout.arm9.rom.start + (stored - a9.loadAddress);

/**
 * A fresh workspace holding the ROM as roms/program.nds (removed after the file's tests), its
 * services, and `tools` called in-process with that ROM by default.
 */
export async function itcmWorkspace(prefix: string, tools: readonly unknown[]) {
  const root = await makeWorkspace(prefix);
  after(() => rm(root, { recursive: true, force: true }));
  await mkdir(join(root, 'roms'));
  await writeFile(join(root, 'roms/program.nds'), built.bytes);
  const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
  return { root, services, ...inProcess(tools, services, { rom: 'roms/program.nds' }) };
}

/** GNU as + ld: ARM `source` linked to run at `address`, as hex bytes (work files under `dir`). */
export function gnuAt(dir: string, address: number, source: string): string {
  const at = join(dir, `gnu-${address.toString(16)}`);
  mkdirSync(at, { recursive: true });
  writeFileSync(join(at, 'p.s'), `.arm\n.global _start\n_start:\n${source}\n`);
  execFileSync('arm-none-eabi-as', ['-march=armv5te', '-o', join(at, 'p.o'), join(at, 'p.s')]);
  execFileSync('arm-none-eabi-ld', [
    `-Ttext=${formatAddress(address)}`,
    '-o',
    join(at, 'p.elf'),
    join(at, 'p.o'),
  ]);
  execFileSync('arm-none-eabi-objcopy', ['-O', 'binary', join(at, 'p.elf'), join(at, 'p.bin')]);
  return readFileSync(join(at, 'p.bin')).toString('hex');
}
