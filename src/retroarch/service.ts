// The per-server RetroArch client (one UDP socket, created on first use) and the start-up probe.
import type { Services } from '../services.js';
import { RetroArchClient } from './client.js';

export function retroarchClient(services: Services): RetroArchClient {
  return services.lazy('retroarch', () => {
    const client = new RetroArchClient({ ...services.config.retroarch });
    services.onDispose(() => client.close());
    return client;
  });
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
