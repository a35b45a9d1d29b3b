// A second emulator added the documented way (docs/ARCHITECTURE.md, "A second emulator"), touching
// nothing else: its folder is ./fake-emulator.ts (FakeEmu's Emulator entry over ./fake-backend.ts) and
// its registry line is the list `[...EMULATORS, fakeEmu]`, given to the functions that otherwise read
// the registry's list. Every place that names an emulator then names FakeEmu too: its setting (the
// `--help` row, the flag, the start-up check, the runtime profile it adds), its tool family (fake_*,
// made from the same definitions, driving a whole session in process, read by
// nds_correlate_stop_context), server_capabilities (readiness and policy), the server's instructions,
// the doctor's check and the host-config hint; and DeSmuME's share of each is unchanged.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runChecks } from '../../src/cli/doctor/doctor.js';
import { installedHints, launchFor } from '../../src/cli/host-config.js';
import { loadConfig, mergeFlags, settingsWith, triggersWith } from '../../src/config/config.js';
import { isReMcpError } from '../../src/core/errors.js';
import { profileSelectionOf } from '../../src/core/profiles.js';
import type { Emulator } from '../../src/debug/backend.js';
import { checkEmulators, EMULATORS, emulatorSettings } from '../../src/debug/emulators.js';
import { EMULATOR_LIST } from '../../src/debug/service.js';
import { INSTRUCTIONS, instructionsFor, listTools } from '../../src/mcp/published.js';
import type { ToolDefinition } from '../../src/mcp/tool.js';
import { Services } from '../../src/services.js';
import { toolFamilies } from '../../src/tools/families.js';
import { loadAllTools } from '../../src/tools/index.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { inProcess } from '../kit/in-process.js';
import { REPO_ROOT } from '../kit/mcp-harness.js';
import { freeUdpPort } from '../kit/retroarch/launch.js';
import { FAKE_CHUNK, FAKE_SHA256, fakeByte, writeFakeRom } from './fake-backend.js';
import { FAKE_PROGRAM_SETTING, FAKE_STOCK_PROGRAM, fakeBackends, fakeEmu } from './fake-emulator.js';
import { reachedModules } from './reached.js';

/** The registry's line for FakeEmu. */
const emulators: readonly Emulator[] = [...EMULATORS, fakeEmu];
const declared = emulatorSettings(emulators);

let dir: string;
let services: Services;
let registryTools: ToolDefinition[];
let tools: ToolDefinition[];

before(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 're-mcp-second-emulator-')));
  writeFakeRom(join(dir, 'second.nds'), 'SECOND');
  registryTools = await loadAllTools();
  tools = await loadAllTools(toolFamilies(emulators));
  const config = loadConfig({ RE_MCP_WORKSPACE_ROOT: dir, RE_MCP_PROFILE: 'full' }, declared);
  services = new Services(config, new Workspace(dir));
  services.lazy(EMULATOR_LIST, () => emulators);
});

after(async () => {
  await services.dispose();
  await rm(dir, { recursive: true, force: true });
});

describe('a second emulator, added by its folder and its registry line', () => {
  it('declares its setting: --help, its flag, its check at start-up and the runtime profile', () => {
    const rows = settingsWith(declared);
    const names = rows.map(([name]) => name);
    // The server's settings, each emulator's in the registry's order, then the other integrations'.
    assert.ok(names.indexOf('RE_MCP_DESMUME_LAUNCHER') < names.indexOf(FAKE_PROGRAM_SETTING));
    assert.ok(names.indexOf(FAKE_PROGRAM_SETTING) < names.indexOf('RE_MCP_GHIDRA_HOME'));
    assert.deepEqual(
      rows.find(([name]) => name === FAKE_PROGRAM_SETTING),
      [FAKE_PROGRAM_SETTING, '--fakeemu-program', 'FakeEmu program (default /fake/emu)'],
    );
    // DeSmuME's settings are exactly the names users' configurations have.
    assert.deepEqual(
      settingsWith(emulatorSettings()).filter(([name]) => /DESMUME/.test(name)),
      [
        [
          'RE_MCP_DESMUME_LAUNCHER',
          '--desmume-launcher',
          'DeSmuME launcher (default /usr/games/desmume-cli)',
        ],
        ['RE_MCP_DESMUME_LAUNCHER_SHA256', '--desmume-launcher-sha256', 'pins the launcher by SHA-256'],
      ],
    );
    const { env } = mergeFlags({}, ['--fakeemu-program', '/opt/fake', '--desmume-launcher=/x'], declared);
    assert.equal(env[FAKE_PROGRAM_SETTING], '/opt/fake');
    assert.equal(env.RE_MCP_DESMUME_LAUNCHER, '/x');
    // Its own check refuses a bad value at start-up, as DeSmuME's refuses a bad digest.
    for (const [name, value, reason] of [
      [FAKE_PROGRAM_SETTING, 'relative/emu', 'must be an absolute path'],
      ['RE_MCP_DESMUME_LAUNCHER_SHA256', 'abc', 'must be 64 hex digits'],
    ]) {
      assert.throws(
        () => loadConfig({ RE_MCP_WORKSPACE_ROOT: dir, [name!]: value }, declared),
        (e: unknown) => isReMcpError(e) && e.code === 'config-invalid' && e.message === `${name} ${reason}`,
      );
    }
    const config = loadConfig({ RE_MCP_WORKSPACE_ROOT: dir, [FAKE_PROGRAM_SETTING]: '/opt/fake' }, declared);
    assert.equal(config.declared[FAKE_PROGRAM_SETTING], '/opt/fake');
    assert.equal(config.declared.RE_MCP_DESMUME_LAUNCHER, null);
    assert.deepEqual(config.profile, ['static', 'runtime']);
    assert.deepEqual(config.profileOrigin.added, [`runtime (${FAKE_PROGRAM_SETTING} set)`]);
    // Both emulators' settings add one profile, for both reasons.
    const both = profileSelectionOf(
      { RE_MCP_DESMUME_LAUNCHER: '/x', [FAKE_PROGRAM_SETTING]: '/y', RETROARCH_PORT: '1' },
      triggersWith(declared),
    );
    assert.deepEqual(both?.selection, ['static', 'runtime', 'retroarch']);
    assert.deepEqual(both?.origin.added, [
      `runtime (RE_MCP_DESMUME_LAUNCHER, ${FAKE_PROGRAM_SETTING} set)`,
      'retroarch (RETROARCH_PORT set)',
    ]);
    // Without its line the setting is not the server's: not a flag, not read.
    assert.deepEqual(mergeFlags({}, ['--fakeemu-program', '/opt/fake'], emulatorSettings()).rest, [
      '--fakeemu-program',
      '/opt/fake',
    ]);
  });

  it('refuses an entry that would take another emulator’s id, tool prefix, setting or flag', () => {
    const clash = (change: Partial<Emulator>) => () =>
      checkEmulators([...EMULATORS, { ...fakeEmu, ...change }]);
    assert.throws(clash({ id: 'desmume' }), /id desmume is already desmume's/);
    assert.throws(clash({ names: { ...fakeEmu.names, toolPrefix: 'desmume' } }), /tool prefix desmume/);
    assert.throws(
      clash({ settings: [{ ...fakeEmu.settings[0]!, name: 'RE_MCP_DESMUME_LAUNCHER' }] }),
      /setting/,
    );
    assert.throws(clash({ settings: [{ ...fakeEmu.settings[0]!, flag: '--desmume-launcher' }] }), /flag/);
    assert.throws(clash({ id: 'Fake-Emu' }), /not a lower-case word/);
    assert.doesNotThrow(() => checkEmulators(emulators));
  });

  it('gets its own tool family: every debugger tool under its prefix, its names in their texts', () => {
    const verbs = (prefix: string) =>
      tools.filter((t) => t.name.startsWith(`${prefix}_`)).map((t) => t.name.slice(prefix.length + 1));
    assert.equal(verbs('desmume').length, 26);
    assert.deepEqual(verbs('fake'), verbs('desmume'));
    // tools/list order: DeSmuME's, FakeEmu's, then the tools that serve every emulator, then RetroArch's.
    const names = tools.map((t) => t.name);
    assert.equal(new Set(names).size, names.length, 'no tool name twice');
    const at = (name: string) => names.indexOf(name);
    assert.ok(at('desmume_disassemble_live') < at('fake_start'));
    assert.ok(at('fake_disassemble_live') < at('nds_correlate_stop_context'));
    assert.match(names[at('nds_correlate_stop_context') + 1]!, /^retroarch_/);
    // Its published definitions name FakeEmu and its own tools, never DeSmuME or desmume_*.
    const fake = listTools(tools.filter((t) => t.name.startsWith('fake_')));
    const text = JSON.stringify(fake);
    assert.doesNotMatch(text, /desmume/i);
    const byName = new Map(fake.map((t) => [t.name, t]));
    assert.equal(byName.get('fake_start')?.title, 'Start the owned FakeEmu');
    assert.match(
      byName.get('fake_start')!.description,
      /^Launches the server-owned FakeEmu .*\nUse: live debugging; fake_status for a running one, fake_stop ends it\./,
    );
    assert.match(
      JSON.stringify(byName.get('fake_breakpoint_condition')!.inputSchema),
      /From fake_breakpoint_add\./,
    );
    assert.match(
      byName.get('fake_capture_runtime_evidence')!.description,
      /analysis\/generated\/fakeemu\/<sha16>\/evidence\//,
    );
    // DeSmuME's definitions are byte for byte the registry's: the second emulator changes none of them.
    const desmume = (list: ToolDefinition[]) =>
      JSON.stringify(listTools(list.filter((t) => t.name.startsWith('desmume_'))));
    assert.equal(desmume(tools), desmume(registryTools));
    assert.equal(
      JSON.stringify(listTools(tools.filter((t) => !t.name.startsWith('fake_')))),
      JSON.stringify(listTools(registryTools)),
    );
  });

  it('drives a whole session through its tools, beside an idle DeSmuME session', async () => {
    const { ok, fails } = inProcess(tools, services);
    assert.equal((await ok('desmume_status', {})).running, false);
    const noArm7 = await fails('fake_start', { rom: 'second.nds', arm7: true }, 'unsupported');
    assert.equal(noArm7.message, 'FakeEmu has no ARM7 GDB stub');
    const started = await ok('fake_start', { rom: 'second.nds' });
    assert.equal(started.generation, 1);
    assert.equal(started.ports.arm7, null);
    assert.equal(started.rom.arm9Entry, '0x02000000');
    const backend = fakeBackends.at(-1)!;
    const stub = backend.launched[0]!.stub;
    assert.equal(stub.log.noAck, true);
    // DeSmuME's session is another one: still idle.
    assert.equal((await ok('desmume_status', {})).running, false);
    await fails('desmume_read_memory', { address: '0x02000000', length: 4 }, 'not-running');

    const regs = await ok('fake_read_register_packet', {});
    assert.equal(regs.registers.pc, '0x02000000');
    stub.log.memoryReads.length = 0;
    const mem = await ok('fake_read_memory', { address: '0x02000010', length: 0x250 });
    assert.deepEqual(stub.log.memoryReads, [FAKE_CHUNK, FAKE_CHUNK, 0x50]);
    assert.equal(
      mem.hex,
      Buffer.from(Array.from({ length: 0x250 }, (_, i) => fakeByte(0x0200_0010 + i))).toString('hex'),
    );

    const bp = await ok('fake_breakpoint_add', { address: '0x02000008', mode: 'arm' });
    const hit = await ok('fake_continue', { timeoutMs: 2_000 });
    assert.equal(hit.stop.reason, 'breakpoint');
    assert.equal(hit.stop.breakpointId, bp.breakpoint.id);
    assert.equal(hit.stop.pc, '0x02000008');
    const watch = await fails(
      'fake_watchpoint_add',
      { address: '0x02100000', length: 4, access: 'write' },
      'unsupported',
    );
    assert.equal(watch.message, 'the FakeEmu GDB stub has no watchpoints');

    const scan = await ok('fake_memory_scan_start', { address: '0x02000000', length: 4096, size: 4 });
    assert.equal(scan.scanId, 'fakeemu-scan1');
    assert.equal(scan.candidates, 1024);
    assert.equal(scan.owner, 'FakeEmu generation 1');

    // The tool serving every emulator reads the one that runs.
    const stop = await ok('nds_correlate_stop_context', { liveCheck: false });
    assert.equal(stop.generation, 1);
    assert.equal(stop.registers.pc, '0x02000008');
    assert.equal(stop.rom.sha256, started.rom.sha256);

    const evidence = await ok('fake_capture_runtime_evidence', { label: 'second' });
    assert.match(evidence.path, /^analysis\/generated\/fakeemu\/[0-9a-f]{16}\/evidence\/g1-.*-second\.json$/);
    const saved = JSON.parse(await readFile(join(dir, evidence.path), 'utf8'));
    assert.equal(saved.format, 're-mcp.fakeemu-runtime-evidence/1');
    assert.equal(saved.launcherSha256, FAKE_SHA256);

    const stopped = await ok('fake_stop', {});
    assert.equal(stopped.stopped, true);
    assert.equal(backend.launched[0]!.alive, false);
    const gone = await fails('fake_read_memory', { address: '0x02000000', length: 4 }, 'not-running');
    assert.equal(
      gone.message,
      'no owned FakeEmu is running; call fake_start (generation 1 ended: stopped by fake_stop)',
    );
    const none = await fails('nds_correlate_stop_context', {}, 'not-running');
    assert.equal(none.message, 'no owned emulator is running; call desmume_start or fake_start');
  });

  it('is in server_capabilities (readiness, policy) and has its line in the instructions', async () => {
    const { ok } = inProcess(tools, services);
    const caps = await ok('server_capabilities', {});
    assert.deepEqual(Object.keys(caps.integrations), ['desmume', 'fakeemu', 'ghidra', 'git', 'retroarch']);
    assert.deepEqual(caps.integrations.fakeemu, {
      ready: true,
      status: 'ready',
      detail: { program: FAKE_STOCK_PROGRAM },
    });
    const [desmumePolicy, fakePolicy] = caps.policy.emulator.split(' | ');
    assert.match(
      desmumePolicy,
      /^one server-owned DeSmuME; GDB limited to breakpoints, data watchpoints \(Z2\/Z3\/Z4: /,
    );
    assert.equal(
      fakePolicy,
      'one server-owned FakeEmu; GDB limited to breakpoints, continue, step, interrupt, register and bounded memory reads; breakpoint conditions, step over/out and memory scans are evaluated by the server over those',
    );
    const lines = instructionsFor(emulators).split('\n');
    const desmumeLine = lines.findIndex((l) => l.startsWith('- DeSmuME: '));
    assert.equal(
      lines[desmumeLine + 1],
      '- FakeEmu: one ARM9 stub and no watchpoints; its stub speaks no-ack mode.',
    );
    assert.doesNotMatch(INSTRUCTIONS, /FakeEmu/);
    assert.equal(instructionsFor(EMULATORS), INSTRUCTIONS);
  });

  it('is checked by the doctor, and hinted at by `re-mcp config` when installed', async () => {
    const env = {
      RE_MCP_WORKSPACE_ROOT: dir,
      [FAKE_PROGRAM_SETTING]: FAKE_STOCK_PROGRAM,
      RETROARCH_PORT: String(await freeUdpPort()),
      RETROARCH_TIMEOUT_MS: '100',
    };
    const report = await runChecks(env, emulators);
    const byId = new Map(report.checks.map((c) => [c.id, c]));
    const ids = report.checks.map((c) => c.id);
    assert.deepEqual(ids.slice(ids.indexOf('desmume'), ids.indexOf('retroarch') + 1), [
      'desmume',
      'fakeemu',
      'retroarch',
    ]);
    const fake = byId.get('fakeemu')!;
    assert.equal(fake.status, 'ok', fake.detail);
    assert.equal(fake.required, true, 'its setting was given: explicit');
    assert.match(
      fake.detail,
      /^FakeEmu 1\.0 at \/fake\/emu, sha256 f{64}; started headless, ARM9 GDB stub answered \(port \d+\)$/,
    );
    assert.equal(byId.get('desmume')?.status, 'ok', byId.get('desmume')?.detail);
    // The settings line saw its setting; an invalid one stops both emulators' checks.
    const bad = await runChecks({ ...env, [FAKE_PROGRAM_SETTING]: 'relative' }, emulators);
    const badIds = new Map(bad.checks.map((c) => [c.id, c]));
    assert.match(badIds.get('settings')!.detail, /RE_MCP_FAKEEMU_PROGRAM must be an absolute path/);
    assert.match(badIds.get('fakeemu')!.detail, /not checked/);

    // `re-mcp config`: passes its setting on, and says when it is installed but not listed.
    assert.equal(
      launchFor(env, join(REPO_ROOT, 'dist', 'index.js'), emulators).env[FAKE_PROGRAM_SETTING],
      FAKE_STOCK_PROGRAM,
    );
    const hints = installedHints({}, emulators);
    assert.equal(
      hints.at(-1),
      'FakeEmu is installed here (/fake/emu), but this block lists the static tools only: add --profile static,runtime for the FakeEmu tools (or --profile full for every tool) and run this again',
    );
    assert.deepEqual(installedHints({ [FAKE_PROGRAM_SETTING]: '/x' }, emulators), installedHints({}));
  });

  it('reaches nothing of DeSmuME from its folder', () => {
    const reached = reachedModules(join(import.meta.dirname, 'fake-emulator.ts'));
    assert.ok(reached.includes('src/debug/backend.ts'));
    assert.deepEqual(
      reached.filter(
        (f) => f.startsWith('src/debug/desmume/') || /^src\/debug\/(service|registry|emulators)\.ts$/.test(f),
      ),
      [],
    );
  });
});
