// Names from the ROM's symbol store (nds_symbols) beside the addresses tools return: user-asserted
// labels, shown as `name` or `name+0x10`, never evidence.

import type { Processor } from '../../core/vocabulary.js';
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
