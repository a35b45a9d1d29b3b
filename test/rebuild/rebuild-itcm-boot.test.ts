// Issue 44's acceptance, end to end through the built server and the MCP client, booted in the real
// DeSmuME: the kit's realistic ARM9 (its crt0 copies .itcm from main RAM into ITCM) named from its
// ELF; "make the ITCM function itcm_fast_copy branch to guru_meditation" drafted by name gives the
// bytes GNU as gives linked at the run address (not at the storage address), validate and build show
// both addresses, the rebuilt ROM lists the source's names but the patched function's, and booted,
// the start-up copy puts the patched word in ITCM, the game's call runs it, and a breakpoint set by
// name at guru_meditation (never called otherwise: the exception handler) is hit straight from it,
// the stop named from the rebuilt ROM's carried names; an executable range's ends, a breakpoint
// condition's memory address and a memory scan's start are given by name too.
import assert from 'node:assert/strict';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { formatAddress as hex } from '../../src/core/vocabulary.js';
import { ARM_KIT_BUILD_DIR, truthFunction } from '../kit/arm/index.js';
import { desmumeMcpFrame } from '../kit/desmume/mcp-suite.js';
import { a9, built, fn, gnuAt, itcm, stored } from '../kit/itcm-program.js';
import type { Harness } from '../kit/mcp-harness.js';

const frame = desmumeMcpFrame('re-mcp-itcm-boot-', (workspace) => {
  writeFileSync(join(workspace, 'program.nds'), built.bytes);
  copyFileSync(join(ARM_KIT_BUILD_DIR, 'arm9-program.elf'), join(workspace, 'program.elf'));
});
const guru = truthFunction(a9, 'guru_meditation');

/** Every stored name of `rom` as name@address -> component, read page by page. */
async function names(h: Harness, rom: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (let offset = 0; ; ) {
    const r = await h.ok<{
      symbols: { name: string; address: string; component: string }[];
      nextOffset: number | null;
    }>('nds_symbols', { rom, action: 'list', offset, limit: 500 });
    for (const s of r.symbols) out.set(`${s.name}@${s.address}`, s.component);
    if (r.nextOffset === null) return out;
    offset = r.nextOffset;
  }
}

interface Placed {
  id: string;
  storedAddress: string;
  runAddress: string | null;
  copy: { kind: string; storedStart: string; runStart: string } | null;
}

describe('an ITCM patch drafted by name, built, booted in DeSmuME', () => {
  it('branches where it runs, and the rebuilt ROM keeps its names for the debugger', async () => {
    assert.equal(guru.mode, 'arm');
    const h = await frame.server('full');
    await h.ok('nds_symbols', { rom: 'program.nds', action: 'import', file: 'program.elf' });
    const source = `b ${hex(guru.address)}`;
    const d = await h.ok<{
      manifest: string;
      assembled: { address: string; hex: string }[];
      placed: Placed[];
    }>('nds_mutation_draft', {
      rom: 'program.nds',
      name: 'itcm-to-guru',
      operations: [
        {
          op: 'patch',
          id: 'branch',
          component: { kind: 'arm9' },
          address: 'itcm_fast_copy',
          assembly: 'b guru_meditation',
          mode: 'arm',
        },
      ],
    });
    const patch = d.assembled[0]!;
    assert.equal(patch.address, hex(fn.address));
    assert.equal(patch.hex, gnuAt(frame.workspace, fn.address, source));
    // Assembled where the bytes are stored, the branch would land elsewhere.
    assert.notEqual(patch.hex, gnuAt(frame.workspace, stored, source));
    const expected: Placed = {
      id: 'branch',
      storedAddress: hex(stored),
      runAddress: hex(fn.address),
      copy: { kind: 'code', storedStart: hex(itcm.lma), runStart: hex(itcm.vma) },
    };
    const line = `branch: stored at ${hex(stored)}, runs at ${hex(fn.address)} (start-up code copy)`;
    const shown = (placed: Placed[]) =>
      placed.map((p) => ({
        id: p.id,
        storedAddress: p.storedAddress,
        runAddress: p.runAddress,
        copy: p.copy && { kind: p.copy.kind, storedStart: p.copy.storedStart, runStart: p.copy.runStart },
      }));
    assert.deepEqual(shown(d.placed), [expected]);
    for (const tool of ['nds_mutation_validate', 'nds_mutation_build']) {
      const r = await h.call(tool, { rom: 'program.nds', manifest: d.manifest });
      assert.notEqual(r.isError, true, JSON.stringify(r.content));
      assert.deepEqual(shown((r.structuredContent as { placed: Placed[] }).placed), [expected], tool);
      assert.ok(
        r.content.some((c) => c.text?.includes(line)),
        `${tool}: ${JSON.stringify(r.content)}`,
      );
    }
    const b = await h.ok<{
      rom: string;
      rebuildSemanticsVerified: boolean;
      names: { carried: number; dropped: number; droppedNames: { name: string }[] };
    }>('nds_mutation_build', { rom: 'program.nds', manifest: d.manifest });
    assert.equal(b.rebuildSemanticsVerified, true);

    // The rebuilt ROM lists the source's names, all but the function whose bytes the patch changed.
    const before = await names(h, 'program.nds');
    const after = await names(h, b.rom);
    assert.deepEqual(
      b.names.droppedNames.map((n) => n.name),
      ['itcm_fast_copy'],
    );
    assert.equal(after.size, before.size - 1);
    for (const [key, component] of before)
      if (!key.startsWith('itcm_fast_copy@')) assert.equal(after.get(key), component, key);

    // Booted: the copy puts the patched word in ITCM and the game's call runs it.
    await h.ok('desmume_start', { rom: b.rom });
    // An executable range given by names (it adds to what the allowlist already holds).
    const ranges = await h.ok<{ executableRanges: { start: string; end: string; label: string }[] }>(
      'desmume_executable_ranges_replace',
      { ranges: [{ start: 'guru_meditation', end: 'guru_meditation+0x44', label: 'guru' }] },
    );
    const guruRange = ranges.executableRanges.find((r) => r.label === 'guru');
    assert.deepEqual(
      [guruRange?.start, guruRange?.end],
      [hex(guru.address), hex(guru.address + 0x44)],
      JSON.stringify(ranges.executableRanges),
    );
    const atCopy = await h.ok<{ breakpoint: { id: string } }>('desmume_breakpoint_add', {
      address: hex(fn.address),
      mode: 'arm',
    });
    // By name: the debugger reads the running (rebuilt) ROM's carried names.
    const atGuru = await h.ok<{ breakpoint: { id: string; address: string; name?: string } }>(
      'desmume_breakpoint_add',
      { address: 'guru_meditation', mode: 'arm' },
    );
    assert.equal(atGuru.breakpoint.address, hex(guru.address));
    // A condition on memory named too: guru_meditation's first word, as the ROM holds it. Resolved
    // elsewhere, it would not hold and the only hit would be passed over.
    const at = guru.address - a9.loadAddress;
    const guruWord = Buffer.from(a9.bytes.subarray(at, at + 4)).readUInt32LE(0);
    const cond = await h.call('desmume_breakpoint_condition', {
      id: atCopy.breakpoint.id,
      condition: { memory: [{ address: 'guru_meditation', size: 4, op: 'eq', value: hex(guruWord) }] },
    });
    assert.notEqual(cond.isError, true, JSON.stringify(cond.content));
    const named = `condition.memory.0.address guru_meditation = arm9 ${hex(guru.address)}`;
    assert.ok(cond.content[0]?.text?.includes(named), cond.content[0]?.text);
    const shownCondition = cond.structuredContent as { condition: { memory: { address: string }[] } };
    assert.equal(shownCondition.condition.memory[0]!.address, hex(guru.address));
    const first = await h.ok<{ stop: { pc: string }; expectedMatched: boolean }>('desmume_continue', {
      expectedBreakpointId: atCopy.breakpoint.id,
      timeoutMs: 20_000,
      captureContext: false,
    });
    assert.equal(first.stop.pc, hex(fn.address));
    assert.equal(first.expectedMatched, true);
    const live = await h.ok<{ hex: string }>('desmume_read_memory', {
      address: hex(fn.address),
      length: 4,
    });
    assert.equal(live.hex, patch.hex);
    // A memory scan's start named: the region begins at the function.
    const scan = await h.ok<{ base: string; length: number }>('desmume_memory_scan_start', {
      address: 'guru_meditation',
      length: 16,
      size: 4,
    });
    assert.deepEqual([scan.base, scan.length], [hex(guru.address), 16]);
    const second = await h.ok<{
      stop: { pc: string; pcName?: string; breakpointId: string | null };
      expectedMatched: boolean;
      context: { registers: Record<string, string> } | null;
    }>('desmume_continue', { expectedBreakpointId: atGuru.breakpoint.id, timeoutMs: 10_000 });
    assert.equal(second.expectedMatched, true);
    assert.equal(second.stop.pc, hex(guru.address));
    assert.equal(second.stop.pcName, 'guru_meditation');
    // Straight from the patched first instruction: the copy's length argument (24) is untouched,
    // the loop that counts it down never ran.
    assert.equal(Number(second.context?.registers.r2), 24, JSON.stringify(second.context?.registers));
    await h.ok('desmume_stop', {});
  });
});
