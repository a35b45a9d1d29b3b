// Where each patch of code is stored and where it runs, as the mutation tools say it (the draft, the
// validation and the build): both addresses, with the start-up copy that moves the bytes as evidence
// (rebuild/placement.ts), in the structured answer and a text line per moved patch.
import { z } from 'zod/v4';
import type { StartupCopies } from '../../analysis/run-address.js';
import { addressOut, formatAddress } from '../../core/vocabulary.js';
import type { ToolContext } from '../../mcp/tool.js';
import type { ManifestOperation } from '../../rebuild/manifest.js';
import { type Placement, patchedMains, placePatches } from '../../rebuild/placement.js';
import type { RomHandle, RomStore } from '../../roms/rom-store.js';
import { startupCopies } from '../shared/copied.js';

export const placedSchema = z
  .array(
    z.object({
      id: z.string(),
      offset: addressOut,
      storedAddress: addressOut,
      runAddress: addressOut.nullable().describe('null: no one place (why)'),
      copy: z
        .object({
          kind: z.enum(['code', 'data']),
          runStart: addressOut,
          size: z.number().int(),
          storedStart: addressOut,
          storedBy: addressOut,
        })
        .nullable()
        .describe('The start-up copy moving them; null: run where stored'),
      why: z.string().optional(),
      runtimeGuard: z
        .object({ address: addressOut, holds: z.enum(['where-loaded', 'where-copied']) })
        .optional()
        .describe("The manifest's runtime guard: where the first byte loads, or where a copy runs it"),
    }),
  )
  .describe('Each patch of code: where stored, where it runs');

/** Placements as the tools publish them: addresses formatted. */
export function placedOut(placed: readonly Placement[]): z.input<typeof placedSchema> {
  return placed.map((x) => ({
    id: x.id,
    offset: formatAddress(x.offset),
    storedAddress: formatAddress(x.storedAddress),
    runAddress: x.runAddress === null ? null : formatAddress(x.runAddress),
    copy:
      x.copy === null
        ? null
        : {
            kind: x.copy.kind,
            runStart: formatAddress(x.copy.runStart),
            size: x.copy.size,
            storedStart: formatAddress(x.copy.storedStart),
            storedBy: formatAddress(x.copy.storedBy),
          },
    ...(x.why !== undefined ? { why: x.why } : {}),
    ...(x.runtimeGuard !== undefined
      ? { runtimeGuard: { address: formatAddress(x.runtimeGuard.address), holds: x.runtimeGuard.holds } }
      : {}),
  }));
}

/** A text line per patch that runs elsewhere than stored (or nowhere one place), '' when none does. */
export function placedText(placed: readonly Placement[]): string {
  const lines = placed
    .filter((x) => x.copy !== null || x.runAddress === null)
    .map((x) =>
      x.runAddress === null
        ? `${x.id}: stored at ${formatAddress(x.storedAddress)}, runs in no one place: ${x.why}`
        : `${x.id}: stored at ${formatAddress(x.storedAddress)}, runs at ${formatAddress(x.runAddress)} (start-up ${x.copy!.kind} copy)${
            x.runtimeGuard?.holds === 'where-copied'
              ? `; runtime guard ${formatAddress(x.runtimeGuard.address)} holds by that copy`
              : ''
          }`,
    );
  return lines.length > 0 ? `\n${lines.join('\n')}` : '';
}

/**
 * Where a manifest's patches of code run: the start-up copies of each processor whose main
 * executable it patches are asked once (the program maps keep them per ROM).
 */
export async function placementsOf(
  ctx: ToolContext,
  store: RomStore,
  rom: RomHandle,
  operations: readonly ManifestOperation[],
): Promise<Placement[]> {
  const copies = new Map<'arm9' | 'arm7', StartupCopies>();
  for (const p of patchedMains(rom.model, operations)) copies.set(p, await startupCopies(ctx, store, rom, p));
  return placePatches(rom.model, operations, (p) => copies.get(p) ?? null);
}
