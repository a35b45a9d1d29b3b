// The doctor's checks of the integrations, through the server's own services: each emulator's
// program is found and verified as its start tool does, then really started headless on the built-in
// ROM with every GDB stub it has, which must answer; RetroArch is asked its version through the
// RetroArch client. An integration the operator configured explicitly fails the doctor when broken;
// one found by default (a stock program path, the default UDP port) only reports.
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../../config/config.js';
import { isReMcpError } from '../../core/errors.js';
import { type Emulator, toolName, type VerifiedEmulator } from '../../debug/backend.js';
import { DebugSession } from '../../debug/session.js';
import { RetroArchClient } from '../../retroarch/client.js';
import { noCoreInfoReason } from '../../retroarch/support.js';
import { RomStore } from '../../roms/rom-store.js';
import { Workspace } from '../../workspace/workspace.js';
import { type CheckResult, message, notOk, ok } from './check.js';

type Env = Record<string, string | undefined>;
type Settings = Omit<Config, 'workspaceRoot'>;

/** Bound on the headless start (the stubs listen ~0.2 s after a start; a loaded machine is slower). */
const EMULATOR_START_TIMEOUT_MS = 20_000;
const set = (env: Env, name: string) => (env[name] ?? '') !== '';

/** One emulator: its program found and verified, then started headless with its stubs. */
export async function checkEmulator(
  emu: Emulator,
  settings: Settings,
  env: Env,
  rom: Uint8Array,
): Promise<CheckResult> {
  const { emulator } = emu.names;
  const explicit = emu.settings.some((s) => set(env, s.name));
  const located = emu.located(settings.declared);
  if (located === null) {
    return notOk(
      emu.id,
      'missing',
      `no ${emulator} launcher (the ${toolName(emu.names, '*')} tools are unavailable)`,
      emu.fixes.install,
      false,
    );
  }
  const backend = emu.backend(settings.declared);
  let launcher: VerifiedEmulator;
  try {
    launcher = await backend.verify();
  } catch (error) {
    const pinned = isReMcpError(error) && error.code === 'launch-failed';
    return notOk(emu.id, 'broken', message(error), pinned ? emu.fixes.pinned : emu.fixes.install, explicit, {
      launcher: located,
    });
  }
  const dir = await mkdtemp(join(tmpdir(), 're-mcp-doctor-'));
  const session = new DebugSession(backend);
  const facts: Record<string, unknown> = { launcher: launcher.path, sha256: launcher.sha256 };
  try {
    const version = await backend.version(launcher, dir);
    facts.version = version;
    const romPath = join(dir, 'doctor.nds');
    await writeFile(romPath, rom);
    const who = `${version ?? `${emulator} (version not reported)`} at ${launcher.path}, sha256 ${launcher.sha256}`;
    try {
      const gen = await session.start({
        // The same path a tool takes: the ROM store over a workspace (here the doctor's scratch folder).
        roms: new RomStore(new Workspace(await realpath(dir))),
        rom: 'doctor.nds',
        arm9Port: null,
        arm7Port: emu.features.arm7Stub ? 0 : null,
        startTimeoutMs: EMULATOR_START_TIMEOUT_MS,
      });
      const arm9 = gen.cpus.arm9?.port;
      const arm7 = gen.cpus.arm7?.port;
      const ports = { arm9, arm7 };
      facts.ports = ports;
      const answered =
        arm7 === undefined
          ? `ARM9 GDB stub answered (port ${arm9})`
          : `ARM9 and ARM7 GDB stubs answered (ports ${arm9}, ${arm7})`;
      return ok(emu.id, `${who}; started headless, ${answered}`, explicit, facts);
    } catch (error) {
      return notOk(
        emu.id,
        'broken',
        `${who}; did not start headless with its GDB stubs: ${message(error)}`,
        emu.fixes.launch,
        explicit,
        facts,
      );
    }
  } finally {
    await session.dispose();
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * What the running RetroArch says it can do for re-mcp, each with what to do when it cannot: with
 * content loaded, whether the core exposes a memory map and achievements RAM and whether RetroArch has
 * the core info files save states need (the probe of retroarch/support.ts: one-byte reads at the
 * start of each space, nothing is changed).
 */
async function retroarchCapabilities(
  client: RetroArchClient,
): Promise<{ notes: string[]; details: Record<string, unknown> }> {
  const notes: string[] = [];
  const support = await client.coreSupport();
  if (support.coreInfo === null) {
    notes.push('no content loaded: load a game to check its memory map');
    return { notes, details: {} };
  }
  const details: Record<string, unknown> = {
    system: support.system,
    game: support.game,
    memoryMap: support.memoryMap,
    achievementsRam: support.achievementsRam,
    coreInfo: support.coreInfo,
  };
  if (support.coreInfo === false) notes.push(noCoreInfoReason(support.system ?? ''));
  const { memoryMap: memory, achievementsRam: ram } = support;
  if (memory === false)
    notes.push(
      `the ${support.system ?? 'loaded'} core exposes no memory map (retroarch_read_memory is refused)${ram === false ? ' nor achievements RAM' : ram ? '; retroarch_read_ram reads its achievements RAM' : ''}`,
    );
  return { notes, details };
}

export async function checkRetroArch(settings: Settings, env: Env): Promise<CheckResult> {
  const explicit = set(env, 'RETROARCH_HOST') || set(env, 'RETROARCH_PORT');
  const { host, port } = settings.retroarch;
  const client = new RetroArchClient({ ...settings.retroarch, readRetries: 0 });
  try {
    const version = await client.getVersion();
    const pad = await client.pad.probe(1);
    const padText =
      pad.listening === false
        ? `; remote pad off (UDP ${pad.port}: set network_remote_enable and network_remote_enable_user_p1 for retroarch_input)`
        : `; remote pad on UDP ${pad.port}`;
    const can = await retroarchCapabilities(client);
    return ok(
      'retroarch',
      `RetroArch ${version.text} answers at ${host}:${port}${padText}${can.notes.map((n) => `; ${n}`).join('')}`,
      explicit,
      { host, port, version: version.text, remotePad: pad, ...can.details },
    );
  } catch (error) {
    const fix = `start RetroArch with network_cmd_enable = "true" and network_cmd_port = "${port}" in retroarch.cfg${explicit ? '' : ' (optional: only the retroarch_* tools need it)'}`;
    return notOk(
      'retroarch',
      explicit ? 'broken' : 'missing',
      `nothing answers at ${host}:${port}: ${message(error)}`,
      fix,
      explicit,
      { host, port },
    );
  } finally {
    client.close();
  }
}
