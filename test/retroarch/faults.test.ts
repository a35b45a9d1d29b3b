// Fault injection between the client and a real RetroArch: dropped, delayed, duplicated and reordered
// datagrams. Reads must still return the right bytes (retries), a write whose reply is lost must be
// reported unconfirmed and never re-sent, and no call may outlive its timeout budget.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { isReMcpError } from '../../src/core/errors.js';
import { RetroArchClient } from '../../src/retroarch/client.js';
import { type FaultPolicy, startFaultProxy } from '../kit/retroarch/fault-proxy.js';
import { launchRetroArch } from '../kit/retroarch/launch.js';
import { GBA, GBA_ROM } from '../kit/retroarch/roms.js';

const TIMEOUT_MS = 200;

async function setup(t: { after(fn: () => Promise<void>): void }, policy?: FaultPolicy) {
  const ra = await launchRetroArch({ core: 'mgba', rom: GBA_ROM });
  t.after(() => ra.stop());
  const proxy = await startFaultProxy(ra.port, policy);
  t.after(() => proxy.close());
  const client = new RetroArchClient({
    host: '127.0.0.1',
    port: proxy.port,
    timeoutMs: TIMEOUT_MS,
    screenshotDir: null,
  });
  t.after(async () => client.close());
  return { ra, proxy, client };
}

async function settle<T>(p: Promise<T>): Promise<{ value?: T; code?: string; ms: number }> {
  const started = performance.now();
  try {
    const value = await p;
    return { value, ms: performance.now() - started };
  } catch (error) {
    assert.ok(isReMcpError(error), String(error));
    return { code: error.code, ms: performance.now() - started };
  }
}

test('reads stay byte-exact under drops, delays, duplicates and reordering', async (t) => {
  // Only the first copy of a request and the first reply for an address may be dropped: with 3
  // attempts every read can finish, so a failure here is the client's fault, not bad luck.
  const repliesPerRequest = new Map<string, number>();
  const requestsSeen = new Set<string>();
  const policy: FaultPolicy = (direction, text, i) => {
    if (direction === 'request') {
      const first = !requestsSeen.has(text);
      requestsSeen.add(text);
      return first && i % 11 === 5 ? { drop: true } : i % 4 === 1 ? { delayMs: 15 } : {};
    }
    const key = text.split(' ').slice(0, 2).join(' ');
    const n = (repliesPerRequest.get(key) ?? 0) + 1;
    repliesPerRequest.set(key, n);
    if (i % 3 === 0 && n === 1) return { drop: true };
    if (i % 5 === 1) return { duplicates: 2 };
    if (i % 7 === 2) return { holdForReorder: true };
    if (i % 4 === 3) return { delayMs: 30 };
    return {};
  };
  const { proxy, client } = await setup(t, policy);
  const rom = readFileSync(GBA_ROM);
  // Documented bound: queue wait and wire time are each at most attempts x timeout.
  const budget = TIMEOUT_MS * 3 * 2;
  const jobs = Array.from({ length: 60 }, (_, i) => {
    const offset = i * 512;
    return settle(client.read('memory', GBA.romBase + offset, 64 + (i % 9))).then((r) => ({ r, offset, i }));
  });
  for (const { r, offset, i } of await Promise.all(jobs)) {
    assert.equal(
      r.code,
      undefined,
      `read ${i} failed with ${r.code} after ${r.ms} ms; ${JSON.stringify(proxy.counts)}`,
    );
    assert.ok(
      Buffer.from(r.value!.bytes).equals(rom.subarray(offset, offset + 64 + (i % 9))),
      `read ${i} wrong`,
    );
    assert.ok(r.ms < budget + 100, `read ${i} took ${r.ms} ms`);
  }
  assert.ok(
    proxy.counts.dropped > 5 && proxy.counts.duplicated > 5 && proxy.counts.reordered > 2,
    JSON.stringify(proxy.counts),
  );
  assert.ok(client.transport.stats.retries > 0);
  assert.ok(client.transport.stats.unmatched > 0, 'duplicates should have been discarded');
  // A 64 KiB read (16 KiB replies) through the same faults.
  const big = await client.read('memory', GBA.romBase, 65_536);
  assert.ok(Buffer.from(big.bytes).equals(rom.subarray(0, 65_536)));
});

test('replies later than the timeout: the retry picks up the late answer, within budget', async (t) => {
  const { client } = await setup(t, (direction) =>
    direction === 'reply' ? { delayMs: TIMEOUT_MS * 1.5 } : {},
  );
  const r = await settle(client.read('memory', GBA.marker.address, 16));
  assert.equal(Buffer.from(r.value!.bytes).toString('latin1'), GBA.marker.text);
  assert.ok(r.ms < TIMEOUT_MS * 3, `${r.ms} ms`);
});

test('a dropped write reply is reported unconfirmed and the write is never re-sent', async (t) => {
  const dropWriteReplies: FaultPolicy = (direction, text) =>
    direction === 'reply' && text.startsWith('WRITE_CORE_MEMORY') ? { drop: true } : {};
  const { proxy, client } = await setup(t, dropWriteReplies);
  const r = await settle(client.writeMemory(GBA.free, Uint8Array.from([0xca, 0xfe, 0xba, 0xbe])));
  assert.equal(r.code, 'unconfirmed');
  assert.ok(r.ms < TIMEOUT_MS + 150, `${r.ms} ms`);
  await new Promise((res) => setTimeout(res, TIMEOUT_MS * 2)); // a blind retry would show up here
  const writes = proxy.seen.request.filter((d) => d.startsWith('WRITE_CORE_MEMORY'));
  assert.equal(writes.length, 1);
  // RetroArch did apply it: "unconfirmed" is the honest answer, not "failed".
  const back = await client.read('memory', GBA.free, 4);
  assert.deepEqual([...back.bytes], [0xca, 0xfe, 0xba, 0xbe]);
});

test('a black hole: every call ends with a typed error within its budget', async (t) => {
  const { client, proxy } = await setup(t);
  await client.status(); // reachable first
  proxy.setPolicy(() => ({ drop: true }));
  const calls = await Promise.all([
    settle(client.read('memory', GBA.marker.address, 16)),
    settle(client.status()),
    settle(client.getConfig('savestate_directory')),
    settle(client.writeMemory(GBA.free, new Uint8Array([1]))),
    settle(client.setPaused(true)),
    ...Array.from({ length: 20 }, (_, i) => settle(client.read('memory', GBA.romBase + i * 64, 8))),
  ]);
  for (const [i, c] of calls.entries()) {
    assert.ok(c.code === 'unreachable' || c.code === 'unconfirmed', `call ${i}: ${c.code}`);
    assert.ok(c.ms < TIMEOUT_MS * 3 + 150, `call ${i} took ${c.ms} ms`);
  }
  assert.equal(calls[3]!.code, 'unconfirmed');
  // The connection recovers once the network does.
  proxy.setPolicy(() => ({}));
  assert.equal((await client.status()).state, 'playing');
});

test('a late acknowledgement of an unconfirmed write never confirms the next write to that address', async (t) => {
  // 1st write reply arrives after the timeout; the 2nd write's own reply is lost. Without quarantine
  // the 1st write's late reply would be taken as the 2nd write's acknowledgement.
  let writeReplies = 0;
  const policy: FaultPolicy = (direction, text) => {
    if (direction !== 'reply' || !text.startsWith('WRITE_CORE_MEMORY')) return {};
    writeReplies++;
    return writeReplies === 1 ? { delayMs: TIMEOUT_MS * 1.5 } : { drop: true };
  };
  const { client } = await setup(t, policy);
  const first = await settle(client.writeMemory(GBA.free, Uint8Array.from([1, 2, 3, 4])));
  assert.equal(first.code, 'unconfirmed');
  const second = await settle(client.writeMemory(GBA.free, Uint8Array.from([5, 6, 7, 8])));
  assert.equal(second.code, 'unconfirmed');
  assert.ok(second.ms < TIMEOUT_MS * 2 + 150, `${second.ms} ms`);
  assert.ok(client.transport.stats.unmatched >= 1, 'the late reply should have been discarded');
});

test('a late duplicate of a retried read never answers a newer read of that address', async (t) => {
  // Every read reply comes 1.5 timeouts late: the read is re-sent, resolves with the first reply, and
  // the second attempt's reply is still on its way when it does.
  const lateReads: FaultPolicy = (direction, text) =>
    direction === 'reply' && text.startsWith('READ_CORE_MEMORY') ? { delayMs: TIMEOUT_MS * 1.5 } : {};
  const { proxy, client } = await setup(t, lateReads);
  await client.writeMemory(GBA.free, Uint8Array.from([1, 2, 3, 4]));
  const first = await client.read('memory', GBA.free, 4);
  assert.deepEqual([...first.bytes], [1, 2, 3, 4]);
  assert.ok(client.transport.stats.retries > 0);
  // The memory changes and the newer read's own replies are lost: the old reply must not answer it.
  proxy.setPolicy((direction, text) =>
    direction === 'reply' && text.startsWith('READ_CORE_MEMORY') ? { drop: true } : {},
  );
  await client.writeMemory(GBA.free, Uint8Array.from([5, 6, 7, 8]));
  const second = await settle(client.read('memory', GBA.free, 4));
  assert.ok(
    second.code === 'unreachable' || second.code === 'timeout',
    `got ${second.code ?? `bytes ${[...(second.value?.bytes ?? [])]}`}`,
  );
});
