// Data watchpoints through the emulator's own GDB stubs (Z2 write, Z3 read, Z4 access), for a backend
// that opts into them (see docs/debugging.md for the probe of the real stubs): the stub halts at the
// access and answers `T..watch:<address>;` (rwatch/awatch), the address written as the backend's
// quirk says. Only data ranges that hold variables are allowed; nothing is emulated by stepping.
import { ReMcpError } from '../core/errors.js';
import { formatAddress, type Processor } from '../core/vocabulary.js';
import { type CpuDebugger, REPLY_TIMEOUT_MS } from './cpu.js';
import { WATCH_LIMITS, WATCH_TYPE, type WatchAccess, type Watchpoint } from './watch-stop.js';

export { parseWatchStop, WATCH_ACCESSES, WATCH_LIMITS, type Watchpoint } from './watch-stop.js';

import { parseOkReply } from './rsp/packets.js';

/** Where each CPU may watch: RAM that holds a game's variables. */
export const WATCH_REGIONS: Record<Processor, Array<{ start: number; end: number; label: string }>> = {
  arm9: [
    { start: 0x0200_0000, end: 0x0240_0000, label: 'main RAM' },
    { start: 0x0300_0000, end: 0x0300_8000, label: 'shared WRAM' },
  ],
  arm7: [
    { start: 0x0200_0000, end: 0x0240_0000, label: 'main RAM' },
    { start: 0x0300_0000, end: 0x0300_8000, label: 'shared WRAM' },
    { start: 0x0380_0000, end: 0x0381_0000, label: 'ARM7 WRAM' },
  ],
};

export function watchRegion(processor: Processor, address: number, length: number): string {
  const r = WATCH_REGIONS[processor].find((x) => address >= x.start && address + length <= x.end);
  if (!r) {
    throw new ReMcpError(
      'invalid-argument',
      `${formatAddress(address)}+${length} is outside the ${processor} watchable data ranges (${WATCH_REGIONS[processor].map((x) => `${x.label} ${formatAddress(x.start)}..${formatAddress(x.end)}`).join(', ')})`,
    );
  }
  return r.label;
}

const packet = (insert: boolean, w: { access: WatchAccess; address: number; length: 1 | 2 | 4 }) => ({
  op: insert ? ('insert-watchpoint' as const) : ('remove-watchpoint' as const),
  address: w.address,
  length: w.length,
  type: WATCH_TYPE[w.access],
});

let counter = 0;

export async function addWatchpoint(
  cpu: CpuDebugger,
  address: number,
  length: 1 | 2 | 4,
  access: WatchAccess,
): Promise<{ wp: Watchpoint; existed: boolean }> {
  const conn = cpu.requireStopped('change watchpoints');
  if (!cpu.profile.features.watchpoints) {
    throw new ReMcpError('unsupported', `the ${cpu.profile.names.emulator} GDB stub has no watchpoints`);
  }
  if (address % length !== 0) {
    throw new ReMcpError(
      'invalid-argument',
      `a ${length}-byte watchpoint must be ${length}-byte aligned: ${formatAddress(address)}`,
    );
  }
  const region = watchRegion(cpu.processor, address, length);
  for (const w of cpu.watchpoints.values()) {
    if (w.address === address && w.length === length && w.access === access) return { wp: w, existed: true };
  }
  if (cpu.watchpoints.size >= WATCH_LIMITS.perCpu.max) {
    throw new ReMcpError(
      'limit-exceeded',
      `at most ${WATCH_LIMITS.perCpu.max} active ${cpu.processor} watchpoints`,
    );
  }
  await cpu.guard(async () =>
    parseOkReply(
      await conn.request(packet(true, { access, address, length }), REPLY_TIMEOUT_MS),
      `Z${WATCH_TYPE[access]}`,
    ),
  );
  const wp: Watchpoint = {
    id: `${cpu.processor}-g${cpu.generation}-wp${++counter}`,
    processor: cpu.processor,
    address,
    length,
    access,
    region,
    hits: 0,
    createdAt: new Date().toISOString(),
  };
  cpu.watchpoints.set(wp.id, wp);
  return { wp, existed: false };
}

export async function removeWatchpoint(cpu: CpuDebugger, id: string): Promise<Watchpoint> {
  const wp = cpu.watchpoints.get(id);
  if (!wp)
    throw new ReMcpError('not-found', `no ${cpu.processor} watchpoint with id ${id} in this generation`);
  const conn = cpu.requireStopped('change watchpoints');
  await cpu.guard(async () =>
    parseOkReply(await conn.request(packet(false, wp), REPLY_TIMEOUT_MS), `z${WATCH_TYPE[wp.access]}`),
  );
  cpu.watchpoints.delete(id);
  return wp;
}
