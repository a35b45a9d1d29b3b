// The ARM tools at the run address of code the start-up path copies (the kit's realistic ARM9 copies
// .itcm and .vectors into ITCM, the ARM7 its body into WRAM): disassembly and control flow read the
// copy's bytes (main's at the copy's load address), name the component `copied`, give the ROM offset
// of the bytes, and follow calls from main into the copy.
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadConfig } from '../../../src/config/config.js';
import { formatAddress } from '../../../src/core/vocabulary.js';
import { invokeTool } from '../../../src/mcp/invoke.js';
import type { ToolDefinition } from '../../../src/mcp/tool.js';
import { Services } from '../../../src/services.js';
import { armTools } from '../../../src/tools/arm/index.js';
import { Workspace } from '../../../src/workspace/workspace.js';
import { loadProgramTruth, truthFunction } from '../../kit/arm/index.js';
import { makeWorkspace } from '../../kit/mcp-harness.js';
import { buildRom } from '../../kit/rom-builder.js';

const a9 = loadProgramTruth('arm9-program');
const a7 = loadProgramTruth('arm7-program');
const root = await makeWorkspace('re-mcp-copied-tools-');
after(() => rm(root, { recursive: true, force: true }));
await mkdir(join(root, 'roms'));
const built = buildRom({
  arm9: { code: a9.bytes, ramAddress: a9.loadAddress, entry: a9.loadAddress },
  arm7: { code: a7.bytes, ramAddress: a7.loadAddress, entry: a7.loadAddress },
});
await writeFile(join(root, 'roms/program.nds'), built.bytes);
const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));

async function call(name: string, args: Record<string, unknown>) {
  const tool = (armTools as unknown as ToolDefinition[]).find((t) => t.name === name)!;
  return (await invokeTool(tool, { rom: 'roms/program.nds', ...args }, services, {
    signal: new AbortController().signal,
    log: () => {},
  })) as { isError?: boolean; structuredContent: Record<string, any>; content: { text: string }[] };
}

test('disassembly at an ITCM run address reads the copied bytes and names their ROM offset', async () => {
  const f = truthFunction(a9, 'itcm_fast_copy');
  const itcm = a9.sections.find((s) => s.name === '.itcm')!;
  const r = await call('nds_disassemble_range', {
    processor: 'arm9',
    address: formatAddress(f.address),
    mode: 'arm',
    maxInstructions: 4,
  });
  assert.ok(!r.isError, r.content[0]?.text);
  const s = r.structuredContent;
  assert.equal(s.source.component, 'copied');
  // The bytes at the run address are the ARM9's at the load address: their ROM offset is the ARM9's.
  const lma = itcm.lma + (f.address - itcm.vma);
  assert.equal(s.source.romOffset, formatAddress(built.layout.arm9.rom.start + (lma - a9.loadAddress)));
  assert.equal(s.instructions.length, 4);
  assert.equal(s.instructions[0].address, formatAddress(f.address));
  const bytes = a9.bytes.subarray(lma - a9.loadAddress, lma - a9.loadAddress + 4);
  assert.equal(s.instructions[0].bytes, Buffer.from(bytes).toString('hex'));
});

test('control flow from main follows a branch into the copy (the linker veneer to ITCM code)', async () => {
  // __itcm_fast_copy_from_thumb: BX PC, then (its ARM half, 4 bytes on) `b itcm_fast_copy` from
  // main RAM into ITCM.
  const veneer = truthFunction(a9, '__itcm_fast_copy_from_thumb');
  const target = formatAddress(truthFunction(a9, 'itcm_fast_copy').address);
  const r = await call('nds_analyze_control_flow', {
    processor: 'arm9',
    address: formatAddress(veneer.address + 4),
    mode: 'arm',
  });
  assert.ok(!r.isError, r.content[0]?.text);
  const blocks = r.structuredContent.blocks;
  const inCopy = blocks.find((b: any) => b.address === target);
  assert.ok(inCopy, JSON.stringify(blocks.map((b: any) => [b.address, b.component])));
  assert.equal(inCopy.component, 'copied');
});

test('the ARM7 body runs in WRAM: its functions disassemble there', async () => {
  const f = truthFunction(a7, 'main');
  const r = await call('nds_disassemble_range', {
    processor: 'arm7',
    address: formatAddress(f.address),
    mode: f.mode,
    maxInstructions: 2,
  });
  assert.ok(!r.isError, r.content[0]?.text);
  assert.equal(r.structuredContent.source.component, 'copied');
});

test('an address neither the model nor a copy holds is still refused', async () => {
  const r = await call('nds_disassemble_range', { processor: 'arm9', address: '0x01ffa000', mode: 'arm' });
  assert.equal(r.isError, true);
  assert.match(r.content[0]!.text, /not inside any static code component/);
});
