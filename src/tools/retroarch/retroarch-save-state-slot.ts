// retroarch_save_state_slot: RetroArch: save state to a slot.
import { z } from 'zod/v4';
import { defineTool } from '../../mcp/tool.js';
import { MAX_SLOT, PRESS_SPACING_MS } from '../../retroarch/client.js';
import { PROFILES, resumeIfPaused } from './shared.js';
import { CONFIRM, PAUSED, saveLimits, saveOutput, saveState, slotInput, WALK } from './states-common.js';

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
