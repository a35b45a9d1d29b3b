// DeSmuME's settings: the launcher (operator configuration, never a caller argument) and the digest
// that pins it, declared for config under the names users already set; the launcher in force (the
// configured one, else Debian's when installed); and its readiness, checked without starting it.
import { statSync } from 'node:fs';
import type { DeclaredValues, SettingSpec } from '../../config/config.js';
import { isExecutableFile } from '../../core/containment.js';
import { sha256File } from '../../workspace/hash.js';
import type { Readiness } from '../backend.js';
import type { LauncherConfig } from './process.js';

export const LAUNCHER_SETTING = 'RE_MCP_DESMUME_LAUNCHER';
export const LAUNCHER_SHA256_SETTING = 'RE_MCP_DESMUME_LAUNCHER_SHA256';
/** Debian's launcher (package desmume), used when RE_MCP_DESMUME_LAUNCHER is unset. */
export const STOCK_LAUNCHER = '/usr/games/desmume-cli';

export const DESMUME_SETTINGS: readonly SettingSpec[] = [
  {
    name: LAUNCHER_SETTING,
    flag: '--desmume-launcher',
    help: `DeSmuME launcher (default ${STOCK_LAUNCHER})`,
  },
  {
    name: LAUNCHER_SHA256_SETTING,
    flag: '--desmume-launcher-sha256',
    help: 'pins the launcher by SHA-256',
    invalid: (value) => (/^[0-9a-fA-F]{64}$/.test(value) ? null : 'must be 64 hex digits'),
  },
];

/** The stock launcher when it is installed, else null. */
export function stockLauncher(): string | null {
  try {
    return statSync(STOCK_LAUNCHER).isFile() ? STOCK_LAUNCHER : null;
  } catch {
    return null;
  }
}

/** The launcher and pin in force for these settings (a setting not read is unset). */
export function launcherConfig(values: DeclaredValues): LauncherConfig {
  return {
    launcher: values[LAUNCHER_SETTING] ?? stockLauncher(),
    launcherSha256: values[LAUNCHER_SHA256_SETTING]?.toLowerCase() ?? null,
  };
}

/** Whether the launcher is there, executable and the pinned one; nothing is run. */
export async function launcherReadiness(config: LauncherConfig): Promise<Readiness> {
  const { launcher, launcherSha256 } = config;
  if (launcher === null) return { ready: false, status: 'not-configured', detail: { launcher: null } };
  if (!(await isExecutableFile(launcher)))
    return { ready: false, status: 'launcher-missing', detail: { launcher } };
  if (launcherSha256 !== null) {
    const { sha256 } = await sha256File(launcher);
    if (sha256 !== launcherSha256) {
      return {
        ready: false,
        status: 'launcher-digest-mismatch',
        detail: { launcher, expected: launcherSha256, actual: sha256 },
      };
    }
  }
  return { ready: true, status: 'ready', detail: { launcher, pinned: launcherSha256 !== null } };
}
