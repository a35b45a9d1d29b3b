// DeSmuME's settings: the launcher (operator configuration, never a caller argument) and the digest
// that pins it, declared for config under the names users already set, and the launcher in force (the
// configured one, else Debian's when installed). Loaded at start-up with the entry.
import { statSync } from 'node:fs';
import type { DeclaredValues, SettingSpec } from '../../config/config.js';
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
