// The mutation tools, around one manifest (docs/REBUILD.md): nds_mutation_draft writes it from short
// operations, nds_mutation_validate checks and plans it, nds_mutation_build builds and publishes the ROM
// it describes, nds_mutation_verify re-checks a published build.
import { z } from 'zod/v4';
import { decodeWindow } from '../../arm/decoder.js';
import { ARM_MODES } from '../../arm/types.js';
import { ASM_LABEL, ASM_LIMITS, identifiers } from '../../asm/source.js';
import { ReMcpError } from '../../core/errors.js';
import {
  addressArg,
  addressOut,
  formatAddress,
  nameOrAddressArg,
  PROCESSORS,
} from '../../core/vocabulary.js';
import { defineTool, type ToolContext } from '../../mcp/tool.js';
import { type DraftOperation, draftManifest } from '../../rebuild/draft.js';
import { REBUILD_LIMITS, selector } from '../../rebuild/manifest.js';
import { type BuildResult, buildManifest, validateManifest, verifyBuild } from '../../rebuild/service.js';
import type { RomHandle, RomStore } from '../../roms/rom-store.js';
import { READ_ONLY } from '../shared/annotations.js';
import { startupCopies } from '../shared/copied.js';
import { instructionSchema, instructionView } from '../shared/instructions.js';
import { romNames, tableNamer } from '../shared/names.js';
import { workspacePath } from '../shared/paths.js';
import { kindFieldsProblem } from '../shared/per-kind.js';
import { romArg, withToolRom } from '../shared/rom.js';
import { carriedNamesOut, carriedText, carryTo } from './carry.js';
import { placedOut, placedSchema, placedText, placementsOf } from './placed.js';

// What the four share: their limits and Limits line; validate, build and verify also take the same
// arguments (a ROM and a manifest, both workspace files), and build and verify return the same result.
const rebuildInput = z.object({
  rom: romArg,
  manifest: workspacePath(
    z.string().min(1).max(1024).describe('Workspace-relative JSON (docs/REBUILD.md).'),
    'file',
  ),
});

const REBUILD_TOOL_LIMITS = REBUILD_LIMITS;

const MiB = 1024 * 1024;
/** The Limits line the four tools share (each declares the same limits). */
const REBUILD_LIMITS_LINE = `${REBUILD_LIMITS.operations.max} operations, ${REBUILD_LIMITS.patchBytes.max}-byte edits, ${REBUILD_LIMITS.artifactBytes.max / MiB} MiB artifacts (${REBUILD_LIMITS.artifactTotalBytes.max / MiB} MiB of distinct files in all), ${REBUILD_LIMITS.manifestBytes.max / MiB} MiB manifest`;

const buildOutput = z.object({
  buildId: z.string(),
  outputDir: z.string(),
  rom: z.string(),
  outputSha256: z.string(),
  outputSize: z.number().int(),
  reused: z.boolean(),
  rebuildSemanticsVerified: z.literal(true),
  changedPrefixBytes: z.number().int(),
  checks: z.array(z.string()),
  patches: z
    .object({
      bps: z.string(),
      ips: z.string().nullable(),
      ipsRefused: z.string().nullable().describe('Why there is no IPS patch'),
    })
    .describe('Distributable patches from the source to the output, each checked by applying it'),
});

function shapeBuild(r: BuildResult): z.input<typeof buildOutput> {
  return {
    buildId: r.buildId,
    outputDir: r.outputDir,
    rom: r.rom,
    outputSha256: r.outputSha256,
    outputSize: r.outputSize,
    reused: r.reused,
    rebuildSemanticsVerified: r.verification.rebuildSemanticsVerified,
    changedPrefixBytes: r.verification.changedPrefixBytes,
    checks: r.verification.checks,
    patches: r.patches,
  };
}

// nds_mutation_draft: a complete, validated manifest from short operations; the server reads the
// guards (replaced bytes, component and artifact SHA-256s) itself (src/rebuild/draft.ts).
const OPS = ['patch', 'replace-component', 'replace-file', 'add-file', 'replace-overlay'] as const;
/** The fields each operation takes besides op and id. */
const FIELDS: Record<(typeof OPS)[number], readonly string[]> = {
  patch: ['component'],
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
  offset: addressArg('patch: offset inside the component as stored').optional(),
  address: nameOrAddressArg('patch (or offset): where the bytes run, ITCM copies too').optional(),
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
    .describe('patch: ARM/Thumb (as disassembled, or armips) assembled where the bytes run.'),
  mode: z.enum(ARM_MODES).optional().describe('With assembly.'),
  path: z.string().min(1).max(1024).optional().describe('add-file: the new NitroFS path.'),
  overlay: z
    .strictObject({ processor: z.enum(PROCESSORS), id: z.number().int().min(0).max(0xffffffff) })
    .optional(),
  artifact: workspacePath(
    z
      .string()
      .min(1)
      .max(1024)
      .optional()
      .describe('Workspace-relative file of new bytes (replace-overlay: the decoded image).'),
    'file',
  ),
});

function draftOperations(ops: z.output<typeof operation>[]): DraftOperation[] {
  return ops.map((o, i) => {
    const patch = o.op === 'patch';
    const problem = kindFieldsProblem(
      `operation ${i + 1}:`,
      { ...o, kind: o.op, op: undefined, id: undefined },
      FIELDS[o.op],
      patch ? ['offset', 'address', 'replacement', 'assembly', 'mode'] : [],
    );
    if (problem) throw new ReMcpError('invalid-argument', problem);
    if (patch && (o.offset === undefined) === (o.address === undefined))
      throw new ReMcpError(
        'invalid-argument',
        `operation ${i + 1}: a patch takes offset or address (one of them)`,
      );
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

/**
 * A manifest tool's work on its ROM: the manifest path is checked first (a bad path is refused
 * before the ROM is opened and hashed), and no hashing progress is sent.
 */
async function onManifest<T>(
  ctx: ToolContext,
  args: { rom: string; manifest: string },
  work: (rom: RomHandle, store: RomStore) => Promise<T>,
): Promise<T> {
  await ctx.services.workspace.resolveExisting(args.manifest, 'file');
  return withToolRom(ctx, args.rom, work, null);
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
          messages: z.array(z.string()).describe('How a line was read, armips warnings'),
        }),
      )
      .describe('Each assembled patch: its source next to its bytes, decoded back'),
    placed: placedSchema,
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
  needs: { operations: [{ op: 'patch', component: { kind: 'arm9' }, offset: 0, replacement: '00' }] },
  // A patch's address may be a stored name, looked up on its component's processor (and overlay).
  async names(args, ctx) {
    const table = await withToolRom(ctx, args.rom, (rom) => romNames(ctx, rom), null);
    const component = (holder: Readonly<Record<string, unknown>>) =>
      (holder.component ?? {}) as { kind?: string; processor?: 'arm9' | 'arm7'; id?: number };
    return tableNamer(
      table,
      (holder) => {
        const c = component(holder);
        return c.kind === 'arm7' ? 'arm7' : c.kind === 'overlay' ? (c.processor ?? 'arm9') : 'arm9';
      },
      (holder) => {
        const c = component(holder);
        return c.kind === 'overlay' ? (c.id ?? null) : null;
      },
    );
  },
  async handler(args, ctx) {
    // Each operation's fields are checked before the ROM is opened.
    const operations = draftOperations(args.operations);
    const r = await withToolRom(
      ctx,
      args.rom,
      async (rom, store) => {
        const names = operations.some((o) => o.op === 'patch' && o.assembly)
          ? await romNames(ctx, rom)
          : null;
        return draftManifest(ctx.services.workspace, rom, args.name, operations, {
          signal: ctx.signal,
          memory: ctx.services.memory,
          copies: (processor) => startupCopies(ctx, store, rom, processor),
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
        messages: a.messages,
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
        placed: placedOut(r.placed),
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
      text: `drafted and validated ${r.manifest} (${p.operations.length} operations, build ${p.buildId}); build it with nds_mutation_build${placedText(r.placed)}`,
    };
  },
});

// nds_mutation_validate: a manifest checked against the source ROM and planned; nothing written.
const range = z.object({ start: addressOut, end: addressOut });

export const ndsMutationValidate = defineTool({
  name: 'nds_mutation_validate',
  title: 'Validate an NDS mutation manifest',
  profiles: ['build'],
  description: {
    purpose: 'Checks a manifest against the source ROM and plans the build; writes nothing.',
    useWhen: 'before nds_mutation_build; nds_mutation_verify checks a built one.',
    behaviour: 'v1: same-size guarded edits, component replacement; v2 adds resized and new NitroFS files.',
    limits: `${REBUILD_LIMITS_LINE}.`,
  },
  input: rebuildInput,
  output: z.object({
    buildId: z.string(),
    outputDir: z.string(),
    formatVersion: z.number().int(),
    sourceSha256: z.string(),
    outputSize: z.number().int(),
    deviceCapacity: z.number().int(),
    operations: z.array(
      z.object({
        id: z.string(),
        op: z.string(),
        component: z.string().nullable(),
        fileId: z.number().int().nullable(),
        path: z.string().nullable(),
        output: range,
        length: z.number().int(),
        beforeSha256: z.string().nullable(),
        afterSha256: z.string(),
      }),
    ),
    headerRewrite: z.array(z.object({ field: z.string(), before: addressOut, after: addressOut })),
    tables: z.array(z.object({ table: z.string(), start: addressOut, end: addressOut, sha256: z.string() })),
    placed: placedSchema,
  }),
  annotations: READ_ONLY,
  limits: REBUILD_TOOL_LIMITS,
  async handler(args, ctx) {
    const { v, placed } = await onManifest(ctx, args, async (rom, store) => {
      const v = await validateManifest(ctx.services.workspace, rom, args.manifest, ctx.signal, (p) =>
        startupCopies(ctx, store, rom, p),
      );
      return { v, placed: await placementsOf(ctx, store, rom, v.manifest.operations) };
    });
    const r = v.plan.resolved;
    return {
      structured: {
        buildId: r.buildId,
        outputDir: v.outputDir,
        formatVersion: r.formatVersion,
        sourceSha256: r.source.sha256,
        outputSize: r.output.size,
        deviceCapacity: r.deviceCapacity,
        operations: r.operations.map((o) => ({
          id: o.id,
          op: o.op,
          component: o.component,
          fileId: o.fileId,
          path: o.path,
          output: o.output,
          length: o.length,
          beforeSha256: o.beforeSha256,
          afterSha256: o.afterSha256,
        })),
        headerRewrite: r.headerRewrite,
        tables: r.tables,
        placed: placedOut(placed),
      },
      text: `valid: ${r.operations.length} operation(s), build ${r.buildId} -> ${v.outputDir} (${r.output.size} bytes)${placedText(placed)}`,
    };
  },
});

// nds_mutation_build: the manifest applied to a copy of the ROM, verified and published.
export const ndsMutationBuild = defineTool({
  name: 'nds_mutation_build',
  title: 'Build a rebuilt NDS ROM from a manifest',
  profiles: ['build'],
  description: {
    purpose: 'Applies a manifest to a copy of the ROM, verifies and publishes it.',
    useWhen: 'after nds_mutation_validate passes.',
    behaviour:
      'publishes only when every check passed; an identical build is re-verified and reused, another is publish-collision.',
    limits: `${REBUILD_LIMITS_LINE}.`,
  },
  input: rebuildInput,
  output: buildOutput.extend({ placed: placedSchema, names: carriedNamesOut }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: REBUILD_TOOL_LIMITS,
  async handler(args, ctx) {
    const { r, placed } = await onManifest(ctx, args, async (rom, store) => {
      const r = await buildManifest(ctx.services.workspace, rom, args.manifest, {
        signal: ctx.signal,
        copies: (p) => startupCopies(ctx, store, rom, p),
        onProgress: (done, total) => {
          // One report per 32 MiB written (and the last), so a 256 MiB ROM sends a handful.
          if (done === total || done % (32 * 1024 * 1024) === 0) {
            ctx.progress({ progress: done, total, message: 'writing the rebuilt ROM' });
          }
        },
      });
      return { r, placed: await placementsOf(ctx, store, rom, r.manifest.operations) };
    });
    // The source's names follow the build where its bytes still hold them.
    const names = await carryTo(ctx, args.rom, r.rom);
    return {
      structured: { ...shapeBuild(r), placed: placedOut(placed), names },
      text: `${r.reused ? 'reused verified' : 'built'} ${r.rom} (${r.outputSize} bytes, sha256 ${r.outputSha256})${placedText(placed)}\n${carriedText(names)}`,
    };
  },
});

// nds_mutation_verify: a published build checked again, never repaired.
export const ndsMutationVerify = defineTool({
  name: 'nds_mutation_verify',
  title: 'Verify an existing NDS rebuild',
  profiles: ['build'],
  description: {
    purpose: 'Re-checks a published build: manifest, evidence files, ROM bytes and semantics.',
    useWhen: 'to trust a build on disk; never repairs (build again for that).',
    behaviour: 'verification-failed on any difference, even an extra file.',
    limits: `${REBUILD_LIMITS_LINE}.`,
  },
  input: rebuildInput,
  output: buildOutput,
  annotations: READ_ONLY,
  limits: REBUILD_TOOL_LIMITS,
  async handler(args, ctx) {
    const r = await onManifest(ctx, args, (rom, store) =>
      verifyBuild(ctx.services.workspace, rom, args.manifest, ctx.signal, (p) =>
        startupCopies(ctx, store, rom, p),
      ),
    );
    return {
      structured: shapeBuild(r),
      text: `verified ${r.rom}: ${r.verification.checks.length} checks passed, sha256 ${r.outputSha256}`,
    };
  },
});
