// RetroArch network-command tools (profile `retroarch`).
import { retroarchGetConfig, retroarchGetStatus, retroarchPing } from './connection.js';
import { retroarchInput } from './input.js';
import { retroarchReadMemory, retroarchReadRam, retroarchWriteMemory, retroarchWriteRam } from './memory.js';
import {
  retroarchMemoryScanNarrow,
  retroarchMemoryScanResults,
  retroarchMemoryScanStart,
} from './memory-scan.js';
import {
  retroarchFrameAdvance,
  retroarchPauseToggle,
  retroarchReset,
  retroarchSetPaused,
} from './run-control.js';
import { retroarchScreenshot, retroarchShowMessage } from './screen.js';
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
  retroarchInput,
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
