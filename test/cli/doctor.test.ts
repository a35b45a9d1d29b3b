// `re-mcp doctor` against the real integrations: DeSmuME (/usr/games/desmume-cli) started headless with
// both GDB stubs, a real headless RetroArch, and each one absent and broken (a launcher that exits at
// once, a RetroArch port with nothing listening), plus a workspace whose output root cannot be written.
// The built entry is what runs (dist/index.js), as a user would run it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { failed } from '../../src/cli/doctor/check.js';
import { parseTinyRom } from '../../src/cli/doctor/core-checks.js';
import { checkEmulator, checkRetroArch } from '../../src/cli/doctor/integration-checks.js';
import { buildTinyRom, TINY_ROM } from '../../src/cli/doctor/tiny-rom.js';
import { checkSettings } from '../../src/cli/doctor/workspace-checks.js';
import { loadSettings } from '../../src/config/config.js';
import { desmume } from '../../src/debug/desmume/index.js';
import { emulatorSettings } from '../../src/debug/emulators.js';
import { DESMUME_CLI, desmumeProcesses } from '../kit/desmume/index.js';
import { makeWorkspace, SERVER_ENTRY } from '../kit/mcp-harness.js';
import { dsInputRom } from '../kit/retroarch/ds-rom.js';
import { freeUdpPort, launchRetroArch } from '../kit/retroarch/launch.js';
import { GBA_ROM } from '../kit/retroarch/roms.js';

interface Check {
  id: string;
  status: 'ok' | 'missing' | 'broken';
  detail: string;
  fix: string | null;
  required: boolean;
  facts?: Record<string, unknown>;
}
interface Report {
  ok: boolean;
  version: string;
  checks: Check[];
}

function doctor(
  env: Record<string, string>,
  options: { json?: boolean; uid?: number; gid?: number } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const args = [SERVER_ENTRY, 'doctor', ...(options.json === false ? [] : ['--json'])];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/tmp', ...env },
        timeout: 60_000,
        encoding: 'utf8',
        ...(options.uid !== undefined ? { uid: options.uid, gid: options.gid } : {}),
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? -1) : 0, stdout, stderr }),
    );
  });
}

async function report(
  env: Record<string, string>,
): Promise<{ code: number; report: Report; byId: Map<string, Check> }> {
  const run = await doctor(env);
  const parsed = JSON.parse(run.stdout) as Report;
  return { code: run.code, report: parsed, byId: new Map(parsed.checks.map((c) => [c.id, c])) };
}

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

test('the built-in ROM is a valid NDS image: header CRCs, both programs, one NitroFS file', () => {
  const rom = buildTinyRom();
  const model = parseTinyRom(rom);
  assert.equal(model.header.gameCode, TINY_ROM.gameCode);
  assert.equal(model.header.headerCrc.ok, true);
  assert.equal(model.header.logoCrc.ok, true);
  assert.deepEqual(model.issues, []);
  assert.equal(model.arm9.entryAddress, TINY_ROM.arm9.entry);
  assert.equal(model.arm7.entryAddress, TINY_ROM.arm7.entry);
  assert.deepEqual(
    model.files.map((f) => f.path),
    [TINY_ROM.fileName],
  );
  assert.deepEqual(buildTinyRom(), rom, 'deterministic');
});

test('present: real DeSmuME starts headless with both stubs, real RetroArch answers; exit 0', async (t) => {
  const ws = await makeWorkspace();
  t.after(() => rm(ws, { recursive: true, force: true }));
  const ra = await launchRetroArch({ core: 'mgba', rom: GBA_ROM });
  t.after(() => ra.stop());
  const {
    code,
    report: r,
    byId,
  } = await report({
    RE_MCP_WORKSPACE_ROOT: ws,
    RE_MCP_DESMUME_LAUNCHER: DESMUME_CLI,
    RETROARCH_PORT: String(ra.port),
  });
  assert.equal(code, 0, JSON.stringify(r, null, 2));
  assert.equal(r.ok, true);
  for (const id of [
    'node',
    'arm-decoder',
    'blz',
    'nds-parser',
    'search',
    'settings',
    'workspace',
    'output-roots',
  ])
    assert.equal(byId.get(id)?.status, 'ok', id);
  const desmume = byId.get('desmume')!;
  assert.equal(desmume.status, 'ok', desmume.detail);
  assert.equal(desmume.required, true, 'explicitly configured');
  assert.match(String(desmume.facts?.version), /^DeSmuME 0\.9\.11/);
  assert.equal(desmume.facts?.sha256, sha256(DESMUME_CLI));
  const ports = desmume.facts?.ports as { arm9: number; arm7: number };
  assert.ok(ports.arm9 > 0 && ports.arm7 > 0 && ports.arm9 !== ports.arm7);
  const retroarch = byId.get('retroarch')!;
  assert.equal(retroarch.status, 'ok', retroarch.detail);
  assert.equal(retroarch.facts?.version, '1.14.0');
  assert.equal(retroarch.facts?.port, ra.port);
  // What this RetroArch can do: a system id (its info files are found), mGBA's memory map is there.
  assert.equal(retroarch.facts?.system, 'game_boy_advance');
  assert.doesNotMatch(retroarch.detail, /core info files/);
  assert.notEqual(retroarch.facts?.memoryMap, false, retroarch.detail);
  assert.equal(byId.get('code-cache')?.status, 'ok', 'the built entry starts from its code cache');
  // The emulator the doctor started is gone, and the probe file it wrote is not left behind.
  assert.deepEqual(desmumeProcesses('re-mcp-doctor-'), []);
  assert.deepEqual(readdirSync(join(ws, 'output')), []);
  assert.deepEqual(readdirSync(join(ws, 'analysis', 'generated')), []);
});

test('the human form prints one line per capability with its status, and the fix under it', async (t) => {
  const ws = await makeWorkspace();
  t.after(() => rm(ws, { recursive: true, force: true }));
  const port = await freeUdpPort();
  const run = await doctor({ RE_MCP_WORKSPACE_ROOT: ws, RETROARCH_PORT: String(port) }, { json: false });
  const lines = run.stdout.trimEnd().split('\n');
  assert.match(lines[0]!, /^ok +node +Node v\d+/);
  const retro = lines.findIndex((l) => l.startsWith('broken  retroarch'));
  assert.ok(retro > 0, run.stdout);
  assert.match(lines[retro + 1]!, /^ +fix: start RetroArch with network_cmd_enable/);
  assert.match(lines.at(-1)!, /NOT ready/);
  assert.equal(run.code, 1);
});

test('broken: a launcher that exits at once fails the doctor, and says why', async (t) => {
  const ws = await makeWorkspace();
  t.after(() => rm(ws, { recursive: true, force: true }));
  const launcher = join(ws, 'exits-at-once.sh');
  writeFileSync(launcher, '#!/bin/sh\nexit 3\n', { mode: 0o755 });
  const { code, byId } = await report({ RE_MCP_WORKSPACE_ROOT: ws, RE_MCP_DESMUME_LAUNCHER: launcher });
  const desmume = byId.get('desmume')!;
  assert.equal(desmume.status, 'broken');
  assert.match(desmume.detail, /did not start headless/);
  assert.match(desmume.detail, /exit code 3/);
  assert.ok(desmume.fix);
  assert.equal(desmume.facts?.version, null, 'it reports no version');
  assert.equal(code, 1);
});

test('broken: a configured launcher that does not exist, or does not match its pinned digest', async (t) => {
  const ws = await makeWorkspace();
  t.after(() => rm(ws, { recursive: true, force: true }));
  const missing = await report({ RE_MCP_WORKSPACE_ROOT: ws, RE_MCP_DESMUME_LAUNCHER: join(ws, 'nope') });
  assert.equal(missing.byId.get('desmume')?.status, 'broken');
  assert.equal(missing.code, 1);
  const pinned = await report({
    RE_MCP_WORKSPACE_ROOT: ws,
    RE_MCP_DESMUME_LAUNCHER: DESMUME_CLI,
    RE_MCP_DESMUME_LAUNCHER_SHA256: '0'.repeat(64),
  });
  const d = pinned.byId.get('desmume')!;
  assert.equal(d.status, 'broken');
  assert.match(d.detail, /does not match/);
  assert.match(d.fix!, /RE_MCP_DESMUME_LAUNCHER_SHA256/);
  assert.equal(pinned.code, 1);
});

test('broken: a configured RetroArch port with nothing listening fails the doctor', async (t) => {
  const ws = await makeWorkspace();
  t.after(() => rm(ws, { recursive: true, force: true }));
  const port = await freeUdpPort();
  const { code, byId } = await report({
    RE_MCP_WORKSPACE_ROOT: ws,
    RETROARCH_PORT: String(port),
    RETROARCH_TIMEOUT_MS: '200',
  });
  const retroarch = byId.get('retroarch')!;
  assert.equal(retroarch.status, 'broken');
  assert.equal(retroarch.required, true);
  assert.match(retroarch.detail, new RegExp(`127\\.0\\.0\\.1:${port}`));
  assert.equal(code, 1);
});

test('absent: no launcher and no RetroArch configured are reported missing, and do not fail', async () => {
  const rom = buildTinyRom();
  const port = await freeUdpPort();
  const settings = loadSettings({ RETROARCH_TIMEOUT_MS: '200' }, emulatorSettings());
  settings.retroarch.port = port;
  // DeSmuME is installed on test machines: its entry, finding no launcher anywhere, stands for a machine without.
  const absent = await checkEmulator({ ...desmume, located: () => null }, settings, {}, rom);
  assert.equal(absent.status, 'missing');
  assert.equal(absent.detail, 'no DeSmuME launcher (the desmume_* tools are unavailable)');
  assert.match(absent.fix!, /apt-get install desmume|RE_MCP_DESMUME_LAUNCHER/);
  const retroarch = await checkRetroArch(settings, {});
  assert.equal(retroarch.status, 'missing');
  assert.equal(retroarch.required, false);
  assert.equal(failed([absent, retroarch]), false);
  // The same two, configured explicitly, fail.
  const explicit = await checkRetroArch(settings, { RETROARCH_PORT: String(port) });
  assert.equal(explicit.status, 'broken');
  assert.equal(failed([explicit]), true);
});

test('workspace: unset is missing, home is refused, both fail the doctor', async () => {
  const unset = await report({});
  assert.equal(unset.byId.get('workspace')?.status, 'missing');
  assert.match(unset.byId.get('workspace')!.fix!, /RE_MCP_WORKSPACE_ROOT/);
  assert.equal(unset.code, 1);
  // Everything that needs no workspace is still checked.
  assert.equal(unset.byId.get('nds-parser')?.status, 'ok');
  const home = await report({ RE_MCP_WORKSPACE_ROOT: '/tmp', HOME: '/tmp' });
  assert.equal(home.byId.get('workspace')?.status, 'broken');
  assert.match(home.byId.get('workspace')!.detail, /home/);
  assert.equal(home.code, 1);
});

test('broken: an output root that is not a directory', async (t) => {
  const ws = await makeWorkspace();
  t.after(() => rm(ws, { recursive: true, force: true }));
  writeFileSync(join(ws, 'output'), 'a file where the output root should be');
  const { code, byId } = await report({ RE_MCP_WORKSPACE_ROOT: ws });
  const out = byId.get('output-roots')!;
  assert.equal(out.status, 'broken');
  assert.equal(out.facts?.area, 'output');
  assert.equal(code, 1);
});

test('broken: an output root this user cannot write (permissions)', async (t) => {
  const ws = await makeWorkspace();
  t.after(() => rm(ws, { recursive: true, force: true }));
  // Root writes anywhere: as root, run the doctor as an unprivileged user instead.
  const asNobody = process.getuid?.() === 0;
  chmodSync(ws, 0o755);
  mkdirSync(join(ws, 'analysis', 'generated'), { recursive: true });
  mkdirSync(join(ws, 'output'));
  if (asNobody) {
    chownSync(join(ws, 'analysis'), 65534, 65534);
    chownSync(join(ws, 'analysis', 'generated'), 65534, 65534);
  }
  chmodSync(join(ws, 'output'), 0o555);
  const run = await doctor({ RE_MCP_WORKSPACE_ROOT: ws }, asNobody ? { uid: 65534, gid: 65534 } : {});
  const byId = new Map((JSON.parse(run.stdout) as Report).checks.map((c) => [c.id, c]));
  const out = byId.get('output-roots')!;
  assert.equal(out.status, 'broken', run.stdout);
  assert.equal(out.facts?.area, 'output');
  assert.match(out.detail, /EACCES/);
  assert.equal(run.code, 1);
});

test('config file: absent is optional, invalid is broken, valid counts its checks', async (t) => {
  const ws = await makeWorkspace();
  t.after(() => rm(ws, { recursive: true, force: true }));
  const absent = await report({ RE_MCP_WORKSPACE_ROOT: ws });
  assert.equal(absent.byId.get('config-file')?.status, 'missing');
  assert.equal(absent.byId.get('config-file')?.required, false);
  // Nothing configured for RetroArch: whatever the default port holds, it cannot fail the doctor.
  assert.equal(absent.byId.get('retroarch')?.required, false);
  assert.notEqual(absent.byId.get('retroarch')?.status, 'broken');
  assert.equal(absent.code, 0, JSON.stringify(absent.report.checks));
  writeFileSync(join(ws, 're-mcp.config.json'), '{"checks": {"t": {"argv": "make test"}}}');
  const invalid = await report({ RE_MCP_WORKSPACE_ROOT: ws });
  assert.equal(invalid.byId.get('config-file')?.status, 'broken');
  assert.equal(invalid.code, 1);
  writeFileSync(join(ws, 're-mcp.config.json'), '{"checks": {"t": {"argv": ["true"]}}}');
  const valid = await report({ RE_MCP_WORKSPACE_ROOT: ws });
  assert.equal(valid.byId.get('config-file')?.status, 'ok');
  assert.match(valid.byId.get('config-file')!.detail, /1 check/);
});

test('settings: an invalid value is broken, named, and fails the doctor', async (t) => {
  const ws = await makeWorkspace();
  t.after(() => rm(ws, { recursive: true, force: true }));
  const { code, byId } = await report({ RE_MCP_WORKSPACE_ROOT: ws, RETROARCH_PORT: 'abc' });
  const settings = byId.get('settings')!;
  assert.equal(settings.status, 'broken');
  assert.match(settings.detail, /RETROARCH_PORT/);
  assert.match(byId.get('retroarch')!.detail, /not checked/);
  assert.equal(code, 1);
});

test('the settings line reports the profile and the output-schema mode, and refuses an unknown mode', () => {
  assert.equal(
    checkSettings({}, emulatorSettings()).result.detail,
    'valid (profile static, the default, output schemas summary)',
  );
  assert.equal(
    checkSettings({ RETROARCH_HOST: '127.0.0.1' }, emulatorSettings()).result.detail,
    'valid (profile static,retroarch, the default with retroarch (RETROARCH_HOST set), output schemas summary)',
  );
  const full = checkSettings(
    { RE_MCP_PROFILE: 'static', RE_MCP_OUTPUT_SCHEMAS: 'full' },
    emulatorSettings(),
  ).result;
  assert.equal(full.detail, 'valid (profile static, output schemas full)');
  const bad = checkSettings({ RE_MCP_OUTPUT_SCHEMAS: 'everything' }, emulatorSettings()).result;
  assert.equal(bad.status, 'broken');
  assert.match(bad.detail, /RE_MCP_OUTPUT_SCHEMAS must be summary or full/);
});

test('the doctor says what a running RetroArch with the DS core cannot do, and what to use instead', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 're-mcp-doctor-ds-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const rom = join(dir, 'ds-input.nds');
  writeFileSync(rom, dsInputRom());
  const ra = await launchRetroArch({ core: 'desmume', rom, readyTimeoutMs: 20_000 });
  t.after(() => ra.stop());
  const env = { RETROARCH_PORT: String(ra.port) };
  const r = await checkRetroArch(loadSettings(env), env);
  assert.equal(r.status, 'ok', r.detail);
  assert.equal(r.facts?.memoryMap, false);
  assert.equal(r.facts?.achievementsRam, false);
  assert.match(
    r.detail,
    /the nds core exposes no memory map \(retroarch_read_memory is refused\) nor achievements RAM/,
  );
});
