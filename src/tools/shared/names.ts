// Names from the ROM's symbol store (nds_symbols) beside the addresses tools return: user-asserted
// labels, shown as `name` or `name+0x10`, never evidence.

import { formatOptionalAddress, type Processor } from '../../core/vocabulary.js';
import { getSymbolStore, type RomIdentity, type SymbolTable } from '../../extract/symbol-store.js';
import type { ToolContext } from '../../mcp/tool.js';

/** The ROM's names (an empty table when it has none). */
export function romNames(ctx: ToolContext, rom: RomIdentity): Promise<SymbolTable> {
  return getSymbolStore(ctx.services).table(rom);
}

/** `{ [key]: name }` when a name covers the address, else nothing: spread into a record. */
export function nameField<K extends string>(
  key: K,
  names: SymbolTable | null,
  processor: Processor,
  address: number | undefined,
  overlayId: number | null = null,
): Partial<Record<K, string>> {
  if (names === null || names.size === 0 || address === undefined) return {};
  const name = names.nameOf(processor, address, overlayId);
  return name === null ? {} : ({ [key]: name } as Record<K, string>);
}

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
