// Local readiness checks for the optional integrations: each emulator's own (its entry says how:
// files present and executable, pinned digests), Ghidra, git and RetroArch's settings. Nothing here
// starts a process or opens a socket.
import { join } from 'node:path';
import type { Config } from '../../config/config.js';
import { isExecutableFile } from '../../core/containment.js';
import type { Emulator, Readiness } from '../../debug/backend.js';

type IntegrationStatus = Readiness;

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

/** Every integration's readiness, keyed by name: each emulator's (by its id) first. */
export async function checkIntegrations(
  config: Config,
  emulators: readonly Emulator[],
): Promise<Record<string, IntegrationStatus>> {
  const [ghidra, git, ...ready] = await Promise.all([
    ghidraStatus(config),
    gitStatus(),
    ...emulators.map((emu) => emu.readiness(config.declared)),
  ]);
  const { host, port, timeoutMs, screenshotDir } = config.retroarch;
  return {
    ...Object.fromEntries(emulators.map((emu, i) => [emu.id, ready[i]!])),
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
