import { z } from 'zod/v4';
import { EVIDENCE_IDS } from '../../analysis/evidence/index.js';
import { getProgramMaps, MAP_LIMITS } from '../../analysis/program-map/service.js';
import { APPLY_LIMITS, PROPOSAL_TIERS } from '../../analysis/signatures/apply.js';
import {
  SET_NAME,
  SIGNATURE_LIMITS,
  SIGNATURE_SOURCE_KINDS,
  type SignatureSet,
} from '../../analysis/signatures/types.js';
import { ARM_MODES } from '../../arm/types.js';
import { ReMcpError } from '../../core/errors.js';
import type { Processor } from '../../core/vocabulary.js';
import {
  addressOut,
  formatAddress as hex,
  limitArg,
  nameOrAddressArg,
  pageOut,
  paginate,
} from '../../core/vocabulary.js';
import {
  type AppliedSet,
  acceptProposals,
  appliedSignatureSet,
  buildSignatureSet,
  buildSignatureSetFromRom,
  importSignatureSet,
  listSignatureSets,
  readSignatureSet,
  SETS_LISTED,
  SIGNATURE_FILE_LIMITS,
  setPath,
} from '../../extract/signature-sets.js';
import { getSymbolStore } from '../../extract/symbol-store.js';
import { defineTool, type ToolContext, type ToolSuccess } from '../../mcp/tool.js';
import type { RomHandle, RomStore } from '../../roms/rom-store.js';
import { romArgNames } from '../shared/names.js';
import { workspacePath } from '../shared/paths.js';
import { processorArg, withToolRom } from '../shared/rom.js';

/** Unmatched functions and signatures listed in an application's answer (each). */
const UNMATCHED_LISTED = { max: 200, unit: 'entries' } as const;
const PAGE = { limit: { default: 50, min: 1, max: 500, unit: 'proposals a page' } } as const;
const ACTIONS = ['list', 'build', 'import', 'apply', 'accept'] as const;
type Action = (typeof ACTIONS)[number];
const FIELDS: Record<Action, readonly string[]> = {
  list: [],
  build: ['set', 'files', 'rom', 'processor'],
  import: ['files'],
  apply: ['set', 'rom', 'processor', 'minScore', 'offset', 'limit'],
  accept: ['set', 'rom', 'processor', 'minScore', 'addresses'],
};
const REQUIRED: Record<Action, readonly string[]> = {
  list: [],
  build: ['set'],
  import: ['files'],
  apply: ['set', 'rom'],
  accept: ['set', 'rom'],
};
const DEFAULTS: Record<string, unknown> = {
  processor: 'arm9',
  offset: 0,
  limit: PAGE.limit.default,
  minScore: 0,
};

const proposalOut = z.object({
  address: addressOut,
  overlayId: z.number().int().nullable(),
  mode: z
    .enum([...ARM_MODES, 'data'])
    .describe("A function's code mode, or `data` for a data label carried by the functions using it."),
  tier: z.enum(PROPOSAL_TIERS),
  name: z.string().nullable(),
  score: z.number().int(),
  candidates: z.array(
    z.object({
      name: z.string(),
      aliases: z.array(z.string()),
      origin: z.string(),
      comparedBytes: z.number().int(),
      size: z.number().int(),
      refsAgreed: z.number().int(),
      refsUnchecked: z.number().int(),
    }),
  ),
  alsoAt: z.array(addressOut),
  reasons: z.array(z.string()),
  inMap: z
    .boolean()
    .nullable()
    .describe(
      "False for a function the map did not find, placed by the layout of its object (its bytes the signature's); null for a data label.",
    ),
});

const countsOut = z.object({
  functions: z.number().int(),
  signatures: z.number().int(),
  matched: z.number().int(),
  strong: z.number().int(),
  supported: z.number().int(),
  ambiguous: z.number().int(),
  tooShort: z.number().int(),
  contradicted: z.number().int(),
  outsideMap: z.number().int(),
  data: z.number().int().describe('Data labels proposed (not in the tier counts, which count functions).'),
});

const pathItem = workspacePath(z.string().min(1).max(1024).describe('Workspace-relative file.'), 'file');

/** The processor's whole-program map at nds_program_map's default bounds (progress: code mapped). */
const mapOf = (ctx: ToolContext, store: RomStore, rom: RomHandle, processor: Processor) =>
  getProgramMaps(ctx.services).map(store, rom, {
    processor,
    evidence: EVIDENCE_IDS,
    maxCodeBytes: MAP_LIMITS.maxCodeBytes.default,
    maxSeconds: MAP_LIMITS.maxSeconds.default,
    signal: ctx.signal,
    onProgress: (codeBytes) => ctx.progress({ progress: codeBytes, message: 'mapping the program' }),
  });

const input = z.object({
  action: z.enum(ACTIONS).default('list'),
  set: z.string().regex(SET_NAME).optional(),
  files: z
    .array(pathItem)
    .min(1)
    .max(SIGNATURE_FILE_LIMITS.files.max)
    .optional()
    .describe('build: .a/.o/ELF; import: a set.'),
  rom: workspacePath(z.string().min(1).max(1024).optional().describe('Workspace-relative .nds.'), 'file', {
    action: 'apply',
    set: 'x',
  }),
  processor: processorArg.default('arm9'),
  minScore: z.number().int().min(0).max(1_000_000).default(0),
  addresses: z
    .array(nameOrAddressArg())
    .min(1)
    .max(10_000)
    .optional()
    .describe("accept: only these (a name: its overlay's only)."),
  offset: z.number().int().min(0).max(1_000_000).default(0),
  limit: limitArg(PAGE.limit),
});

const output = z.object({
  action: z.enum(ACTIONS),
  sets: z.array(z.object({ name: z.string(), path: z.string(), bytes: z.number().int() })).nullable(),
  set: z
    .object({
      name: z.string(),
      path: z.string(),
      functions: z.number().int(),
      data: z.number().int(),
      sources: z.array(
        z.object({ kind: z.enum(SIGNATURE_SOURCE_KINDS), path: z.string(), sha256: z.string() }),
      ),
    })
    .nullable(),
  built: z
    .object({
      inputs: z.array(
        z.object({
          path: z.string(),
          kind: z.enum(SIGNATURE_SOURCE_KINDS),
          members: z.number().int(),
          items: z.number().int(),
        }),
      ),
      duplicates: z.number().int(),
      skipped: z.array(z.string()),
      skippedMore: z.number().int(),
    })
    .nullable(),
  applied: z
    .object({
      processor: z.string(),
      counts: countsOut,
      proposals: z.array(proposalOut),
      ...pageOut,
      unmatched: z
        .object({
          functions: z.object({
            total: z.number().int(),
            listed: z.array(z.object({ address: addressOut, overlayId: z.number().int().nullable() })),
          }),
          signatures: z.object({ total: z.number().int(), listed: z.array(z.string()) }),
        })
        .describe(
          `What was left unmatched (the first ${UNMATCHED_LISTED.max} of each, in order): the program's functions no proposal is at (what a later build added or changed, or code the set does not have) and the set's functions no proposal names or lists (what the program removed or changed, or library code it does not link).`,
        ),
    })
    .nullable(),
  accepted: z
    .object({
      store: z.string(),
      offered: z.number().int(),
      added: z.number().int(),
      replaced: z.number().int(),
      unchanged: z.number().int(),
      conflicts: z.array(z.object({ name: z.string(), address: addressOut, why: z.string() })),
    })
    .nullable(),
});

type Args = z.output<typeof input>;
type Result = ToolSuccess<z.input<typeof output>>;

/** Refuses a call giving an argument its action does not take, or missing one it needs. */
function checkFields(args: Args): void {
  const given = Object.entries(args)
    .filter(([k, v]) => k !== 'action' && v !== undefined && DEFAULTS[k] !== v)
    .map(([k]) => k);
  const extra = given.filter((k) => !FIELDS[args.action].includes(k));
  const missing = REQUIRED[args.action].filter((k) => (args as Record<string, unknown>)[k] === undefined);
  if (extra.length > 0 || missing.length > 0)
    throw new ReMcpError(
      'invalid-argument',
      `action ${args.action} takes ${FIELDS[args.action].join(', ')}${missing.length > 0 ? `; missing ${missing.join(', ')}` : ''}${extra.length > 0 ? `; not for this action: ${extra.join(', ')}` : ''}`,
    );
}

/** Every part of the output but the action's own: null. */
const NONE = { sets: null, set: null, built: null, applied: null, accepted: null };

/** A set as the output shows it: its name, path, counts and sources. */
const setView = (s: {
  name: string;
  sources: { kind: (typeof SIGNATURE_SOURCE_KINDS)[number]; path: string; sha256: string }[];
  items: { kind: string }[];
}) => ({
  name: s.name,
  path: setPath(s.name),
  functions: s.items.filter((i) => i.kind === 'function').length,
  data: s.items.filter((i) => i.kind === 'data').length,
  sources: s.sources,
});

/** action list: the sets of the workspace. */
async function listSets(args: Args, ctx: ToolContext): Promise<Result> {
  const { sets, more } = await listSignatureSets(ctx.services.workspace);
  return {
    structured: { action: args.action, ...NONE, sets },
    text: `${sets.length} signature set(s)${more ? ` (the first ${SETS_LISTED.max})` : ''}${sets.length > 0 ? `: ${sets.map((s) => s.name).join(', ')}` : ''}`,
  };
}

/** action build: a set from files, or from a ROM's stored names. */
async function buildSet(args: Args, ctx: ToolContext): Promise<Result> {
  const ws = ctx.services.workspace;
  if ((args.files === undefined) === (args.rom === undefined))
    throw new ReMcpError('invalid-argument', 'build takes files, or a rom whose stored names it carries');
  const b =
    args.files !== undefined
      ? await buildSignatureSet(ws, args.set!, args.files, ctx.signal, (done, total) =>
          ctx.progress({ progress: done, total, message: 'reading and building' }),
        )
      : await withToolRom(ctx, args.rom!, async (rom, store) =>
          buildSignatureSetFromRom(
            ctx.services,
            rom,
            args.rom!,
            await mapOf(ctx, store, rom, args.processor),
            args.set!,
            ctx.signal,
          ),
        );
  const view = setView(b.set);
  return {
    structured: {
      action: args.action,
      ...NONE,
      set: view,
      built: {
        inputs: b.inputs,
        duplicates: b.duplicates,
        skipped: b.skipped,
        skippedMore: b.skippedMore,
      },
    },
    text: `set ${view.name}: ${view.functions} function and ${view.data} data signature(s) from ${b.inputs.length} file(s), written to ${b.path} (${b.bytes} bytes); ${b.duplicates} duplicate key(s), ${b.skipped.length + b.skippedMore} skipped`,
  };
}

/** action import: one set file copied in. */
async function importSet(args: Args, ctx: ToolContext): Promise<Result> {
  if (args.files!.length !== 1) throw new ReMcpError('invalid-argument', 'import reads one set file');
  const r = await importSignatureSet(ctx.services.workspace, args.files![0]!, ctx.signal);
  const view = setView(r.set);
  return {
    structured: { action: args.action, ...NONE, set: view },
    text: `imported set ${view.name} (${view.functions} function signature(s)) to ${r.path}`,
  };
}

/** What apply and accept share: the set, its view, the proposals chosen and the counts' summary. */
interface Chosen {
  set: SignatureSet;
  view: ReturnType<typeof setView>;
  applied: AppliedSet;
  chosen: AppliedSet['proposals'];
  summary: string;
}

/** action apply: one page of the proposals chosen. */
function applyPage(args: Args, processor: Processor, c: Chosen): Result {
  const page = paginate(c.chosen, args.offset, args.limit);
  return {
    structured: {
      action: args.action,
      ...NONE,
      set: c.view,
      applied: {
        processor,
        counts: c.applied.counts,
        proposals: page.items.map((p) => ({
          address: hex(p.address),
          overlayId: p.overlayId,
          mode: p.mode,
          tier: p.tier,
          name: p.name,
          score: p.score,
          candidates: p.candidates.slice(0, 16),
          alsoAt: p.alsoAt.slice(0, 16).map(hex),
          reasons: p.reasons,
          inMap: p.inMap,
        })),
        total: page.total,
        offset: page.offset,
        nextOffset: page.nextOffset,
        unmatched: {
          functions: {
            total: c.applied.unmatched.functions.length,
            listed: c.applied.unmatched.functions
              .slice(0, UNMATCHED_LISTED.max)
              .map((f) => ({ address: hex(f.address), overlayId: f.overlayId })),
          },
          signatures: {
            total: c.applied.unmatched.items.length,
            listed: c.applied.unmatched.items.slice(0, UNMATCHED_LISTED.max),
          },
        },
      },
    },
    text: `set ${c.view.name} on ${processor}: ${c.summary}; ${page.items.length} of ${page.total} proposal(s) listed${page.nextOffset !== null ? `, next offset ${page.nextOffset}` : ''}; unmatched: ${c.applied.unmatched.functions.length} function(s) of the program, ${c.applied.unmatched.items.length} of the set`,
  };
}

/** action accept: the proposals chosen stored as the ROM's names. */
async function acceptChosen(
  args: Args,
  ctx: ToolContext,
  rom: RomHandle,
  processor: Processor,
  c: Chosen,
): Promise<Result> {
  const r = await acceptProposals(ctx.services, rom, processor, c.set, c.chosen, false, ctx.signal);
  const storePath = getSymbolStore(ctx.services).path(rom);
  return {
    structured: {
      action: args.action,
      ...NONE,
      set: c.view,
      accepted: {
        store: storePath,
        offered: c.chosen.length,
        added: r.added,
        replaced: r.replaced,
        unchanged: r.unchanged,
        conflicts: r.conflicts.map((x) => ({ name: x.name, address: hex(x.address), why: x.why })),
      },
    },
    text: `set ${c.view.name} on ${processor}: ${c.summary}; ${c.chosen.length} accepted: ${r.added} added, ${r.replaced} replaced, ${r.unchanged} unchanged, ${r.conflicts.length} conflict(s)`,
  };
}

/**
 * The places accept takes: an address given as a number picks the proposals there in every overlay
 * (`address`), one given by a stored name of an overlay only that overlay's (`address@overlay`).
 */
function wantedPlaces(addresses: readonly number[], ctx: ToolContext): Set<string> {
  const overlayOf = new Map(
    (ctx.names ?? []).flatMap((u) => (u.overlayId === null ? [] : [[u.argument, u.overlayId] as const])),
  );
  return new Set(
    addresses.map((a, i) => {
      const overlay = overlayOf.get(`addresses.${i}`);
      return overlay === undefined ? `${a}` : `${a}@${overlay}`;
    }),
  );
}

/** actions apply and accept: the set matched against the ROM's program map. */
async function applyOrAccept(args: Args, ctx: ToolContext): Promise<Result> {
  const set = await readSignatureSet(ctx.services, args.set!, ctx.signal);
  const processor = args.processor;
  // accept takes strong and supported proposals only: an ambiguous one names no one function.
  const tiers: readonly string[] = args.action === 'apply' ? PROPOSAL_TIERS : ['strong', 'supported'];
  return withToolRom(ctx, args.rom!, async (rom, store) => {
    const map = await mapOf(ctx, store, rom, processor);
    const applied: AppliedSet = await appliedSignatureSet(
      ctx.services,
      set,
      map,
      APPLY_LIMITS.minCompared.default,
      ctx.signal,
    );
    const wanted = args.addresses === undefined ? null : wantedPlaces(args.addresses, ctx);
    const chosen = applied.proposals.filter(
      (p) =>
        tiers.includes(p.tier) &&
        p.score >= args.minScore &&
        (wanted === null || wanted.has(`${p.address}`) || wanted.has(`${p.address}@${p.overlayId}`)),
    );
    const c = applied.counts;
    const summary = `${c.functions} function(s): ${c.strong} strong, ${c.supported} supported, ${c.ambiguous} ambiguous, ${c.tooShort} too short, ${c.contradicted} ruled out by references`;
    const shared: Chosen = { set, view: setView(set), applied, chosen, summary };
    if (args.action === 'apply') return applyPage(args, processor, shared);
    return acceptChosen(args, ctx, rom, processor, shared);
  });
}

export const ndsSignatures = defineTool({
  name: 'nds_signatures',
  title: 'Signature sets',
  profiles: ['static'],
  description: {
    purpose:
      'Signature sets: list, build (.a/.o/ELF or a named ROM), import, apply to a ROM (name proposals), accept as names.',
    useWhen: 'naming known code in a stripped ROM.',
    behaviour: `tiers strong (${APPLY_LIMITS.minCompared.default}+ bytes), supported, ambiguous; accept stores the first two.`,
    limits: `${SIGNATURE_FILE_LIMITS.files.max} files of ${SIGNATURE_FILE_LIMITS.fileBytes.max / 2 ** 20} MiB; ${SIGNATURE_LIMITS.maxItems.max} signatures; ${SETS_LISTED.max} sets; ${SIGNATURE_FILE_LIMITS.workMs.max / 1000} s a step.`,
  },
  input,
  output,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  limits: {
    sets: SETS_LISTED,
    ...SIGNATURE_FILE_LIMITS,
    maxItems: SIGNATURE_LIMITS.maxItems,
    ...PAGE,
  },
  // accept's addresses may be stored names of the ROM, on the call's processor.
  names: romArgNames,
  async handler(args, ctx) {
    // Paths first: a hostile one is refused before anything else is read.
    const ws = ctx.services.workspace;
    if (args.rom !== undefined) await ws.resolveExisting(args.rom, 'file');
    for (const f of args.files ?? []) await ws.resolveExisting(f, 'file');
    checkFields(args);
    if (args.action === 'list') return listSets(args, ctx);
    if (args.action === 'build') return buildSet(args, ctx);
    if (args.action === 'import') return importSet(args, ctx);
    return applyOrAccept(args, ctx);
  },
});
