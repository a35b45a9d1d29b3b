// Refusals that depend on the core say what this core supports instead (src/retroarch/support.ts through
// RetroArchClient and the state logic), against real headless RetroArch 1.14: the DS core (no memory
// map, no achievements RAM, states with the core info files, none without), mGBA (a memory map; its
// achievements space is small; no states without the core info files) and Nestopia (no memory map,
// achievements RAM). Each test owns its RetroArch and stops it, pass or fail.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { isReMcpError, type ReMcpError } from '../../src/core/errors.js';
import type { RetroArchClient } from '../../src/retroarch/client.js';
import { type CoreSupport, describeSupport, namesSystemId } from '../../src/retroarch/support.js';
import { dsInputRom } from '../kit/retroarch/ds-rom.js';
import { type CoreName, launchWithClient } from '../kit/retroarch/launch.js';
import { GBA_ROM, NES, NES_ROM } from '../kit/retroarch/roms.js';

async function start(
  t: { after(fn: () => Promise<void> | void): void },
  core: CoreName,
  coreInfo = true,
): Promise<RetroArchClient> {
  let rom = core === 'mgba' ? GBA_ROM : NES_ROM;
  if (core === 'desmume') {
    const dir = mkdtempSync(join(tmpdir(), 're-mcp-support-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    rom = join(dir, 'ds-input.nds');
    writeFileSync(rom, dsInputRom());
  }
  const { client } = await launchWithClient(t, { core, rom, coreInfo, readyTimeoutMs: 20_000 });
  // Until the content runs (the DS core takes a moment), there is nothing to save or read.
  const deadline = Date.now() + 10_000;
  while ((await client.status()).state !== 'playing' && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 500));
  return client;
}

async function refusal(promise: Promise<unknown>): Promise<ReMcpError & { core: CoreSupport }> {
  try {
    await promise;
  } catch (error) {
    assert.ok(isReMcpError(error), String(error));
    return Object.assign(error, { core: error.details?.core as CoreSupport });
  }
  assert.fail('expected a refusal');
}

test('the description names each capability with its tools, and the fix for missing info files', () => {
  const ds: CoreSupport = {
    system: 'nds',
    game: 'g',
    coreInfo: true,
    memoryMap: false,
    achievementsRam: false,
    saveStates: 'untried',
  };
  const text = describeSupport(ds);
  assert.match(text, /^What this core \(nds\) supports: memory map: none; achievements RAM: none/);
  assert.match(text, /save states: not tried for this game yet/);
  assert.match(text, /use re-mcp's debugger tools/);
  const gba = describeSupport({
    ...ds,
    system: 'mGBA',
    coreInfo: false,
    memoryMap: true,
    saveStates: 'refused',
  });
  assert.match(gba, /memory map: yes \(retroarch_read_memory/);
  assert.match(gba, /save states: no: the status names the system "mGBA"/);
  assert.match(gba, /set libretro_directory and libretro_info_path/);
  assert.doesNotMatch(gba, /debugger tools/);
  assert.match(describeSupport({ ...ds, memoryMap: null }), /memory map: not known/);
  assert.deepEqual(['nds', 'game_boy_advance', 'J2ME', 'DeSmuME', 'mGBA', 'Nestopia'].map(namesSystemId), [
    true,
    true,
    true,
    false,
    false,
    false,
  ]);
  assert.equal(namesSystemId(null), null);
});

test('DS core: the memory refusals say there is no achievements RAM either, and what states do', async (t) => {
  const client = await start(t, 'desmume');
  const memory = await refusal(client.read('memory', 0x02000000, 4));
  assert.equal(memory.code, 'no-memory-map');
  assert.deepEqual(memory.core, {
    system: 'nds',
    game: 'ds-input',
    coreInfo: true,
    memoryMap: false,
    achievementsRam: false,
    saveStates: 'untried',
  });
  assert.match(
    memory.message,
    /no memory map \(RetroArch: "no memory map defined"\)\. What this core \(nds\)/,
  );
  assert.match(memory.message, /achievements RAM: none/);
  assert.match(memory.message, /debugger tools \(the runtime profile\)/);

  const write = await refusal(client.writeMemory(0x02000000, Uint8Array.of(1)));
  assert.equal(write.code, 'no-memory-map');
  assert.match(write.message, /\(0 of 1 bytes were confirmed before this piece\)\. What this core/);

  // The achievements space: -1 even at its start, so the refusal is about the core, not the address.
  const ram = await refusal(client.read('ram', 0x100, 4));
  assert.equal(ram.code, 'no-descriptor');
  assert.match(ram.message, /^READ_CORE_RAM 0x00000100: the loaded core exposes no achievements RAM/);
  assert.match(ram.message, /memory map: none/);
  assert.equal(ram.core.achievementsRam, false);

  // States work here: once one is saved, the refusals say so.
  const saved = await client.saveState({ resumeIfPaused: false });
  assert.equal(saved.confirmed, true);
  const after = await refusal(client.read('memory', 0, 1));
  assert.equal(after.core.saveStates, 'saved');
  assert.match(after.message, /save states: yes \(a state was saved for this game in this server\)/);
});

test('DS core without its info file: save and load are refused with the reason and the fix', async (t) => {
  const client = await start(t, 'desmume', false);
  assert.equal((await client.status()).system, 'DeSmuME');
  const save = await refusal(client.saveState({ resumeIfPaused: false }));
  assert.equal(save.code, 'unconfirmed');
  assert.match(save.message, /^SAVE_STATE was sent but no state file for "ds-input" changed/);
  assert.match(save.message, /RetroArch has not found the core's info file/);
  assert.match(save.message, /set libretro_directory and libretro_info_path/);
  assert.deepEqual(
    [save.core.coreInfo, save.core.saveStates, save.core.memoryMap, save.core.achievementsRam],
    [false, 'refused', false, false],
  );
  const load = await refusal(client.loadState({ resumeIfPaused: false }));
  assert.equal(load.code, 'unconfirmed');
  assert.match(
    load.message,
    /^LOAD_STATE was sent for slot 0, but RetroArch does not load states for this core/,
  );
  assert.equal(load.core.saveStates, 'refused');
});

test('mGBA without its info file: the save refusal says states are refused and the memory map works', async (t) => {
  const client = await start(t, 'mgba', false);
  const save = await refusal(client.saveState({ resumeIfPaused: false }));
  assert.equal(save.code, 'unconfirmed');
  assert.match(save.message, /the status names the system "mGBA", a core's name/);
  assert.match(save.message, /memory map: yes \(retroarch_read_memory/);
  assert.doesNotMatch(save.message, /DeSmuME/);
  assert.deepEqual([save.core.memoryMap, save.core.saveStates], [true, 'refused']);
});

test('mGBA and Nestopia: an achievements RAM address outside the space names what the core has', async (t) => {
  const gba = await start(t, 'mgba');
  const far = await refusal(gba.read('ram', 0x1000_0000, 4));
  assert.equal(far.code, 'no-descriptor');
  assert.match(far.message, /outside the readable space/);
  assert.match(far.message, /memory map: yes/);
  assert.deepEqual([far.core.memoryMap, far.core.achievementsRam], [true, true]);

  const nes = await start(t, 'nestopia');
  const memory = await refusal(nes.read('memory', 0, 4));
  assert.equal(memory.code, 'no-memory-map');
  assert.match(memory.message, /achievements RAM: yes \(retroarch_read_ram \/ retroarch_write_ram\)/);
  assert.doesNotMatch(memory.message, /DeSmuME/);
  const past = await refusal(nes.read('ram', NES.ramSize, 4));
  assert.equal(past.code, 'no-descriptor');
  assert.match(past.message, /outside the readable space/);
  assert.equal(past.core.achievementsRam, true);
});
