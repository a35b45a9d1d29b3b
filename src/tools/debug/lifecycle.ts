// The lifecycle of an owned emulator: <emu>_start, <emu>_status, <emu>_stop, and the checks that
// its GDB stubs answer (<emu>_probe_gdb once, <emu>_wait_for_gdb until they do).
import { z } from 'zod/v4';
import { ARM_MODES } from '../../arm/types.js';
import { ReMcpError } from '../../core/errors.js';
import { addressOut, formatAddress, PROCESSORS, type Processor } from '../../core/vocabulary.js';
import type { Emulator } from '../../debug/backend.js';
import { CPU_RUN_STATES, REPLY_TIMEOUT_MS } from '../../debug/cpu.js';
import { printableTitle } from '../../debug/cpu-image.js';
import { LIMITS } from '../../debug/policy.js';
import { debugSession } from '../../debug/service.js';
import { describeExit } from '../../debug/session.js';
import type { ToolContext } from '../../mcp/tool.js';
import { getRomStore } from '../../roms/rom-store.js';
import { copiedBlocks } from '../shared/copied.js';
import { romArg } from '../shared/rom.js';
import { emulatorTool, tool } from './per-emulator.js';
import {
  breakpointOutput,
  breakpointView,
  msLimit,
  processorInput,
  RUNTIME,
  rangeOutput,
  rangeView,
  stopOutput,
  stopView,
  timeoutInput,
} from './session-views.js';

const runStateOutput = z.enum(CPU_RUN_STATES);

/**
 * The stub check <emu>_probe_gdb and <emu>_wait_for_gdb share: a (re)connection, then a
 * stop-status query only when the target is halted.
 */
const probeOutput = z.object({
  processor: z.enum(PROCESSORS),
  generation: z.number().int(),
  host: z.string(),
  port: z.number().int(),
  reachable: z.boolean(),
  state: runStateOutput,
  stopReply: z.string().nullable(),
  detail: z.string(),
});

async function probe(
  ctx: ToolContext,
  emu: Emulator,
  processor: Processor,
  timeoutMs: number,
): Promise<z.input<typeof probeOutput>> {
  const session = debugSession(ctx.services, emu);
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
          ? `connected; run state unknown (a resume was not acknowledged or the connection dropped while running), nothing sent; call ${tool(emu, 'pause')} to find out`
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

// <emu>_start: Start the owned emulator.
const portInput = z.number().int().min(1024).max(65_535);

export const emuStart = emulatorTool({
  verb: 'start',
  title: (e) => `Start the owned ${e.names.emulator}`,
  profiles: RUNTIME,
  description: {
    purpose: (e) =>
      `Launches the server-owned ${e.names.emulator} on a workspace ROM, CPUs halted at entry under GDB stubs.`,
    useWhen: (e) => `live debugging; ${tool(e, 'status')} for a running one, ${tool(e, 'stop')} ends it.`,
    behaviour:
      'ROM SHA-256 checked before and after launch; returns once the stubs answer; refuses a second start.',
    limits: '1 process per server.',
  },
  input: z.object({
    rom: romArg.optional(),
    romPath: romArg.optional().describe('Alias of `rom`; give one.'),
    gdbPort: portInput.optional().describe('ARM9 stub.'),
    arm7: z.boolean().default(false).describe('For processor arm7.'),
    arm7GdbPort: portInput.optional(),
    startTimeoutMs: timeoutInput(LIMITS.startMs),
  }),
  output: z.object({
    generation: z.number().int(),
    pid: z.number().int().nullable(),
    ports: z.object({ arm9: z.number().int(), arm7: z.number().int().nullable() }),
    rom: z.object({
      path: z.string(),
      sha256: z.string(),
      size: z.number().int(),
      gameTitle: z.string(),
      gameCode: z.string(),
      arm9Entry: addressOut,
      arm7Entry: addressOut,
    }),
    executableRanges: z.array(rangeOutput),
    startupMs: z.number(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  limits: {
    startTimeoutMs: msLimit(LIMITS.startMs),
    processes: { max: 1, unit: 'owned emulator processes' },
  },
  async handler(args, ctx, emu) {
    const session = debugSession(ctx.services, emu);
    if (!args.arm7 && args.arm7GdbPort !== undefined) {
      throw new ReMcpError('invalid-argument', 'arm7GdbPort needs arm7: true');
    }
    if ((args.rom === undefined) === (args.romPath === undefined)) {
      throw new ReMcpError('invalid-argument', 'give the ROM as `rom` (or its alias `romPath`), once');
    }
    const started = Date.now();
    const store = getRomStore(ctx.services);
    const gen = await session.start({
      roms: store,
      copies: (rom, processor) => copiedBlocks(ctx, store, rom, processor),
      rom: (args.rom ?? args.romPath)!,
      arm9Port: args.gdbPort ?? null,
      arm7Port: args.arm7 ? (args.arm7GdbPort ?? 0) : null,
      startTimeoutMs: args.startTimeoutMs,
      signal: ctx.signal,
    });
    const startupMs = Date.now() - started;
    const ranges = Object.values(gen.cpus).flatMap((c) => c?.allowlist ?? []);
    const model = gen.rom.model;
    return {
      structured: {
        generation: gen.number,
        pid: gen.process.pid,
        ports: { arm9: gen.cpus.arm9!.port, arm7: gen.cpus.arm7?.port ?? null },
        rom: {
          path: gen.rom.path,
          sha256: gen.rom.identity.sha256,
          size: gen.rom.identity.size,
          gameTitle: printableTitle(model),
          gameCode: model.header.gameCode,
          arm9Entry: formatAddress(model.arm9.entryAddress),
          arm7Entry: formatAddress(model.arm7.entryAddress),
        },
        executableRanges: ranges.map(rangeView),
        startupMs,
      },
      text: `${emu.names.emulator} generation ${gen.number} (pid ${gen.process.pid}) on ${gen.rom.path}: ARM9 stub on port ${gen.cpus.arm9!.port}${gen.cpus.arm7 ? `, ARM7 on ${gen.cpus.arm7.port}` : ''}; halted at entry, ready in ${startupMs} ms`,
    };
  },
});

// <emu>_status: Owned emulator status.
function tailBytes(text: string, maxBytes: number): string {
  if (maxBytes <= 0) return '';
  const bytes = Buffer.from(text, 'utf8');
  return bytes.subarray(Math.max(0, bytes.length - maxBytes)).toString('utf8');
}

const cpuStatus = z.object({
  processor: z.enum(PROCESSORS),
  port: z.number().int(),
  connected: z.boolean(),
  state: runStateOutput,
  resumedVia: z.enum(PROCESSORS).nullable(),
  lastStop: stopOutput.nullable(),
  breakpoints: z.array(breakpointOutput),
  replacedRanges: z.number().int(),
  history: z.array(
    z.object({
      pc: addressOut,
      mode: z.enum(ARM_MODES),
      reason: z.string(),
      breakpointId: z.string().nullable(),
      at: z.string(),
    }),
  ),
  historyDropped: z.number().int(),
});

export const emuStatus = emulatorTool({
  verb: 'status',
  title: (e) => `Owned ${e.names.emulator} status`,
  profiles: RUNTIME,
  description: {
    purpose: (e) =>
      `Reports the owned ${e.names.emulator} process, its generation, each CPU stub and recent stops.`,
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
  async handler(args, ctx, emu) {
    const session = debugSession(ctx.services, emu);
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
      : `no owned ${emu.names.emulator} is running${prev ? `; generation ${prev.generation} ended: ${prev.reason}` : ''}`;
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

// <emu>_stop: Stop the owned emulator.
export const emuStop = emulatorTool({
  verb: 'stop',
  title: (e) => `Stop the owned ${e.names.emulator}`,
  profiles: RUNTIME,
  description: {
    purpose: (e) => `Ends the owned ${e.names.emulator} and discards its generation's debugger state.`,
    useWhen: (e) => `finishing a session, or before ${tool(e, 'start')} on another ROM.`,
    behaviour:
      'SIGKILLs after closing GDB; breakpoints, ranges and stop state are gone; no-op when nothing runs.',
    limits: 'waits up to 5000 ms for the exit.',
  },
  input: z.object({}),
  output: z.object({
    stopped: z.boolean(),
    generation: z.number().int().nullable(),
    exit: z.string().nullable(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async handler(_args, ctx, emu) {
    const result = await debugSession(ctx.services, emu).stop();
    if (result === null) {
      return {
        structured: { stopped: false, generation: null, exit: null },
        text: `no owned ${emu.names.emulator} was running`,
      };
    }
    const exit = describeExit(result.exit);
    return {
      structured: { stopped: true, generation: result.generation, exit },
      text: `stopped ${emu.names.emulator} generation ${result.generation} (${exit})`,
    };
  },
});

// <emu>_probe_gdb: Probe the owned GDB stub.
export const emuProbeGdb = emulatorTool({
  verb: 'probe_gdb',
  title: 'Probe the owned GDB stub',
  profiles: RUNTIME,
  description: {
    purpose: "Checks once that the owned stub answers on the session's connection.",
    useWhen: (e) => `a quick health check; ${tool(e, 'wait_for_gdb')} waits longer.`,
    behaviour: 'stop-status query only when halted; one reconnect after a drop.',
    limits: 'one 1000 ms attempt on 127.0.0.1.',
  },
  input: z.object({ processor: processorInput }),
  output: probeOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(args, ctx, emu) {
    const session = debugSession(ctx.services, emu);
    return session.exclusive(async () => {
      const result = await probe(ctx, emu, args.processor, 1_000);
      return { structured: result, text: `${args.processor} stub on port ${result.port}: ${result.detail}` };
    });
  },
});

// <emu>_wait_for_gdb: Wait for the owned GDB stub.
export const emuWaitForGdb = emulatorTool({
  verb: 'wait_for_gdb',
  title: 'Wait for the owned GDB stub',
  profiles: RUNTIME,
  description: {
    purpose: 'Waits until the owned stub answers, reconnecting after a drop.',
    useWhen: (e) => `right after ${tool(e, 'start')}, or after a connection-drop error.`,
    behaviour: (e) =>
      `a reconnect keeps breakpoints, but a target that was running is "unknown" until ${tool(e, 'pause')}.`,
    limits: 'as timeoutMs says.',
  },
  input: z.object({
    processor: processorInput,
    timeoutMs: timeoutInput(LIMITS.gdbWaitMs),
  }),
  output: probeOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: {
    timeoutMs: msLimit(LIMITS.gdbWaitMs),
  },
  async handler(args, ctx, emu) {
    const session = debugSession(ctx.services, emu);
    return session.exclusive(async () => {
      const result = await probe(ctx, emu, args.processor, args.timeoutMs);
      return {
        structured: result,
        text: `${args.processor} stub on port ${result.port} ready: ${result.detail}`,
      };
    });
  },
});
