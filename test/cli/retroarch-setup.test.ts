// `re-mcp retroarch`: the settings and launch line it prints start a real headless RetroArch with the DS
// core, as a new user would run them (the config written with --write, the launch line run as printed,
// HOME a fresh folder), and the server then gets a DS screenshot and a saved and restored state from
// it. Ports are chosen free; the core and info directories are the ones found on this machine.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { retroarchSetup } from '../../src/cli/retroarch-setup.js';
import { SERVER_ENTRY, startServer } from '../kit/mcp-harness.js';
import { readPng } from '../kit/png.js';
import { dsInputRom } from '../kit/retroarch/ds-rom.js';
import { freeUdpPort, rawQuery } from '../kit/retroarch/launch.js';

const cli = (args: string[], env: Record<string, string>) =>
  spawnSync(process.execPath, [SERVER_ENTRY, 'retroarch', ...args], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });

test('the settings name this machine’s core and info directories and the configured ports', () => {
  const s = retroarchSetup(
    { RETROARCH_PORT: '56001', RETROARCH_REMOTE_PAD_PORT: '56010' },
    { headless: true },
  );
  assert.match(s.config, /^network_cmd_port = "56001"$/m);
  assert.match(s.config, /^network_remote_base_port = "56010"$/m);
  assert.match(s.config, /^video_driver = "null"$/m);
  const libretro = /^libretro_directory = "([^"]+)"$/m.exec(s.config)?.[1];
  assert.ok(libretro && existsSync(join(libretro, 'desmume_libretro.so')), s.config);
  const info = /^libretro_info_path = "([^"]+)"$/m.exec(s.config)?.[1];
  assert.ok(info && existsSync(join(info, 'desmume_libretro.info')), s.config);
  assert.doesNotMatch(retroarchSetup({}, { headless: false }).config, /video_driver/);
  assert.throws(
    () => retroarchSetup({}, { headless: true, core: 'no-such-core', rom: '/x' }),
    /no core no-such-core here/,
  );
});

test('a new user’s RetroArch from re-mcp retroarch: DS screenshot, state saved and loaded', async (t) => {
  const home = mkdtempSync(join(tmpdir(), 're-mcp-ra-setup-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const shots = join(home, 'shots');
  mkdirSync(shots);
  const rom = join(home, 'ds-input.nds');
  writeFileSync(rom, dsInputRom());
  const env = {
    HOME: home,
    RETROARCH_PORT: String(await freeUdpPort()),
    RETROARCH_REMOTE_PAD_PORT: String(await freeUdpPort()),
    RETROARCH_SCREENSHOT_DIR: shots,
  };
  const cfg = join(home, 'retroarch.cfg');
  const made = cli(['--headless', '--core', 'desmume', '--rom', rom, '--write', cfg], env);
  assert.equal(made.status, 0, made.stderr);
  assert.ok(existsSync(cfg));
  const launch = made.stdout.trim();
  assert.match(launch, /retroarch --config \S+retroarch\.cfg -L \S+desmume_libretro\.so \S+ds-input\.nds$/);
  // Written once: a second --write to the same file is refused, the first left as it was.
  const again = cli(['--headless', '--write', cfg], env);
  assert.equal(again.status, 2);
  assert.match(again.stderr, /exists: name a new file/);

  const child = spawn('sh', ['-c', launch], {
    cwd: home,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home },
    stdio: 'ignore',
    detached: true,
  });
  const kill = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // gone
    }
  };
  process.once('exit', kill);
  t.after(() => {
    process.removeListener('exit', kill);
    kill();
  });
  const port = Number(env.RETROARCH_PORT);
  const deadline = Date.now() + 20_000;
  while ((await rawQuery(port, 'VERSION', 200)) === null && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));
  assert.ok((await rawQuery(port, 'VERSION', 500)) !== null, 'RetroArch answers on the configured port');

  const mcp = await startServer({ env: { RE_MCP_PROFILE: 'retroarch', ...env } });
  t.after(() => mcp.close());
  await new Promise((r) => setTimeout(r, 1500));
  const status = await mcp.ok<{ system: string; state: string }>('retroarch_get_status', {});
  assert.deepEqual([status.system, status.state], ['nds', 'playing']);
  const shot = await mcp.call('retroarch_screenshot', {});
  const image = shot.content.find((c) => c.type === 'image');
  assert.ok(image?.data, JSON.stringify(shot).slice(0, 300));
  const png = readPng(Buffer.from(image.data, 'base64'));
  assert.deepEqual([png.width, png.height], [256, 384]);
  const saved = await mcp.ok<{ file: string | null }>('retroarch_save_state_current', {});
  assert.ok(saved.file !== null && existsSync(saved.file), JSON.stringify(saved));
  await mcp.ok('retroarch_load_state_current', {});
});
