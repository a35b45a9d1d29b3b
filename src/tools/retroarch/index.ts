// RetroArch network-command tools (profile `retroarch`).
import {
  retroarchFrameAdvance,
  retroarchPauseToggle,
  retroarchReset,
  retroarchScreenshot,
  retroarchSetPaused,
  retroarchShowMessage,
} from './control.js';
import { retroarchGetConfig, retroarchGetStatus, retroarchPing } from './info.js';
import { retroarchReadMemory, retroarchReadRam, retroarchWriteMemory, retroarchWriteRam } from './memory.js';
import { retroarchMemoryScanNarrow } from './memory-scan-narrow.js';
import { retroarchMemoryScanResults } from './memory-scan-results.js';
import { retroarchMemoryScanStart } from './memory-scan-start.js';
import {
  retroarchLoadStateCurrent,
  retroarchLoadStateSlot,
  retroarchSaveStateCurrent,
  retroarchSaveStateSlot,
  retroarchStateSlotMinus,
  retroarchStateSlotPlus,
} from './states.js';

export const retroarchTools = [
  retroarchPing,
  retroarchGetStatus,
  retroarchGetConfig,
  retroarchReadMemory,
  retroarchWriteMemory,
  retroarchReadRam,
  retroarchWriteRam,
  retroarchPauseToggle,
  retroarchSetPaused,
  retroarchFrameAdvance,
  retroarchReset,
  retroarchScreenshot,
  retroarchShowMessage,
  retroarchSaveStateCurrent,
  retroarchLoadStateCurrent,
  retroarchSaveStateSlot,
  retroarchLoadStateSlot,
  retroarchStateSlotPlus,
  retroarchStateSlotMinus,
  retroarchMemoryScanStart,
  retroarchMemoryScanNarrow,
  retroarchMemoryScanResults,
];
