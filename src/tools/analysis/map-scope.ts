// The program scope of the analysis tools: their answers from the whole-program map (built or reused
// through the map service), in the same identity and coverage shapes as the bounded search.
import { z } from 'zod/v4';
import type { EvidenceId } from '../../analysis/evidence/index.js';
import type { CallSiteKind } from '../../analysis/functions/discover.js';
import type { CallKind } from '../../analysis/program-map/call-store.js';
import type { MapComponent } from '../../analysis/program-map/components.js';
import type { MapFunction, ProgramMap } from '../../analysis/program-map/map.js';
import { getProgramMaps, MAP_LIMITS } from '../../analysis/program-map/service.js';
import type { Tier } from '../../analysis/program-map/types.js';
import type { ArmMode } from '../../arm/types.js';
import { formatAddress, type Processor } from '../../core/vocabulary.js';
import type { ToolContext } from '../../mcp/tool.js';
import type { RomHandle, RomStore } from '../../nds/rom-store.js';
import { componentKindSchema, type identitySchema, limitArgs } from './proof-search.js';

/** The map's own bounds, as arguments of the tools that may build it. */
export const mapLimitArgs = limitArgs(MAP_LIMITS);
export { MAP_LIMITS };

/** The map for a tool call (progress: bytes of code classified so far). */
export function toolMap(
  ctx: ToolContext,
  store: RomStore,
  rom: RomHandle,
  processor: Processor,
  evidence: readonly EvidenceId[],
  args: { maxCodeBytes: number; maxSeconds: number },
  report?: (codeBytes: number) => void,
): Promise<ProgramMap> {
  return getProgramMaps(ctx.services).map(store, rom, {
    processor,
    evidence,
    maxCodeBytes: args.maxCodeBytes,
    maxSeconds: args.maxSeconds,
    signal: ctx.signal,
    onProgress: report,
  });
}

/** Progress of a map build, monotonic after the ROM hash (bytes of code classified). */
export function mapProgress(ctx: ToolContext) {
  let hashed = 0;
  let last = 0;
  return {
    hash(done: number, total: number): void {
      hashed = total;
      ctx.progress({ progress: done, total, message: 'hashing the ROM' });
    },
    map(codeBytes: number): void {
      const now = Date.now();
      if (now - last < 100) return;
      last = now;
      ctx.progress({
        progress: hashed + codeBytes,
        message: `mapping: ${codeBytes} bytes of code classified`,
      });
    },
  };
}

/** A map component in the tools' component vocabulary. */
export const mapComponentSchema = z.object({
  component: componentKindSchema,
  overlayId: z.number().int().nullable(),
  autoloadIndex: z.number().int().optional(),
});

export function mapComponentView(c: MapComponent): z.input<typeof mapComponentSchema> {
  return {
    component: c.kind,
    overlayId: c.overlayId,
    ...(c.autoloadIndex !== null ? { autoloadIndex: c.autoloadIndex } : {}),
  };
}

/** A map call's kind as the tools name it: through a constant register (or a stub), or direct. */
export function mapCallKind(kind: CallKind): CallSiteKind {
  return kind === 'register' || kind === 'stub' ? 'constant-register-call' : 'direct-call';
}

export function mapIdentityView(
  processor: Processor,
  f: { component: MapComponent; address: number; mode: ArmMode },
): z.input<typeof identitySchema> {
  return {
    processor,
    address: formatAddress(f.address),
    mode: f.mode,
    ...(f.component.overlayId !== null ? { overlayId: f.component.overlayId } : {}),
  };
}

/** The evidence classes of a function, each once, best tier first. */
export function evidenceOf(fn: MapFunction): EvidenceId[] {
  return [...new Set(fn.evidence.map((e) => e.class as EvidenceId))];
}

/** Component coverage in the bounded vocabulary: a map scans every component it could read. */
export function mapComponentsCoverage(map: ProgramMap) {
  return [
    ...map.set.list.map((c) => ({ ...mapComponentView(c), coverage: 'scanned' as const })),
    ...map.set.unavailable.map((u) => ({
      component: u.kind,
      overlayId: u.overlayId,
      coverage: 'compressed-overlay-not-decodable' as const,
    })),
  ];
}

export const DEFAULT_LOWEST: Tier = 'heuristic';
