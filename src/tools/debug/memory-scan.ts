// Memory scans ("cheat search") on a halted owned emulator: <emu>_memory_scan_start, _narrow and
// _results. A scan's owner is one emulator generation (a restart discards every scan) and it covers
// main RAM only; the scan store is the debugger service's (emulatorScans in src/debug/service.ts).

import { z } from 'zod/v4';
import { ReMcpError } from '../../core/errors.js';
import { formatAddress, nameOrAddressArg, type Processor } from '../../core/vocabulary.js';
import type { Emulator } from '../../debug/backend.js';
import type { CpuDebugger } from '../../debug/cpu.js';
import { LIMITS } from '../../debug/policy.js';
import { debugSession, emulatorScans } from '../../debug/service.js';
import type { ToolContext } from '../../mcp/tool.js';
import { SCAN_LIMITS } from '../../memory-scan/memory-scan.js';
import type { Services } from '../../services.js';
import {
  type CandidateName,
  narrowInputs,
  narrowOutput,
  narrowScan,
  pageView,
  readWhole,
  resultsInput,
  resultsOutput,
  SCAN_LIMITS_TEXT,
  scanLimits,
  scanOutput,
  scanView,
  signedInput,
  sizeInput,
} from '../shared/memory-scan.js';
import { emulatorTool, tool } from './per-emulator.js';
import { cpuOf, liveArgNames, liveNames, processorInput, RUNTIME } from './session-views.js';

/** DS main RAM (4 MiB; its mirrors are not scanned separately). */
const MAIN_RAM = { start: 0x0200_0000, end: 0x0240_0000 } as const;

function emuOwner(services: Services, emu: Emulator): string {
  return `${emu.names.emulator} generation ${debugSession(services, emu).requireGeneration().number}`;
}

function checkMainRam(emu: Emulator, base: number, length: number): void {
  if (base < MAIN_RAM.start || base + length > MAIN_RAM.end) {
    throw new ReMcpError(
      'invalid-argument',
      `a ${emu.names.emulator} scan covers main RAM only (${formatAddress(MAIN_RAM.start)}..${formatAddress(MAIN_RAM.end)}); ${formatAddress(base)}+${length} is outside it`,
    );
  }
}

/** Reads through the stub in the largest piece one read allows (the CPU must be halted). */
function stubReader(cpu: CpuDebugger) {
  return async (address: number, length: number): Promise<Uint8Array> => {
    const out = new Uint8Array(length);
    for (let at = 0; at < length; at += LIMITS.memoryRead.max) {
      const n = Math.min(LIMITS.memoryRead.max, length - at);
      out.set(await cpu.readMemory(address + at, n), at);
    }
    return out;
  };
}

/**
 * Names for candidates from the running ROM's symbol store, on the scanned CPU's view (main RAM holds
 * no overlay code, so overlay names are never asked); undefined when no generation runs or no names.
 */
async function scanNames(
  ctx: ToolContext,
  emu: Emulator,
  processor: Processor,
): Promise<CandidateName | undefined> {
  const names = await liveNames(ctx, emu, processor);
  if (names === null || names.table.size === 0) return undefined;
  return (address) => names.table.nameOf(processor, address, null);
}

// <emu>_memory_scan_start: snapshots a main-RAM region of the halted emulator as the first step of a
// memory scan (every size-aligned address a candidate).
export const emuMemoryScanStart = emulatorTool({
  verb: 'memory_scan_start',
  title: (e) => `Start a memory scan (${e.names.emulator})`,
  profiles: RUNTIME,
  description: {
    purpose: (e) => `Starts a "cheat search": snapshots DS main RAM for ${tool(e, 'memory_scan_narrow')}.`,
    useWhen: "finding a game's counter, score or health: start, let it change, narrow, repeat.",
    behaviour: 'CPU halted; each size-aligned address a candidate; scans die with the generation.',
    limits: `main RAM 0x02000000..0x02400000; pages of ${SCAN_LIMITS.page.max}; ${SCAN_LIMITS.scans.max} scans kept, oldest dropped.`,
  },
  input: z.object({
    processor: processorInput,
    address: nameOrAddressArg().default(MAIN_RAM.start),
    length: z
      .number()
      .int()
      .min(SCAN_LIMITS.regionBytes.min)
      .max(SCAN_LIMITS.regionBytes.max)
      .default(MAIN_RAM.end - MAIN_RAM.start),
    size: sizeInput,
    signed: signedInput,
  }),
  output: z.object({ generation: z.number().int(), ...scanOutput, dropped: z.array(z.string()) }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  limits: scanLimits,
  // The region's start may be a stored name of the running ROM (a variable or a table).
  names: liveArgNames,
  async handler(args, ctx, emu) {
    return debugSession(ctx.services, emu).exclusive(async () => {
      checkMainRam(emu, args.address, args.length);
      const cpu = cpuOf(ctx.services, emu, args.processor);
      cpu.requireStopped('scan memory');
      const owner = emuOwner(ctx.services, emu);
      const bytes = await readWhole(
        stubReader(cpu),
        args.address,
        args.length,
        64 * 1024,
        ctx.progress,
        ctx.signal,
      );
      const { scan, dropped } = emulatorScans(ctx.services, emu).add(
        owner,
        {
          base: args.address,
          length: args.length,
          size: args.size,
          signed: args.signed,
          processor: args.processor,
        },
        bytes,
      );
      return {
        structured: { generation: cpu.generation, ...scanView(scan), dropped },
        text: `${scan.id}: ${scan.candidateCount} candidates in ${args.length} bytes of main RAM`,
      };
    });
  },
});

// <emu>_memory_scan_narrow: re-reads a scan's candidates on the halted emulator and keeps those
// whose value satisfies the comparison.
export const emuMemoryScanNarrow = emulatorTool({
  verb: 'memory_scan_narrow',
  title: (e) => `Narrow a memory scan (${e.names.emulator})`,
  profiles: RUNTIME,
  description: {
    purpose: 'Keeps the scan candidates whose value now passes a comparison.',
    useWhen: 'after the game value changed (or did not): "increased" after the counter ran.',
    behaviour:
      'CPU halted; reads only the candidates; returns the first page; scans of an earlier generation are not-found.',
    limits: `${SCAN_LIMITS_TEXT}.`,
  },
  input: z.object({ processor: processorInput, ...narrowInputs }),
  output: narrowOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  limits: scanLimits,
  async handler(args, ctx, emu) {
    return debugSession(ctx.services, emu).exclusive(async () => {
      const scan = emulatorScans(ctx.services, emu).get(
        args.scanId,
        emuOwner(ctx.services, emu),
        emuOwner(ctx.services, emu),
      );
      const cpu = cpuOf(ctx.services, emu, args.processor);
      cpu.requireStopped('scan memory');
      return narrowScan(ctx, scan, args, stubReader(cpu), await scanNames(ctx, emu, args.processor));
    });
  },
});

// <emu>_memory_scan_results: one page of a scan's candidates as of its last step (no emulator I/O).
export const emuMemoryScanResults = emulatorTool({
  verb: 'memory_scan_results',
  title: (e) => `Page through memory-scan candidates (${e.names.emulator})`,
  profiles: RUNTIME,
  description: {
    purpose: "Lists a page of a scan's candidates with their last two values.",
    useWhen: (e) => `after ${tool(e, 'memory_scan_narrow')}, for candidates beyond its first page.`,
    behaviour: 'sends nothing; scans of an earlier generation are not-found.',
    limits: `${SCAN_LIMITS_TEXT}.`,
  },
  input: resultsInput,
  output: resultsOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: scanLimits,
  async handler(args, ctx, emu) {
    const owner = emuOwner(ctx.services, emu);
    const scan = emulatorScans(ctx.services, emu).get(args.scanId, owner, owner);
    const view = pageView(
      scan,
      args.offset,
      args.limit,
      await scanNames(ctx, emu, scan.spec.processor ?? 'arm9'),
    );
    return {
      structured: { ...scanView(scan), ...view },
      text:
        view.page.length === 0
          ? `${scan.id}: no candidates at offset ${args.offset} (${scan.candidateCount} in all)`
          : `${scan.id}: candidates ${args.offset}..${args.offset + view.page.length - 1} of ${scan.candidateCount}`,
    };
  },
});
