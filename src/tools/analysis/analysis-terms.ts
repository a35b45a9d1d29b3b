// The terms of the analysis tools, in either scope: what a question takes (evidence, scope and seed
// arguments, limit tables with the specification's defaults and maxima), how its answer
// (src/analysis/answers/) is said (function identities that other tools accept verbatim, call sites,
// coverage and status) and its progress. The map's own arguments are in ./map-args.ts.
import { z } from 'zod/v4';
import type { CallSiteAnswer, CoverageAnswer, FunctionRef } from '../../analysis/answers/question.js';
import { XREF_TRUNCATIONS } from '../../analysis/answers/xrefs.js';
import {
  ANALYSIS_SCOPES,
  BOUNDED_EVIDENCE_IDS,
  EVIDENCE_IDS,
  type EvidenceId,
} from '../../analysis/evidence/index.js';
import { CONSTANT_CALL_VIAS } from '../../analysis/functions/constant-register.js';
import {
  CALL_SITE_KINDS,
  DISCOVERY_TRUNCATIONS,
  STANDARD_DISCOVERY,
} from '../../analysis/functions/discover.js';
import { COVERAGES, SCOPE_STATUSES } from '../../analysis/functions/nds-bounded.js';
import { MAP_LIMITS } from '../../analysis/program-map/service.js';
import { COMPONENT_KINDS, TIERS, type Tier } from '../../analysis/program-map/types.js';
import { ARM_MODES } from '../../arm/types.js';
import {
  addressOut,
  limitArg as coreLimitArg,
  formatAddress,
  nameOrAddressArg,
  PROCESSORS,
  type Processor,
} from '../../core/vocabulary.js';
import type { SymbolTable } from '../../extract/symbol-store.js';
import type { LimitSpec } from '../../mcp/tool.js';
import { CFG_BOUNDS } from '../shared/control-flow.js';
import { storedName, storedNameOut } from '../shared/names.js';
import { overlayIdArg } from '../shared/rom.js';

export type LimitTable = Record<string, LimitSpec & { default: number; min: number }>;

/** A bounded integer argument from one limit entry: its name, bounds and default say it all. */
function limitArg(l: LimitSpec & { default: number; min: number }) {
  return coreLimitArg(l);
}

/** One bounded argument per entry of a limit table, named as the table names it (maxBlocks...). */
function limitArgs<T extends LimitTable>(table: T): { [K in keyof T]: ReturnType<typeof limitArg> } {
  return Object.fromEntries(Object.entries(table).map(([name, l]) => [name, limitArg(l)])) as {
    [K in keyof T]: ReturnType<typeof limitArg>;
  };
}

/** Per-function CFG limits (the standard CFG bounds). */
export const FUNCTION_CFG_LIMITS = {
  maxFunctionBlocks: { ...CFG_BOUNDS.blocks, unit: 'basic blocks per function CFG' },
  maxFunctionInstructions: { ...CFG_BOUNDS.instructions, unit: 'instructions per function CFG' },
  maxFunctionBytes: { ...CFG_BOUNDS.bytes, unit: 'decoded bytes per function CFG' },
  maxFunctionEdges: { ...CFG_BOUNDS.edges, unit: 'traversal edges per function CFG' },
} satisfies LimitTable;

/** The per-function CFG budget at the standard bounds' maxima, for tools that take no per-function limits. */
export const FUNCTION_CFG_MAX = {
  blocks: CFG_BOUNDS.blocks.max,
  instructions: CFG_BOUNDS.instructions.max,
  bytes: CFG_BOUNDS.bytes.max,
  edges: CFG_BOUNDS.edges.max,
};

/**
 * The bounds of a bounded search around one address (nds_find_xrefs, nds_analyze_function): each
 * tool names its units; the numbers are these.
 */
const ADDRESS_SEARCH_BOUNDS = {
  components: { default: 32, max: 128, min: 1 },
  blocks: { default: 128, max: 512, min: 1 },
  instructions: { default: 2048, max: 16384, min: 1 },
  bytes: { default: 8192, max: 65536, min: 2 },
  edges: { default: 512, max: 4096, min: 1 },
} as const;

/** ADDRESS_SEARCH_BOUNDS as a limit table (maxComponents...), each entry with the caller's unit. */
export function addressSearchLimits(units: Record<keyof typeof ADDRESS_SEARCH_BOUNDS, string>) {
  const b = ADDRESS_SEARCH_BOUNDS;
  return {
    maxComponents: { ...b.components, unit: units.components },
    maxBlocks: { ...b.blocks, unit: units.blocks },
    maxInstructions: { ...b.instructions, unit: units.instructions },
    maxBytes: { ...b.bytes, unit: units.bytes },
    maxEdges: { ...b.edges, unit: units.edges },
  } satisfies LimitTable;
}

/** The bounds of one whole discovery (nds_discover_functions, nds_function_at). */
export const DISCOVERY_LIMITS = {
  maxComponents: { default: STANDARD_DISCOVERY.components, max: 128, min: 1, unit: 'components considered' },
  maxFunctions: { default: STANDARD_DISCOVERY.functions, max: 1024, min: 1, unit: 'proven functions' },
  maxCallSites: { default: STANDARD_DISCOVERY.callSites, max: 8192, min: 1, unit: 'call sites' },
  maxBlocks: { default: STANDARD_DISCOVERY.blocks, max: 4096, min: 1, unit: 'total basic blocks' },
  maxInstructions: {
    default: STANDARD_DISCOVERY.instructions,
    max: 32768,
    min: 1,
    unit: 'total instructions',
  },
  maxBytes: { default: STANDARD_DISCOVERY.bytes, max: 262144, min: 2, unit: 'total decoded bytes' },
  maxEdges: { default: STANDARD_DISCOVERY.edges, max: 16384, min: 1, unit: 'total traversal edges' },
  ...FUNCTION_CFG_LIMITS,
} satisfies LimitTable;

/** Every evidence class, from the registry; the bounded search supports the specification's three. */
const EVIDENCE = EVIDENCE_IDS;
const BOUNDED_EVIDENCE = BOUNDED_EVIDENCE_IDS;

export const evidenceArg = z
  .array(z.enum(EVIDENCE))
  .min(1)
  .max(EVIDENCE.length)
  .optional()
  .describe(
    `Default: bounded ${
      BOUNDED_EVIDENCE.every((e, i) => EVIDENCE[i] === e)
        ? `the first ${BOUNDED_EVIDENCE.length}`
        : BOUNDED_EVIDENCE.join(', ')
    }; program all.`,
  );

const scopeArg = z
  .enum(ANALYSIS_SCOPES)
  .default('bounded')
  .describe('bounded: searched from the entry point; program: the whole-program map.');

export const lowestTierArg = z.enum(TIERS).optional().describe('program: lowest tier (default all).');

export const tierSchema = z.enum(TIERS);

/** What an answer covered and whether it is definitive, in bytes (both scopes). */
export const coverageSchema = z.object({
  scope: z.enum(ANALYSIS_SCOPES),
  lowestTier: tierSchema,
  executableBytes: z.number().int(),
  classifiedBytes: z.number().int(),
  codeBytes: z.number().int(),
  unclassifiedBytes: z.number().int(),
  belowTierBytes: z.number().int(),
  unavailableBytes: z.number().int(),
  unresolved: z.object({
    unmapped: z.number().int(),
    ambiguous: z.number().int(),
    runtimeOnly: z.number().int(),
    indirectCalls: z.number().int(),
    indirectBranches: z.number().int(),
  }),
  definitive: z.boolean().describe('Nothing the answer could miss is left'),
  notDefinitive: z.array(z.string()),
});

/** One line of text for a coverage block. */
export function coverageText(c: CoverageAnswer): string {
  const pct = c.executableBytes > 0 ? ((100 * c.classifiedBytes) / c.executableBytes).toFixed(1) : '100.0';
  return `${c.scope} coverage: ${c.classifiedBytes}/${c.executableBytes} bytes classified (${pct}%) at ${c.lowestTier} and above; ${c.definitive ? 'definitive' : `not definitive: ${c.notDefinitive.join('; ')}`}`;
}

export const MAX_SEEDS = 64;
const seedsArg = z
  .array(
    z.object({
      address: nameOrAddressArg(),
      mode: z.enum(ARM_MODES),
      overlayId: overlayIdArg(),
    }),
  )
  .max(MAX_SEEDS)
  .default([])
  .describe('Scanned, never proof.');

const overlayScopeArg = z
  .array(z.number().int().min(0).max(0xffffffff))
  .max(4096)
  .optional()
  .describe('Default all (main always).');

/** What every proof search takes besides its target: evidence kinds, coverage seeds, overlays in scope. */
const proofScopeArgs = { evidence: evidenceArg, seeds: seedsArg, overlayIds: overlayScopeArg };

/** The whole-program choice every analysis tool takes. */
const mapScopeArgs = { scope: scopeArg, lowestTier: lowestTierArg };

/** The map's own bounds, as arguments of the tools that may build it. */
export const mapLimitArgs = limitArgs(MAP_LIMITS);

/** Everything an analysis question takes besides its subject: scope, evidence, seeds, overlays, bounds. */
export function questionArgs<T extends LimitTable>(table: T) {
  return { ...mapScopeArgs, ...proofScopeArgs, ...limitArgs(table), ...mapLimitArgs };
}

/** The declared bound on seeds, next to each tool's limit table. */
export const SEEDS_LIMIT = { max: MAX_SEEDS, unit: 'coverage seeds' };

/** The declared limits of a question taking `table`'s bounds, seeds and the map's bounds. */
export function questionLimits<T extends LimitTable>(table: T) {
  return { ...table, seeds: SEEDS_LIMIT, ...MAP_LIMITS };
}

export const evidenceListSchema = z.array(z.enum(EVIDENCE));
export const componentKindSchema = z.enum(COMPONENT_KINDS);
export const modeSchema = z.enum(ARM_MODES);
export const searchStatusSchema = z.enum(SCOPE_STATUSES);

/** A function identity exactly as the ARM tools take it: spread it into their arguments. */
export const identitySchema = z.object({
  processor: z.enum(PROCESSORS),
  address: addressOut,
  mode: modeSchema,
  overlayId: z.number().int().optional(),
});

export function identityView(processor: Processor, id: FunctionRef): z.input<typeof identitySchema> {
  const out: z.input<typeof identitySchema> = {
    processor,
    address: formatAddress(id.address),
    mode: id.mode,
  };
  if (id.overlayId !== null) out.overlayId = id.overlayId;
  return out;
}

/** The fields a function record of nds_discover_functions and nds_function_at starts with. */
export const functionHeadFields = {
  identity: identitySchema,
  name: storedNameOut,
  component: componentKindSchema,
  evidence: evidenceListSchema,
  tier: tierSchema,
};

/** A function record's first fields, as functionHeadView makes them. */
type FunctionHead = z.input<z.ZodObject<typeof functionHeadFields>>;

/**
 * Those fields of one function: its identity, its stored name beside it, its component, evidence and
 * tier. A record adds its own fields to it with Object.assign, never as `{ ...head, more }`: V8 builds
 * an object literal that spreads and then adds fields some forty times slower (a discovery page's 48
 * records took 0.45 ms that way, 0.01 ms this way).
 */
export function functionHeadView(
  processor: Processor,
  names: SymbolTable,
  f: { ref: FunctionRef; evidence: EvidenceId[]; tier: Tier },
): FunctionHead {
  const head: FunctionHead = { identity: identityView(processor, f.ref) } as FunctionHead;
  const name = storedName(names, processor, f.ref.address, f.ref.overlayId);
  if (name !== null) head.name = name;
  head.component = f.ref.component;
  head.evidence = f.evidence;
  head.tier = f.tier;
  return head;
}

const componentSchema = z.object({
  component: componentKindSchema,
  overlayId: z.number().int().nullable(),
  autoloadIndex: z.number().int().optional(),
  coverage: z.enum(COVERAGES),
});

export const callSiteSchema = z.object({
  at: addressOut,
  kind: z.enum(CALL_SITE_KINDS),
  caller: identitySchema,
  callerIsSeed: z.literal(true).optional(),
  target: addressOut,
  targetMode: modeSchema,
  callee: identitySchema.optional(),
  unresolved: z.string().optional(),
  condition: z.string().optional(),
  via: z.enum(CONSTANT_CALL_VIAS).optional(),
  definedAt: addressOut.optional(),
  slot: addressOut.optional(),
});

export function callSiteView(processor: Processor, s: CallSiteAnswer): z.input<typeof callSiteSchema> {
  const out: z.input<typeof callSiteSchema> = {
    at: formatAddress(s.at),
    kind: s.kind,
    caller: identityView(processor, s.caller),
    target: formatAddress(s.target),
    targetMode: s.targetMode,
  };
  if (s.callerIsSeed) out.callerIsSeed = true;
  if (s.callee) out.callee = identityView(processor, s.callee);
  if (s.unresolved !== undefined) out.unresolved = s.unresolved;
  if (s.condition !== undefined) out.condition = s.condition;
  if (s.via !== undefined) out.via = s.via;
  if (s.definedAt !== undefined) out.definedAt = formatAddress(s.definedAt);
  if (s.slot !== undefined) out.slot = formatAddress(s.slot);
  return out;
}

/** A discovery's truncations, and nds_find_xrefs' own: its result limit. */
const truncationSchema = z.enum([...DISCOVERY_TRUNCATIONS, ...XREF_TRUNCATIONS]);

/** What one discovery found and decoded (nds_discover_functions, nds_analyze_function). */
export const discoveryTotalsSchema = z.object({
  functions: z.number().int(),
  callSites: z.number().int(),
  blocks: z.number().int(),
  instructions: z.number().int(),
  bytes: z.number().int(),
  edges: z.number().int(),
});

/** What a search covered: the limits it hit and each component's coverage. */
export const coverageFields = {
  truncation: z.array(truncationSchema),
  components: z.array(componentSchema),
};

/** A search's budget from the limit arguments every analysis tool takes. */
export function searchLimits(args: {
  maxComponents: number;
  maxBlocks: number;
  maxInstructions: number;
  maxBytes: number;
  maxEdges: number;
}) {
  return {
    components: args.maxComponents,
    blocks: args.maxBlocks,
    instructions: args.maxInstructions,
    bytes: args.maxBytes,
    edges: args.maxEdges,
  };
}

/** The whole-discovery and per-function budgets of nds_discover_functions and nds_function_at. */
export function discoveryBudgets(args: Record<keyof typeof DISCOVERY_LIMITS, number>) {
  return {
    limits: { ...searchLimits(args), functions: args.maxFunctions, callSites: args.maxCallSites },
    local: {
      blocks: args.maxFunctionBlocks,
      instructions: args.maxFunctionInstructions,
      bytes: args.maxFunctionBytes,
      edges: args.maxFunctionEdges,
    },
  };
}
