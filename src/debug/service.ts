// The per-server debugger services: one debug session per emulator, over the backend its settings
// make, and the memory scans tied to that session's generations; and the list of emulators the server
// offers. Tools reach them through these accessors.
import { ReMcpError } from '../core/errors.js';
import { ScanStore } from '../memory-scan/memory-scan.js';
import { type ServiceKey, type Services, serviceKey } from '../services.js';
import type { Emulator } from './backend.js';
import { EMULATORS, startHint } from './emulators.js';
import { DebugSession } from './session.js';

/** The key of the emulator list in force (the registry's; a test installs a longer one first). */
export const EMULATOR_LIST = serviceKey<readonly Emulator[]>('debug.emulators');

/** The emulators this server offers. */
export function emulatorsOf(services: Services): readonly Emulator[] {
  return services.lazy(EMULATOR_LIST, () => EMULATORS);
}

/** One key per emulator id, the same key each time. */
function keyPer<T>(keys: Map<string, ServiceKey<T>>, what: string, emu: Emulator): ServiceKey<T> {
  let key = keys.get(emu.id);
  if (key === undefined) {
    key = serviceKey<T>(`${what}.${emu.id}`);
    keys.set(emu.id, key);
  }
  return key;
}

const SESSION_KEYS = new Map<string, ServiceKey<DebugSession>>();
const SCAN_KEYS = new Map<string, ServiceKey<ScanStore>>();

/** The key of an emulator's debug session (exported so a test can install its own session). */
export function debugSessionKey(emu: Emulator): ServiceKey<DebugSession> {
  return keyPer(SESSION_KEYS, 'debug.session', emu);
}

/** The emulator's debug session, created on first use over its settings and disposed with the server. */
export function debugSession(services: Services, emu: Emulator): DebugSession {
  return services.lazy(debugSessionKey(emu), () => {
    const session = new DebugSession(emu.backend(services.config.declared));
    services.onDispose(() => session.dispose());
    return session;
  });
}

/** The per-server store of memory scans over the emulator's owned process (scan ids `<id>-scanN`). */
export function emulatorScans(services: Services, emu: Emulator): ScanStore {
  return services.lazy(keyPer(SCAN_KEYS, 'debug.scans', emu), () => new ScanStore(emu.id));
}

/**
 * The session of the one emulator running now, for the tools that serve every emulator
 * (nds_correlate_stop_context). With one emulator offered it is that one's session, running or not
 * (its own refusal says what to start); with several, none or more than one running is refused.
 */
export function runningSession(services: Services): DebugSession {
  const emulators = emulatorsOf(services);
  const sessions = emulators.map((emu) => debugSession(services, emu));
  if (sessions.length === 1) return sessions[0]!;
  const running = sessions.filter((s) => s.generation !== null);
  if (running.length === 1) return running[0]!;
  if (running.length === 0)
    throw new ReMcpError('not-running', `no owned emulator is running; ${startHint(emulators)}`);
  throw new ReMcpError(
    'already-running',
    `${emulators
      .filter((_, i) => sessions[i]!.generation !== null)
      .map((e) => e.names.emulator)
      .join(' and ')} are running: stop all but the one to read`,
  );
}
