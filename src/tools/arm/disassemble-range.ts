// nds_disassemble_range: one bounded linear window of canonical NDS code; control flow is classified
// per instruction but never followed.
import { z } from 'zod/v4';
import { decodeLinearWindow, isLiteralPoolData, type LinearItem } from '../../arm/literal-pools.js';
import { referencesOfWindow } from '../../arm/references.js';
import type { DecodedInstruction } from '../../arm/types.js';
import { addressOut, formatAddress } from '../../core/vocabulary.js';
import { defineTool, type ToolContext } from '../../mcp/tool.js';
import { getRomStore, type RomHandle, type RomStore } from '../../nds/rom-store.js';
import { hashProgress, hex, IDENTITY_NOTE, READ_ONLY } from '../nds/common.js';
import { resolveStart, type StartRequest } from './code-source.js';
import {
  instructionSchema,
  LINEAR_LIMITS,
  LINEAR_LIMITS_TEXT,
  linearWindowArgs,
  linearWindowOutput,
  sourceView,
  startArgs,
} from './common.js';

type WindowStatus = 'complete' | 'component-end' | 'decode-stopped';

/** Opens the ROM and decodes the window the linear tools share; also used by nds_list_references. */
export function linearWindow(
  ctx: ToolContext,
  args: StartRequest & { rom: string; maxInstructions: number; maxBytes: number },
) {
  const store = getRomStore(ctx.services);
  return store.withRom(args.rom, (rom) => decodeLinear(ctx, store, rom, args), ctx.signal, hashProgress(ctx));
}

async function decodeLinear(
  ctx: ToolContext,
  store: RomStore,
  rom: RomHandle,
  args: StartRequest & { maxInstructions: number; maxBytes: number },
) {
  const src = await resolveStart(store, rom, args, ctx.signal);
  const offset = src.address - src.span.start;
  const available = src.span.bytes.length - offset;
  const length = Math.min(available, args.maxBytes);
  const window = src.span.bytes.subarray(offset, offset + length);
  const r = await decodeLinearWindow(window, src.address, src.mode, args.processor, args.maxInstructions);
  const decodedBytes = r.items.reduce((n, i) => n + i.size, 0);
  const instructions = r.items.filter((i): i is DecodedInstruction => !isLiteralPoolData(i));
  // The window reaches the component's end when the byte limit does not come first.
  const reachesEnd = available < args.maxBytes;
  let status: WindowStatus = 'complete';
  let stop = r.stop;
  if (stop?.reason === 'truncated-instruction') {
    // An instruction crossing the component's end (also when the byte limit ends exactly there), or
    // merely cut by the byte limit inside the component (then the requested window did complete).
    if (available <= args.maxBytes) status = 'component-end';
    else stop = null;
  } else if (stop) status = 'decode-stopped';
  else if (reachesEnd && r.items.length < args.maxInstructions) status = 'component-end';
  return {
    source: sourceView(args.processor, src),
    status,
    stop,
    /** Instructions only (references, counts). */
    instructions,
    /** Instructions and proven literal-pool words, in address order. */
    items: r.items,
    decodedBytes,
    span: src.span,
    model: rom.model,
  };
}

function itemView(item: LinearItem) {
  if (!isLiteralPoolData(item)) return item;
  return {
    ...item,
    address: formatAddress(item.address),
    value: formatAddress(item.value),
    loadedBy: item.loadedBy.map(formatAddress),
  };
}

export const ndsDisassembleRange = defineTool({
  name: 'nds_disassemble_range',
  title: 'Disassemble a bounded ARM/Thumb window',
  profiles: ['static'],
  description: {
    purpose:
      'Decodes ARM or Thumb instructions linearly from one start in canonical NDS code (ARM9 ARMv5TE / ARM7 ARMv4T).',
    useWhen:
      'reading code at a known address or ROM offset; use nds_analyze_control_flow to follow branches, nds_list_references for references only.',
    behaviour: `read-only; sources: main ARM9/ARM7, uncompressed overlays (file-backed prefix), decoded BLZ images (romOffset null); never BSS; overlapping overlays without overlayId fail with ambiguous-code-source; stops at the first undecodable or later-architecture instruction and returns the prefix (never skips bytes); a word that a literal load earlier in the window provably reads is shown as literal-pool-data (its value), not decoded; ${IDENTITY_NOTE}`,
    limits: `${LINEAR_LIMITS_TEXT}; stops at the component end.`,
    returns:
      'source {component, overlayId, mode, start, romOffset, derived}, status (complete | component-end | decode-stopped), stop {reason, address}, instructions[{address, size, bytes, mnemonic, operands, condition?, flow?, target?, targetMode?, pcRelative?, readsPc?, writesPc?} | {kind: literal-pool-data, address, size 4, bytes, value, loadedBy[]}].',
  },
  input: z.object({ ...startArgs, ...linearWindowArgs }),
  output: z.object({
    ...linearWindowOutput,
    instructions: z.array(
      z.union([
        instructionSchema,
        z
          .object({
            kind: z.literal('literal-pool-data'),
            address: addressOut,
            size: z.literal(4),
            bytes: z.string(),
            value: addressOut.describe('The little-endian word stored in the slot'),
            loadedBy: z.array(addressOut).describe('The literal loads in this window that read it'),
          })
          .describe('A literal-pool word a load earlier in this window provably reads: data, not decoded'),
      ]),
    ),
  }),
  annotations: READ_ONLY,
  limits: LINEAR_LIMITS,
  async handler(args, ctx) {
    const w = await linearWindow(ctx, args);
    const refs = referencesOfWindow(w.instructions).length;
    const stopText = w.stop ? `; ${w.stop.reason} at ${hex(w.stop.address)}` : '';
    return {
      structured: { source: w.source, status: w.status, stop: w.stop, instructions: w.items.map(itemView) },
      text: `${args.processor} ${w.source.component}${w.source.overlayId === null ? '' : ` ${w.source.overlayId}`} ${w.source.mode} ${hex(w.source.start)}: ${w.instructions.length} instructions (${w.decodedBytes} bytes), ${refs} references, ${w.status}${stopText}`,
    };
  },
});
