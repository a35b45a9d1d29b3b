// The DS under RetroArch (Debian's libretro-desmume core): a kit DS program that paints the top rows
// of its framebuffer red while A is held and blue otherwise. The status names the system, the
// screenshot returns both screens as one 256x384 PNG whose pixels follow the button pressed through
// retroarch_input, save states work, and the memory tools refuse with the core's reason (it exposes
// no memory) and say what the core supports instead.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { type Harness, startServer } from '../../kit/mcp-harness.js';
import { readPng, rgbAt } from '../../kit/png.js';
import { dsInputRom } from '../../kit/retroarch/ds-rom.js';
import { launchRetroArch, retroarchEnv } from '../../kit/retroarch/launch.js';
import { NO_ROMS, sharedRomPath } from '../../kit/shared-data.js';

const RED: [number, number, number] = [255, 0, 0];
const BLUE: [number, number, number] = [0, 0, 255];

async function topLeft(mcp: Harness): Promise<{ size: [number, number]; top: number[]; bottom: number[] }> {
  const r = await mcp.call('retroarch_screenshot', {});
  const image = r.content.find((c) => c.type === 'image');
  assert.ok(image?.data, JSON.stringify(r).slice(0, 400));
  assert.equal(image.mimeType, 'image/png');
  const p = readPng(Buffer.from(image.data, 'base64'));
  return { size: [p.width, p.height], top: rgbAt(p, 10, 5), bottom: rgbAt(p, 10, 192 + 5) };
}

test('DS under RetroArch: input changes the screen, states save, memory is refused with a reason', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 're-mcp-ds-ra-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'ds-input.nds');
  writeFileSync(path, dsInputRom());
  const ra = await launchRetroArch({ core: 'desmume', rom: path, remotePad: true, readyTimeoutMs: 20_000 });
  t.after(() => ra.stop());
  const mcp = await startServer({ env: retroarchEnv(ra) });
  t.after(() => mcp.close());
  // The program needs a few frames to set up its display.
  await new Promise((r) => setTimeout(r, 1500));

  const status = await mcp.ok<{ system: string; game: string; state: string }>('retroarch_get_status', {});
  assert.deepEqual([status.system, status.game, status.state], ['nds', 'ds-input', 'playing']);

  const before = await topLeft(mcp);
  assert.deepEqual(before.size, [256, 384], 'both screens, top above bottom');
  assert.deepEqual(before.top, BLUE);
  assert.notDeepEqual(before.bottom, BLUE, 'the bottom screen is not painted');

  await mcp.ok('retroarch_input', { action: 'hold', buttons: ['a'] });
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual((await topLeft(mcp)).top, RED, 'A held: the game painted red');
  await mcp.ok('retroarch_input', { action: 'release', buttons: ['a'] });
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual((await topLeft(mcp)).top, BLUE, 'A released: blue again');

  // A timed press while running is seen too (the game repaints every frame).
  const pressed = await mcp.ok<{ timing: string }>('retroarch_input', { buttons: ['a'], frames: 60 });
  assert.equal(pressed.timing, 'timed');

  // Save states work with this core.
  const saved = await mcp.ok<{ slot: number }>('retroarch_save_state_slot', { slot: 3 });
  assert.equal(saved.slot, 3);

  // This core exposes no memory: a typed refusal that says why, and what this core does instead.
  const memory = await mcp.fail('retroarch_read_memory', { address: '0x02100000', length: 2 });
  assert.equal(memory.code, 'no-memory-map');
  assert.match(memory.message, /What this core \(nds\) supports: memory map: none; achievements RAM: none/);
  assert.match(memory.message, /save states: yes/);
  assert.equal((memory.details?.core as { saveStates?: string } | undefined)?.saveStates, 'saved');
});

test('a real homebrew DS game (basic-first-game) is driven by input, as its screenshots show', {
  skip: NO_ROMS,
}, async (t) => {
  const ra = await launchRetroArch({
    core: 'desmume',
    rom: sharedRomPath('basic-first-game.nds'),
    remotePad: true,
    readyTimeoutMs: 20_000,
  });
  t.after(() => ra.stop());
  const mcp = await startServer({ env: retroarchEnv(ra) });
  t.after(() => mcp.close());
  await new Promise((r) => setTimeout(r, 2500));
  /** The decoded pixels' digest: screenshots in one second overwrite each other, so they are spaced. */
  const screen = async () => {
    await new Promise((r) => setTimeout(r, 1100));
    const r = await mcp.call('retroarch_screenshot', {});
    const image = r.content.find((c) => c.type === 'image');
    assert.ok(image?.data);
    return createHash('sha256')
      .update(readPng(Buffer.from(image.data, 'base64')).pixels)
      .digest('hex');
  };
  const idle = await screen();
  assert.equal(await screen(), idle, 'without input the screen holds still');
  await mcp.ok('retroarch_input', { action: 'hold', buttons: ['right'] });
  await new Promise((r) => setTimeout(r, 800));
  await mcp.ok('retroarch_input', { action: 'release', buttons: ['right'] });
  const moved = await screen();
  assert.notEqual(moved, idle, 'RIGHT changed the picture');
  assert.equal(await screen(), moved, 'and it holds still again once released');
});
