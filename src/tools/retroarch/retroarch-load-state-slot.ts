// retroarch_load_state_slot: RetroArch: load state from a slot.
import { z } from 'zod/v4';
import { defineTool } from '../../mcp/tool.js';
import { MAX_SLOT, PRESS_SPACING_MS } from '../../retroarch/client.js';
import { PROFILES, resumeIfPaused } from './shared.js';
import { loadOutput, loadState, PAUSED, saveLimits, slotInput, WALK } from './states-common.js';

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
