// The blocks the start-up code of a processor copies to where they run (proven by running its entry
// function on the static bytes, once per ROM; see analysis/evidence/copied-code.ts): the ARM tools take
// them as code sources at their run addresses, and the debugger's allowlist includes them.
import { z } from 'zod/v4';
import { getProgramMaps } from '../../analysis/program-map/service.js';
import type { CopiedBlock } from '../../analysis/program-map/types.js';
import { describeCopy, runOfStored, type StartupCopies } from '../../analysis/run-address.js';
import { ReMcpError } from '../../core/errors.js';
import { addressOut, formatAddress, type Processor } from '../../core/vocabulary.js';
import type { SymbolTable } from '../../extract/symbol-store.js';
import type { ToolContext } from '../../mcp/tool.js';
import type { RomHandle, RomStore } from '../../roms/rom-store.js';
import { nameField } from './names.js';

export async function copiedBlocks(
  ctx: ToolContext,
  store: RomStore,
  rom: RomHandle,
  processor: Processor,
): Promise<CopiedBlock[]> {
  return (await getProgramMaps(ctx.services).copied(store, rom, processor, ctx.signal)).copies;
}

/** Both kinds of copies of `processor`'s start-up (code and data), for mapping run and storage addresses. */
export async function startupCopies(
  ctx: ToolContext,
  store: RomStore,
  rom: RomHandle,
  processor: Processor,
): Promise<StartupCopies> {
  const found = await getProgramMaps(ctx.services).copied(store, rom, processor, ctx.signal);
  return { processor, code: found.copies, data: found.dataCopies };
}

/** The start-up copies of a processor, when they were loaded for this answer. */
type CopiesOf = (processor: Processor) => StartupCopies | undefined;

/** Loads the start-up copies of each of `processors` once (the program maps keep them per ROM). */
export async function copiesFor(
  ctx: ToolContext,
  store: RomStore,
  rom: RomHandle,
  processors: Iterable<Processor>,
): Promise<CopiesOf> {
  const found = new Map<Processor, StartupCopies>();
  for (const p of new Set(processors)) found.set(p, await startupCopies(ctx, store, rom, p));
  return (p) => found.get(p);
}

/** The fields runsAtFields gives, for output schemas. */
export const runsAtSchema = {
  runsAt: addressOut.optional().describe('Where start-up copies them to run'),
  runsAtName: z.string().optional(),
  copy: z.string().optional().describe('That copy (evidence)'),
};

/**
 * `{ runsAt, runsAtName?, copy }` for the byte a main executable stores at `stored` (its load
 * address) when the start-up copies it elsewhere; nothing when it runs where it is stored.
 */
export function runsAtFields(
  copies: CopiesOf,
  names: SymbolTable,
  processor: Processor | null | undefined,
  stored: number | null | undefined,
): { runsAt?: string; runsAtName?: string; copy?: string } {
  if (processor !== 'arm9' && processor !== 'arm7') return {};
  const c = copies(processor);
  if (c === undefined || stored === null || stored === undefined) return {};
  let m: ReturnType<typeof runOfStored>;
  try {
    m = runOfStored(c, stored);
  } catch (error) {
    // Copied to two places: said, never one of them picked.
    if (error instanceof ReMcpError) return { copy: error.message };
    throw error;
  }
  if (m === null) return {};
  return {
    runsAt: formatAddress(m.run),
    ...nameField('runsAtName', names, processor, m.run, null),
    copy: describeCopy(m.copy),
  };
}
