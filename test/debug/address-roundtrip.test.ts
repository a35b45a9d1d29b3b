// The address convention end to end, on the real DeSmuME through the built server (profile full): a
// value one tool returns goes verbatim into another. A stop PC from desmume_continue and a search hit's
// runtime address are passed, unchanged, to nds_resolve_runtime_address, nds_disassemble_range and
// desmume_breakpoint_add; every address that comes back is the same "0x%08x" string.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { armBytesAt } from '../kit/arm/index.js';
import { killDesmumeProcesses, writeDebugTargetRom } from '../kit/desmume/index.js';
import { makeWorkspace, startServer } from '../kit/mcp-harness.js';

const ADDRESS = /^0x[0-9a-f]{8}$/;
const dir = await makeWorkspace('re-mcp-address-roundtrip-');
after(async () => {
  killDesmumeProcesses(dir);
  await rm(dir, { recursive: true, force: true });
});

test('a stop PC and a search hit go verbatim into the static and runtime tools', async () => {
  const rom = writeDebugTargetRom(join(dir, 'debug.nds'));
  const h = await startServer({ workspace: dir, env: { RE_MCP_PROFILE: 'full' } });
  try {
    await h.ok('desmume_start', { rom: 'debug.nds' });
    const first = await h.ok<{ breakpoint: { id: string; address: string } }>('desmume_breakpoint_add', {
      address: rom.symbols.armIncrement,
      mode: 'arm',
    });
    assert.match(first.breakpoint.address, ADDRESS);
    const run = await h.ok<{ stop: { pc: string; mode: 'arm' | 'thumb' } }>('desmume_continue', {});
    const pc = run.stop.pc;
    assert.match(pc, ADDRESS);
    assert.equal(Number(pc), rom.symbols.armIncrement);

    // A search hit in the ARM9 binary: its runtime address, as returned.
    const needle = armBytesAt(rom.arm9, rom.symbols.thumbIncrement, 8);
    const search = await h.ok<{ matches: Array<{ owners: Array<{ runtimeAddress?: string | null }> }> }>(
      'nds_search_pattern',
      {
        rom: 'debug.nds',
        pattern: {
          kind: 'byte-signature',
          signature: Buffer.from(needle).toString('hex').replace(/../g, '$& ').trim(),
        },
        scope: { kind: 'components', components: [{ kind: 'arm9' }] },
      },
    );
    const hit = search.matches.flatMap((m) => m.owners).find((o) => typeof o.runtimeAddress === 'string');
    assert.ok(hit, JSON.stringify(search.matches));
    const found = hit.runtimeAddress as string;
    assert.match(found, ADDRESS);
    assert.equal(Number(found), rom.symbols.thumbIncrement);

    await h.ok('desmume_breakpoint_remove', { id: first.breakpoint.id });
    for (const [address, mode] of [
      [pc, run.stop.mode],
      [found, 'thumb'],
    ] as const) {
      const where = await h.ok<{ address: string; status: string }>('nds_resolve_runtime_address', {
        rom: 'debug.nds',
        processor: 'arm9',
        address,
      });
      assert.deepEqual([where.address, where.status], [address, 'resolved']);
      const code = await h.ok<{ source: { start: string }; instructions: Array<{ address: string }> }>(
        'nds_disassemble_range',
        { rom: 'debug.nds', processor: 'arm9', address, mode, maxInstructions: 2 },
      );
      assert.deepEqual([code.source.start, code.instructions[0]!.address], [address, address]);
      const bp = await h.ok<{ breakpoint: { address: string; mode: string } }>('desmume_breakpoint_add', {
        address,
        mode,
      });
      assert.deepEqual([bp.breakpoint.address, bp.breakpoint.mode], [address, mode]);
    }
  } finally {
    await h.close();
  }
});
