// `re-mcp doctor`: the self-check after an install. One line per capability (ok / missing / broken,
// and the fix), or `--json` for machines. Exit code 1 when something required or explicitly
// configured is not ok, 0 otherwise. Every check is a small function over the server's own services.
import type { Emulator } from '../../debug/backend.js';
import { EMULATORS, emulatorSettings } from '../../debug/emulators.js';
import { VERSION } from '../../version.js';
import { type CheckResult, failed, notOk } from './check.js';
import { coreChecks } from './core-checks.js';
import { checkEmulator, checkRetroArch } from './integration-checks.js';
import { buildTinyRom } from './tiny-rom.js';
import {
  checkConfigFile,
  checkGit,
  checkOutputRoots,
  checkSettings,
  checkWorkspace,
} from './workspace-checks.js';

type Env = Record<string, string | undefined>;

export interface DoctorReport {
  ok: boolean;
  version: string;
  checks: CheckResult[];
}

/** Every check, with one per emulator offered (the registry's, or those given). */
export async function runChecks(env: Env, emulators: readonly Emulator[] = EMULATORS): Promise<DoctorReport> {
  const checks: CheckResult[] = await coreChecks();
  const settings = checkSettings(env, emulatorSettings(emulators));
  checks.push(settings.result);
  const workspace = checkWorkspace(env);
  checks.push(workspace.result);
  if (workspace.root !== null) {
    checks.push(await checkOutputRoots(workspace.root));
    checks.push(await checkConfigFile(workspace.root));
  }
  if (settings.settings !== null) {
    // Independent of each other: the emulators' starts and the RetroArch query run side by side.
    const found = settings.settings;
    const [retroarch, ...emulatorChecks] = await Promise.all([
      checkRetroArch(found, env),
      ...emulators.map((emu) => checkEmulator(emu, found, env, buildTinyRom())),
    ]);
    checks.push(...emulatorChecks, retroarch);
  } else {
    // The settings line already fails the doctor; these say what could not be looked at.
    for (const id of [...emulators.map((emu) => emu.id), 'retroarch'])
      checks.push(
        notOk(id, 'missing', 'not checked: the settings are invalid', 'fix the settings first', false),
      );
  }
  checks.push(await checkGit());
  return { ok: !failed(checks), version: VERSION, checks };
}

export function formatReport(report: DoctorReport): string {
  const width = Math.max(...report.checks.map((c) => c.id.length));
  const lines = report.checks.map((c) => {
    const head = `${c.status.padEnd(7)} ${c.id.padEnd(width)}  ${c.detail}`;
    return c.fix === null ? head : `${head}\n${' '.repeat(8 + width + 2)}fix: ${c.fix}`;
  });
  const bad = report.checks.filter((c) => c.status !== 'ok').length;
  lines.push(
    report.ok
      ? `re-mcp ${report.version}: ready${bad > 0 ? ` (${bad} optional item${bad === 1 ? '' : 's'} not available)` : ''}`
      : `re-mcp ${report.version}: NOT ready: fix the items above marked broken (or missing and required)`,
  );
  return `${lines.join('\n')}\n`;
}

export async function doctor(env: Env, json: boolean): Promise<number> {
  // Interrupted mid-check, exit through process.exit: its 'exit' hooks kill an emulator being checked,
  // which a default signal death would leave running.
  const interrupted = () => process.exit(130);
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  const report = await runChecks(env);
  process.stdout.write(json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
  return report.ok ? 0 : 1;
}
