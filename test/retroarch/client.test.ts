// RetroArchClient against a real, headless RetroArch 1.14 (mGBA: memory map; Nestopia: achievements
// RAM only). Each test owns its RetroArch and tears it down in t.after, pass or fail.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { RetroArchClient } from '../../src/retroarch/client.js';
import { rejectionCode } from '../kit/errors.js';
import {
  type CoreName,
  launchRetroArch,
  launchWithClient,
  type RetroArchInstance,
} from '../kit/retroarch/launch.js';
import { GBA, GBA_ROM, NES, NES_ROM } from '../kit/retroarch/roms.js';

async function start(
  t: { after(fn: () => Promise<void>): void },
  core: CoreName,
): Promise<{ ra: RetroArchInstance; client: RetroArchClient }> {
  return launchWithClient(t, { core, rom: core === 'mgba' ? GBA_ROM : NES_ROM });
}

const u32 = (b: Uint8Array): number => new DataView(b.buffer, b.byteOffset).getUint32(0, true);
const u16 = (b: Uint8Array): number => new DataView(b.buffer, b.byteOffset).getUint16(0, true);

test('mGBA: version, status, marker, 64 KiB ROM read byte-exact, 2 KiB write round trip', async (t) => {
  const { client } = await start(t, 'mgba');
  const v = await client.getVersion();
  assert.equal(v.text, '1.14.0');
  const s = await client.status();
  assert.equal(s.state, 'playing');
  assert.equal(s.game, 'gba-test');
  assert.match(s.crc32 ?? '', /^[0-9a-f]{8}$/);

  const marker = await client.read('memory', GBA.marker.address, 16);
  assert.equal(Buffer.from(marker.bytes).toString('latin1'), GBA.marker.text);

  const rom = readFileSync(GBA_ROM);
  const big = await client.read('memory', GBA.romBase, 65_536);
  assert.equal(big.bytes.length, 65_536);
  assert.ok(Buffer.from(big.bytes).equals(rom.subarray(0, 65_536)), '64 KiB read differs from the ROM file');

  const data = Uint8Array.from({ length: 2048 }, (_, i) => (i * 13 + 5) & 0xff);
  const w = await client.writeMemory(GBA.free, data);
  assert.equal(w.written, 2048);
  assert.ok(w.requests >= 3);
  const back = await client.read('memory', GBA.free, 2048);
  assert.deepEqual(back.bytes, data);
});

test('mGBA: region-end truncation, typed -1 errors, read-only ROM', async (t) => {
  const { client } = await start(t, 'mgba');
  const end = await client.read('memory', GBA.ewramEnd - 2, 8);
  assert.equal(end.bytes.length, 2);
  assert.equal(end.requested, 8);
  // Truncation spanning chunks: the second chunk starts past the region end.
  const spanning = await client.read('memory', GBA.ewramEnd - 100, 40_000);
  assert.equal(spanning.bytes.length, 100);
  assert.equal(await rejectionCode(client.read('memory', 0x0100_0000, 4)), 'no-descriptor');
  assert.equal(await rejectionCode(client.writeMemory(GBA.romBase, new Uint8Array([1]))), 'read-only');
  // A write running past the end of EWRAM: RetroArch writes 2 of 4 bytes and says so.
  assert.equal(
    await rejectionCode(client.writeMemory(GBA.ewramEnd - 2, Uint8Array.from([1, 2, 3, 4]))),
    'short-write',
  );
  assert.deepEqual([...(await client.read('memory', GBA.ewramEnd - 2, 2)).bytes], [1, 2]);
});

test('mGBA: pause, frame advance N changes the counter by exactly N, resume', async (t) => {
  const { client } = await start(t, 'mgba');
  const paused = await client.setPaused(true);
  assert.deepEqual(paused, { state: 'paused', changed: true });
  assert.deepEqual(await client.setPaused(true), { state: 'paused', changed: false });
  assert.equal((await client.status()).state, 'paused');
  const before = u32((await client.read('memory', GBA.frameCounter, 4)).bytes);
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(
    u32((await client.read('memory', GBA.frameCounter, 4)).bytes),
    before,
    'counter moved while paused',
  );
  const adv = await client.frameAdvance(7);
  assert.equal(adv.state, 'paused');
  const after = u32((await client.read('memory', GBA.frameCounter, 4)).bytes);
  assert.equal(after - before, 7);
  const toggled = await client.pauseToggle();
  assert.deepEqual(toggled, { before: 'paused', after: 'playing', confirmed: true });
  const deadline = Date.now() + 5_000;
  while (u32((await client.read('memory', GBA.frameCounter, 4)).bytes) === after && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.ok(u32((await client.read('memory', GBA.frameCounter, 4)).bytes) > after, 'counter did not run');
});

test('mGBA: save state, change memory, load state restores; paused refusal; slots by walking', async (t) => {
  const { client, ra } = await start(t, 'mgba');
  const original = (await client.read('memory', GBA.scratch.address, 64)).bytes;
  assert.equal(original[5], GBA.scratch.byte(5));
  const saved = await client.saveState({ resumeIfPaused: false });
  assert.equal(saved.confirmed, true);
  assert.equal(saved.file, `${ra.savestateDir}/gba-test.state`);
  await client.writeMemory(GBA.scratch.address, new Uint8Array(64).fill(0xee));
  assert.equal((await client.read('memory', GBA.scratch.address, 1)).bytes[0], 0xee);
  await client.loadState({ resumeIfPaused: false });
  assert.deepEqual((await client.read('memory', GBA.scratch.address, 64)).bytes, original);

  await client.setPaused(true);
  assert.equal(await rejectionCode(client.saveState({ resumeIfPaused: false })), 'paused');
  assert.equal(await rejectionCode(client.loadState({ resumeIfPaused: false })), 'paused');
  // Slot 3 via the pointer walk (1.14 has no SAVE_STATE_SLOT), then back to paused.
  const s3 = await client.saveState({ slot: 3, resumeIfPaused: true });
  assert.equal(s3.method, 'walk');
  assert.equal(s3.file, `${ra.savestateDir}/gba-test.state3`);
  assert.equal((await client.status()).state, 'paused');
  assert.equal(client.slotPointer.value, 0);
  await client.writeMemory(GBA.scratch.address, new Uint8Array(8).fill(0x11));
  const l3 = await client.loadState({ slot: 3, resumeIfPaused: true });
  assert.equal(l3.method, 'walk');
  assert.deepEqual((await client.read('memory', GBA.scratch.address, 64)).bytes, original);
  assert.equal(await rejectionCode(client.loadState({ slot: 5, resumeIfPaused: true })), 'not-found');
  // The pointer: one step up, a save proves where it is.
  await client.stepSlot(1, true);
  const s1 = await client.saveState({ resumeIfPaused: true });
  assert.equal(s1.file, `${ra.savestateDir}/gba-test.state1`);
  assert.deepEqual(client.slotPointer, { value: 1, verified: true });
});

test('mGBA: screenshot returns a real PNG', async (t) => {
  const { client, ra } = await start(t, 'mgba');
  const shot = await client.screenshot();
  assert.ok(shot.png);
  assert.equal(shot.png.subarray(1, 4).toString('latin1'), 'PNG');
  assert.equal(shot.png.readUInt32BE(16), 240); // IHDR width
  assert.equal(shot.png.readUInt32BE(20), 160);
  // Without a known directory the tool can only say the shot was requested (and RetroArch did take it).
  const blind = new RetroArchClient({
    host: '127.0.0.1',
    port: ra.port,
    timeoutMs: 1000,
    screenshotDir: null,
  });
  try {
    await new Promise((r) => setTimeout(r, 1100)); // a new second: a new file name
    const before = readdirSync(ra.screenshotDir).length;
    const r = await blind.screenshot();
    assert.deepEqual([r.requested, r.png, r.path, r.directoryKnown], [true, null, null, false]);
    const deadline = Date.now() + 3000;
    while (readdirSync(ra.screenshotDir).length === before && Date.now() < deadline) {
      await new Promise((res) => setTimeout(res, 50));
    }
    assert.equal(readdirSync(ra.screenshotDir).length, before + 1);
  } finally {
    blind.close();
  }
});

test('Nestopia: no memory map; achievements RAM reads, writes and verifies', async (t) => {
  const { client } = await start(t, 'nestopia');
  assert.equal(await rejectionCode(client.read('memory', 0, 4)), 'no-memory-map');
  const marker = await client.read('ram', NES.marker.address, 8);
  assert.equal(Buffer.from(marker.bytes).toString('latin1'), NES.marker.text);
  const w = await client.writeRam(0x0500, Uint8Array.from([1, 2, 3, 0xfe]));
  assert.equal(w.verified, true);
  // Frame counter moves by exactly N under frame advance.
  await client.setPaused(true);
  const before = u16((await client.read('ram', NES.frameCounter, 2)).bytes);
  await client.frameAdvance(5);
  assert.equal(u16((await client.read('ram', NES.frameCounter, 2)).bytes) - before, 5);
  // A start address past the 2 KiB: bare -1 (RetroArch checks only the start address for RAM reads).
  assert.equal(await rejectionCode(client.read('ram', NES.ramSize, 4)), 'no-descriptor');
});

test('20 concurrent reads all answer correctly', async (t) => {
  const { client } = await start(t, 'mgba');
  const rom = readFileSync(GBA_ROM);
  const calls = Array.from({ length: 20 }, (_, i) => client.read('memory', GBA.romBase + i * 1000, 256 + i));
  const results = await Promise.all(calls);
  results.forEach((r, i) => {
    assert.ok(Buffer.from(r.bytes).equals(rom.subarray(i * 1000, i * 1000 + 256 + i)), `call ${i}`);
  });
});

test('RetroArch absent: typed unreachable within the timeout', async () => {
  const { freeUdpPort } = await import('../kit/retroarch/launch.js');
  const port = await freeUdpPort();
  const client = new RetroArchClient({ host: '127.0.0.1', port, timeoutMs: 300, screenshotDir: null });
  try {
    const started = Date.now();
    assert.equal(await rejectionCode(client.status()), 'unreachable');
    assert.ok(Date.now() - started <= 300 * 3 + 200, `took ${Date.now() - started} ms`);
    assert.equal(await rejectionCode(client.writeMemory(0, new Uint8Array([1]))), 'unreachable');
  } finally {
    client.close();
  }
});

test('concurrent control sequences do not interleave; frame advance is cancellable', async (t) => {
  const { client } = await start(t, 'mgba');
  await client.setPaused(true);
  const c0 = u32((await client.read('memory', GBA.frameCounter, 4)).bytes);
  // Two callers advance at once: 4 + 3 presses, none merged or lost.
  await Promise.all([client.frameAdvance(4), client.frameAdvance(3), client.setPaused(true)]);
  assert.equal(u32((await client.read('memory', GBA.frameCounter, 4)).bytes) - c0, 7);
  const controller = new AbortController();
  const started = Date.now();
  setTimeout(() => controller.abort(), 300);
  assert.equal(await rejectionCode(client.frameAdvance(200, controller.signal)), 'cancelled');
  assert.ok(Date.now() - started < 600, `cancel took ${Date.now() - started} ms`);
  await new Promise((r) => setTimeout(r, 100));
  const advanced = u32((await client.read('memory', GBA.frameCounter, 4)).bytes) - c0 - 7;
  assert.ok(advanced > 0 && advanced < 20, `advanced ${advanced} frames before the cancel`);
  assert.equal((await client.status()).state, 'paused');
});

test('a cancelled resume-act-pause sequence still pauses again', async (t) => {
  const { client } = await start(t, 'mgba');
  await client.setPaused(true);
  // Cancel at several points of a walked slot save (resume, walk 6 presses there, save, walk back).
  for (const cancelAfterMs of [5, 150, 350]) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), cancelAfterMs);
    const code = await rejectionCode(client.saveState({ slot: 6, resumeIfPaused: true }, controller.signal));
    clearTimeout(timer);
    assert.equal(code, 'cancelled');
    assert.equal(
      (await client.status()).state,
      'paused',
      `left running after a cancel at ${cancelAfterMs} ms`,
    );
  }
});

test('closing while the socket is still opening leaves no socket behind', async () => {
  const { freeUdpPort } = await import('../kit/retroarch/launch.js');
  const client = new RetroArchClient({
    host: '127.0.0.1',
    port: await freeUdpPort(),
    timeoutMs: 300,
    screenshotDir: null,
  });
  const pending = client.status();
  client.close(); // before the socket's connect callback
  assert.equal(await rejectionCode(pending), 'cancelled');
  await new Promise((r) => setTimeout(r, 50));
  const socket = (client.transport as unknown as { socket: unknown }).socket;
  assert.equal(socket, null, 'a UDP socket outlived close()');
  assert.equal(await rejectionCode(client.status()), 'not-running');
});

test('a walked slot save that lands in another slot (pointer moved elsewhere) is not reported as done', async (t) => {
  const { client, ra } = await start(t, 'mgba');
  // Someone else moves RetroArch's slot pointer: this client still tracks 0.
  const other = new RetroArchClient({
    host: '127.0.0.1',
    port: ra.port,
    timeoutMs: 1000,
    screenshotDir: null,
  });
  t.after(async () => other.close());
  await other.stepSlot(1, false);
  let outcome: string;
  try {
    const saved = await client.saveState({ slot: 3, resumeIfPaused: false });
    outcome = `saved slot ${saved.slot}, confirmed ${saved.confirmed}, file ${saved.file}`;
    assert.equal(saved.file, `${ra.savestateDir}/gba-test.state3`, outcome);
  } catch (error) {
    assert.ok(error instanceof Error && 'code' in error, String(error));
    assert.equal(error.code, 'unconfirmed', error.message);
    assert.match(error.message, /slot 4/);
  }
  // The save taught the client where the pointer really is: the next walk lands right.
  const again = await client.saveState({ slot: 3, resumeIfPaused: false });
  assert.equal(again.file, `${ra.savestateDir}/gba-test.state3`);
});

test('a RetroArch restarted on the same port is noticed: cached version and tracked slot pointer are reset', async (t) => {
  const first = await launchRetroArch({ core: 'mgba', rom: GBA_ROM });
  const port = first.port;
  const client = new RetroArchClient({ host: '127.0.0.1', port, timeoutMs: 300, screenshotDir: null });
  let second: RetroArchInstance | null = null;
  t.after(async () => {
    client.close();
    await first.stop();
    await second?.stop();
  });
  assert.deepEqual(await client.detectedVersion(), [1, 14, 0]);
  await client.stepSlot(1, false);
  await client.stepSlot(1, false);
  assert.deepEqual(client.slotPointer, { value: 2, verified: false });
  await first.stop();
  // While it is down, any query fails (the kernel reports the port unreachable).
  assert.equal(await rejectionCode(client.status()), 'unreachable');
  second = await launchRetroArch({ core: 'mgba', rom: GBA_ROM, port });
  assert.equal((await client.status()).state, 'playing');
  // The new process starts at slot 0: the old tracked position would walk to the wrong slot.
  assert.deepEqual(client.slotPointer, { value: 0, verified: false });
  assert.equal(client.describeVersion(), null, 'the version of the old process is still cached');
  assert.deepEqual(await client.detectedVersion(), [1, 14, 0]);
});
