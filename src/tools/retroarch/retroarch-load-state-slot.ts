// retroarch_load_state_slot: RetroArch: load state from a slot.
import { z } from 'zod/v4';
import { defineTool } from '../../mcp/tool.js';
import { PRESS_SPACING_MS } from '../../retroarch/client.js';
import { PROFILES, resumeIfPaused } from './shared.js';
import { loadOutput, loadState, saveLimits, slotInput, WALK } from './states-common.js';

export const retroarchLoadStateSlot = defineTool({
  name: 'retroarch_load_state_slot',
  title: 'RetroArch: load state from a slot',
  profiles: PROFILES,
  description: {
    purpose: 'Restores the emulator state from a given slot, leaving the slot pointer where it was.',
    useWhen: 'switching between restore points saved with retroarch_save_state_slot.',
    behaviour: `replaces all live state. LOAD_STATE_SLOT (1.15+), else ${WALK} Never acknowledged; a missing slot file is not-found when the state directory is readable.`,
    limits: `a walk takes |slot - pointer| x ${PRESS_SPACING_MS} ms each way; RETROARCH_TIMEOUT_MS per query, file wait max(2 s, 2 x it).`,
  },
  input: z.object({ slot: slotInput, resumeIfPaused }),
  output: loadOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  limits: saveLimits,
  handler: (args, ctx) => loadState(ctx, { slot: args.slot, resumeIfPaused: args.resumeIfPaused }),
});
