// Pieces shared by the retroarch_save_state_current, retroarch_save_state_slot, retroarch_load_state_current, retroarch_load_state_slot tools.
import { z } from 'zod/v4';
import { defineTool, type ToolContext } from '../../mcp/tool.js';
import { MAX_SLOT, PRESS_SPACING_MS } from '../../retroarch/client.js';
import { STATE_METHODS } from '../../retroarch/states.js';
import { PROFILES, resumeIfPaused, retroarch, TIMEOUT_LIMIT } from './shared.js';

export const slotInput = z.number().int().min(0).max(MAX_SLOT);

/** The arguments of retroarch_save_state_slot and retroarch_load_state_slot. */
export const slotStateInput = z.object({ slot: slotInput, resumeIfPaused });

/** All four state tools replace or overwrite state: the same annotations. */
export const STATE_ANNOTATIONS = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
};

export const method = z.enum(STATE_METHODS);

export const slotPointer = z.object({ value: z.number().int(), verified: z.boolean() });

export const saveOutput = z.object({
  method,
  slot: z.number().int(),
  confirmed: z.boolean(),
  file: z.string().nullable(),
  pointerPresses: z.number().int(),
  resumed: z.boolean(),
  slotPointer,
});

export const loadOutput = z.object({
  method,
  slot: z.number().int(),
  file: z.string().nullable(),
  pointerPresses: z.number().int(),
  resumed: z.boolean(),
  acknowledged: z.literal(false),
  slotPointer,
});

export const saveLimits = {
  slot: { min: 0, max: MAX_SLOT, unit: 'slot number' },
  fileWaitMs: { default: 2_000, max: 60_000, unit: 'ms: max(2 s, 2 x RETROARCH_TIMEOUT_MS)' },
  timeoutMs: TIMEOUT_LIMIT,
};

export const CONFIRM =
  'Watches a readable local savestate_directory: confirmed, or error unconfirmed; else confirmed false.';

// How re-mcp tracks the slot pointer is said once, in the server's instructions.
export const WALK = 'walks the pointer (STATE_SLOT_PLUS/MINUS).';

/** The Limits line of the two slot tools (a walk may be needed either way). */
export const SLOT_LIMITS_TEXT = `walks ${PRESS_SPACING_MS} ms a slot each way; file wait max(2 s, 2 x RETROARCH_TIMEOUT_MS).`;

export type StateRequest = { slot?: number; resumeIfPaused: boolean };

export async function saveState(ctx: ToolContext, request: StateRequest) {
  const client = retroarch(ctx);
  const r = await client.saveState(request, ctx.signal);
  const where = r.file ? `: ${r.file}` : ' (state file not observable here)';
  return {
    structured: { ...r, slotPointer: client.slotPointer },
    text: `Saved slot ${r.slot} via ${r.method}${r.confirmed ? ', confirmed' : ''}${where}${r.resumed ? '; paused again' : ''}`,
  };
}

export async function loadState(ctx: ToolContext, request: StateRequest) {
  const client = retroarch(ctx);
  const r = await client.loadState(request, ctx.signal);
  return {
    structured: { ...r, acknowledged: false as const, slotPointer: client.slotPointer },
    text: `LOAD_STATE sent for slot ${r.slot} via ${r.method} (RetroArch does not acknowledge loads; verify with a read)${r.resumed ? '; paused again' : ''}`,
  };
}

/** retroarch_state_slot_plus and retroarch_state_slot_minus differ only in the direction. */
export function slotStepTool(
  name: 'retroarch_state_slot_plus' | 'retroarch_state_slot_minus',
  delta: 1 | -1,
) {
  const plus = delta > 0;
  return defineTool({
    name,
    title: `RetroArch: state slot ${plus ? '+1' : '-1'}`,
    profiles: PROFILES,
    description: {
      purpose: `Moves RetroArch's state slot pointer ${plus ? 'up' : 'down'} by one (${plus ? 'STATE_SLOT_PLUS' : 'STATE_SLOT_MINUS'}).`,
      useWhen: "picking the *_current tools' slot; retroarch_*_state_slot are simpler.",
      behaviour: `returns the tracked value.${plus ? '' : ' 1.14 stops at 0.'}`,
      limits: 'one press; RETROARCH_TIMEOUT_MS.',
    },
    input: z.object({ resumeIfPaused }),
    output: z.object({ from: z.number().int(), slot: z.number().int(), verified: z.boolean() }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    limits: { timeoutMs: TIMEOUT_LIMIT },
    async handler(args, ctx) {
      const r = await retroarch(ctx).stepSlot(delta, args.resumeIfPaused, ctx.signal);
      return {
        structured: r,
        text: `State slot ${r.from} -> ${r.slot} (${r.verified ? 'tracked from a confirmed save' : 'tracked, assumed start at 0'})`,
      };
    },
  });
}
