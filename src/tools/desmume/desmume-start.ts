// desmume_start: Start the owned DeSmuME.
import { z } from 'zod/v4';
import { ReMcpError } from '../../core/errors.js';
import { addressOut, formatAddress } from '../../core/vocabulary.js';
import { printableTitle } from '../../debug/cpu-image.js';
import { LIMITS } from '../../debug/policy.js';
import { debugSession } from '../../debug/service.js';
import { defineTool } from '../../mcp/tool.js';
import { getRomStore } from '../../nds/rom-store.js';
import { copiedBlocks } from '../shared/copied.js';
import { romArg } from '../shared/rom.js';
import { msLimit, RUNTIME, rangeOutput, rangeView, timeoutInput } from './common.js';

const portInput = z.number().int().min(1024).max(65_535);

export const desmumeStart = defineTool({
  name: 'desmume_start',
  title: 'Start the owned DeSmuME',
  profiles: RUNTIME,
  description: {
    purpose: 'Launches the server-owned DeSmuME on a workspace ROM, CPUs halted at entry under GDB stubs.',
    useWhen: 'live debugging; desmume_status for a running one, desmume_stop ends it.',
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
  async handler(args, ctx) {
    const session = debugSession(ctx.services);
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
      text: `DeSmuME generation ${gen.number} (pid ${gen.process.pid}) on ${gen.rom.path}: ARM9 stub on port ${gen.cpus.arm9!.port}${gen.cpus.arm7 ? `, ARM7 on ${gen.cpus.arm7.port}` : ''}; halted at entry, ready in ${startupMs} ms`,
    };
  },
});
