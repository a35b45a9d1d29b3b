// What several topics of the debugger tools share: the processor and wait arguments, the views of the
// session's state (stops, breakpoints, executable ranges, registers and context windows, the stored
// names a live stop is shown with) and the CPU of the running generation. The session itself is the
// debugger service's, one per emulator (debugSession in src/debug/service.ts).
import { z } from 'zod/v4';
import { ARM_MODES } from '../../arm/types.js';
import { ReMcpError } from '../../core/errors.js';
import {
  addressOut,
  formatAddress,
  limitArg,
  nameOrAddressArg,
  PROCESSORS,
  type Processor,
} from '../../core/vocabulary.js';
import { type Emulator, toolName } from '../../debug/backend.js';
import { type Breakpoint, type CpuDebugger, STOP_REASONS, type StopInfo } from '../../debug/cpu.js';
import { type ExecRange, LIMITS, RANGE_MODES, RANGE_SOURCES } from '../../debug/policy.js';
import { debugSession } from '../../debug/service.js';
import { WATCH_ACCESSES } from '../../debug/watchpoints.js';
import type { SymbolTable } from '../../extract/symbol-store.js';
import type { AddressNamer, LimitSpec, ToolContext } from '../../mcp/tool.js';
import type { Services } from '../../services.js';
import { nameField, romNames, tableNamer } from '../shared/names.js';

/** Undescribed: arm7 needing <prefix>_start arm7: true is said once, by that argument. */
export const processorInput = z.enum(PROCESSORS).default('arm9');

/** A millisecond wait's argument, derived from its bounds like every limit (limitArg). */
export function timeoutInput(bounds: { default: number; min: number; max: number }, what?: string) {
  return limitArg(msLimit(bounds) as LimitSpec & { default: number }, what);
}

/** A millisecond wait's bounds as the tool's declared limit (what server_capabilities reports). */
export function msLimit(bounds: { default: number; min: number; max: number }): LimitSpec {
  return { default: bounds.default, min: bounds.min, max: bounds.max, unit: 'ms' };
}

export const regionsInput = z
  .array(
    z.object({
      label: z.string().min(1).max(64).describe('Names the region in the result.'),
      address: nameOrAddressArg(),
      length: z.number().int().min(LIMITS.regionBytes.min).max(LIMITS.regionBytes.max),
    }),
  )
  .max(LIMITS.regions.max)
  .default([])
  .describe('Extra windows.');

export const stopOutput = z.object({
  reason: z.enum(STOP_REASONS),
  signal: z.number().int(),
  pc: addressOut,
  pcName: z
    .string()
    .optional()
    .describe(
      'The stored name of pc outside overlays (nds_symbols); a live stop does not say which overlay is loaded',
    ),
  mode: z.enum(ARM_MODES),
  cpsr: z.string(),
  breakpointId: z.string().nullable(),
  hitCount: z.number().int().nullable(),
  watch: z
    .object({
      watchpointId: z.string().nullable(),
      access: z.enum(WATCH_ACCESSES),
      address: z.string(),
    })
    .nullable(),
  at: z.string(),
});

/** The names a live stop is shown with: the running ROM's table on the stopped processor. */
export interface LiveNames {
  table: SymbolTable;
  processor: Processor;
}

/** The running generation's names for `processor`; null when no generation runs. */
export async function liveNames(
  ctx: ToolContext,
  emu: Emulator,
  processor: Processor,
): Promise<LiveNames | null> {
  const gen = debugSession(ctx.services, emu).generation;
  if (gen === null) return null;
  return { table: await romNames(ctx, gen.rom), processor };
}

/**
 * The `names` hook of a debugger tool: a name given for an address is looked up in the running ROM's
 * store on the call's processor, outside overlays (which overlay is loaded is not known from here).
 * `thumbBit`: an address whose bit 0 says the mode (a return address) gets bit 0 set when the stored
 * name says its code is Thumb.
 */
export async function liveArgNames(
  args: { processor: Processor },
  ctx: ToolContext,
  emu: Emulator,
  thumbBit = false,
): Promise<AddressNamer> {
  const gen = debugSession(ctx.services, emu).generation;
  if (gen === null)
    throw new ReMcpError(
      'invalid-argument',
      "a name is looked up in the running ROM's stored names: start a session first, or give the address",
    );
  const table = await romNames(ctx, gen.rom);
  const namer = tableNamer(
    table,
    () => args.processor,
    () => null,
  );
  if (!thumbBit) return namer;
  return (text, holder) => {
    const hit = namer(text, holder);
    const s = table.named(hit.processor, hit.symbol).find((x) => x.overlayId === hit.overlayId);
    return s?.mode === 'thumb' ? { ...hit, address: (hit.address | 1) >>> 0 } : hit;
  };
}

export function stopView(
  stop: StopInfo | null,
  names: LiveNames | null = null,
): z.input<typeof stopOutput> | null {
  if (stop === null) return null;
  return {
    reason: stop.reason,
    signal: stop.signal,
    pc: formatAddress(stop.pc),
    // Overlay names are left out: which overlay is loaded is not known from the stop alone.
    ...(names ? nameField('pcName', names.table, names.processor, stop.pc, null) : {}),
    mode: stop.thumb ? 'thumb' : 'arm',
    cpsr: formatAddress(stop.cpsr),
    breakpointId: stop.breakpointId,
    hitCount: stop.hitCount,
    watch: stop.watch ? { ...stop.watch, address: formatAddress(stop.watch.address) } : null,
    at: stop.at,
  };
}

export const breakpointOutput = z.object({
  id: z.string(),
  processor: z.enum(PROCESSORS),
  address: addressOut,
  name: z.string().optional().describe('The stored name of address outside overlays (nds_symbols)'),
  mode: z.enum(ARM_MODES),
  range: z.string(),
  hits: z.number().int(),
  createdAt: z.string(),
});

export function breakpointView(
  bp: Breakpoint,
  names: LiveNames | null = null,
): z.input<typeof breakpointOutput> {
  return {
    ...bp,
    address: formatAddress(bp.address),
    ...(names ? nameField('name', names.table, bp.processor, bp.address, null) : {}),
  };
}

export const rangeOutput = z.object({
  start: addressOut,
  end: addressOut,
  label: z.string(),
  mode: z.enum(RANGE_MODES),
  source: z.enum(RANGE_SOURCES),
});

export function rangeView(r: ExecRange): z.input<typeof rangeOutput> {
  return { ...r, start: formatAddress(r.start), end: formatAddress(r.end) };
}

const windowOutput = z.object({
  label: z.string(),
  address: addressOut,
  length: z.number().int(),
  requestedLength: z.number().int(),
  clamped: z.boolean(),
  hex: z.string(),
});

export const registersOutput = z.object({
  r0: z.string(),
  r1: z.string(),
  r2: z.string(),
  r3: z.string(),
  r4: z.string(),
  r5: z.string(),
  r6: z.string(),
  r7: z.string(),
  r8: z.string(),
  r9: z.string(),
  r10: z.string(),
  r11: z.string(),
  r12: z.string(),
  sp: z.string(),
  lr: z.string(),
  pc: addressOut,
  cpsr: z.string(),
  mode: z.enum(ARM_MODES),
});

export const contextOutput = z.object({
  registers: registersOutput,
  pcWindow: windowOutput,
  spWindow: windowOutput,
  regions: z.array(windowOutput),
});

export function cpuOf(services: Services, emu: Emulator, processor: Processor): CpuDebugger {
  return debugSession(services, emu).cpu(processor);
}

/** The generation a result belongs to: lets a caller notice a restart between two calls. */
export function generationNumber(services: Services, emu: Emulator): number {
  const gen = debugSession(services, emu).generation;
  if (gen === null)
    throw new ReMcpError(
      'not-running',
      `no owned ${emu.names.emulator} is running; call ${toolName(emu.names, 'start')}`,
    );
  return gen.number;
}

export const RUNTIME: ['runtime'] = ['runtime'];
