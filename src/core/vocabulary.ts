// The words every tool shares, declared once: which processor, whether bounded work completed, how an
// address is written in and out.
//
// Address convention (the whole server, inputs and outputs alike):
// - OUT: every runtime address, ROM offset and memory address a tool returns is a string "0x" + at
//   least 8 lower-case hex digits ("0x02000800"). Sizes, lengths and counts stay JSON integers.
//   Models read hex addresses far more reliably than 33556480, and a string survives every host's
//   JSON handling unchanged.
// - IN: every address/offset argument accepts that exact string, any "0x"/"0X" hex of 1..8 digits, a
//   string of decimal digits, or a JSON integer. So a value one tool returns goes verbatim into another.
//   An address argument of a tool that knows a ROM's names (nameOrAddressArg) also takes a stored
//   symbol name or `name+offset` (`utilLoad`, `utilLoad+0x10`): the tool pipeline resolves it against
//   that ROM's symbol store before the handler runs (src/mcp/named-args.ts) and says what it resolved.
import { z } from 'zod/v4';

export const PROCESSORS = ['arm9', 'arm7'] as const;
export type Processor = (typeof PROCESSORS)[number];

/** A bounded piece of work either finished (`complete`) or stopped at a named limit (`truncated`). */
export const BOUNDED_STATUSES = ['complete', 'truncated'] as const;
export type BoundedStatus = (typeof BOUNDED_STATUSES)[number];

/** 0x02000800 -> "0x02000800" (lower case, at least 8 digits). */
export function formatAddress(n: number): string {
  return `0x${n.toString(16).padStart(8, '0')}`;
}

const HEX = /^0[xX][0-9a-fA-F]{1,8}$/;
const DECIMAL = /^[0-9]{1,10}$/;

/** Parses the input grammar above; null when the text is not an address in 0..0xFFFFFFFF. */
function parseAddress(value: number | string): number | null {
  let n: number;
  if (typeof value === 'number') n = value;
  else if (HEX.test(value)) n = Number.parseInt(value.slice(2), 16);
  else if (DECIMAL.test(value)) n = Number.parseInt(value, 10);
  else return null;
  return Number.isInteger(n) && n >= 0 && n <= 0xffff_ffff ? n : null;
}

/** The argument schema for an address or offset; parses to a number. `what` says what it is, when
 * the argument's name does not (the input grammar is said once, in the server's instructions). */
export function addressArg(what?: string) {
  const arg = z.union([z.number().int(), z.string().max(12)]).transform((v, ctx) => {
    const n = parseAddress(v);
    if (n === null) {
      ctx.addIssue({
        code: 'custom',
        message: 'expected "0x" + 1..8 hex digits, or an integer 0..4294967295',
      });
      return z.NEVER;
    }
    return n;
  });
  return what === undefined ? arg : arg.describe(`${what}.`);
}

/** Characters of a name argument: a stored name (256 at most) and `+` with a 10-digit offset. */
export const NAME_ARG_CHARS = 256 + 11;
/** What a name argument may hold: no space, control, bidi or invisible character (as stored names). */
const NAME_TEXT =
  /^[^\u0000-\u0020\u007f-\u00a0\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]+$/;

/**
 * A symbol name (with an optional `+offset`) given where an address is taken, as parsed: the tool
 * pipeline replaces it by the address it names before the handler sees the arguments, or refuses the
 * call (src/mcp/named-args.ts). A handler never receives one.
 */
export class NamedAddress {
  constructor(readonly text: string) {}
}

/**
 * An address argument that also takes a stored name: `name` or `name+offset` (offset hex or decimal).
 * Typed as the number it becomes: the pipeline resolves every NamedAddress before the handler runs.
 */
export function nameOrAddressArg(what?: string) {
  const arg = z.union([z.number().int(), z.string().max(NAME_ARG_CHARS)]).transform((v, ctx): number => {
    const n = parseAddress(v);
    if (n !== null) return n;
    if (typeof v === 'string' && !/^[0-9]/.test(v) && NAME_TEXT.test(v))
      return new NamedAddress(v) as unknown as number;
    ctx.addIssue({
      code: 'custom',
      message:
        'expected "0x" + 1..8 hex digits, an integer 0..4294967295, or a stored name (name or name+0x10)',
    });
    return z.NEVER;
  });
  return what === undefined ? arg : arg.describe(`${what}.`);
}

const SIGNED_HEX = /^-?0x[0-9a-f]{1,8}$/i;
const SIGNED_DECIMAL = /^-?\d{1,10}$/;

/**
 * The argument schema for a value compared with memory (a scan, a breakpoint condition): an integer,
 * or a string in the forms every address argument takes ("0x1f", "31"), with an optional minus sign.
 * Whether it fits the comparison's width and signedness is checked where the width is known.
 */
export function valueArg(what?: string) {
  const arg = z.union([z.number().int(), z.string().max(12)]).transform((v, ctx) => {
    if (typeof v === 'number') return v;
    const negative = v.startsWith('-');
    const body = negative ? v.slice(1) : v;
    const n = SIGNED_HEX.test(v)
      ? Number.parseInt(body.slice(2), 16)
      : SIGNED_DECIMAL.test(v)
        ? Number.parseInt(body, 10)
        : null;
    if (n === null) {
      ctx.addIssue({
        code: 'custom',
        message: 'expected an integer, or "0x" + 1..8 hex digits (optionally with -)',
      });
      return z.NEVER;
    }
    return negative ? -n : n;
  });
  return what === undefined ? arg : arg.describe(what);
}

/** The output schema of an address or offset. */
export const addressOut = z.string().regex(/^0x[0-9a-f]{8,}$/);

/** A half-open address or offset range as a tool returns it. */
export const addressRangeOut = z.object({ start: addressOut, end: addressOut });

/** {start, end} numbers -> the output form. */
export function formatRange(r: { start: number; end: number }): { start: string; end: string } {
  return { start: formatAddress(r.start), end: formatAddress(r.end) };
}

/** formatAddress that keeps null (an absent offset, e.g. decoded bytes that have no ROM offset). */
export function formatOptionalAddress(n: number | null): string | null {
  return n === null ? null : formatAddress(n);
}

/**
 * A declared bound of a loop, read, list or wait (server_capabilities reports it). Tools declare
 * these once and derive their argument schemas from them (limitArg), so the two never disagree.
 */
export interface LimitSpec {
  default?: number;
  max: number;
  min?: number;
  unit: string;
}

/**
 * The integer argument of a limit: min/max/default come from `spec` and are published as the schema's
 * minimum/maximum/default. `what` (the description, the unit added) is given when the argument's name
 * does not already say what it counts: a `maxBlocks` needs no "Maximum blocks."; an `offset` does.
 */
export function limitArg(spec: LimitSpec & { default: number }, what?: string) {
  const min = spec.min ?? 0;
  const arg = z.number().int().min(min).max(spec.max).default(spec.default);
  return what === undefined ? arg : arg.describe(`${what} (${spec.unit}).`);
}

/** The output fields of a paginated list (the list itself is named by the tool). */
export const pageOut = {
  total: z.number().int(),
  offset: z.number().int(),
  nextOffset: z.number().int().nullable(),
};

/** One page of `all`: the items from `offset`, at most `limit`; nextOffset null at the end. */
export function paginate<T>(
  all: readonly T[],
  offset: number,
  limit: number,
): { total: number; offset: number; nextOffset: number | null; items: T[] } {
  const items = all.slice(offset, offset + limit);
  const next = offset + items.length;
  return { total: all.length, offset, nextOffset: next < all.length ? next : null, items };
}
