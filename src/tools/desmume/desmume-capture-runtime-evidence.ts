// desmume_capture_runtime_evidence: the stop context (registers, windows at PC and SP, labelled
// regions) written as an evidence file under analysis/generated/, with the launch's identity.
import { createHash } from 'node:crypto';
import { z } from 'zod/v4';
import { captureContext } from '../../debug/control.js';
import { LIMITS } from '../../debug/policy.js';
import { debugSession } from '../../debug/service.js';
import { defineTool } from '../../mcp/tool.js';
import { cpuOf, generationNumber, processorInput, RUNTIME, regionsInput, stopView } from './common.js';

const FORMAT = 're-mcp.desmume-runtime-evidence/1';
/** Evidence files are named by generation, time, server process and sequence: never overwritten. */
let sequence = 0;

export const desmumeCaptureRuntimeEvidence = defineTool({
  name: 'desmume_capture_runtime_evidence',
  title: 'Save runtime evidence (DeSmuME)',
  profiles: RUNTIME,
  description: {
    purpose: 'Saves the stop context (registers, PC/SP windows, labelled regions) as a JSON evidence file.',
    useWhen: 'keeping what a stop showed for later; desmume_capture_stop_context only returns it.',
    behaviour:
      'CPU halted; written atomically under analysis/generated/desmume/<sha16>/evidence/ with the ROM SHA-256, launcher SHA-256 and generation; observed bytes only, no interpretation.',
    limits: `${LIMITS.regions.max} regions of ${LIMITS.regionBytes.min}..${LIMITS.regionBytes.max} bytes; refused up front past RE_MCP_MAX_OUTPUT_BYTES.`,
  },
  input: z.object({
    processor: processorInput,
    regions: regionsInput,
    label: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,48}$/, '1..48 letters, digits, _ or -')
      .optional()
      .describe('Part of the file name.'),
  }),
  output: z.object({
    path: z.string(),
    sha256: z.string(),
    bytes: z.number().int(),
    generation: z.number().int(),
    processor: z.enum(['arm9', 'arm7']),
    pc: z.string(),
    regions: z.number().int(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  limits: {
    regions: { max: LIMITS.regions.max, unit: 'regions' },
    regionLength: { min: LIMITS.regionBytes.min, max: LIMITS.regionBytes.max, unit: 'bytes' },
  },
  async handler(args, ctx) {
    return debugSession(ctx.services).exclusive(async () => {
      const session = debugSession(ctx.services);
      const gen = session.generation!;
      const cpu = cpuOf(ctx.services, args.processor);
      cpu.requireStopped('capture runtime evidence');
      const generation = generationNumber(ctx.services);
      const context = await captureContext(cpu, args.regions, ctx.services.config.maxOutputBytes);
      const capturedAt = new Date().toISOString();
      const doc = {
        format: FORMAT,
        capturedAt,
        authority: 'observed-runtime',
        rom: { path: gen.rom.path, sha256: gen.rom.identity.sha256, size: gen.rom.identity.size },
        launcherSha256: gen.launcherSha256,
        generation,
        processor: args.processor,
        stop: stopView(cpu.lastStop),
        context,
      };
      const text = `${JSON.stringify(doc, null, 1)}\n`;
      const sha16 = gen.rom.identity.sha256.slice(0, 16);
      const stamp = capturedAt.replace(/[-:.]/g, '');
      const name = `g${generation}-${stamp}-p${process.pid}-${++sequence}-${args.processor}${args.label ? `-${args.label}` : ''}.json`;
      const dir = await ctx.services.workspace.outputDir('analysis/generated', [
        'desmume',
        sha16,
        'evidence',
      ]);
      try {
        await dir.writeAtomic(name, text);
        await dir.verifyInPlace();
        const path = `${dir.relative}/${name}`;
        return {
          structured: {
            path,
            sha256: createHash('sha256').update(text).digest('hex'),
            bytes: Buffer.byteLength(text),
            generation,
            processor: args.processor,
            pc: context.registers.pc,
            regions: context.regions.length,
          },
          text: `saved ${args.processor} evidence at pc ${context.registers.pc} (generation ${generation}) to ${path}`,
        };
      } finally {
        await dir.close();
      }
    });
  },
});
