// Code the start-up path copies to where it runs, in the real DeSmuME: the kit's realistic ARM9 (its
// crt0 copies .itcm and the vectors into ITCM) runs itcm_fast_copy in ITCM. The breakpoint allowlist
// holds the copied blocks from the start (no executable-range call needed), a breakpoint there is
// hit, and the stop correlates to the copy with the whole-program map: live bytes equal to the
// copy's source bytes, the function proven.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { formatAddress as hex } from '../../../src/core/vocabulary.js';
import { loadProgramTruth, truthFunction } from '../../kit/arm/index.js';
import { desmumeMcpFrame } from '../../kit/desmume/mcp-suite.js';
import { buildRom } from '../../kit/rom-builder.js';

const a9 = loadProgramTruth('arm9-program');
const a7 = loadProgramTruth('arm7-program');
const frame = desmumeMcpFrame('re-mcp-desmume-copied-', (workspace) => {
  writeFileSync(
    join(workspace, 'program.nds'),
    buildRom({
      arm9: { code: a9.bytes, ramAddress: a9.loadAddress, entry: a9.loadAddress },
      arm7: { code: a7.bytes, ramAddress: a7.loadAddress, entry: a7.loadAddress },
    }).bytes,
  );
});

describe('copied code under the real DeSmuME', () => {
  it('allows, hits and correlates a breakpoint in code crt0 copied into ITCM', async () => {
    const h = await frame.server();
    const started = await h.ok<{ executableRanges: Array<{ start: string; end: string; source: string }> }>(
      'desmume_start',
      { rom: 'program.nds' },
    );
    const itcm = a9.sections.find((s) => s.name === '.itcm')!;
    const copied = started.executableRanges.filter((r) => r.source === 'copied');
    assert.ok(
      copied.some((r) => Number(r.start) <= itcm.vma && Number(r.end) >= itcm.vma + itcm.size),
      JSON.stringify(started.executableRanges),
    );
    const fn = truthFunction(a9, 'itcm_fast_copy');
    const bp = await h.ok<{ breakpoint: { id: string } }>('desmume_breakpoint_add', {
      address: hex(fn.address),
      mode: 'arm',
    });
    await h.ok('desmume_continue', { captureContext: false, expectedBreakpointId: bp.breakpoint.id });
    // The first program-analysis call builds the map (about 2 s cold for this program, more while the
    // emulator holds a core): the call's own time bound is raised, as its description advises.
    const c = await h.ok<any>('nds_correlate_stop_context', { analysis: 'program', timeoutMs: 30_000 });
    assert.equal(c.registers.pc, hex(fn.address));
    const copy = c.pc.candidates.find((k: any) => k.component === 'copied');
    assert.ok(copy, JSON.stringify(c.pc.candidates.map((k: any) => k.component)));
    assert.equal(copy.live.status, 'live-bytes-match');
    assert.equal(copy.functions[0]?.identity.address, hex(fn.address));
    assert.equal(copy.functions[0]?.tier, 'proven');
  });
});
