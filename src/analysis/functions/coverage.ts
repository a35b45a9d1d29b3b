// What a bounded (specification) search covered, in bytes: the selected executable components' bytes,
// the code its CFGs decoded and the literal slots those loads name, the calls it could not follow, by
// reason. Its negative answers are definitive only when nothing it could have missed is left: every
// byte of the selected components classified and no call into code it cannot see. Pure bookkeeping
// over the blocks the search shows it (onBlock) and its call sites.
import type { CfgBlock, CodeSpan } from '../../arm/cfg.js';
import { literalSlotOf } from '../../arm/literal-pools.js';
import type { Processor } from '../../core/vocabulary.js';
import type { NdsRomModel } from '../../formats/nds/index.js';
import type { UnresolvedCounts } from '../program-map/map.js';
import { type CallSite, componentKey } from './discover.js';
import type { ComponentCoverage } from './nds-bounded.js';

/**
 * The answer to "which function holds this address": one does (found); none, and the analysis left
 * nothing unanalysed (complete-negative); none found, not definitively (coverage-gap).
 */
export const FUNCTION_LOOKUPS = ['found', 'complete-negative', 'coverage-gap'] as const;
export type FunctionLookup = (typeof FUNCTION_LOOKUPS)[number];

export interface SearchCoverage {
  executableBytes: number;
  classifiedBytes: number;
  codeBytes: number;
  unclassifiedBytes: number;
  unresolved: UnresolvedCounts;
  definitive: boolean;
  notDefinitive: string[];
}

/** Collects the bytes a bounded search decoded, per component (one bitmap each). */
export class CoverageCollector {
  private readonly maps = new Map<string, { code: Uint8Array; start: number }>();
  indirectBranches = 0;
  indirectCalls = 0;
  private readonly seen = new Set<string>();

  block(block: CfgBlock, span: CodeSpan): void {
    const key = componentKey(block.component, block.overlayId, block.autoloadIndex);
    let m = this.maps.get(key);
    if (!m) {
      m = { code: new Uint8Array(span.bytes.length), start: span.start };
      this.maps.set(key, m);
    }
    const id = `${key}|${block.mode}|${block.address}`;
    const first = !this.seen.has(id);
    this.seen.add(id);
    for (const ins of block.instructions) {
      const o = ins.address - m.start;
      if (o >= 0 && o + ins.size <= m.code.length) m.code.fill(1, o, o + ins.size);
      const slot = literalSlotOf(ins);
      if (slot !== null) {
        const s = slot - m.start;
        if (s >= 0 && s + 4 <= m.code.length) m.code.fill(2, s, s + 4);
      }
    }
    if (first) {
      if (block.terminator === 'indirect-branch') this.indirectBranches++;
      this.indirectCalls += block.calls.filter((c) => c.target === undefined).length;
    }
  }

  /** The totals over the selected components (`components`, as the scope reports them). */
  finish(
    model: NdsRomModel,
    processor: Processor,
    components: ComponentCoverage[],
    callSites: readonly CallSite[],
    truncated: boolean,
  ): SearchCoverage {
    let executable = 0;
    let classified = 0;
    let code = 0;
    for (const c of components) {
      const size = componentSize(model, processor, c);
      executable += size;
      const m = this.maps.get(componentKey(c.component, c.overlayId, c.autoloadIndex));
      if (!m) continue;
      for (let i = 0; i < m.code.length; i++) {
        if (m.code[i] === 0) continue;
        classified++;
        if (m.code[i] === 1) code++;
      }
    }
    const unresolved: UnresolvedCounts = {
      unmapped: 0,
      ambiguous: 0,
      runtimeOnly: 0,
      indirectCalls: this.indirectCalls,
      indirectBranches: this.indirectBranches,
    };
    for (const s of callSites) {
      if (s.unresolved === 'unmapped') unresolved.unmapped++;
      else if (s.unresolved === 'ambiguous-code-source') unresolved.ambiguous++;
      else if (s.unresolved !== undefined) unresolved.runtimeOnly++;
    }
    const unclassified = Math.max(0, executable - classified);
    const notDefinitive: string[] = [];
    if (truncated) notDefinitive.push('the search stopped at its limits');
    if (unclassified > 0)
      notDefinitive.push(
        `${unclassified} of ${executable} executable bytes not analysed (scope program maps them)`,
      );
    if (unresolved.unmapped > 0) notDefinitive.push(`${unresolved.unmapped} calls into unmapped code`);
    if (unresolved.ambiguous > 0)
      notDefinitive.push(`${unresolved.ambiguous} calls into a range several overlays share`);
    if (unresolved.runtimeOnly > 0)
      notDefinitive.push(`${unresolved.runtimeOnly} calls into BSS, undecodable or out-of-limit code`);
    if (components.some((c) => c.coverage !== 'scanned'))
      notDefinitive.push('selected components not scanned');
    return {
      executableBytes: executable,
      classifiedBytes: classified,
      codeBytes: code,
      unclassifiedBytes: unclassified,
      unresolved,
      definitive: notDefinitive.length === 0,
      notDefinitive,
    };
  }
}

/** Bytes of one selected component: the initialized image (decoded size when compressed). */
function componentSize(model: NdsRomModel, processor: Processor, c: ComponentCoverage): number {
  if (c.component === 'main') {
    const exe = model[processor];
    return exe.decodedSize ?? exe.size;
  }
  if (c.component === 'autoload')
    return (model.autoloads ?? []).find((b) => b.index === c.autoloadIndex)?.codeSize ?? 0;
  const records = model.overlays[processor].filter((o) => o.id === c.overlayId);
  return records.reduce(
    (n, o) => n + (o.compressed ? o.ramSize : o.fileBacked ? o.fileBacked.end - o.fileBacked.start : 0),
    0,
  );
}
