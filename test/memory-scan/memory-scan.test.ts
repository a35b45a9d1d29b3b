// The pure memory-scan core: narrowing by value and by previous step, spans, paging, owners.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryScan, SCAN_LIMITS, ScanStore } from '../../src/memory-scan/memory-scan.js';

describe('memory scan core', () => {
  it('narrows 16-bit signed values by comparisons and reads only candidate spans', async () => {
    const mem = new Uint8Array(4096);
    const view = new DataView(mem.buffer);
    view.setInt16(100, -5, true);
    view.setInt16(2000, 7, true);
    const scan = new MemoryScan(
      's1',
      'o',
      { base: 0x1000, length: 4096, size: 2, signed: true },
      mem.slice(),
    );
    assert.equal(scan.candidateCount, 2048);
    const reads: Array<[number, number]> = [];
    const read = async (a: number, n: number) => {
      reads.push([a, n]);
      return mem.slice(a - 0x1000, a - 0x1000 + n);
    };
    view.setInt16(100, -4, true);
    view.setInt16(2000, 6, true);
    let r = await scan.narrow('changed', null, read);
    assert.deepEqual([r.before, r.after], [2048, 2]);
    view.setInt16(100, -3, true);
    view.setInt16(2000, 5, true);
    reads.length = 0;
    r = await scan.narrow('increased', null, read);
    assert.equal(r.after, 1);
    // Two far-apart candidates -> two small spans, not the whole region.
    assert.deepEqual(reads, [
      [0x1000 + 100, 2],
      [0x1000 + 2000, 2],
    ]);
    assert.deepEqual(scan.page(0, 10), [{ address: 0x1000 + 100, value: -3, previous: -4 }]);
    r = await scan.narrow('less', 0, read);
    assert.equal(r.after, 1);
    r = await scan.narrow('equal', -2, read);
    assert.equal(r.after, 0);
    await assert.rejects(scan.narrow('equal', null, read), /needs a value/);
    await assert.rejects(scan.narrow('changed', 3, read), /give no value/);
    await assert.rejects(scan.narrow('equal', 40_000, read), /does not fit/);
  });
  it('refuses a short read and keeps the scan usable', async () => {
    const scan = new MemoryScan('s', 'o', { base: 0, length: 8, size: 4, signed: false }, new Uint8Array(8));
    await assert.rejects(
      scan.narrow('unchanged', null, async () => new Uint8Array(1)),
      /returned 1 of 8/,
    );
    assert.equal(scan.candidateCount, 2);
  });
  it('keeps at most the limit, drops other owners, discards a stale scan on access', () => {
    const store = new ScanStore('x');
    const spec = { base: 0, length: 4, size: 4 as const, signed: false };
    const first = store.add('gen1', spec, new Uint8Array(4)).scan;
    const { dropped } = store.add('gen2', spec, new Uint8Array(4));
    assert.deepEqual(dropped, [first.id]);
    for (let i = 0; i < SCAN_LIMITS.scans.max + 2; i++) store.add('gen2', spec, new Uint8Array(4));
    assert.equal(store.list().length, SCAN_LIMITS.scans.max);
    const last = store.list().at(-1)!;
    assert.throws(() => store.get(last.id, 'gen3', 'generation 3'), /discarded/);
    assert.throws(() => store.get(last.id, 'gen2', 'generation 2'), /no memory scan/);
  });
});
