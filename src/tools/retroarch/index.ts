// RetroArch network-command tools (profile `retroarch`).
import { retroarchFrameAdvance } from './retroarch-frame-advance.js';
import { retroarchGetConfig } from './retroarch-get-config.js';
import { retroarchGetStatus } from './retroarch-get-status.js';
import { retroarchInput } from './retroarch-input.js';
import { retroarchLoadStateCurrent } from './retroarch-load-state-current.js';
import { retroarchLoadStateSlot } from './retroarch-load-state-slot.js';
import { retroarchMemoryScanNarrow } from './retroarch-memory-scan-narrow.js';
import { retroarchMemoryScanResults } from './retroarch-memory-scan-results.js';
import { retroarchMemoryScanStart } from './retroarch-memory-scan-start.js';
import { retroarchPauseToggle } from './retroarch-pause-toggle.js';
import { retroarchPing } from './retroarch-ping.js';
import { retroarchReadMemory } from './retroarch-read-memory.js';
import { retroarchReadRam } from './retroarch-read-ram.js';
import { retroarchReset } from './retroarch-reset.js';
import { retroarchSaveStateCurrent } from './retroarch-save-state-current.js';
import { retroarchSaveStateSlot } from './retroarch-save-state-slot.js';
import { retroarchScreenshot } from './retroarch-screenshot.js';
import { retroarchSetPaused } from './retroarch-set-paused.js';
import { retroarchShowMessage } from './retroarch-show-message.js';
import { retroarchStateSlotMinus } from './retroarch-state-slot-minus.js';
import { retroarchStateSlotPlus } from './retroarch-state-slot-plus.js';
import { retroarchWriteMemory } from './retroarch-write-memory.js';
import { retroarchWriteRam } from './retroarch-write-ram.js';

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
