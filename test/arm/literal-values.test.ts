// The disassembly shows what a word literal load reads: the word in its slot (checked against the ROM
// bytes) and, when that word is a mapped address, where it lies; byte and halfword loads get no word.
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadConfig } from '../../src/config/config.js';
import { Services } from '../../src/services.js';
import { armTools } from '../../src/tools/arm/index.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { loadProgramTruth } from '../kit/arm/index.js';
import { inProcess } from '../kit/in-process.js';
import { makeWorkspace } from '../kit/mcp-harness.js';
import { programRomBytes } from '../kit/program-rom.js';

const root = await makeWorkspace('re-mcp-literal-values-');
after(() => rm(root, { recursive: true, force: true }));
await mkdir(join(root, 'roms'));
const bytes = programRomBytes();
await writeFile(join(root, 'roms/program.nds'), bytes);
const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
const { ok } = inProcess(armTools, services);
const truth = loadProgramTruth('arm9-program');
/** Up to 64 instructions from a function's entry. */
const disassemble = (f: { mode: string; address: number }) =>
  ok('nds_disassemble_range', {
    rom: 'roms/program.nds',
    processor: 'arm9',
    mode: f.mode,
    address: f.address,
    maxInstructions: 64,
  });

test('every word literal load in the program shows the word its slot holds, and where it points', async () => {
  const dv = new DataView(bytes.buffer, bytes.byteOffset);
  const arm9RomOffset = dv.getUint32(0x20, true);
  const arm9Ram = dv.getUint32(0x28, true);
  let loads = 0;
  let pointing = 0;
  const size = dv.getUint32(0x2c, true);
  const inMain = (a: number) => a >= arm9Ram && a + 4 <= arm9Ram + size;
  for (const f of truth.functions.filter((x) => inMain(x.address)).slice(0, 120)) {
    const r = await disassemble(f);
    for (const i of r.instructions) {
      const pc = i.pcRelative;
      if (pc?.kind !== 'literal-pool') continue;
      const word = /^ldr(?!b|h|d|sb|sh)/.test(i.mnemonic);
      if (!word) {
        assert.equal(pc.value, undefined, `${i.address} ${i.mnemonic}: not a word load`);
        continue;
      }
      const slot = Number.parseInt(pc.address.slice(2), 16);
      if (!inMain(slot)) continue;
      const expected = dv.getUint32(arm9RomOffset + slot - arm9Ram, true);
      assert.equal(pc.value, `0x${expected.toString(16).padStart(8, '0')}`, `${i.address}`);
      loads++;
      const address = (expected & ~1) >>> 0;
      if (inMain(address)) {
        assert.equal(pc.valueIn, 'main', `${i.address} -> ${pc.value}`);
        pointing++;
      }
    }
  }
  assert.ok(loads > 50, `${loads} word literal loads checked`);
  assert.ok(pointing > 10, `${pointing} of them point into main`);
});

test('the text listing carries the loaded word', async () => {
  const f = truth.functions.find((x) => x.mode === 'arm' && x.size > 64)!;
  const r = await inProcess(armTools, services).call('nds_disassemble_range', {
    rom: 'roms/program.nds',
    processor: 'arm9',
    mode: 'arm',
    address: f.address,
    maxInstructions: 256,
  });
  const text = r.content[0]!.text;
  const withValue = r.structuredContent.instructions.find((i: any) => i.pcRelative?.value);
  assert.ok(withValue, 'the window has a word literal load');
  assert.ok(text.includes(`value=${withValue.pcRelative.value}`), text.slice(0, 2000));
});

test('a literal load of a string address shows the string, exactly as the bytes there say', async () => {
  const dv = new DataView(bytes.buffer, bytes.byteOffset);
  const arm9RomOffset = dv.getUint32(0x20, true);
  const arm9Ram = dv.getUint32(0x28, true);
  const size = dv.getUint32(0x2c, true);
  let texts = 0;
  for (const f of truth.functions.filter((x) => x.address >= arm9Ram && x.address < arm9Ram + size)) {
    const r = await disassemble(f);
    for (const i of r.instructions) {
      const text = i.pcRelative?.valueText as string | undefined;
      if (text === undefined) continue;
      texts++;
      const at = arm9RomOffset + Number.parseInt(i.pcRelative.value.slice(2), 16) - arm9Ram;
      const shown = text.endsWith('…') ? text.slice(0, -1) : text;
      const own = new TextDecoder('latin1').decode(bytes.subarray(at, at + shown.length));
      if (/^[\x20-\x7e\t\n\r]*$/.test(shown)) {
        assert.equal(own, shown, `${i.address}: ${i.pcRelative.value}`);
        if (!text.endsWith('…')) assert.equal(bytes[at + shown.length], 0, `${i.address}: NUL-terminated`);
      }
      assert.ok([...shown].length >= 3 && [...shown].length <= 64, text);
    }
  }
  assert.ok(texts >= 10, `${texts} literal loads of strings shown`);
});

test('nds_list_references shows the same string for the same literal load', async () => {
  let load: any;
  for (const f of truth.functions) {
    const r = await disassemble(f);
    load = r.instructions.find((i: any) => i.pcRelative?.valueText);
    if (load) break;
  }
  assert.ok(load, 'some load reads a string address');
  const refs = await ok('nds_list_references', {
    rom: 'roms/program.nds',
    processor: 'arm9',
    mode: load.size === 4 ? 'arm' : 'thumb',
    address: load.address,
    maxInstructions: 1,
  });
  const ref = refs.references.find((x: any) => x.kind === 'literal-pool');
  assert.equal(ref.valueText, load.pcRelative.valueText);
});
