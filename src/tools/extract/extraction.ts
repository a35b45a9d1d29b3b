// The extraction tools: nds_extract_component (one component's stored bytes, with a SHA-256 sidecar)
// and nds_extract_analysis_bundle (manifest, address map, tables, executables and overlays, replacing
// the previous bundle atomically).
import { z } from 'zod/v4';
import { addressRangeOut, formatRange } from '../../core/vocabulary.js';
import { EXTRACT_LIMITS } from '../../extract/artifacts.js';
import { buildAnalysisBundle } from '../../extract/bundle.js';
import { extractComponent } from '../../extract/component.js';
import { defineTool, type ToolContext } from '../../mcp/tool.js';
import type { RomHandle } from '../../roms/rom-store.js';
import type { Workspace } from '../../workspace/workspace.js';
import { romArg, withToolRom } from '../shared/rom.js';
import { componentSelectorSchema } from '../shared/search-inputs.js';

const MiB = 1024 * 1024;

/** Runs one extraction from the named ROM into the workspace (the ROM opened without hash progress). */
function extractFrom<T>(
  ctx: ToolContext,
  rom: string,
  run: (workspace: Workspace, rom: RomHandle) => Promise<T>,
): Promise<T> {
  return withToolRom(ctx, rom, (handle) => run(ctx.services.workspace, handle), null);
}

// nds_extract_component: one canonical component written out.
export const ndsExtractComponent = defineTool({
  name: 'nds_extract_component',
  title: 'Extract one ROM component',
  profiles: ['static'],
  description: {
    purpose: "Writes one component's stored bytes to a server-chosen file.",
    useWhen: 'an external tool needs one component; nds_extract_analysis_bundle for everything.',
    behaviour:
      'SHA-256 sidecar beside it; compressed overlays stay compressed; identical content not rewritten.',
    limits: `component up to ${EXTRACT_LIMITS.componentBytes.max / MiB} MiB.`,
  },
  input: z.object({
    rom: romArg,
    component: componentSelectorSchema,
  }),
  output: z.object({
    artifact: z.string(),
    sidecar: z.string(),
    component: z.object({
      label: z.string(),
      processor: z.string().nullable(),
      overlayId: z.number().int().nullable(),
      fileId: z.number().int().nullable(),
      path: z.string().nullable(),
    }),
    romRange: addressRangeOut,
    size: z.number().int(),
    compressed: z.boolean(),
    sha256: z.string(),
    sourceSha256: z.string(),
    written: z.boolean(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: EXTRACT_LIMITS,
  async handler(args, ctx) {
    const r = await extractFrom(ctx, args.rom, (ws, rom) =>
      extractComponent(ws, rom, args.component, ctx.signal),
    );
    return {
      structured: { ...r, romRange: formatRange(r.romRange) },
      text: `${r.component.label}: ${r.size} bytes${r.compressed ? ' (compressed, as stored)' : ''} -> ${r.artifact} sha256 ${r.sha256}${r.written ? '' : ' (unchanged)'}`,
    };
  },
});

// nds_extract_analysis_bundle: the transactional analysis bundle.
export const ndsExtractAnalysisBundle = defineTool({
  name: 'nds_extract_analysis_bundle',
  title: 'Extract the analysis bundle',
  profiles: ['static'],
  description: {
    purpose: 'Writes manifest, address map, file/overlay tables, executables and overlays as stored.',
    useWhen: 'handing a ROM to an external tool; nds_extract_component for one component.',
    behaviour: 'replaces the previous bundle atomically, keeping components/.',
    limits: `${EXTRACT_LIMITS.componentBytes.max / MiB} MiB per executable or overlay; 4096 overlays per table.`,
  },
  input: z.object({ rom: romArg }),
  output: z.object({
    directory: z.string(),
    sourceSha256: z.string(),
    sourceSize: z.number().int(),
    bundleId: z.string(),
    files: z.number().int(),
    totalBytes: z.number().int(),
    overlays: z.object({ arm9: z.number().int(), arm7: z.number().int() }),
    replacedPrevious: z.boolean(),
    recovered: z.array(z.string()),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: EXTRACT_LIMITS,
  async handler(args, ctx) {
    const r = await extractFrom(ctx, args.rom, (ws, rom) =>
      buildAnalysisBundle(ws, rom, { signal: ctx.signal }),
    );
    return {
      structured: r,
      text: `bundle ${r.directory}: ${r.files} files, ${r.totalBytes} bytes, ${r.overlays.arm9}+${r.overlays.arm7} overlays${r.replacedPrevious ? ' (replaced the previous bundle)' : ''}`,
    };
  },
});
