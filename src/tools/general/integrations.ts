// Local readiness checks for the optional integrations: files present and executable, pinned digests.
// Nothing here starts a process or opens a socket.
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../../config/config.js';
import { sha256File } from '../../workspace/hash.js';

export interface IntegrationStatus {
  ready: boolean;
  status: string;
  detail: Record<string, unknown>;
}

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    const info = await stat(path);
    if (!info.isFile()) return false;
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function desmumeStatus(config: Config): Promise<IntegrationStatus> {
  const { launcher, launcherSha256 } = config.desmume;
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

async function ghidraStatus(config: Config): Promise<IntegrationStatus> {
  // No tool uses Ghidra yet: whatever is installed, it is not an integration this server offers.
  const { home } = config.ghidra;
  return { ready: false, status: 'not-implemented', detail: { configured: home !== null } };
}

async function gitStatus(): Promise<IntegrationStatus> {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && (await isExecutableFile(join(dir, 'git'))))
      return { ready: true, status: 'ready', detail: { git: join(dir, 'git') } };
  }
  return { ready: false, status: 'git-missing', detail: {} };
}

export async function checkIntegrations(config: Config): Promise<Record<string, IntegrationStatus>> {
  const [desmume, ghidra, git] = await Promise.all([
    desmumeStatus(config),
    ghidraStatus(config),
    gitStatus(),
  ]);
  const { host, port, timeoutMs, screenshotDir } = config.retroarch;
  return {
    desmume,
    ghidra,
    git,
    // Reachability is not probed here (that would touch the network): retroarch_ping does it.
    retroarch: {
      ready: true,
      status: 'configured (not probed; use retroarch_ping)',
      detail: { host, port, timeoutMs, screenshotDir },
    },
  };
}
