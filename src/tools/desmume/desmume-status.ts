// desmume_status: Owned DeSmuME status.
import { z } from 'zod/v4';
import { addressOut, formatAddress } from '../../core/vocabulary.js';
import { LIMITS } from '../../debug/policy.js';
import { debugSession } from '../../debug/service.js';
import { describeExit } from '../../debug/session.js';
import { defineTool } from '../../mcp/tool.js';
import { breakpointOutput, breakpointView, RUNTIME, runStateOutput, stopOutput, stopView } from './common.js';

function tailBytes(text: string, maxBytes: number): string {
  if (maxBytes <= 0) return '';
  const bytes = Buffer.from(text, 'utf8');
  return bytes.subarray(Math.max(0, bytes.length - maxBytes)).toString('utf8');
}

const cpuStatus = z.object({
  processor: z.enum(['arm9', 'arm7']),
  port: z.number().int(),
  connected: z.boolean(),
  state: runStateOutput,
  resumedVia: z.enum(['arm9', 'arm7']).nullable(),
  lastStop: stopOutput.nullable(),
  breakpoints: z.array(breakpointOutput),
  replacedRanges: z.number().int(),
  history: z.array(
    z.object({
      pc: addressOut,
      mode: z.enum(['arm', 'thumb']),
      reason: z.string(),
      breakpointId: z.string().nullable(),
      at: z.string(),
    }),
  ),
  historyDropped: z.number().int(),
});

export const desmumeStatus = defineTool({
  name: 'desmume_status',
  title: 'Owned DeSmuME status',
  profiles: RUNTIME,
  description: {
    purpose: 'Reports the owned DeSmuME process, its generation, each CPU stub and recent stops.',
    useWhen: 'whether the emulator runs, which generation is current, or why the last one ended.',
    behaviour: 'sends nothing to the stubs.',
    limits: 'argument bounds.',
  },
  input: z.object({
    historyLimit: z.number().int().min(0).max(LIMITS.history.max).default(16).describe('Stops per CPU.'),
    logBytes: z.number().int().min(0).max(8_192).default(1_024),
  }),
  output: z.object({
    running: z.boolean(),
    generation: z.number().int().nullable(),
    pid: z.number().int().nullable(),
    rom: z.object({ path: z.string(), sha256: z.string() }).nullable(),
    cpus: z.array(cpuStatus),
    log: z.string(),
    previous: z
      .object({ generation: z.number().int(), reason: z.string(), exit: z.string(), log: z.string() })
      .nullable(),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(args, ctx) {
    const session = debugSession(ctx.services);
    const gen = session.generation;
    const prev = session.previous;
    const previous = prev
      ? {
          generation: prev.generation,
          reason: prev.reason,
          exit: describeExit(prev.exit),
          // Bytes, not characters, and 0 means none (slice(-0) would be the whole tail).
          log: tailBytes(prev.log, args.logBytes),
        }
      : null;
    const cpus = gen
      ? Object.values(gen.cpus).flatMap((cpu) => {
          if (!cpu) return [];
          const eff = cpu.effectiveState();
          const history = args.historyLimit === 0 ? [] : cpu.historyEntries.slice(-args.historyLimit);
          return [
            {
              processor: cpu.processor,
              port: cpu.port,
              connected: cpu.connection !== null && !cpu.connection.closed,
              state: eff.state,
              resumedVia: eff.via,
              lastStop: stopView(cpu.lastStop),
              breakpoints: [...cpu.breakpoints.values()].map((bp) => breakpointView(bp)),
              replacedRanges: cpu.ranges.length,
              history: history.map((h) => ({ ...h, pc: formatAddress(h.pc) })),
              historyDropped: cpu.historyDropped,
            },
          ];
        })
      : [];
    const text = gen
      ? `generation ${gen.number} (pid ${gen.process.pid}) on ${gen.rom.path}: ${cpus.map((c) => `${c.processor} ${c.state}${c.connected ? '' : ' (disconnected)'}`).join(', ')}`
      : `no owned DeSmuME is running${prev ? `; generation ${prev.generation} ended: ${prev.reason}` : ''}`;
    return {
      structured: {
        running: gen !== null,
        generation: gen?.number ?? null,
        pid: gen?.process.pid ?? null,
        rom: gen ? { path: gen.rom.path, sha256: gen.rom.identity.sha256 } : null,
        cpus,
        log: gen && args.logBytes > 0 ? gen.process.logTail(args.logBytes).text : '',
        previous,
      },
      text,
    };
  },
});
