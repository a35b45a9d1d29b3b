// DeSmuME as the server knows it: the Emulator entry src/debug/registry.ts lists. Everything the
// server says or reads about DeSmuME outside this folder comes from here: its names and tool prefix,
// its settings, its readiness, the doctor's fixes and the lines it publishes. Start-up reads it, so
// the backend and its process code (./backend.ts, ./process.ts) are imported on first use.
import { type Emulator, lazyBackend } from '../backend.js';
import { DESMUME_PROFILE } from './profile.js';
import { DESMUME_SETTINGS, LAUNCHER_SETTING, LAUNCHER_SHA256_SETTING, launcherConfig } from './settings.js';

export const desmume: Emulator = {
  ...DESMUME_PROFILE,
  id: 'desmume',
  settings: DESMUME_SETTINGS,
  texts: {
    instruction: 'both CPUs share one emulation, so resuming either runs both.',
    watchpoints: 'Z2/Z3/Z4: honoured by DeSmuME 0.9.11 on ARM9 and ARM7, probed on the real emulator',
  },
  fixes: {
    install: `install DeSmuME (apt-get install desmume) or set ${LAUNCHER_SETTING} to its desmume-cli`,
    pinned: `update ${LAUNCHER_SHA256_SETTING} to the digest of the launcher you trust`,
    launch: `the launcher must run desmume-cli with its arguments (--arm9gdb, --arm7gdb, the ROM): check ${LAUNCHER_SETTING}`,
  },
  located: (values) => launcherConfig(values).launcher,
  readiness: async (values) => (await import('./process.js')).launcherReadiness(launcherConfig(values)),
  backend: (values) =>
    lazyBackend(DESMUME_PROFILE, async () =>
      (await import('./backend.js')).desmumeBackend(launcherConfig(values)),
    ),
};
