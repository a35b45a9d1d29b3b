// nds_correlate_stop_context: the stopped CPU of the owned emulator that runs mapped back to the
// canonical static model (every candidate kept), with the live bytes deciding which overlay is loaded.

import { z } from 'zod/v4';
import { ANALYSIS_SCOPES } from '../../analysis/evidence/index.js';
import { SCOPE_STATUSES } from '../../analysis/functions/nds-bounded.js';
import { getProgramMaps, MAP_LIMITS } from '../../analysis/program-map/service.js';
import { TIERS } from '../../analysis/program-map/types.js';
import { REFERENCE_KINDS } from '../../arm/references.js';
import { ARM_MODES } from '../../arm/types.js';
import { ReMcpError } from '../../core/errors.js';
import {
  addressOut,
  formatAddress as hex,
  limitArg,
  PROCESSORS,
  type Processor,
} from '../../core/vocabulary.js';
import {
  CORRELATE_LIMITS,
  type Correlation,
  CPSR_MODES,
  correlateStop,
  RETURN_EVIDENCE,
  RETURN_SOURCES,
} from '../../debug/correlate/correlate.js';
import {
  CANDIDATE_COMPONENTS,
  type CorrelatedFrame,
  FRAME_STATUSES,
  FUNCTION_AUTHORITIES,
  FUNCTION_REASONS,
  LIVE_STATUSES,
  LIVE_WINDOW_BYTES,
} from '../../debug/correlate/frame.js';
import { EMULATORS } from '../../debug/emulators.js';
import { runningSession } from '../../debug/service.js';
import type { SymbolTable } from '../../extract/symbol-store.js';
import { RUNTIME_RANGE_KINDS } from '../../formats/nds/index.js';
import { defineTool } from '../../mcp/tool.js';
import { getRomStore } from '../../roms/rom-store.js';
import { nameField, romNames, storedNameOut } from '../shared/names.js';
import { msLimit, processorInput, RUNTIME, timeoutInput } from './session-views.js';

const L = CORRELATE_LIMITS;
const TIMEOUT = { default: 3_000, min: 100, max: 30_000 };

const mode = z.enum(ARM_MODES);
const identity = z.object({ address: addressOut, mode, overlayId: z.number().int().nullable() });
const tier = z.enum(TIERS);
const functionOut = z.object({
  identity,
  name: storedNameOut,
  evidence: z.array(z.string()),
  block: z.object({ address: addressOut, end: addressOut, mode }),
  tier,
  authority: z.enum(FUNCTION_AUTHORITIES),
});
const frameOut = z.object({
  address: addressOut,
  mode: mode.nullable(),
  status: z.enum(FRAME_STATUSES),
  liveMatches: z.number().int(),
  candidates: z.array(
    z.object({
      component: z.enum(CANDIDATE_COMPONENTS),
      overlayId: z.number().int().nullable(),
      autoloadIndex: z.number().int().nullable(),
      copiedIndex: z.number().int().nullable().describe('A block the start-up code copies here'),
      region: z.enum(RUNTIME_RANGE_KINDS),
      romOffset: addressOut.nullable(),
      compressed: z.boolean(),
      authority: z.literal('static-candidate'),
      instructions: z.array(
        z.object({ address: addressOut, size: z.number().int(), bytes: z.string(), text: z.string() }),
      ),
      staticNote: z.string().nullable(),
      live: z.object({
        status: z.enum(LIVE_STATUSES),
        reason: z.string().nullable(),
        compared: z.object({ start: addressOut, length: z.number().int() }).nullable(),
        authority: z.literal('observed-runtime'),
      }),
      functions: z.array(functionOut),
      functionReason: z.enum(FUNCTION_REASONS),
      references: z.array(
        z.object({
          from: addressOut,
          kind: z.enum(REFERENCE_KINDS),
          to: addressOut,
          targetMode: mode.optional(),
          value: addressOut.optional(),
        }),
      ),
      referencesOmitted: z.number().int(),
    }),
  ),
});

/** Names the views show: the ROM's table on the stopped processor. */
interface Names {
  table: SymbolTable;
  processor: Processor;
}

function frameView(f: CorrelatedFrame, names: Names): z.input<typeof frameOut> {
  return {
    address: hex(f.address),
    mode: f.mode,
    status: f.status,
    liveMatches: f.liveMatches,
    candidates: f.candidates.map((c) => ({
      ...c,
      romOffset: c.romOffset === null ? null : hex(c.romOffset),
      authority: 'static-candidate' as const,
      instructions: c.instructions.map((i) => ({ ...i, address: hex(i.address) })),
      live: {
        ...c.live,
        compared: c.live.compared && { start: hex(c.live.compared.start), length: c.live.compared.length },
        authority: 'observed-runtime' as const,
      },
      functions: c.functions.map((fn) => functionView(fn, names)),
      references: c.references.map((r) => ({
        from: hex(r.from),
        kind: r.kind,
        to: hex(r.to),
        ...(r.targetMode ? { targetMode: r.targetMode } : {}),
        ...(r.value === undefined ? {} : { value: hex(r.value) }),
      })),
    })),
  };
}

function functionView(
  f: CorrelatedFrame['candidates'][number]['functions'][number],
  names: Names,
): z.input<typeof functionOut> {
  return {
    identity: { address: hex(f.identity.address), mode: f.identity.mode, overlayId: f.identity.overlayId },
    ...nameField('name', names.table, names.processor, f.identity.address, f.identity.overlayId),
    evidence: f.evidence,
    block: { address: hex(f.block.address), end: hex(f.block.end), mode: f.block.mode },
    tier: f.tier,
    authority: `static-${f.tier}`,
  };
}

function describe(c: Correlation, names: Names): string {
  const frame = (name: string, f: CorrelatedFrame) => {
    if (f.status === 'no-static-component')
      return `${name} ${hex(f.address)} (${f.mode}): in no static component`;
    const parts = f.candidates.map((k) => {
      const who = k.component === 'overlay' ? `overlay ${k.overlayId}` : k.component;
      const first = k.functions[0];
      const name =
        first && names.table.nameOf(names.processor, first.identity.address, first.identity.overlayId);
      const fn = first ? ` fn ${hex(first.identity.address)}${name ? ` ${name}` : ''} (${first.tier})` : '';
      return `${who} [${k.live.status}]${fn}`;
    });
    return `${name} ${hex(f.address)} (${f.mode ?? 'mode unknown'}): ${parts.join('; ')}`;
  };
  const cov = c.coverage;
  return `${c.processor} gen ${c.generation}: ${frame('pc', c.pc)} | ${frame('lr', c.caller)} | backtrace ${c.backtrace.entries.length} entr${c.backtrace.entries.length === 1 ? 'y' : 'ies'}\n${cov.analysis} analysis: ${cov.classifiedBytes}/${cov.executableBytes} bytes classified; ${cov.definitive ? 'negatives are definitive' : `negatives are not definitive (${cov.notDefinitive.join('; ')})`}`;
}

export const ndsCorrelateStopContext = defineTool({
  name: 'nds_correlate_stop_context',
  title: 'Correlate a live stop with the static model',
  profiles: RUNTIME,
  description: {
    purpose:
      "Maps the stopped CPU to its ROM's static candidates: proven functions, callers, live bytes naming the loaded overlay.",
    useWhen: `at a ${EMULATORS.map((emu) => emu.names.emulator).join(' or ')} stop: which code, overlay, callers.`,
    behaviour:
      'never resumes; ROM must still match its launch SHA-256; caller mode from LR only in usr/sys; no static match is a normal result.',
    limits: `${LIVE_WINDOW_BYTES}-byte live windows at PC and LR; one default function discovery.`,
  },
  input: z.object({
    processor: processorInput,
    nearbyInstructions: limitArg(L.nearbyInstructions),
    stackWords: limitArg(L.stackWords).describe('32-bit words read from SP for the backtrace.'),
    referenceLimit: limitArg(L.referenceLimit).describe('Per candidate.'),
    liveCheck: z.boolean().default(true),
    analysis: z
      .enum(ANALYSIS_SCOPES)
      .default('bounded')
      .describe(
        'bounded: the standard proven discovery; program: the whole-program map (build it first with nds_program_map on large ROMs: timeoutMs bounds this call)',
      ),
    lowestTier: z.enum(TIERS).optional().describe('program: the lowest tier accepted (default heuristic)'),
    timeoutMs: timeoutInput(TIMEOUT),
  }),
  output: z.object({
    processor: z.enum(PROCESSORS),
    generation: z.number().int(),
    rom: z.object({ path: z.string(), sha256: z.string() }),
    registers: z.object({
      pc: addressOut,
      cpsr: addressOut,
      mode,
      cpuMode: z.enum(CPSR_MODES),
      lr: addressOut,
      sp: addressOut,
      authority: z.literal('observed-runtime'),
    }),
    stopReason: z.string().nullable(),
    pc: frameOut,
    caller: frameOut,
    backtrace: z.object({
      stackWordsRead: z.number().int(),
      stackReadNote: z.string().nullable(),
      entries: z.array(
        z.object({
          source: z.enum(RETURN_SOURCES),
          slot: addressOut.nullable(),
          value: addressOut,
          address: addressOut,
          mode: mode.nullable(),
          matches: z.array(
            z.object({
              function: identity,
              name: storedNameOut,
              functionEvidence: z.array(z.string()),
              evidence: z.enum(RETURN_EVIDENCE),
              tier,
              callSite: addressOut.nullable(),
            }),
          ),
        }),
      ),
    }),
    discovery: z.object({
      status: z.enum(SCOPE_STATUSES),
      truncation: z.array(z.string()),
      functions: z.number().int(),
    }),
    coverage: z.object({
      analysis: z.enum(ANALYSIS_SCOPES),
      lowestTier: tier,
      executableBytes: z.number().int(),
      classifiedBytes: z.number().int(),
      unclassifiedBytes: z.number().int(),
      definitive: z.boolean().describe('Whether complete-negative function reasons are definitive'),
      notDefinitive: z.array(z.string()),
    }),
    liveCheck: z.boolean(),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: {
    nearbyInstructions: L.nearbyInstructions,
    stackWords: L.stackWords,
    referenceLimit: L.referenceLimit,
    timeoutMs: msLimit(TIMEOUT),
  },
  async handler(args, ctx) {
    const session = runningSession(ctx.services);
    return session.exclusive(async () => {
      const generation = session.requireGeneration();
      const cpu = session.cpu(args.processor);
      const deadline = AbortSignal.timeout(args.timeoutMs);
      const signal = ctx.signal ? AbortSignal.any([ctx.signal, deadline]) : deadline;
      let c: Correlation;
      try {
        c = await correlateStop({
          store: getRomStore(ctx.services),
          maps: getProgramMaps(ctx.services),
          analysis: args.analysis,
          lowestTier: args.lowestTier ?? 'heuristic',
          mapLimits: {
            maxCodeBytes: MAP_LIMITS.maxCodeBytes.default,
            maxSeconds: Math.ceil(args.timeoutMs / 1000),
          },
          generation,
          cpu,
          processor: args.processor,
          nearbyInstructions: args.nearbyInstructions,
          stackWords: args.stackWords,
          referenceLimit: args.referenceLimit,
          liveCheck: args.liveCheck,
          signal,
        });
      } catch (error) {
        if (
          deadline.aborted &&
          !ctx.signal?.aborted &&
          error instanceof ReMcpError &&
          error.code === 'cancelled'
        )
          throw new ReMcpError('timeout', `the correlation did not finish within ${args.timeoutMs} ms`);
        throw error;
      }
      const names: Names = {
        table: await romNames(ctx, { identity: { sha256: c.rom.sha256 } }),
        processor: c.processor,
      };
      return {
        structured: {
          processor: c.processor,
          generation: c.generation,
          rom: c.rom,
          stopReason: c.stopReason,
          discovery: c.discovery,
          coverage: c.coverage,
          liveCheck: c.liveCheck,
          registers: {
            pc: hex(c.registers.pc),
            cpsr: hex(c.registers.cpsr),
            mode: c.registers.mode,
            cpuMode: c.registers.cpuMode,
            lr: hex(c.registers.lr),
            sp: hex(c.registers.sp),
            authority: 'observed-runtime' as const,
          },
          pc: frameView(c.pc, names),
          caller: frameView(c.caller, names),
          backtrace: {
            ...c.backtrace,
            entries: c.backtrace.entries.map((e) => ({
              ...e,
              slot: e.slot === null ? null : hex(e.slot),
              value: hex(e.value),
              address: hex(e.address),
              matches: e.matches.map((m) => ({
                function: functionView(m.function, names).identity,
                ...nameField(
                  'name',
                  names.table,
                  names.processor,
                  m.function.identity.address,
                  m.function.identity.overlayId,
                ),
                functionEvidence: m.function.evidence,
                evidence: m.evidence,
                tier: m.function.tier,
                callSite: m.callSite === null ? null : hex(m.callSite),
              })),
            })),
          },
        },
        text: describe(c, names),
      };
    });
  },
});
