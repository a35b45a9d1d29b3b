// Names from the ROM's symbol store (nds_symbols) beside the addresses tools return: user-asserted
// labels, shown as `name` or `name+0x10`, never evidence; and the same names taken for addresses
// (the tools' `names` hooks: src/mcp/named-args.ts).

import { z } from 'zod/v4';
import { ReMcpError } from '../../core/errors.js';
import { addressOut, formatOptionalAddress, type Processor } from '../../core/vocabulary.js';
import { resolveName } from '../../extract/symbol-names.js';
import { getSymbolStore, type RomIdentity, type SymbolTable } from '../../extract/symbol-store.js';
import type { AddressNamer, ToolContext } from '../../mcp/tool.js';
import { withToolRom } from './rom.js';

/** The ROM's names (an empty table when it has none). */
export function romNames(ctx: ToolContext, rom: RomIdentity): Promise<SymbolTable> {
  return getSymbolStore(ctx.services).table(rom);
}

/** A stored name in an answer (absent when nds_symbols has none for the place). */
export const storedNameOut = z.string().optional().describe('Its stored name (nds_symbols)');

/** The stored name that covers `address` (`name` or `name+0x10`), or null: the one lookup every view uses. */
export function storedName(
  names: SymbolTable | null,
  processor: Processor,
  address: number,
  overlayId: number | null = null,
): string | null {
  return names === null || names.size === 0 ? null : names.nameOf(processor, address, overlayId);
}

/** `{ [key]: name }` when a name covers the address, else nothing: spread into a record. */
export function nameField<K extends string>(
  key: K,
  names: SymbolTable | null,
  processor: Processor,
  address: number | undefined,
  overlayId: number | null = null,
): Partial<Record<K, string>> {
  if (address === undefined) return {};
  const name = storedName(names, processor, address, overlayId);
  return name === null ? {} : ({ [key]: name } as Record<K, string>);
}

/** The fields ownerRuntime gives, for output schemas. */
export const ownerRuntimeSchema = {
  runtimeAddress: addressOut.nullable().optional(),
  runtimeName: z.string().optional().describe('The stored name of runtimeAddress (nds_symbols)'),
};

/**
 * `{ runtimeAddress, runtimeName? }` of a ROM-byte owner (resolve_rom_offset, search hits): the
 * address in the one form when the owner has one, and the stored name there (an overlay's own).
 */
export function ownerRuntime(
  names: SymbolTable,
  owner: { kind: string; processor?: string; overlayId?: number },
  runtimeAddress: number | null | undefined,
): { runtimeAddress?: string | null; runtimeName?: string } {
  if (runtimeAddress === undefined) return {};
  const p = owner.processor;
  return {
    runtimeAddress: formatOptionalAddress(runtimeAddress),
    ...(runtimeAddress !== null && (p === 'arm9' || p === 'arm7')
      ? nameField(
          'runtimeName',
          names,
          p,
          runtimeAddress,
          owner.kind === 'overlay' ? (owner.overlayId ?? null) : null,
        )
      : {}),
  };
}

/** The holder's own overlayId (a seed's), else the call's. */
const overlayOf = (holder: Readonly<Record<string, unknown>>, fallback: number | undefined): number | null =>
  typeof holder.overlayId === 'number' ? holder.overlayId : (fallback ?? null);

/** Names of `table` on `processor` as an AddressNamer (see src/mcp/named-args.ts). */
export function tableNamer(
  table: SymbolTable,
  processor: (holder: Readonly<Record<string, unknown>>) => Processor,
  overlayId: (holder: Readonly<Record<string, unknown>>) => number | null,
): AddressNamer {
  return (text, holder) => resolveName(table, processor(holder), text, overlayId(holder));
}

/**
 * The `names` hook of a ROM tool: names from the store of `args.rom`, on `args.processor` (arm9 when
 * the tool has none), an argument's own overlayId or the call's picking among overlays.
 */
export async function romArgNames(
  args: { rom?: string | undefined; processor?: Processor | undefined; overlayId?: number | undefined },
  ctx: ToolContext,
): Promise<AddressNamer> {
  if (args.rom === undefined)
    throw new ReMcpError('invalid-argument', "a name is looked up in a ROM's stored names: give rom");
  const table = await withToolRom(ctx, args.rom, (rom) => romNames(ctx, rom));
  return tableNamer(
    table,
    () => args.processor ?? 'arm9',
    (holder) => overlayOf(holder, args.overlayId),
  );
}
