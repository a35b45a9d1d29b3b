// Names as addresses: `name` or `name+offset` given where a tool takes an address, resolved against a
// ROM's symbol store (symbol-store.ts) on one processor. A name at several places of the processor (in
// several overlays, or in one and outside overlays) needs the overlay to pick one; an unknown or
// ambiguous name is a typed error listing candidates (NAME_LOOKUP_LIMITS.candidates at most), never a
// guess. Pure over the table.
import { ReMcpError } from '../core/errors.js';
import { formatAddress as hex, type Processor } from '../core/vocabulary.js';
import type { StoredSymbol, SymbolTable } from './symbol-store.js';

export const NAME_LOOKUP_LIMITS = {
  /** Candidates an unknown or ambiguous name's error lists. */
  candidates: { max: 8, unit: 'names' },
} as const;

/** What a name given for an address resolved to. */
interface NameHit {
  /** The stored name. */
  symbol: string;
  offset: number;
  address: number;
  processor: Processor;
  overlayId: number | null;
}

const OFFSET = /^(.+)\+(0[xX][0-9a-fA-F]{1,8}|[0-9]{1,10})$/;

const place = (s: StoredSymbol) =>
  `${s.processor} ${hex(s.address)}${s.overlayId === null ? '' : ` (overlay ${s.overlayId})`}`;

/**
 * The address `text` names on `processor`: a stored name, or a stored name and `+offset` (hex or
 * decimal). The whole text is tried as a name first (a name may hold `+`). `overlayId` picks among
 * places of one name (an overlay's own, else the one outside overlays).
 */
export function resolveName(
  table: SymbolTable,
  processor: Processor,
  text: string,
  overlayId: number | null,
): NameHit {
  const tries: { name: string; offset: number }[] = [{ name: text, offset: 0 }];
  const m = OFFSET.exec(text);
  if (m) tries.push({ name: m[1]!, offset: Number(m[2]!) });
  for (const t of tries) {
    const all = table.named(processor, t.name);
    if (all.length === 0) continue;
    const own = overlayId === null ? all : all.filter((s) => s.overlayId === overlayId);
    const chosen = own.length > 0 ? own : all.filter((s) => s.overlayId === null);
    if (chosen.length !== 1) {
      const listed = (chosen.length > 1 ? chosen : all).slice(0, NAME_LOOKUP_LIMITS.candidates.max);
      throw new ReMcpError(
        'invalid-argument',
        `"${t.name}" names ${all.length} places on ${processor} (${listed.map(place).join(', ')}${all.length > listed.length ? ', ...' : ''}); give overlayId to pick one`,
        { name: t.name, candidates: listed.map(place) },
      );
    }
    const s = chosen[0]!;
    const address = s.address + t.offset;
    if (!Number.isSafeInteger(address) || address > 0xffff_ffff)
      throw new ReMcpError(
        'invalid-argument',
        `${t.name}+0x${t.offset.toString(16)} is past the 32-bit address space (${t.name} is ${hex(s.address)})`,
        { name: t.name },
      );
    return { symbol: s.name, offset: t.offset, address, processor, overlayId: s.overlayId };
  }
  throw unknownName(table, processor, tries[tries.length - 1]!.name);
}

/** The not-found error of a name: names that contain it, and where it names another processor. */
function unknownName(table: SymbolTable, processor: Processor, name: string): ReMcpError {
  if (table.size === 0)
    return new ReMcpError(
      'not-found',
      `no name "${name}": this ROM has no stored names (nds_symbols import or set them)`,
      { name, candidates: [] },
    );
  const similar = table.like(processor, name, NAME_LOOKUP_LIMITS.candidates.max);
  const other: Processor = processor === 'arm9' ? 'arm7' : 'arm9';
  const elsewhere = table.named(other, name);
  return new ReMcpError(
    'not-found',
    `no name "${name}" on ${processor}${elsewhere.length > 0 ? ` (it names ${place(elsewhere[0]!)}: give processor ${other})` : ''}${similar.length > 0 ? `; similar: ${similar.join(', ')}` : ''}`,
    { name, candidates: similar },
  );
}
