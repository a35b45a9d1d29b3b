// The NDS side of function discovery and xref search: turns a ROM, a processor, the caller's seeds
// and selected overlays into the pure engine's inputs (code spans through the canonical code-source
// resolver) and its result into per-component coverage and an overall status. For the ARM9 the scope
// also holds its autoload blocks (ITCM/DTCM code copied at start-up): always selected like main,
// reached only through proven calls or seeds, their bytes from the stored or decoded ARM9 image.
import type { CodeSpan, SpanLookup } from '../../arm/cfg.js';
import type { ArmMode } from '../../arm/types.js';
import { ReMcpError } from '../../core/errors.js';
import type { Processor } from '../../core/vocabulary.js';
import { resolveRuntimeAddress } from '../../formats/nds/index.js';
import type { RomHandle, RomStore } from '../../roms/rom-store.js';
import { resolveStart, spanLookup } from '../code-source.js';
import {
  type CfgLimitsOf,
  componentKey,
  type DiscoveryLimits,
  type DiscoveryResult,
  discoverFunctions,
  type Evidence,
} from './discover.js';

export const COVERAGES = [
  'scanned',
  'no-proven-seed',
  'compressed-overlay-not-decodable',
  'out-of-limit',
] as const;
export type Coverage = (typeof COVERAGES)[number];
export const SCOPE_STATUSES = ['complete', 'partial-coverage', 'truncated'] as const;
export type ScopeStatus = (typeof SCOPE_STATUSES)[number];

export interface SeedRequest {
  address: number;
  mode: ArmMode;
  overlayId?: number | undefined;
}

export interface ScopeRequest {
  processor: Processor;
  seeds: SeedRequest[];
  /** Overlay IDs in the selected scope (main is always in it); undefined: every overlay. */
  overlayIds?: number[] | undefined;
  evidence: ReadonlySet<Evidence>;
  limits: DiscoveryLimits;
  local: CfgLimitsOf;
  signal?: AbortSignal;
  onProgress?: (analysed: number, queued: number) => void;
  onBlock?: Parameters<typeof discoverFunctions>[0]['onBlock'];
  stopWhenProven?: Parameters<typeof discoverFunctions>[0]['stopWhenProven'];
  decoder?: Parameters<typeof discoverFunctions>[0]['decoder'];
}

export type ComponentKind = 'main' | 'overlay' | 'autoload';

export interface ComponentCoverage {
  component: ComponentKind;
  overlayId: number | null;
  /** Which ARM9 autoload block (component 'autoload' only). */
  autoloadIndex?: number;
  coverage: Coverage;
}

export interface ScopeResult {
  result: DiscoveryResult;
  components: ComponentCoverage[];
  status: ScopeStatus;
}

/** Runs discovery over one ROM's selected static scope for one processor. */
export async function discoverInRom(
  store: RomStore,
  rom: RomHandle,
  req: ScopeRequest,
): Promise<ScopeResult> {
  const known = new Set(rom.model.overlays[req.processor].map((o) => o.id));
  for (const id of [...(req.overlayIds ?? []), ...req.seeds.flatMap((s) => s.overlayId ?? [])]) {
    if (!known.has(id))
      throw new ReMcpError('not-found', `${req.processor} has no overlay ${id}`, { overlayId: id });
  }
  const notDecodable = new Set<string>();
  // Autoload blocks belong to the ARM9 (the code source refuses an overlap with main or an overlay).
  const autoloads = req.processor === 'arm9';
  const base = spanLookup(store, rom, req.processor, req.signal, { autoloads });
  const lookup: SpanLookup = async (address, mode, from) => {
    const found = await base(address, mode, from);
    if ('unresolved' in found && found.unresolved === 'blz-malformed') {
      const r = resolveRuntimeAddress(rom.model, req.processor, address);
      for (const c of r.candidates) notDecodable.add(componentKey(c.component, c.overlayId, c.autoloadIndex));
    }
    return found;
  };
  let entry: { span: CodeSpan; address: number } | null = null;
  if (req.evidence.has('program-entry')) {
    try {
      const src = await resolveStart(
        store,
        rom,
        { processor: req.processor, address: rom.model[req.processor].entryAddress, mode: 'auto' },
        req.signal,
      );
      entry = { span: src.span, address: src.address };
    } catch (error) {
      if (!(error instanceof ReMcpError) || error.code === 'cancelled') throw error;
      if (error.code === 'blz-malformed') notDecodable.add(componentKey('main', null));
    }
  }
  const seeds: { span: CodeSpan; address: number; mode: ArmMode }[] = [];
  for (const s of req.seeds) {
    // A seed must resolve like any start: exact initialized code, aligned, one source.
    const src = await resolveStart(
      store,
      rom,
      { processor: req.processor, address: s.address, overlayId: s.overlayId, mode: s.mode, autoloads },
      req.signal,
    );
    seeds.push({ span: src.span, address: src.address, mode: src.mode });
  }
  const result = await discoverFunctions({
    processor: req.processor,
    entry,
    seeds,
    lookup,
    evidence: req.evidence,
    limits: req.limits,
    local: req.local,
    ...(req.signal ? { signal: req.signal } : {}),
    ...(req.onProgress ? { onProgress: req.onProgress } : {}),
    ...(req.onBlock ? { onBlock: req.onBlock } : {}),
    ...(req.stopWhenProven ? { stopWhenProven: req.stopWhenProven } : {}),
    ...(req.decoder ? { decoder: req.decoder } : {}),
  });
  const selected: ComponentCoverage[] = [{ component: 'main', overlayId: null, coverage: 'no-proven-seed' }];
  const wanted = req.overlayIds ? new Set(req.overlayIds) : null;
  const seen = new Set<number>();
  for (const o of rom.model.overlays[req.processor]) {
    if (seen.has(o.id) || (wanted && !wanted.has(o.id))) continue;
    seen.add(o.id);
    selected.push({ component: 'overlay', overlayId: o.id, coverage: 'no-proven-seed' });
  }
  // Autoload blocks with code are in scope like main: their code can call into main and overlays.
  if (autoloads) {
    for (const b of rom.model.autoloads ?? []) {
      if (b.codeSize > 0)
        selected.push({
          component: 'autoload',
          overlayId: null,
          autoloadIndex: b.index,
          coverage: 'no-proven-seed',
        });
    }
  }
  const keyOf = (c: ComponentCoverage) => componentKey(c.component, c.overlayId, c.autoloadIndex);
  // Components outside the selection that were reached anyway are reported too.
  for (const key of result.scanned) {
    if (selected.some((c) => keyOf(c) === key)) continue;
    const [component, id, index] = key.split('|');
    selected.push({
      component: component as ComponentKind,
      overlayId: id === 'null' ? null : Number(id),
      ...(index !== undefined ? { autoloadIndex: Number(index) } : {}),
      coverage: 'scanned',
    });
  }
  for (const c of selected) {
    const key = keyOf(c);
    if (result.scanned.has(key)) c.coverage = 'scanned';
    else if (notDecodable.has(key)) c.coverage = 'compressed-overlay-not-decodable';
    else if (result.outOfLimit.has(key)) c.coverage = 'out-of-limit';
  }
  const status: ScopeStatus =
    result.truncation.length > 0
      ? 'truncated'
      : selected.some((c) => c.coverage !== 'scanned')
        ? 'partial-coverage'
        : 'complete';
  return { result, components: selected, status };
}
