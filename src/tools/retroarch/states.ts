// RetroArch savestates: saving and loading the current slot (retroarch_save_state_current,
// retroarch_load_state_current) or a given one (retroarch_save_state_slot, retroarch_load_state_slot),
// and moving the slot pointer (retroarch_state_slot_plus, retroarch_state_slot_minus).
import { z } from 'zod/v4';
import { defineTool, type ToolContext } from '../../mcp/tool.js';
import { MAX_SLOT, PRESS_SPACING_MS } from '../../retroarch/client.js';
import { STATE_METHODS } from '../../retroarch/states.js';
import { PROFILES, retroarch, TIMEOUT_LIMIT } from './client.js';

/** Taken by every tool here: the savestate tools and the slot pointer's. */
const resumeIfPaused = z.boolean().default(false).describe('Re-pauses; a few frames run.');

const slotInput = z.number().int().min(0).max(MAX_SLOT);

/** The arguments of retroarch_save_state_slot and retroarch_load_state_slot. */
const slotStateInput = z.object({ slot: slotInput, resumeIfPaused });

/** All four state tools replace or overwrite state: the same annotations. */
const STATE_ANNOTATIONS = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
};

const method = z.enum(STATE_METHODS);

const slotPointer = z.object({ value: z.number().int(), verified: z.boolean() });

const saveOutput = z.object({
  method,
  slot: z.number().int(),
  confirmed: z.boolean(),
  file: z.string().nullable(),
  pointerPresses: z.number().int(),
  resumed: z.boolean(),
  slotPointer,
});

const loadOutput = z.object({
  method,
  slot: z.number().int(),
  file: z.string().nullable(),
  pointerPresses: z.number().int(),
  resumed: z.boolean(),
  acknowledged: z.literal(false),
  slotPointer,
});

const saveLimits = {
  slot: { min: 0, max: MAX_SLOT, unit: 'slot number' },
  fileWaitMs: { default: 2_000, max: 60_000, unit: 'ms: max(2 s, 2 x RETROARCH_TIMEOUT_MS)' },
  timeoutMs: TIMEOUT_LIMIT,
};

const CONFIRM =
  'Watches a readable local savestate_directory: confirmed, or error unconfirmed; else confirmed false.';

// How re-mcp tracks the slot pointer is said once, in the server's instructions.
const WALK = 'walks the pointer (STATE_SLOT_PLUS/MINUS).';

/** The Limits line of the two slot tools (a walk may be needed either way). */
const SLOT_LIMITS_TEXT = `walks ${PRESS_SPACING_MS} ms and a loop turn a slot each way; file wait max(2 s, 2 x RETROARCH_TIMEOUT_MS).`;

type StateRequest = { slot?: number; resumeIfPaused: boolean };

async function saveState(ctx: ToolContext, request: StateRequest) {
  const client = retroarch(ctx);
  const r = await client.saveState(request, ctx.signal);
  const where = r.file ? `: ${r.file}` : ' (state file not observable here)';
  return {
    structured: { ...r, slotPointer: client.slotPointer },
    text: `Saved slot ${r.slot} via ${r.method}${r.confirmed ? ', confirmed' : ''}${where}${r.resumed ? '; paused again' : ''}`,
  };
}

async function loadState(ctx: ToolContext, request: StateRequest) {
  const client = retroarch(ctx);
  const r = await client.loadState(request, ctx.signal);
  return {
    structured: { ...r, acknowledged: false as const, slotPointer: client.slotPointer },
    text: `LOAD_STATE sent for slot ${r.slot} via ${r.method} (RetroArch does not acknowledge loads; verify with a read)${r.resumed ? '; paused again' : ''}`,
  };
}

/** retroarch_state_slot_plus and retroarch_state_slot_minus differ only in the direction. */
function slotStepTool(name: 'retroarch_state_slot_plus' | 'retroarch_state_slot_minus', delta: 1 | -1) {
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

// retroarch_save_state_current: RetroArch: save state (current slot).
export const retroarchSaveStateCurrent = defineTool({
  name: 'retroarch_save_state_current',
  title: 'RetroArch: save state (current slot)',
  profiles: PROFILES,
  description: {
    purpose: "Saves the emulator state to RetroArch's current slot (SAVE_STATE).",
    useWhen: 'a restore point before risky writes; retroarch_save_state_slot for a given slot.',
    behaviour: `overwrites the slot file. ${CONFIRM}`,
    limits: `pointer 0..${MAX_SLOT}; file wait max(2 s, 2 x RETROARCH_TIMEOUT_MS).`,
  },
  input: z.object({ resumeIfPaused }),
  output: saveOutput,
  annotations: STATE_ANNOTATIONS,
  limits: saveLimits,
  handler: (args, ctx) => saveState(ctx, { resumeIfPaused: args.resumeIfPaused }),
});

// retroarch_load_state_current: RetroArch: load state (current slot).
export const retroarchLoadStateCurrent = defineTool({
  name: 'retroarch_load_state_current',
  title: 'RetroArch: load state (current slot)',
  profiles: PROFILES,
  description: {
    purpose: "Restores the emulator state from RetroArch's current slot (LOAD_STATE).",
    useWhen: 'back to the last retroarch_save_state_current.',
    behaviour:
      'replaces all live state; never acknowledged: a missing file is not-found when the state directory is readable.',
    limits: 'one load, then a main-loop turn; RETROARCH_TIMEOUT_MS.',
  },
  input: z.object({ resumeIfPaused }),
  output: loadOutput,
  annotations: STATE_ANNOTATIONS,
  limits: { timeoutMs: TIMEOUT_LIMIT },
  handler: (args, ctx) => loadState(ctx, { resumeIfPaused: args.resumeIfPaused }),
});

// retroarch_save_state_slot: RetroArch: save state to a slot.
export const retroarchSaveStateSlot = defineTool({
  name: 'retroarch_save_state_slot',
  title: 'RetroArch: save state to a slot',
  profiles: PROFILES,
  description: {
    purpose: 'Saves the state to a given slot; the slot pointer stays.',
    useWhen: 'several restore points; retroarch_load_state_slot restores them.',
    behaviour: `overwrites that file; SAVE_STATE_SLOT, else ${WALK} ${CONFIRM}`,
    limits: SLOT_LIMITS_TEXT,
  },
  input: slotStateInput,
  output: saveOutput,
  annotations: STATE_ANNOTATIONS,
  limits: saveLimits,
  handler: (args, ctx) => saveState(ctx, { slot: args.slot, resumeIfPaused: args.resumeIfPaused }),
});

// retroarch_load_state_slot: RetroArch: load state from a slot.
export const retroarchLoadStateSlot = defineTool({
  name: 'retroarch_load_state_slot',
  title: 'RetroArch: load state from a slot',
  profiles: PROFILES,
  description: {
    purpose: 'Restores the state from a given slot; the slot pointer stays.',
    useWhen: 'switching between points saved by retroarch_save_state_slot.',
    behaviour: `replaces all live state; LOAD_STATE_SLOT (1.15+), else ${WALK} Never acknowledged; a missing file is not-found when the state directory is readable.`,
    limits: SLOT_LIMITS_TEXT,
  },
  input: slotStateInput,
  output: loadOutput,
  annotations: STATE_ANNOTATIONS,
  limits: saveLimits,
  handler: (args, ctx) => loadState(ctx, { slot: args.slot, resumeIfPaused: args.resumeIfPaused }),
});

// retroarch_state_slot_plus: RetroArch: state slot +1 (shared shape with retroarch_state_slot_minus).
export const retroarchStateSlotPlus = slotStepTool('retroarch_state_slot_plus', 1);

// retroarch_state_slot_minus: RetroArch: state slot -1 (shared shape with retroarch_state_slot_plus).
export const retroarchStateSlotMinus = slotStepTool('retroarch_state_slot_minus', -1);
