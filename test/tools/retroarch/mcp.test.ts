// End to end over MCP stdio: the built server (dist/index.js serve) drives a real headless
// RetroArch. mGBA exercises the memory-map tools, Nestopia the achievements-RAM-only path.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { type Harness, startServer } from '../../kit/mcp-harness.js';
import {
  freeUdpPort,
  launchRetroArch,
  type RetroArchInstance,
  retroarchEnv,
} from '../../kit/retroarch/launch.js';
import { GBA, GBA_ROM, NES, NES_ROM } from '../../kit/retroarch/roms.js';

const RETROARCH_TOOLS = [
  'retroarch_ping',
  'retroarch_get_status',
  'retroarch_get_config',
  'retroarch_read_memory',
  'retroarch_write_memory',
  'retroarch_read_ram',
  'retroarch_write_ram',
  'retroarch_pause_toggle',
  'retroarch_set_paused',
  'retroarch_frame_advance',
  'retroarch_reset',
  'retroarch_screenshot',
  'retroarch_show_message',
  'retroarch_save_state_current',
  'retroarch_load_state_current',
  'retroarch_save_state_slot',
  'retroarch_load_state_slot',
  'retroarch_state_slot_plus',
  'retroarch_state_slot_minus',
];

type Teardown = { after(fn: () => Promise<void>): void };

async function setup(
  t: Teardown,
  core: 'mgba' | 'nestopia',
): Promise<{ ra: RetroArchInstance; mcp: Harness }> {
  const ra = await launchRetroArch({ core, rom: core === 'mgba' ? GBA_ROM : NES_ROM });
  t.after(() => ra.stop());
  const mcp = await startServer({ env: retroarchEnv(ra) });
  t.after(() => mcp.close());
  return { ra, mcp };
}

const hexBytes = (hex: string): Buffer => Buffer.from(hex, 'hex');

async function readU(mcp: Harness, tool: string, address: number, length: 2 | 4): Promise<number> {
  const r = await mcp.ok<{ hex: string }>(tool, { address, length });
  const b = hexBytes(r.hex);
  return length === 4 ? b.readUInt32LE(0) : b.readUInt16LE(0);
}

test('tools/list in the retroarch profile lists every RetroArch tool with truthful annotations', async (t) => {
  const port = await freeUdpPort(); // nothing listens: listing must not need RetroArch
  const mcp = await startServer({ env: { RE_MCP_PROFILE: 'retroarch', RETROARCH_PORT: String(port) } });
  t.after(() => mcp.close());
  const { tools } = await mcp.client.listTools();
  const names = tools.map((x) => x.name);
  for (const name of RETROARCH_TOOLS) assert.ok(names.includes(name), `${name} missing`);
  const byName = new Map(tools.map((x) => [x.name, x]));
  for (const name of [
    'retroarch_write_memory',
    'retroarch_write_ram',
    'retroarch_reset',
    'retroarch_load_state_current',
    'retroarch_load_state_slot',
    'retroarch_save_state_current',
  ]) {
    assert.equal(byName.get(name)?.annotations?.destructiveHint, true, name);
    assert.equal(byName.get(name)?.annotations?.readOnlyHint, false, name);
  }
  for (const name of [
    'retroarch_ping',
    'retroarch_get_status',
    'retroarch_read_memory',
    'retroarch_read_ram',
  ]) {
    assert.equal(byName.get(name)?.annotations?.readOnlyHint, true, name);
  }
  for (const name of ['retroarch_pause_toggle', 'retroarch_frame_advance', 'retroarch_screenshot']) {
    assert.equal(byName.get(name)?.annotations?.readOnlyHint, false, name);
  }
});

test('RetroArch absent: server starts, tools answer a typed unreachable error within the timeout', async (t) => {
  const port = await freeUdpPort();
  const mcp = await startServer({
    env: { RE_MCP_PROFILE: 'retroarch', RETROARCH_PORT: String(port), RETROARCH_TIMEOUT_MS: '300' },
  });
  t.after(() => mcp.close());
  for (const [tool, args] of [
    ['retroarch_ping', {}],
    ['retroarch_get_status', {}],
    ['retroarch_read_memory', { address: 0, length: 4 }],
    ['retroarch_write_memory', { address: 0, bytes: [1] }],
    ['retroarch_show_message', { message: 'hi' }],
    ['retroarch_frame_advance', { frames: 1 }],
  ] as const) {
    const started = Date.now();
    const error = await mcp.fail(tool, args);
    assert.equal(error.code, 'unreachable', `${tool}: ${error.message}`);
    assert.ok(Date.now() - started < 300 * 3 + 500, `${tool} took ${Date.now() - started} ms`);
  }
});

test('mGBA over MCP: every tool, memory map, states, frames, screenshot, concurrency', async (t) => {
  const { ra, mcp } = await setup(t, 'mgba');

  const ping = await mcp.ok<{ version: string; nativeLoadStateSlot: boolean }>('retroarch_ping');
  assert.equal(ping.version, '1.14.0');
  assert.equal(ping.nativeLoadStateSlot, false);
  assert.deepEqual(await mcp.ok('retroarch_get_status'), {
    state: 'playing',
    system: 'game_boy_advance',
    game: 'gba-test',
    crc32: (await mcp.ok<{ crc32: string }>('retroarch_get_status')).crc32,
    // This RetroArch has no remote pad: the port chosen for it (free, never the default) refuses.
    remotePad: { port: ra.padPort, listening: false },
  });
  assert.deepEqual(await mcp.ok('retroarch_get_config', { name: 'savestate_directory' }), {
    name: 'savestate_directory',
    supported: true,
    value: ra.savestateDir,
  });
  assert.deepEqual(await mcp.ok('retroarch_get_config', { name: 'screenshot_directory' }), {
    name: 'screenshot_directory',
    supported: false,
    value: null,
  });

  // Memory: marker, 64 KiB byte-exact, 2 KiB write round trip, typed errors, truncation.
  const marker = await mcp.ok<{ hex: string }>('retroarch_read_memory', {
    address: '0x02000000',
    length: 16,
  });
  assert.equal(hexBytes(marker.hex).toString('latin1'), GBA.marker.text);
  const big = await mcp.ok<{ hex: string; returned: number; requests: number }>('retroarch_read_memory', {
    address: GBA.romBase,
    length: 65_536,
  });
  assert.equal(big.returned, 65_536);
  assert.ok(hexBytes(big.hex).equals(readFileSync(GBA_ROM).subarray(0, 65_536)));
  // The text block alone carries every byte (hosts that show the model only content[]).
  const dump = (await mcp.call('retroarch_read_memory', { address: GBA.romBase, length: 4096 })).content[0]
    ?.text;
  const lastRow = [...readFileSync(GBA_ROM).subarray(4080, 4096)].map((b) => b.toString(16).padStart(2, '0'));
  const lastAt = `0x${(GBA.romBase + 4080).toString(16).padStart(8, '0')}`;
  assert.ok(dump?.includes(`${lastAt}: ${lastRow.join(' ')}`), `hexdump in the text: ${dump?.slice(-200)}`);
  const data = Array.from({ length: 2048 }, (_, i) => (i * 31 + 7) & 0xff);
  const w = await mcp.ok<{ written: number }>('retroarch_write_memory', { address: GBA.free, bytes: data });
  assert.equal(w.written, 2048);
  const back = await mcp.ok<{ hex: string }>('retroarch_read_memory', { address: GBA.free, length: 2048 });
  assert.deepEqual([...hexBytes(back.hex)], data);
  assert.equal(
    (await mcp.fail('retroarch_write_memory', { address: GBA.romBase, hex: '00' })).code,
    'read-only',
  );
  assert.equal(
    (await mcp.fail('retroarch_read_memory', { address: 0x0100_0000, length: 4 })).code,
    'no-descriptor',
  );
  const cut = await mcp.ok<{ returned: number; truncated: boolean }>('retroarch_read_memory', {
    address: GBA.ewramEnd - 4,
    length: 64,
  });
  assert.deepEqual([cut.returned, cut.truncated], [4, true]);
  // mGBA's achievements space only covers save RAM: EWRAM through read_ram is not the same thing.
  await mcp.ok('retroarch_read_ram', { address: 0, length: 8 });
  const ramWrite = await mcp.ok<{ verified: unknown }>('retroarch_write_ram', { address: 0, hex: 'A1B2' });
  assert.equal(ramWrite.verified, true);

  // 20 concurrent calls all answer correctly.
  const rom = readFileSync(GBA_ROM);
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      mcp.ok<{ hex: string }>('retroarch_read_memory', { address: GBA.romBase + i * 4096, length: 64 + i }),
    ),
  );
  for (const [i, r] of results.entries()) {
    assert.ok(hexBytes(r.hex).equals(rom.subarray(i * 4096, i * 4096 + 64 + i)), `call ${i}`);
  }

  // Pause / resume with status confirmation; frame advance N changes the counter by exactly N.
  assert.deepEqual(await mcp.ok('retroarch_set_paused', { paused: true }), {
    state: 'paused',
    changed: true,
  });
  assert.equal((await mcp.ok<{ state: string }>('retroarch_get_status')).state, 'paused');
  const c0 = await readU(mcp, 'retroarch_read_memory', GBA.frameCounter, 4);
  const adv = await mcp.ok<{ frames: number; state: string }>('retroarch_frame_advance', { frames: 10 });
  assert.equal(adv.state, 'paused');
  assert.equal((await readU(mcp, 'retroarch_read_memory', GBA.frameCounter, 4)) - c0, 10);
  await mcp.ok('retroarch_frame_advance', {});
  assert.equal((await readU(mcp, 'retroarch_read_memory', GBA.frameCounter, 4)) - c0, 11);
  assert.deepEqual(await mcp.ok('retroarch_pause_toggle'), {
    before: 'paused',
    after: 'playing',
    confirmed: true,
  });
  assert.deepEqual(await mcp.ok('retroarch_set_paused', { paused: false }), {
    state: 'playing',
    changed: false,
  });

  // Save state, change memory, load state restores.
  const original = (
    await mcp.ok<{ hex: string }>('retroarch_read_memory', { address: GBA.scratch.address, length: 256 })
  ).hex;
  const saved = await mcp.ok<{
    confirmed: boolean;
    file: string;
    slotPointer: { value: number; verified: boolean };
  }>('retroarch_save_state_current');
  assert.equal(saved.confirmed, true);
  assert.equal(saved.file, `${ra.savestateDir}/gba-test.state`);
  assert.deepEqual(saved.slotPointer, { value: 0, verified: true });
  await mcp.ok('retroarch_write_memory', { address: GBA.scratch.address, hex: 'FF'.repeat(256) });
  await mcp.ok('retroarch_load_state_current');
  assert.equal(
    (await mcp.ok<{ hex: string }>('retroarch_read_memory', { address: GBA.scratch.address, length: 256 }))
      .hex,
    original,
  );

  // Paused: save/load/slot presses are refused unless resumeIfPaused.
  await mcp.ok('retroarch_set_paused', { paused: true });
  assert.equal((await mcp.fail('retroarch_save_state_current')).code, 'paused');
  assert.equal((await mcp.fail('retroarch_load_state_current')).code, 'paused');
  assert.equal((await mcp.fail('retroarch_state_slot_plus')).code, 'paused');
  const s2 = await mcp.ok<{ method: string; file: string; resumed: boolean }>('retroarch_save_state_slot', {
    slot: 2,
    resumeIfPaused: true,
  });
  assert.deepEqual([s2.method, s2.file, s2.resumed], ['walk', `${ra.savestateDir}/gba-test.state2`, true]);
  assert.equal((await mcp.ok<{ state: string }>('retroarch_get_status')).state, 'paused');
  await mcp.ok('retroarch_write_memory', { address: GBA.scratch.address, hex: '00'.repeat(16) });
  const l2 = await mcp.ok<{ method: string }>('retroarch_load_state_slot', { slot: 2, resumeIfPaused: true });
  assert.equal(l2.method, 'walk');
  assert.equal(
    (await mcp.ok<{ hex: string }>('retroarch_read_memory', { address: GBA.scratch.address, length: 256 }))
      .hex,
    original,
  );
  assert.equal(
    (await mcp.fail('retroarch_load_state_slot', { slot: 7, resumeIfPaused: true })).code,
    'not-found',
  );
  await mcp.ok('retroarch_set_paused', { paused: false });
  assert.deepEqual(await mcp.ok('retroarch_state_slot_plus'), { from: 0, slot: 1, verified: true });
  const s1 = await mcp.ok<{ file: string }>('retroarch_save_state_current');
  assert.equal(s1.file, `${ra.savestateDir}/gba-test.state1`);
  assert.deepEqual(await mcp.ok('retroarch_state_slot_minus'), { from: 1, slot: 0, verified: true });

  // Screenshot: a real PNG as MCP image content plus its path.
  const shot = await mcp.call('retroarch_screenshot');
  assert.notEqual(shot.isError, true, JSON.stringify(shot.content));
  const image = shot.content.find((c) => c.type === 'image');
  assert.equal(image?.mimeType, 'image/png');
  const png = Buffer.from(image!.data!, 'base64');
  assert.equal(png.subarray(0, 8).toString('hex'), '89504e470d0a1a0a');
  assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [240, 160]);
  assert.ok(String(shot.structuredContent?.path).startsWith(ra.screenshotDir));

  // Message and reset (fire-and-forget): reset restarts the frame counter from zero.
  assert.deepEqual(await mcp.ok('retroarch_show_message', { message: 're-mcp test' }), { sent: true });
  assert.equal(
    (await mcp.fail('retroarch_show_message', { message: 'two\nlines' })).code,
    'invalid-argument',
  );
  const beforeReset = await readU(mcp, 'retroarch_read_memory', GBA.frameCounter, 4);
  assert.deepEqual(await mcp.ok('retroarch_reset'), { sent: true, resumedAndRepaused: false });
  // RESET is unacknowledged and lands on a later main-loop turn: poll, bounded.
  const resetDeadline = Date.now() + 5_000;
  let afterReset = await readU(mcp, 'retroarch_read_memory', GBA.frameCounter, 4);
  while (afterReset >= beforeReset && Date.now() < resetDeadline) {
    await new Promise((r) => setTimeout(r, 20));
    afterReset = await readU(mcp, 'retroarch_read_memory', GBA.frameCounter, 4);
  }
  assert.ok(afterReset < beforeReset, 'reset did not restart');

  // Paused: RetroArch would drop RESET silently, so the tool refuses, or resumes around it on request.
  await mcp.ok('retroarch_frame_advance', { frames: 30 });
  const pausedAt = await readU(mcp, 'retroarch_read_memory', GBA.frameCounter, 4);
  assert.equal((await mcp.fail('retroarch_reset')).code, 'paused');
  await mcp.ok('retroarch_frame_advance', { frames: 3 });
  assert.ok(
    (await readU(mcp, 'retroarch_read_memory', GBA.frameCounter, 4)) > pausedAt,
    'a refused reset must not restart the game',
  );
  const before2 = await readU(mcp, 'retroarch_read_memory', GBA.frameCounter, 4);
  assert.deepEqual(await mcp.ok('retroarch_reset', { resumeIfPaused: true }), {
    sent: true,
    resumedAndRepaused: true,
  });
  assert.equal((await mcp.ok<{ state: string }>('retroarch_get_status')).state, 'paused');
  const after2 = await readU(mcp, 'retroarch_read_memory', GBA.frameCounter, 4);
  assert.ok(after2 < before2, `reset while paused did not restart (${before2} -> ${after2})`);
});

test('Nestopia over MCP: no memory map, achievements RAM read/write verified, frames, states', async (t) => {
  const { ra, mcp } = await setup(t, 'nestopia');
  assert.equal((await mcp.ok<{ system: string }>('retroarch_get_status')).system, 'nes');
  const e = await mcp.fail('retroarch_read_memory', { address: 0, length: 4 });
  assert.equal(e.code, 'no-memory-map');
  assert.equal((await mcp.fail('retroarch_write_memory', { address: 0, bytes: [1] })).code, 'no-memory-map');
  const marker = await mcp.ok<{ hex: string }>('retroarch_read_ram', {
    address: NES.marker.address,
    length: 8,
  });
  assert.equal(hexBytes(marker.hex).toString('latin1'), NES.marker.text);
  const scratch = await mcp.ok<{ hex: string }>('retroarch_read_ram', {
    address: NES.scratch.address,
    length: 256,
  });
  assert.deepEqual(
    [...hexBytes(scratch.hex)],
    Array.from({ length: 256 }, (_, i) => NES.scratch.byte(i)),
  );
  const w = await mcp.ok<{ verified: unknown; sent: number }>('retroarch_write_ram', {
    address: 0x0500,
    bytes: Array.from({ length: 256 }, (_, i) => 255 - i),
  });
  assert.deepEqual([w.verified, w.sent], [true, 256]);
  assert.equal(
    (await mcp.fail('retroarch_read_ram', { address: NES.ramSize, length: 1 })).code,
    'no-descriptor',
  );

  await mcp.ok('retroarch_set_paused', { paused: true });
  const c0 = await readU(mcp, 'retroarch_read_ram', NES.frameCounter, 2);
  const progress: unknown[] = [];
  const adv = await mcp.call(
    'retroarch_frame_advance',
    { frames: 6 },
    { onprogress: (p) => progress.push(p) },
  );
  assert.notEqual(adv.isError, true);
  assert.equal((await readU(mcp, 'retroarch_read_ram', NES.frameCounter, 2)) - c0, 6);
  assert.ok(progress.length >= 2, `progress notifications: ${JSON.stringify(progress)}`);

  const saved = await mcp.ok<{ file: string }>('retroarch_save_state_current', { resumeIfPaused: true });
  assert.equal(saved.file, `${ra.savestateDir}/nes-test.state`);
  await mcp.ok('retroarch_write_ram', { address: NES.scratch.address, hex: '00'.repeat(32) });
  await mcp.ok('retroarch_load_state_current', { resumeIfPaused: true });
  const restored = await mcp.ok<{ hex: string }>('retroarch_read_ram', {
    address: NES.scratch.address,
    length: 256,
  });
  assert.equal(restored.hex, scratch.hex);
  const shot = await mcp.call('retroarch_screenshot');
  assert.equal(shot.content.find((c) => c.type === 'image')?.mimeType, 'image/png');
});

test('screenshot with an unreadable RETROARCH_SCREENSHOT_DIR says so instead of asking to set it', async (t) => {
  const ra = await launchRetroArch({ core: 'mgba', rom: GBA_ROM });
  t.after(() => ra.stop());
  const missing = `${ra.home}/no-such-screenshot-dir`;
  const mcp = await startServer({
    env: {
      RE_MCP_PROFILE: 'retroarch',
      RETROARCH_PORT: String(ra.port),
      RETROARCH_TIMEOUT_MS: '1000',
      RETROARCH_SCREENSHOT_DIR: missing,
    },
  });
  t.after(() => mcp.close());
  const shot = await mcp.ok<{ requested: boolean; path: string | null; note: string }>(
    'retroarch_screenshot',
  );
  assert.equal(shot.requested, true);
  assert.equal(shot.path, null);
  assert.doesNotMatch(shot.note, /^.*set RETROARCH_SCREENSHOT_DIR/);
  assert.ok(shot.note.includes(missing), shot.note);
});
