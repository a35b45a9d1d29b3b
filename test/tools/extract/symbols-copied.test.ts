// ELF names of code the start-up copies elsewhere: the parser gives each symbol of a section that
// loads elsewhere than it runs (its PT_LOAD segment's physical address differs from its virtual one)
// its load address beside its run address; an import files them at the run address, owned by the
// copy (`copied`), not as unmapped ITCM nor as the main program a copy runs over (the calico layout
// runs .main below where it is loaded); then the names work as addresses. Program headers that lie
// (past the end, huge counts, tiny entries) are read in bounds or not at all, never crash.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadConfig } from '../../../src/config/config.js';
import { parseElfSymbols } from '../../../src/formats/symbols/elf.js';
import { Services } from '../../../src/services.js';
import { analysisTools } from '../../../src/tools/analysis/index.js';
import { extractTools } from '../../../src/tools/extract/index.js';
import { Workspace } from '../../../src/workspace/workspace.js';
import { ARM_KIT_BUILD_DIR, loadProgramTruth, truthFunction } from '../../kit/arm/index.js';
import { inProcess } from '../../kit/in-process.js';
import { makeWorkspace } from '../../kit/mcp-harness.js';
import { kitRomBytes, programRomBytes } from '../../kit/program-rom.js';

const roots: string[] = [];
after(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

async function workspace(rom: Uint8Array, elf: string) {
  const root = await makeWorkspace('re-mcp-symbols-copied-');
  roots.push(root);
  await mkdir(join(root, 'roms'));
  await writeFile(join(root, 'roms/p.nds'), rom);
  await copyFile(join(ARM_KIT_BUILD_DIR, elf), join(root, 'p.elf'));
  const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
  return inProcess([...extractTools, ...analysisTools], services, { rom: 'roms/p.nds' });
}

const elfBytes = (name: string) => new Uint8Array(readFileSync(join(ARM_KIT_BUILD_DIR, name)));

test('the ELF parser gives symbols of sections that run elsewhere their load address', () => {
  for (const program of ['arm9-program', 'arm9-calico'] as const) {
    const truth = loadProgramTruth(program);
    const parsed = parseElfSymbols(elfBytes(`${program}.elf`));
    let moved = 0;
    for (const s of parsed.symbols) {
      // Sections may overlap where they run (calico's .main runs over .secure's place), and
      // an end label belongs to the section it ends: any one of them.
      const sections = truth.sections.filter((x) => s.address >= x.vma && s.address <= x.vma + x.size);
      if (sections.length === 0) continue;
      const expected = sections.map((x) => (x.vma === x.lma ? undefined : x.lma + (s.address - x.vma)));
      // A symbol at a section's end may be the next section's, BSS (no load address) included.
      if (sections.some((x) => s.address === x.vma + x.size)) expected.push(undefined);
      assert.ok(expected.includes(s.loadAddress), `${program} ${s.name} ${s.loadAddress} ${expected}`);
      if (s.loadAddress !== undefined) moved++;
    }
    assert.ok(moved > 0, program);
  }
});

test('an import files ITCM names at their run address, owned by the copy', async () => {
  const w = await workspace(programRomBytes(), 'arm9-program.elf');
  await w.ok('nds_symbols', { action: 'import', file: 'p.elf' });
  const truth = loadProgramTruth('arm9-program');
  const itcm = truthFunction(truth, 'itcm_fast_copy');
  const l = await w.ok('nds_symbols', { action: 'list', contains: 'itcm_fast_copy' });
  const s = l.symbols.find((x: { name: string }) => x.name === 'itcm_fast_copy');
  assert.equal(s.address, `0x${itcm.address.toString(16).padStart(8, '0')}`);
  assert.equal(s.component, 'copied');
  const m = (await w.ok('nds_symbols', { action: 'list', contains: 'main' })).symbols.find(
    (x: { name: string }) => x.name === 'main',
  );
  assert.equal(m.component, 'main');
  // A name set by hand there is the copy's too.
  const set = await w.ok('nds_symbols', {
    action: 'set',
    address: `0x${(itcm.address + 8).toString(16)}`,
    name: 'insideItcm',
  });
  assert.equal(set.symbols[0].component, 'copied');
});

test('calico: .main runs below its load address; its names are the copy, and work as addresses', async () => {
  const w = await workspace(kitRomBytes('arm9-calico', 'arm7-blocksds'), 'arm9-calico.elf');
  await w.ok('nds_symbols', { action: 'import', file: 'p.elf' });
  const truth = loadProgramTruth('arm9-calico');
  const main = truthFunction(truth, 'main');
  const m = (await w.ok('nds_symbols', { action: 'list', contains: 'main' })).symbols.find(
    (x: { name: string }) => x.name === 'main',
  );
  assert.equal(m.address, `0x${main.address.toString(16).padStart(8, '0')}`);
  assert.equal(m.component, 'copied');
  const x = await w.ok('nds_find_xrefs', { processor: 'arm9', address: 'main', scope: 'program' });
  assert.equal(x.target.address, m.address);
  assert.equal(x.target.name, 'main');
  assert.ok(x.xrefs.length > 0, JSON.stringify(x).slice(0, 400));
});

test('lying program headers are read in bounds or not at all', () => {
  const base = elfBytes('arm9-program.elf');
  const dv = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);
  const phoff = dv(base).getUint32(28, true);
  const cases: [string, (b: Uint8Array) => void][] = [
    ['phoff past the end', (b) => dv(b).setUint32(28, 0xfffffff0, true)],
    ['phnum huge', (b) => dv(b).setUint16(44, 0xffff, true)],
    ['phentsize tiny', (b) => dv(b).setUint16(42, 4, true)],
    ['segment file size huge', (b) => dv(b).setUint32(phoff + 16, 0xffffffff, true)],
    ['segment offset past the end', (b) => dv(b).setUint32(phoff + 4, 0xfffffff0, true)],
    [
      'every paddr moved',
      (b) => {
        const n = dv(b).getUint16(44, true);
        for (let i = 0; i < n; i++) dv(b).setUint32(phoff + i * 32 + 12, 0x01000000 + i, true);
      },
    ],
  ];
  for (const [why, change] of cases) {
    const b = base.slice();
    change(b);
    const r = parseElfSymbols(b);
    assert.ok(r.symbols.length > 100, why);
    for (const s of r.symbols)
      if (s.loadAddress !== undefined)
        assert.ok(Number.isInteger(s.loadAddress) && s.loadAddress >= 0 && s.loadAddress <= 0xffffffff, why);
  }
});
