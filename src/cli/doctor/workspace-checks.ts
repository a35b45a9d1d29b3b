// The doctor's checks of the operator's setup: the settings, the workspace (exists, is not home,
// both output roots writable), the workspace's re-mcp.config.json, and git. They call the same
// validation the server runs at start-up and the same writer the tools write through.
import { join } from 'node:path';
import {
  type Config,
  type DeclaredSettings,
  loadSettings,
  validateWorkspaceRoot,
} from '../../config/config.js';
import { runBounded } from '../../core/bounded-process.js';
import { isReMcpError } from '../../core/errors.js';
import { CONFIG_FILE, loadChecks } from '../../project/checks-config.js';
import { gitExecutable } from '../../project/git-status.js';
import type { OutputDir } from '../../workspace/output-dir.js';
import { OUTPUT_AREAS, Workspace } from '../../workspace/workspace.js';
import { type CheckResult, message, notOk, ok } from './check.js';

type Env = Record<string, string | undefined>;
const HELP = 'correct it (re-mcp --help lists every setting)';

export function checkSettings(
  env: Env,
  declared: readonly DeclaredSettings[],
): {
  result: CheckResult;
  settings: Omit<Config, 'workspaceRoot'> | null;
} {
  try {
    const settings = loadSettings(env, declared);
    return {
      result: ok(
        'settings',
        `valid (profile ${settings.profile.join(',')}${settings.profileOrigin.source === 'default' ? `, the default${settings.profileOrigin.added.length > 0 ? ` with ${settings.profileOrigin.added.join(', ')}` : ''}` : ''}, output schemas ${settings.outputSchemas})`,
        true,
      ),
      settings,
    };
  } catch (error) {
    return { result: notOk('settings', 'broken', message(error), HELP, true), settings: null };
  }
}

export function checkWorkspace(env: Env): { result: CheckResult; root: string | null } {
  const raw = env.RE_MCP_WORKSPACE_ROOT;
  if (raw === undefined || raw.trim() === '') {
    return {
      result: notOk(
        'workspace',
        'missing',
        'RE_MCP_WORKSPACE_ROOT is not set',
        'set RE_MCP_WORKSPACE_ROOT (or pass --workspace-root) to a dedicated directory',
        true,
      ),
      root: null,
    };
  }
  try {
    const root = validateWorkspaceRoot(raw);
    return { result: ok('workspace', root, true, { root }), root };
  } catch (error) {
    return {
      result: notOk(
        'workspace',
        'broken',
        message(error),
        'point RE_MCP_WORKSPACE_ROOT at a dedicated directory',
        true,
      ),
      root: null,
    };
  }
}

const PROBE = '.re-mcp-doctor-probe';

/** Writes (atomically, as every tool does) and removes a probe file in each output root. */
export async function checkOutputRoots(root: string): Promise<CheckResult> {
  const workspace = new Workspace(root);
  for (const area of OUTPUT_AREAS) {
    let dir: OutputDir | null = null;
    let written = false;
    try {
      dir = await workspace.outputDir(area, []);
      await dir.writeAtomic(PROBE, 'probe\n');
      written = true;
    } catch (error) {
      const code = isReMcpError(error) ? error.code : ((error as NodeJS.ErrnoException).code ?? 'error');
      return notOk(
        'output-roots',
        'broken',
        `${area}/ is not writable (${code}): ${message(error)}`,
        `make ${join(root, area)} a real directory this user can write`,
        true,
        { area },
      );
    } finally {
      if (dir !== null) {
        if (written) await dir.remove(PROBE).catch(() => {});
        await dir.close();
      }
    }
  }
  return ok('output-roots', `${OUTPUT_AREAS.map((a) => `${a}/`).join(' and ')} are writable`, true);
}

export async function checkConfigFile(root: string): Promise<CheckResult> {
  try {
    const checks = await loadChecks(root);
    return ok('config-file', `${CONFIG_FILE} declares ${Object.keys(checks).length} check(s)`, true);
  } catch (error) {
    if (isReMcpError(error) && error.code === 'not-configured') {
      return notOk(
        'config-file',
        'missing',
        `no ${CONFIG_FILE} (optional: it declares run_project_verification checks)`,
        `create ${join(root, CONFIG_FILE)} to declare verification checks`,
        false,
      );
    }
    // A file that exists is configuration: an invalid one is broken.
    return notOk('config-file', 'broken', message(error), `correct ${join(root, CONFIG_FILE)}`, true);
  }
}

export async function checkGit(): Promise<CheckResult> {
  const git = gitExecutable();
  const run = await runBounded({
    argv: [git, '--version'],
    cwd: '/',
    env: { PATH: '/usr/bin:/bin', LC_ALL: 'C' },
    timeoutMs: 10_000,
    maxOutputBytes: 1_024,
  });
  if (run.spawnError === null && run.exitCode === 0)
    return ok('git', `${run.stdout.tail.trim()} (${git})`, false, { git });
  return notOk(
    'git',
    'missing',
    `git does not run (${run.spawnError ?? `exit code ${run.exitCode}`})`,
    'install git (get_project_status needs it), e.g. apt-get install git',
    false,
  );
}
