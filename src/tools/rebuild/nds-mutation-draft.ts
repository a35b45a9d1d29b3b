// nds_mutation_draft: a complete, validated manifest from short operations; the server reads the
// guards (replaced bytes, component and artifact SHA-256s) itself (src/rebuild/draft.ts).
import { z } from 'zod/v4';
import { decodeWindow } from '../../arm/decoder.js';
import { ARM_MODES } from '../../arm/types.js';
import { ASM_LABEL, ASM_LIMITS, identifiers } from '../../asm/source.js';
import { ReMcpError } from '../../core/errors.js';
import { addressArg, formatAddress, PROCESSORS } from '../../core/vocabulary.js';
import { defineTool } from '../../mcp/tool.js';
import { type DraftOperation, draftManifest } from '../../rebuild/draft.js';
import { REBUILD_LIMITS, selector } from '../../rebuild/manifest.js';
import { instructionSchema, instructionView } from '../shared/instructions.js';
import { romNames } from '../shared/names.js';
import { kindFieldsProblem } from '../shared/per-kind.js';
import { romArg, withToolRom } from '../shared/rom.js';
import { REBUILD_LIMITS_LINE, REBUILD_TOOL_LIMITS } from './common.js';

const OPS = ['patch', 'replace-component', 'replace-file', 'add-file', 'replace-overlay'] as const;
/** The fields each operation takes besides op and id. */
const FIELDS: Record<(typeof OPS)[number], readonly string[]> = {
  patch: ['component', 'offset'],
  'replace-component': ['component', 'artifact'],
  'replace-file': ['component', 'artifact'],
  'add-file': ['path', 'artifact'],
  'replace-overlay': ['overlay', 'artifact'],
};

// One flat object per operation, its fields checked per op (a union of objects would repeat the
// component selector in tools/list for every operation that takes one).
const operation = z.strictObject({
  op: z.enum(OPS),
  id: z.string().min(1).max(64).optional().describe('Default: op-N.'),
  component: selector.optional(),
  offset: addressArg('patch: offset inside the component').optional(),
  replacement: z
    .string()
    .min(2)
    .max(REBUILD_LIMITS.patchBytes.max * 2)
    .optional()
    .describe('patch: hex bytes (or assembly).'),
  assembly: z
    .string()
    .min(1)
    .max(ASM_LIMITS.sourceChars.max)
    .optional()
    .describe('patch: ARM/Thumb source (nds_assemble) assembled where the bytes run.'),
  mode: z.enum(ARM_MODES).optional().describe('With assembly.'),
  path: z.string().min(1).max(1024).optional().describe('add-file: the new NitroFS path.'),
  overlay: z
    .strictObject({ processor: z.enum(PROCESSORS), id: z.number().int().min(0).max(0xffffffff) })
    .optional(),
  artifact: z
    .string()
    .min(1)
    .max(1024)
    .optional()
    .describe('Workspace-relative file of new bytes (replace-overlay: the decoded image).'),
});

function draftOperations(ops: z.output<typeof operation>[]): DraftOperation[] {
  return ops.map((o, i) => {
    const patch = o.op === 'patch';
    const problem = kindFieldsProblem(
      `operation ${i + 1}:`,
      { ...o, kind: o.op, op: undefined, id: undefined },
      FIELDS[o.op],
      patch ? ['replacement', 'assembly', 'mode'] : [],
    );
    if (problem) throw new ReMcpError('invalid-argument', problem);
    if (patch && (o.replacement === undefined) === (o.assembly === undefined))
      throw new ReMcpError(
        'invalid-argument',
        `operation ${i + 1}: a patch takes replacement or assembly (one of them)`,
      );
    if (patch && (o.assembly === undefined) !== (o.mode === undefined))
      throw new ReMcpError('invalid-argument', `operation ${i + 1}: assembly and mode go together`);
    if (patch && o.assembly !== undefined) {
      const { assembly, mode, ...rest } = o;
      return { ...rest, assembly: { source: assembly, mode: mode! } } as DraftOperation;
    }
    return o as DraftOperation;
  });
}

export const ndsMutationDraft = defineTool({
  name: 'nds_mutation_draft',
  title: 'Draft a rebuild manifest',
  profiles: ['build'],
  description: {
    purpose: 'Writes a complete manifest from short operations, reading every guard and hash itself.',
    useWhen: 'before nds_mutation_build (which takes the returned path); docs/REBUILD.md has the format.',
    behaviour:
      'reads the replaced bytes and SHA-256s; writes analysis/generated/manifests/<sha16>/<name>.json atomically; validates it.',
    limits: `${REBUILD_LIMITS_LINE}.`,
  },
  input: z.object({
    rom: romArg,
    name: z.string().min(1).max(64).describe('Manifest file name, without .json.'),
    operations: z
      .array(operation)
      .min(1)
      .max(REBUILD_LIMITS.operations.max)
      .describe('Each: op and the fields it takes (patch: component, offset, replacement; ...).'),
  }),
  output: z.object({
    manifest: z.string(),
    manifestSha256: z.string(),
    formatVersion: z.number().int(),
    buildId: z.string(),
    outputDir: z.string().describe('Where nds_mutation_build will publish it'),
    outputSize: z.number().int(),
    assembled: z
      .array(
        z.object({
          id: z.string(),
          source: z.string(),
          address: z.string(),
          hex: z.string(),
          instructions: z.array(instructionSchema),
        }),
      )
      .describe('Each assembled patch: its source next to its bytes, decoded back'),
    operations: z.array(
      z.object({
        id: z.string(),
        op: z.string(),
        component: z.string().nullable(),
        output: z.object({ start: z.string(), end: z.string() }),
        length: z.number().int(),
        beforeSha256: z.string().nullable(),
        afterSha256: z.string(),
      }),
    ),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: REBUILD_TOOL_LIMITS,
  async handler(args, ctx) {
    // Each operation's fields are checked before the ROM is opened.
    const operations = draftOperations(args.operations);
    const r = await withToolRom(
      ctx,
      args.rom,
      async (rom) => {
        const names = operations.some((o) => o.op === 'patch' && o.assembly)
          ? await romNames(ctx, rom)
          : null;
        return draftManifest(ctx.services.workspace, rom, args.name, operations, {
          signal: ctx.signal,
          labels: (processor, source) => {
            const wanted = identifiers(source);
            const out = new Map<string, number>();
            for (const s of names?.symbols ?? []) {
              if (out.size >= ASM_LIMITS.labels.max) break;
              if (
                s.processor === processor &&
                s.overlayId === null &&
                wanted.has(s.name) &&
                ASM_LABEL.test(s.name)
              )
                out.set(s.name, s.address);
            }
            return out;
          },
        });
      },
      null,
    );
    const p = r.validated.plan.resolved;
    const assembled = [];
    for (const a of r.assembled) {
      const d = await decodeWindow(a.bytes, a.address, a.mode, a.processor, a.bytes.length);
      assembled.push({
        id: a.id,
        source: a.source,
        address: formatAddress(a.address),
        hex: Buffer.from(a.bytes).toString('hex'),
        instructions: d.instructions.map(instructionView),
      });
    }
    return {
      structured: {
        manifest: r.manifest,
        manifestSha256: r.manifestSha256,
        formatVersion: r.validated.manifest.formatVersion,
        buildId: p.buildId,
        outputDir: r.validated.outputDir,
        outputSize: p.output.size,
        assembled,
        operations: p.operations.map((o) => ({
          id: o.id,
          op: o.op,
          component: o.component,
          output: o.output,
          length: o.length,
          beforeSha256: o.beforeSha256,
          afterSha256: o.afterSha256,
        })),
      },
      text: `drafted and validated ${r.manifest} (${p.operations.length} operations, build ${p.buildId}); build it with nds_mutation_build`,
    };
  },
});
