// Save states and the slot pointer. RetroArch 1.14 silently ignores SAVE_STATE, LOAD_STATE and
// STATE_SLOT_PLUS/MINUS while paused, has no LOAD_STATE_SLOT (1.15+) or SAVE_STATE_SLOT, and cannot
// report the slot pointer: the client tracks it from RetroArch's default (0) and learns the truth from
// the file each save writes.
import { z } from 'zod/v4';
import { defineTool, type ToolContext } from '../../mcp/tool.js';
import { MAX_SLOT, PRESS_SPACING_MS } from '../../retroarch/client.js';
import { PROFILES, resumeIfPaused, retroarch, TIMEOUT_LIMIT } from './shared.js';

const slotInput = z
  .number()
  .int()
  .min(0)
  .max(MAX_SLOT)
  .describe(`State slot number, 0..${MAX_SLOT} (0 is the ".state" file, n is ".state<n>").`);

const method = z.enum(['current', 'native', 'walk']);
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
  'When RetroArch runs on this machine and GET_CONFIG_PARAM savestate_directory is readable, the state file is watched: confirmed with its path, or an `unconfirmed` error if it did not change; otherwise confirmed: false.';
const PAUSED = 'RetroArch silently ignores it while paused: refused with `paused` unless resumeIfPaused.';
const TRACKED =
  'RetroArch cannot report the slot pointer: re-mcp tracks it (verified after a confirmed save; assumed to start at 0, and reset to that when RetroArch answers again after being seen unreachable, since it may have restarted). A restart re-mcp never sees (no failed query in between) or a pointer moved outside re-mcp leaves the tracked value wrong until the next confirmed save.';
const WALK = `Without a native slot command (1.14) the slot pointer is walked there with STATE_SLOT_PLUS/MINUS presses (${PRESS_SPACING_MS} ms apart) from the tracked position, then walked back. ${TRACKED}`;

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

export const retroarchSaveStateCurrent = defineTool({
  name: 'retroarch_save_state_current',
  title: 'RetroArch: save state (current slot)',
  profiles: PROFILES,
  description: {
    purpose: "Saves the whole emulator state to RetroArch's current slot (SAVE_STATE).",
    useWhen: 'making a restore point before risky writes; retroarch_save_state_slot targets a given slot.',
    behaviour: `DESTRUCTIVE to the slot file (overwritten without backup). ${PAUSED} ${CONFIRM} A confirmed save also tells which slot the pointer really is on.`,
    limits: 'one save; file wait max(2 s, 2 x RETROARCH_TIMEOUT_MS).',
    returns: 'slot, confirmed, file, resumed, slotPointer {value, verified}.',
  },
  input: z.object({ resumeIfPaused }),
  output: saveOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  limits: saveLimits,
  handler: (args, ctx) => saveState(ctx, { resumeIfPaused: args.resumeIfPaused }),
});

export const retroarchSaveStateSlot = defineTool({
  name: 'retroarch_save_state_slot',
  title: 'RetroArch: save state to a slot',
  profiles: PROFILES,
  description: {
    purpose: 'Saves the whole emulator state to a given slot, leaving the slot pointer where it was.',
    useWhen: 'keeping several restore points; retroarch_load_state_slot reads them back.',
    behaviour: `DESTRUCTIVE to that slot file. Uses SAVE_STATE_SLOT when the version has it. ${WALK} ${PAUSED} ${CONFIRM} A walked save whose file shows it landed in another slot (the pointer was moved outside re-mcp) is an \`unconfirmed\` error naming the slot written; the tracked pointer is corrected.`,
    limits: `slot 0..${MAX_SLOT}; a walk takes |slot - pointer| x ${PRESS_SPACING_MS} ms each way.`,
    returns: 'method (native|walk), slot, confirmed, file, pointerPresses, resumed, slotPointer.',
  },
  input: z.object({ slot: slotInput, resumeIfPaused }),
  output: saveOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  limits: saveLimits,
  handler: (args, ctx) => saveState(ctx, { slot: args.slot, resumeIfPaused: args.resumeIfPaused }),
});

export const retroarchLoadStateCurrent = defineTool({
  name: 'retroarch_load_state_current',
  title: 'RetroArch: load state (current slot)',
  profiles: PROFILES,
  description: {
    purpose: "Restores the emulator state from RetroArch's current slot (LOAD_STATE).",
    useWhen: 'undoing changes back to the last retroarch_save_state_current.',
    behaviour: `DESTRUCTIVE: replaces all live state. ${PAUSED} RetroArch does not acknowledge loads: when the state directory is readable a missing slot file is refused with not-found; otherwise verify the effect with a read.`,
    limits: 'one load, then one main-loop turn of settling.',
    returns: 'slot, file (when known), resumed, acknowledged: false, slotPointer.',
  },
  input: z.object({ resumeIfPaused }),
  output: loadOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  limits: { timeoutMs: TIMEOUT_LIMIT },
  handler: (args, ctx) => loadState(ctx, { resumeIfPaused: args.resumeIfPaused }),
});

export const retroarchLoadStateSlot = defineTool({
  name: 'retroarch_load_state_slot',
  title: 'RetroArch: load state from a slot',
  profiles: PROFILES,
  description: {
    purpose: 'Restores the emulator state from a given slot, leaving the slot pointer where it was.',
    useWhen: 'switching between restore points saved with retroarch_save_state_slot.',
    behaviour: `DESTRUCTIVE: replaces all live state. Uses LOAD_STATE_SLOT on RetroArch 1.15+. ${WALK} ${PAUSED} Missing slot files are refused with not-found when the state directory is readable; loads are never acknowledged.`,
    limits: `slot 0..${MAX_SLOT}; a walk takes |slot - pointer| x ${PRESS_SPACING_MS} ms each way.`,
    returns: 'method (native|walk), slot, file, pointerPresses, resumed, acknowledged: false, slotPointer.',
  },
  input: z.object({ slot: slotInput, resumeIfPaused }),
  output: loadOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  limits: saveLimits,
  handler: (args, ctx) => loadState(ctx, { slot: args.slot, resumeIfPaused: args.resumeIfPaused }),
});

function slotStepTool(delta: 1 | -1) {
  const plus = delta > 0;
  return defineTool({
    name: plus ? 'retroarch_state_slot_plus' : 'retroarch_state_slot_minus',
    title: `RetroArch: state slot ${plus ? '+1' : '-1'}`,
    profiles: PROFILES,
    description: {
      purpose: `Moves RetroArch's current state slot pointer ${plus ? 'up' : 'down'} by one (${plus ? 'STATE_SLOT_PLUS' : 'STATE_SLOT_MINUS'}).`,
      useWhen:
        'choosing the slot that the *_current state tools use; retroarch_save_state_slot / load_state_slot are simpler.',
      behaviour: `changes the pointer only (no state file is touched). ${PAUSED} The result is the tracked value. ${TRACKED}${plus ? '' : ' RetroArch 1.14 does not go below 0.'}`,
      limits: `one press; presses are spaced ${PRESS_SPACING_MS} ms apart.`,
      returns: 'from, slot, verified.',
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

export const retroarchStateSlotPlus = slotStepTool(1);
export const retroarchStateSlotMinus = slotStepTool(-1);
