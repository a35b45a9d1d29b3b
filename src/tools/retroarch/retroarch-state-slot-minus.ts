// retroarch_state_slot_minus: RetroArch: state slot -1 (shared shape with retroarch_state_slot_plus).
import { slotStepTool } from './states-common.js';

export const retroarchStateSlotMinus = slotStepTool('retroarch_state_slot_minus', -1);
