// Pieces shared by the desmume_start, desmume_status, desmume_stop, desmume_probe_gdb, desmume_wait_for_gdb tools.
import { z } from 'zod/v4';
import { REPLY_TIMEOUT_MS } from '../../debug/cpu.js';
import { debugSession } from '../../debug/service.js';
import type { ToolContext } from '../../mcp/tool.js';
import { runStateOutput } from './common.js';

export const probeOutput = z.object({
  processor: z.enum(['arm9', 'arm7']),
  generation: z.number().int(),
  host: z.string(),
  port: z.number().int(),
  reachable: z.boolean(),
  state: runStateOutput,
  stopReply: z.string().nullable(),
  detail: z.string(),
});

export async function probe(
  ctx: ToolContext,
  processor: 'arm9' | 'arm7',
  timeoutMs: number,
): Promise<z.input<typeof probeOutput>> {
  const session = debugSession(ctx.services);
  const gen = session.requireGeneration();
  const cpu = await session.reconnect(processor, timeoutMs, ctx.signal);
  const base = { processor, generation: gen.number, host: '127.0.0.1', port: cpu.port };
  const eff = cpu.effectiveState();
  if (eff.state !== 'stopped') {
    // A packet sent to a running stub is refused with `-` and executed anyway: send nothing.
    return {
      ...base,
      reachable: true,
      state: eff.state,
      stopReply: null,
      detail:
        eff.state === 'unknown'
          ? 'connected; run state unknown (a resume was not acknowledged or the connection dropped while running), nothing sent; call desmume_pause to find out'
          : eff.via
            ? `connected; target running (resumed through the ${eff.via} stub), nothing sent`
            : 'connected; target running, nothing sent',
    };
  }
  const reply = await cpu.guard(() =>
    cpu.requireConnection().request({ op: 'stop-status' }, REPLY_TIMEOUT_MS),
  );
  return {
    ...base,
    reachable: true,
    state: 'stopped',
    stopReply: reply,
    detail: 'stop-status query answered',
  };
}
