// Pure: the watchpoint record and a stub's watchpoint stop reply (`T05watch:<address>;`, `rwatch`,
// `awatch`), matched to the watchpoints set. How the stub writes the address is its backend's quirk.
import type { Processor } from '../core/vocabulary.js';

/**
 * How a stub writes the address of a watchpoint stop: `hex`, the address in hex as the protocol says;
 * `reversed-digits`, the address's eight hex digits in reverse order (least significant first).
 */
export type WatchAddressOrder = 'hex' | 'reversed-digits';

/** What a watchpoint halts on: a write, a read or any access (the stub's Z2, Z3, Z4). */
export const WATCH_ACCESSES = ['write', 'read', 'access'] as const;
export type WatchAccess = (typeof WATCH_ACCESSES)[number];
export const WATCH_TYPE: Record<WatchAccess, 2 | 3 | 4> = { write: 2, read: 3, access: 4 };

export const WATCH_LIMITS = { perCpu: { max: 8 }, lengths: [1, 2, 4] as const };

export interface Watchpoint {
  id: string;
  processor: Processor;
  address: number;
  length: 1 | 2 | 4;
  access: WatchAccess;
  region: string;
  hits: number;
  createdAt: string;
}

/**
 * `T06watch:00000120;` in `reversed-digits` order, or `T05watch:2100000;` in `hex` order ->
 * { access: 'write', address: 0x02100000 }; null for other stop replies.
 */
export function parseWatchStop(
  raw: string,
  order: WatchAddressOrder,
): { access: WatchAccess; address: number } | null {
  const m = /^T[0-9a-fA-F]{2}(watch|rwatch|awatch):([0-9a-fA-F]{1,8});/.exec(raw);
  if (!m) return null;
  const digits = order === 'reversed-digits' ? [...m[2]!.padEnd(8, '0')].reverse().join('') : m[2]!;
  const access: WatchAccess = m[1] === 'watch' ? 'write' : m[1] === 'rwatch' ? 'read' : 'access';
  return { access, address: Number.parseInt(digits, 16) };
}

/** The watchpoint a stop reply names (the reported address inside its range, same access kind). */
export function matchWatch(
  watchpoints: ReadonlyMap<string, Watchpoint>,
  raw: string,
  order: WatchAddressOrder,
): { watchpointId: string | null; access: WatchAccess; address: number } | null {
  const w = parseWatchStop(raw, order);
  if (!w) return null;
  const hit =
    [...watchpoints.values()].find(
      (x) => x.access === w.access && w.address >= x.address && w.address < x.address + x.length,
    ) ?? [...watchpoints.values()].find((x) => w.address >= x.address && w.address < x.address + x.length);
  if (hit) hit.hits++;
  return { watchpointId: hit?.id ?? null, access: w.access, address: w.address };
}
