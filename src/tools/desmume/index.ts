import { desmumeBreakpointCondition } from './breakpoint-condition.js';
import {
  desmumeBreakpointAdd,
  desmumeBreakpointList,
  desmumeBreakpointRemove,
  desmumeExecutableRangesReplace,
} from './breakpoints.js';
import { desmumeDisassembleLive } from './disassemble-live.js';
import { desmumeContinue, desmumePause, desmumeStepInstruction, desmumeWaitForStop } from './execution.js';
import { desmumeCaptureStopContext, desmumeReadMemory, desmumeReadRegisterPacket } from './inspect.js';
import { desmumeProbeGdb, desmumeStart, desmumeStatus, desmumeStop, desmumeWaitForGdb } from './lifecycle.js';
import { desmumeMemoryScanNarrow } from './memory-scan-narrow.js';
import { desmumeMemoryScanResults } from './memory-scan-results.js';
import { desmumeMemoryScanStart } from './memory-scan-start.js';
import { desmumeStepOut } from './step-out.js';
import { desmumeStepOver } from './step-over.js';
import { desmumeWatchpointAdd } from './watchpoint-add.js';
import { desmumeWatchpointRemove } from './watchpoint-remove.js';

export const desmumeTools = [
  desmumeStart,
  desmumeStatus,
  desmumeStop,
  desmumeProbeGdb,
  desmumeWaitForGdb,
  desmumeReadRegisterPacket,
  desmumeReadMemory,
  desmumeBreakpointAdd,
  desmumeBreakpointRemove,
  desmumeBreakpointList,
  desmumeBreakpointCondition,
  desmumeContinue,
  desmumeStepInstruction,
  desmumeStepOver,
  desmumeStepOut,
  desmumePause,
  desmumeWaitForStop,
  desmumeCaptureStopContext,
  desmumeExecutableRangesReplace,
  desmumeMemoryScanStart,
  desmumeMemoryScanNarrow,
  desmumeMemoryScanResults,
  desmumeWatchpointAdd,
  desmumeWatchpointRemove,
  desmumeDisassembleLive,
];
