// The per-server service container. Domains add their own long-lived services lazily through
// `lazy()`, keyed by a typed key the domain declares once beside its accessor, so start-up stays
// cheap, this file stays small and a key always yields the type it was declared with:
// `const ROMS = serviceKey<RomStore>('roms')`, `services.lazy(ROMS, () => new RomStore(...))`.
// Tools reach a service only through its domain's accessor (e.g. getRomStore(services)).
import type { Config } from './config/config.js';
import { MemoryBudget } from './core/memory-budget.js';
import type { ProfileReport } from './core/profiles.js';
import type { LimitSpec } from './core/vocabulary.js';
import type { Workspace } from './workspace/workspace.js';

/** What the container keeps of each listed tool: what server_capabilities reports. */
export interface ListedTool {
  name: string;
  title: string;
  limits?: Record<string, LimitSpec>;
}

/** The key of one per-server service; `T` is the type of the service it stores. */
export interface ServiceKey<T> {
  /** Names the service in diagnostics; keys compare by identity, never by name. */
  readonly name: string;
  /** Type-level only: ties the key to the service type (never set). */
  readonly __service?: T;
}

/** Declares a service key (once, in the module that owns the service). */
export function serviceKey<T>(name: string): ServiceKey<T> {
  return Object.freeze({ name });
}

export class Services {
  private readonly singletons = new Map<ServiceKey<unknown>, unknown>();
  private readonly disposers: Array<() => Promise<void> | void> = [];
  private disposed = false;
  /** The tools this server lists (its profile), set once by the server assembly. */
  tools: readonly ListedTool[] = [];
  /** What the profile in force lists and leaves out (null where no server assembled the tools). */
  profileReport: ProfileReport | null = null;

  constructor(
    readonly config: Config,
    readonly workspace: Workspace,
    /** The one memory budget every call's large buffers are reserved from (core/memory-budget.ts). */
    readonly memory: MemoryBudget = new MemoryBudget(),
  ) {}

  /** The service stored under `key`, created by `create` on first use. */
  lazy<T>(key: ServiceKey<T>, create: () => T): T {
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
