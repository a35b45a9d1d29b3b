// The data watchpoint tools: <emu>_watchpoint_add and <emu>_watchpoint_remove, with the
// watchpoint's output shape.
import { z } from 'zod/v4';
import {
  addressOut,
  formatAddress,
  nameOrAddressArg,
  PROCESSORS,
  type Processor,
} from '../../core/vocabulary.js';
import { debugSession } from '../../debug/service.js';
import {
  addWatchpoint,
  removeWatchpoint,
  WATCH_ACCESSES,
  WATCH_LIMITS,
  WATCH_REGIONS,
  type Watchpoint,
} from '../../debug/watchpoints.js';
import { emulatorTool, tool } from './per-emulator.js';
import { cpuOf, generationNumber, liveArgNames, processorInput, RUNTIME } from './session-views.js';

/** A watchpoint as the watchpoint tools return it. */
const watchpointOutput = z.object({
  id: z.string(),
  processor: z.enum(PROCESSORS),
  address: addressOut,
  length: z.number().int(),
  access: z.enum(WATCH_ACCESSES),
  region: z.string(),
  hits: z.number().int(),
  createdAt: z.string(),
});

function watchpointView(w: Watchpoint): z.input<typeof watchpointOutput> {
  return { ...w, address: formatAddress(w.address) };
}

// <emu>_watchpoint_add: a data watchpoint (write, read or any access) through the stub's Z2/Z3/Z4.
// The watchable ranges, those both CPUs share said once.
type Region = (typeof WATCH_REGIONS)['arm9'][number];
const same = (a: Region, b: Region) => a.start === b.start && a.end === b.end;
const listed = (rs: readonly Region[]) =>
  rs.map((r) => `${r.label} ${formatAddress(r.start)}..${formatAddress(r.end)}`).join(', ');
const only = (p: Processor, q: Processor) =>
  WATCH_REGIONS[p].filter((r) => !WATCH_REGIONS[q].some((s) => same(r, s)));
const ranges = [
  listed(WATCH_REGIONS.arm9.filter((r) => WATCH_REGIONS.arm7.some((s) => same(r, s)))),
  ...PROCESSORS.flatMap((p) => {
    const extra = only(p, p === 'arm9' ? 'arm7' : 'arm9');
    return extra.length > 0 ? [`${p} also ${listed(extra)}`] : [];
  }),
].join('; ');

export const emuWatchpointAdd = emulatorTool({
  verb: 'watchpoint_add',
  title: 'Add a data watchpoint',
  profiles: RUNTIME,
  description: {
    purpose: 'Halts the emulation when the CPU writes, reads or accesses RAM.',
    useWhen: 'finding the code that changes or reads a variable.',
    behaviour: (e) =>
      `${tool(e, 'continue')} then stops with reason "watchpoint", PC at or just after the access; refused while running.`,
    limits: `${WATCH_LIMITS.perCpu.max} per CPU; aligned; ${ranges}.`,
  },
  input: z.object({
    processor: processorInput,
    address: nameOrAddressArg(),
    length: z.union([z.literal(1), z.literal(2), z.literal(4)]).default(4),
    access: z.enum(WATCH_ACCESSES).default('write').describe('access: read or write.'),
  }),
  output: z.object({
    generation: z.number().int(),
    watchpoint: watchpointOutput,
    alreadyPresent: z.boolean(),
    active: z.number().int(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: { watchpoints: { max: WATCH_LIMITS.perCpu.max, unit: 'active watchpoints per CPU' } },
  names: liveArgNames,
  async handler(args, ctx, emu) {
    return debugSession(ctx.services, emu).exclusive(async () => {
      const cpu = cpuOf(ctx.services, emu, args.processor);
      const { wp, existed } = await addWatchpoint(cpu, args.address, args.length as 1 | 2 | 4, args.access);
      return {
        structured: {
          generation: generationNumber(ctx.services, emu),
          watchpoint: watchpointView(wp),
          alreadyPresent: existed,
          active: cpu.watchpoints.size,
        },
        text: `${existed ? 'already set' : 'set'} ${wp.id}: ${wp.access} of ${formatAddress(wp.address)}+${wp.length} (${wp.region})`,
      };
    });
  },
});

// <emu>_watchpoint_remove: removes one data watchpoint by id.
export const emuWatchpointRemove = emulatorTool({
  verb: 'watchpoint_remove',
  title: 'Remove a data watchpoint',
  profiles: RUNTIME,
  description: {
    purpose: 'Removes one watchpoint of the current generation.',
    useWhen: (e) => `a watchpoint has served; ids from ${tool(e, 'watchpoint_add')}.`,
    behaviour: 'refused while running and for unknown ids.',
    limits: 'one per call.',
  },
  input: z.object({
    processor: processorInput,
    id: z.string().min(1).max(64).describe('E.g. "arm9-g1-wp1".'),
  }),
  output: z.object({
    generation: z.number().int(),
    removed: watchpointOutput,
    active: z.array(watchpointOutput),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async handler(args, ctx, emu) {
    return debugSession(ctx.services, emu).exclusive(async () => {
      const cpu = cpuOf(ctx.services, emu, args.processor);
      const wp = await removeWatchpoint(cpu, args.id);
      return {
        structured: {
          generation: generationNumber(ctx.services, emu),
          removed: watchpointView(wp),
          active: [...cpu.watchpoints.values()].map(watchpointView),
        },
        text: `removed ${wp.id} (${wp.access} of ${formatAddress(wp.address)}) after ${wp.hits} hits`,
      };
    });
  },
});
