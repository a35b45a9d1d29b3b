// Scores a whole-program map against a kit program's ELF truth (truth.mjs), shared by the tests and the
// bench so that both count the same way. Per tier:
// - found / right / precision: the functions the map lists at exactly that tier, and how many are
//   right. Right: a FUNC symbol's run address and mode, or a code label without a FUNC type (assembly
//   labels, GCC's symbol-less `bx rN` call stubs); `rightFunctions` counts FUNC symbols alone.
// - recall, by count and by bytes, of the FUNC symbols when that tier and every better one are
//   accepted (bytes: the sum of the found functions' extents over all extents);
// - call sites: objdump's BL/BLX calls found among the map's direct-call cross-references of their
//   callee at that tier (Thumb BLs used as long jumps are not calls: listed as invented when the map
//   takes them for calls);
// - false definitive claims: when the map calls itself definitive at that tier, every statement the
//   ELF proves wrong. A FUNC symbol whose first byte lies in no function (function_at would answer
//   "in no function, the map is definitive"); a FUNC symbol with a run of 8 or more instruction bytes
//   (its extent less the literal pools and tables its mapping symbols mark) that no component holds as
//   code while one classifies them as data, string, pointer table or copied-source; a callee whose
//   cross-references leave out a call site (find_xrefs would answer "complete, definitive").
import type { ProgramMap } from '../../../src/analysis/program-map/map.js';
import { ByteClass, isCode, TIER_RANK, TIERS, type Tier } from '../../../src/analysis/program-map/types.js';
import type { ProgramTruth, TruthFunction } from './index.js';

export interface TierScore {
  tier: Tier;
  /** Functions the map lists at exactly this tier. */
  found: number;
  /** Of those: a FUNC symbol or a code label without a type. */
  right: number;
  /** Of those: a FUNC symbol. */
  rightFunctions: number;
  /** right / found; null when the tier lists nothing. */
  precision: number | null;
  /** rightFunctions / found. */
  precisionFunctions: number | null;
  /** The listed functions that are neither: "mode 0xaddress (evidence classes)". */
  wrong: string[];
  /** Accepting this tier and the better ones: FUNC symbols found, by count and by bytes. */
  recalled: number;
  recall: number;
  recallBytes: number;
  /** Call sites among the callee's direct-call cross-references at this tier and better. */
  callSitesFound: number;
  /** Whether the map calls itself definitive at this tier. */
  definitive: boolean;
  falseClaims: {
    /** FUNC symbols whose first byte is in no function while the map is definitive. */
    functionAt: number;
    /** FUNC symbols with bytes classified as non-code (and as code nowhere) while definitive. */
    nonCode: number;
    /** Callees missing a call site among their cross-references while definitive. */
    xrefTargets: number;
    /** The call sites those answers leave out. */
    xrefSitesMissing: number;
    total: number;
    /** The first few, for a report: "kind name@0xaddress". */
    examples: string[];
  };
}

export interface ProgramScore {
  program: string;
  processor: 'arm9' | 'arm7';
  symbols: number;
  symbolBytes: number;
  labels: number;
  callSites: number;
  longJumps: number;
  /** Long jumps (Thumb BL inside one function) the map lists as direct calls: calls it invented. */
  longJumpsAsCalls: number;
  tiers: Record<Tier, TierScore>;
  /** FUNC symbols no tier found. */
  missed: TruthFunction[];
}

const keyOf = (mode: string, address: number) => `${mode}:${address}`;
const EXAMPLES = 12;

/**
 * Classes that say "these bytes are no instruction of any function". Padding is left out: an
 * alignment filler inside a function's code is no instruction that runs either.
 */
const NON_CODE = new Set<number>([
  ByteClass.data,
  ByteClass.string,
  ByteClass.pointerTable,
  ByteClass.copiedSource,
]);
/** An instruction byte held as code. */
const OWN = (c: number) => isCode(c);

export function scoreProgramMap(map: ProgramMap, truth: ProgramTruth): ProgramScore {
  const functions = new Map(truth.functions.map((f) => [keyOf(f.mode, f.address), f]));
  const labels = new Set(truth.labels.map((l) => keyOf(l.mode, l.address)));
  const symbolBytes = truth.functions.reduce((n, f) => n + f.bytes, 0);
  const targets = new Map<number, number[]>();
  for (const c of truth.callSites) {
    const list = targets.get(c.target);
    if (list) list.push(c.at);
    else targets.set(c.target, [c.at]);
  }

  const tiers = {} as Record<Tier, TierScore>;
  const foundKeys = new Set<string>();
  for (const tier of TIERS) {
    const rank = TIER_RANK[tier];
    const at = map.functions.filter((f) => f.tier === tier);
    let right = 0;
    let rightFunctions = 0;
    const wrong: string[] = [];
    for (const f of at) {
      const k = keyOf(f.mode, f.address);
      if (functions.has(k)) rightFunctions++;
      if (functions.has(k) || labels.has(k)) right++;
      else
        wrong.push(
          `${f.mode} 0x${f.address.toString(16)} (${[...new Set(f.evidence.map((e) => e.class))].join(', ')})`,
        );
    }
    for (const f of map.functions) if (TIER_RANK[f.tier] <= rank) foundKeys.add(keyOf(f.mode, f.address));
    let recalled = 0;
    let recalledBytes = 0;
    for (const [k, f] of functions)
      if (foundKeys.has(k)) {
        recalled++;
        recalledBytes += f.bytes;
      }

    // Call sites, grouped by callee (one cross-reference query each).
    let callSitesFound = 0;
    let xrefTargets = 0;
    let xrefSitesMissing = 0;
    const examples: string[] = [];
    const coverage = map.coverage(tier);
    const definitive = coverage.definitive;
    for (const [target, sites] of targets) {
      const from = new Set(
        map
          .xrefs(target, tier)
          .filter((x) => x.kind === 'direct-call')
          .map((x) => x.from),
      );
      const missing = sites.filter((s) => !from.has(s)).length;
      callSitesFound += sites.length - missing;
      if (definitive && missing > 0) {
        xrefTargets++;
        xrefSitesMissing += missing;
        if (examples.length < EXAMPLES) examples.push(`xrefs 0x${target.toString(16)} (${missing} missing)`);
      }
    }

    let functionAt = 0;
    let nonCode = 0;
    if (definitive) {
      for (const f of truth.functions) {
        const held = map.holders(f.address, tier).some((h) => h.functions.length > 0);
        if (!held) {
          functionAt++;
          if (examples.length < EXAMPLES) examples.push(`function_at ${f.name}@0x${f.address.toString(16)}`);
        }
        if (contradicted(map, f, rank)) {
          nonCode++;
          if (examples.length < EXAMPLES) examples.push(`non-code ${f.name}@0x${f.address.toString(16)}`);
        }
      }
    }

    tiers[tier] = {
      tier,
      found: at.length,
      right,
      rightFunctions,
      precision: at.length === 0 ? null : right / at.length,
      precisionFunctions: at.length === 0 ? null : rightFunctions / at.length,
      wrong,
      recalled,
      recall: functions.size === 0 ? 1 : recalled / functions.size,
      recallBytes: symbolBytes === 0 ? 1 : recalledBytes / symbolBytes,
      callSitesFound,
      definitive,
      falseClaims: {
        functionAt,
        nonCode,
        xrefTargets,
        xrefSitesMissing,
        total: functionAt + nonCode + xrefTargets,
        examples,
      },
    };
  }

  const longJumpsAsCalls = truth.longJumps.filter((j) =>
    map.xrefs(j.target, 'heuristic').some((x) => x.from === j.at && x.kind === 'direct-call'),
  ).length;
  const all = new Set(map.functions.map((f) => keyOf(f.mode, f.address)));
  return {
    program: truth.name,
    processor: truth.processor,
    symbols: functions.size,
    symbolBytes,
    labels: labels.size,
    callSites: truth.callSites.length,
    longJumps: truth.longJumps.length,
    longJumpsAsCalls,
    tiers,
    missed: [...functions].filter(([k]) => !all.has(k)).map(([, f]) => f),
  };
}

/**
 * Whether a run of at least MIN_RUN instruction bytes of a function (its extent less the literal pools
 * and tables) is classified non-code at an accepted tier by a component holding it, and as code by
 * none. Shorter runs are the toolchain's dead filler inside functions, which runs never: a UDF after a
 * call that does not return, the Thumb-2 NOP the linker writes over a call to an undefined weak
 * symbol, the epilogue after a call that does not return.
 */
const MIN_RUN = 8;
function contradicted(map: ProgramMap, f: TruthFunction, rank: number): boolean {
  const comps = map.set.holding(f.address);
  if (comps.length === 0) return false;
  const isData = (o: number) => f.data.some(([at, n]) => o >= at && o < at + n);
  let run = 0;
  for (let o = 0; o < f.bytes; o++) {
    const a = f.address + o;
    let own = false;
    let against = false;
    if (!isData(o))
      for (const comp of comps) {
        if (a >= comp.end) continue;
        const c = comp.cls[a - comp.start]!;
        if (comp.tier[a - comp.start]! > rank) continue;
        if (OWN(c)) own = true;
        else if (NON_CODE.has(c)) against = true;
      }
    run = against && !own ? run + 1 : 0;
    if (run >= MIN_RUN) return true;
  }
  return false;
}

/** The goals of issue 43, on every layout (labels without a type count as right). */
export const ISSUE_43_GOALS = {
  recall: 0.97,
  recallBytes: 0.98,
  precision: { proven: 1, referenced: 0.995, heuristic: 0.98 } as Record<Tier, number>,
};

/** What keeps a score from the goals: one line per unmet goal (empty when all are met). */
export function goalShortfalls(s: ProgramScore): string[] {
  const out: string[] = [];
  const all = s.tiers.heuristic;
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  if (all.recall < ISSUE_43_GOALS.recall)
    out.push(`recall ${pct(all.recall)} < ${pct(ISSUE_43_GOALS.recall)}`);
  if (all.recallBytes < ISSUE_43_GOALS.recallBytes)
    out.push(`recall by bytes ${pct(all.recallBytes)} < ${pct(ISSUE_43_GOALS.recallBytes)}`);
  for (const tier of TIERS) {
    const p = s.tiers[tier].precision;
    if (p !== null && p < ISSUE_43_GOALS.precision[tier])
      out.push(`${tier} precision ${pct(p)} < ${pct(ISSUE_43_GOALS.precision[tier])}`);
  }
  if (all.callSitesFound < s.callSites) out.push(`call sites ${all.callSitesFound}/${s.callSites}`);
  for (const tier of TIERS) {
    const c = s.tiers[tier].falseClaims;
    if (c.total > 0) out.push(`${c.total} false definitive claims at ${tier}: ${c.examples.join('; ')}`);
  }
  if (s.longJumpsAsCalls > 0) out.push(`${s.longJumpsAsCalls} long jumps taken for calls`);
  return out;
}

/** One line per tier and a summary, for a test's diagnostics. */
export function scoreLines(s: ProgramScore): string[] {
  const pct = (x: number | null) => (x === null ? '-' : `${(100 * x).toFixed(1)}%`);
  const lines = TIERS.map((tier) => {
    const x = s.tiers[tier];
    const c = x.falseClaims;
    return (
      `${s.program} ${tier}: ${x.right}/${x.found} right (${pct(x.precision)}; FUNC only ${x.rightFunctions}, ${pct(x.precisionFunctions)}); ` +
      `recall ${x.recalled}/${s.symbols} ${pct(x.recall)}, bytes ${pct(x.recallBytes)}; ` +
      `call sites ${x.callSitesFound}/${s.callSites}; definitive ${x.definitive}` +
      (c.total
        ? `; ${c.total} false definitive claims (function_at ${c.functionAt}, non-code ${c.nonCode}, xrefs ${c.xrefTargets})`
        : '') +
      (x.wrong.length ? `; wrong: ${x.wrong.slice(0, 8).join(', ')}${x.wrong.length > 8 ? ', ...' : ''}` : '')
    );
  });
  lines.push(
    `${s.program}: ${s.symbols} FUNC symbols (${s.symbolBytes} bytes), ${s.labels} labels, ${s.callSites} call sites, ` +
      `${s.longJumps} long jumps (${s.longJumpsAsCalls} taken for calls); missed ${s.missed.length}: ` +
      s.missed
        .slice(0, 12)
        .map((f) => f.name)
        .join(', '),
  );
  return lines;
}

/** The figures of a score as plain JSON (the bench's report). */
export function scoreFigures(s: ProgramScore): Record<string, unknown> {
  const r = (x: number | null) => (x === null ? null : Number(x.toFixed(4)));
  return {
    symbols: s.symbols,
    symbolBytes: s.symbolBytes,
    recall: r(s.tiers.heuristic.recall),
    recallBytes: r(s.tiers.heuristic.recallBytes),
    callSitesFound: `${s.tiers.heuristic.callSitesFound}/${s.callSites}`,
    longJumpsTakenForCalls: `${s.longJumpsAsCalls}/${s.longJumps}`,
    byTier: Object.fromEntries(
      TIERS.map((tier) => {
        const x = s.tiers[tier];
        return [
          tier,
          {
            functions: x.found,
            right: x.right,
            precision: r(x.precision),
            rightFunctions: x.rightFunctions,
            precisionFunctions: r(x.precisionFunctions),
            recall: r(x.recall),
            recallBytes: r(x.recallBytes),
            callSitesFound: x.callSitesFound,
            definitive: x.definitive,
            falseDefinitiveClaims: x.falseClaims.total,
          },
        ];
      }),
    ),
    goalShortfalls: goalShortfalls(s),
  };
}
