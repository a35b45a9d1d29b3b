// The per-server RetroArch services (the client, one UDP socket created on first use, and the memory
// scans tied to the loaded content) and the start-up probe.
import { ScanStore } from '../memory-scan/memory-scan.js';
import { type Services, serviceKey } from '../services.js';
import { RetroArchClient } from './client.js';

const RETROARCH_CLIENT = serviceKey<RetroArchClient>('retroarch');
const RETROARCH_SCANS = serviceKey<ScanStore>('retroarch.scans');

export function retroarchClient(services: Services): RetroArchClient {
  return services.lazy(RETROARCH_CLIENT, () => {
    const client = new RetroArchClient({ ...services.config.retroarch });
    services.onDispose(() => client.close());
    return client;
  });
}

/** The per-server store of RetroArch memory scans. */
export function retroarchScans(services: Services): ScanStore {
  return services.lazy(RETROARCH_SCANS, () => new ScanStore('retroarch'));
}

/**
 * Background probe for `serve`: one VERSION query whose outcome is only logged. It never delays
 * start-up or tools/list, and a missing RetroArch is a note, not an error (tools connect on demand).
 */
export function probeRetroArch(services: Services, log: (line: string) => void): void {
  const client = retroarchClient(services);
  const target = client.transport.target;
  client.getVersion().then(
    (v) => log(`re-mcp: RetroArch ${v.text} answers at ${target}`),
    (error: unknown) =>
      log(
        `re-mcp: note: RetroArch not reachable at ${target} yet (${error instanceof Error ? error.message : String(error)}); RetroArch tools will connect on demand`,
      ),
  );
}
