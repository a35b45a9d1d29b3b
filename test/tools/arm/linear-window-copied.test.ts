// The ARM tools at the run address of code the start-up path copies (the kit's realistic ARM9 copies
// .itcm and .vectors into ITCM, the ARM7 its body into WRAM): disassembly and control flow read the
// copy's bytes (main's at the copy's load address), name the component `copied`, give the ROM offset
// of the bytes, and follow calls from main into the copy.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatAddress } from '../../../src/core/vocabulary.js';
import { armTools } from '../../../src/tools/arm/index.js';
import { truthFunction } from '../../kit/arm/index.js';
import { a7, a9, built, fn, itcmWorkspace, stored } from '../../kit/itcm-program.js';

const { call } = await itcmWorkspace('re-mcp-copied-tools-', armTools);

test('disassembly at an ITCM run address reads the copied bytes and names their ROM offset', async () => {
  const r = await call('nds_disassemble_range', {
    processor: 'arm9',
    address: formatAddress(fn.address),
    mode: 'arm',
    maxInstructions: 4,
  });
  assert.ok(!r.isError, r.content[0]?.text);
  const s = r.structuredContent;
  assert.equal(s.source.component, 'copied');
  // The bytes at the run address are the ARM9's at the load address: their ROM offset is the ARM9's.
  assert.equal(s.source.romOffset, formatAddress(built.layout.arm9.rom.start + (stored - a9.loadAddress)));
  assert.equal(s.instructions.length, 4);
  assert.equal(s.instructions[0].address, formatAddress(fn.address));
  const bytes = a9.bytes.subarray(stored - a9.loadAddress, stored - a9.loadAddress + 4);
  assert.equal(s.instructions[0].bytes, Buffer.from(bytes).toString('hex'));
});

test('control flow from main follows a branch into the copy (the linker veneer to ITCM code)', async () => {
  // __itcm_fast_copy_from_thumb: BX PC, then (its ARM half, 4 bytes on) `b itcm_fast_copy` from
  // main RAM into ITCM.
  const veneer = truthFunction(a9, '__itcm_fast_copy_from_thumb');
  const target = formatAddress(fn.address);
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
