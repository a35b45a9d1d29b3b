// The DeSmuME side of memory scans: the owner (one emulator generation: a restart discards every
// scan) and the main-RAM region a scan may cover. The scan store is the debugger service's
// (desmumeScans in src/debug/service.ts).
import { ReMcpError } from '../../core/errors.js';
import { formatAddress } from '../../core/vocabulary.js';
import type { CpuDebugger } from '../../debug/cpu.js';
import { LIMITS } from '../../debug/policy.js';
import { debugSession } from '../../debug/service.js';
import type { ToolContext } from '../../mcp/tool.js';
import type { Services } from '../../services.js';
import type { CandidateName } from '../shared/memory-scan.js';
import { liveNames } from './common.js';

/** DS main RAM (4 MiB; its mirrors are not scanned separately). */
export const MAIN_RAM = { start: 0x0200_0000, end: 0x0240_0000 } as const;

export function desmumeOwner(services: Services): string {
  return `DeSmuME generation ${debugSession(services).requireGeneration().number}`;
}

export function checkMainRam(base: number, length: number): void {
  if (base < MAIN_RAM.start || base + length > MAIN_RAM.end) {
    throw new ReMcpError(
      'invalid-argument',
      `a DeSmuME scan covers main RAM only (${formatAddress(MAIN_RAM.start)}..${formatAddress(MAIN_RAM.end)}); ${formatAddress(base)}+${length} is outside it`,
    );
  }
}

/** Reads through the stub in the largest piece one read allows (the CPU must be halted). */
export function stubReader(cpu: CpuDebugger) {
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
export async function scanNames(
  ctx: ToolContext,
  processor: 'arm9' | 'arm7',
): Promise<CandidateName | undefined> {
  const names = await liveNames(ctx, processor);
  if (names === null || names.table.size === 0) return undefined;
  return (address) => names.table.nameOf(processor, address, null);
}
