// The per-server debugger services: the one debug session, over the DeSmuME backend the operator
// configured, and the memory scans tied to its generations. Tools reach them through these accessors.
import { ScanStore } from '../scan/memory-scan.js';
import { type Services, serviceKey } from '../services.js';
import { desmumeBackend } from './desmume/backend.js';
import { DebugSession } from './session.js';

/** The key of the server's debug session (exported so a test can install its own session). */
export const DEBUG_SESSION = serviceKey<DebugSession>('debug.session');
const DESMUME_SCANS = serviceKey<ScanStore>('desmume.scans');

/** The server's debug session, created on first use and disposed with the server. */
export function debugSession(services: Services): DebugSession {
  return services.lazy(DEBUG_SESSION, () => {
    const session = new DebugSession(desmumeBackend(services.config.desmume));
    services.onDispose(() => session.dispose());
    return session;
  });
}

/** The per-server store of memory scans over the owned DeSmuME. */
export function desmumeScans(services: Services): ScanStore {
  return services.lazy(DESMUME_SCANS, () => new ScanStore('desmume'));
}
