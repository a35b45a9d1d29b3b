// The per-server service container. Domains add their own long-lived services lazily through
// `lazy()` (keyed by a name the domain owns), so start-up stays cheap and this file stays small:
// e.g. `services.lazy('roms', () => new RomStore(services.workspace))`.
import type { Config } from './config/config.js';
import type { ProfileReport } from './core/profiles.js';
import type { LimitSpec } from './core/vocabulary.js';
import type { Workspace } from './workspace/workspace.js';

/** What the container keeps of each listed tool: what server_capabilities reports. */
export interface ListedTool {
  name: string;
  title: string;
  limits?: Record<string, LimitSpec>;
}

export class Services {
  private readonly singletons = new Map<string, unknown>();
  private readonly disposers: Array<() => Promise<void> | void> = [];
  private disposed = false;
  /** The tools this server lists (its profile), set once by the server assembly. */
  tools: readonly ListedTool[] = [];
  /** What the profile in force lists and leaves out (null where no server assembled the tools). */
  profileReport: ProfileReport | null = null;

  constructor(
    readonly config: Config,
    readonly workspace: Workspace,
  ) {}

  lazy<T>(key: string, create: () => T): T {
    if (this.singletons.has(key)) return this.singletons.get(key) as T;
    const value = create();
    this.singletons.set(key, value);
    return value;
  }

  /** Registers cleanup run once at shutdown (owned emulator processes, sockets). */
  onDispose(fn: () => Promise<void> | void): void {
    this.disposers.push(fn);
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    for (const fn of this.disposers.reverse()) {
      try {
        await fn();
      } catch (error) {
        process.stderr.write(`re-mcp: cleanup failed: ${String(error)}\n`);
      }
    }
  }
}
