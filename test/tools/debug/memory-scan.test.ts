// Memory scans on the real DeSmuME 0.9.11 over MCP: the probe's two counters are found in main RAM by
// "increased" across breakpoint stops; scans die with their emulator generation.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatAddress as hex } from '../../../src/core/vocabulary.js';
import { desmumeMcpSuite } from '../../kit/desmume/mcp-suite.js';

const suite = desmumeMcpSuite('re-mcp-desmume-scan-');
const { started, counter } = suite;

type Scan = {
  scanId: string;
  candidates: number;
  before: number;
  bytesRead: number;
  page: Array<{ address: string; value: number; previous: number; name?: string }>;
  more: boolean;
};

describe('memory scan (real DeSmuME)', () => {
  it('finds the counters by "increased" across stops, pages results, refuses while running and after a restart', async () => {
    // Full profile: the symbol store (nds_symbols) names what the scan finds.
    const h = await started({}, 'full');
    const s = suite.rom.symbols;
    await h.ok('nds_symbols', {
      rom: 'debug.nds',
      action: 'set',
      address: hex(s.counterArm),
      name: 'counter_arm',
      mode: 'data',
    });
    const bp = await h.ok<{ breakpoint: { id: string } }>('desmume_breakpoint_add', {
      address: hex(s.armIncrement),
      mode: 'arm',
    });
    await h.ok('desmume_continue', { captureContext: false });
    const t0 = performance.now();
    const start = await h.ok<Scan & { base: string; length: number }>('desmume_memory_scan_start', {});
    const startMs = performance.now() - t0;
    assert.equal(start.base, '0x02000000');
    assert.equal(start.length, 4 * 1024 * 1024);
    assert.equal(start.candidates, 1024 * 1024);
    let last: Scan | null = null;
    for (let i = 0; i < 4; i++) {
      await h.ok('desmume_continue', { captureContext: false });
      last = await h.ok<Scan>('desmume_memory_scan_narrow', {
        scanId: start.scanId,
        comparison: 'increased',
      });
    }
    const found = last!.page.map((c) => c.address);
    assert.ok(found.includes(hex(s.counterArm)), `counter_arm missing from ${found.join(',')}`);
    assert.ok(found.includes(hex(s.counterThumb)), `counter_thumb missing from ${found.join(',')}`);
    assert.ok(last!.candidates <= 8, `${last!.candidates} candidates left`);
    const arm = last!.page.find((c) => c.address === hex(s.counterArm))!;
    assert.equal(arm.value, arm.previous + 1);
    // The named counter carries its name; the unnamed one after it the nearest name below it (a name set
    // without a size reaches 4 KiB).
    assert.equal(arm.name, 'counter_arm');
    assert.equal(
      last!.page.find((c) => c.address === hex(s.counterThumb))?.name,
      `counter_arm+0x${(s.counterThumb - s.counterArm).toString(16)}`,
    );
    const read = await h.ok<{ name?: string }>('desmume_read_memory', {
      address: hex(s.counterArm + 2),
      length: 2,
    });
    assert.equal(read.name, 'counter_arm+0x2');
    // Narrowing read only the candidates, not the region again.
    assert.ok(last!.bytesRead < 4096, `narrow read ${last!.bytesRead} bytes`);
    // equal-to a value: counter_arm's value read through the stub.
    const armNow = await counter(h, s.counterArm);
    const eq = await h.ok<Scan>('desmume_memory_scan_narrow', {
      scanId: start.scanId,
      comparison: 'equal',
      value: armNow,
    });
    assert.ok(eq.page.some((c) => c.address === hex(s.counterArm)));
    // Paging, and unchanged after no execution keeps everything.
    const page = await h.ok<Scan>('desmume_memory_scan_results', {
      scanId: start.scanId,
      offset: 0,
      limit: 1,
    });
    assert.equal(page.page.length, 1);
    const named = await h.ok<Scan>('desmume_memory_scan_results', { scanId: start.scanId, limit: 64 });
    assert.equal(named.page.find((c) => c.address === hex(s.counterArm))?.name, 'counter_arm');
    assert.equal(page.more, eq.candidates > 1);
    // Refusals: a comparison without its value, a region outside main RAM, narrowing while running.
    assert.equal(
      (await h.fail('desmume_memory_scan_narrow', { scanId: start.scanId, comparison: 'equal' })).code,
      'invalid-argument',
    );
    assert.equal(
      (await h.fail('desmume_memory_scan_start', { address: '0x023ff000', length: 8192 })).code,
      'invalid-argument',
    );
    await h.ok('desmume_breakpoint_remove', { id: bp.breakpoint.id });
    await h.ok('desmume_continue', { timeoutMs: 50, captureContext: false });
    assert.equal(
      (await h.fail('desmume_memory_scan_narrow', { scanId: start.scanId, comparison: 'changed' })).code,
      'target-running',
    );
    await h.ok('desmume_pause', {});
    // A new generation discards the scan.
    await h.ok('desmume_stop', {});
    await h.ok('desmume_start', { romPath: 'debug.nds' });
    const gone = await h.fail('desmume_memory_scan_results', { scanId: start.scanId });
    assert.equal(gone.code, 'not-found');
    assert.match(gone.message, /discarded/);
    console.log(`# scan start over 4 MiB main RAM: ${startMs.toFixed(0)} ms`);
  });
});
