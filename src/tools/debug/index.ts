// The DeSmuME debugging tools (profile runtime), in tools/list order.
import {
  desmumeBreakpointAdd,
  desmumeBreakpointCondition,
  desmumeBreakpointList,
  desmumeBreakpointRemove,
  desmumeExecutableRangesReplace,
} from './breakpoints.js';
import { ndsCorrelateStopContext } from './correlate.js';
import {
  desmumeCaptureRuntimeEvidence,
  desmumeCaptureStopContext,
  desmumeDisassembleLive,
  desmumeReadMemory,
  desmumeReadRegisterPacket,
} from './inspect.js';
import { desmumeProbeGdb, desmumeStart, desmumeStatus, desmumeStop, desmumeWaitForGdb } from './lifecycle.js';
import { desmumeMemoryScanNarrow, desmumeMemoryScanResults, desmumeMemoryScanStart } from './memory-scan.js';
import {
  desmumeContinue,
  desmumePause,
  desmumeStepInstruction,
  desmumeStepOut,
  desmumeStepOver,
  desmumeWaitForStop,
} from './run-control.js';
import { desmumeWatchpointAdd, desmumeWatchpointRemove } from './watchpoints.js';

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
  desmumeCaptureRuntimeEvidence,
  desmumeExecutableRangesReplace,
  desmumeMemoryScanStart,
  desmumeMemoryScanNarrow,
  desmumeMemoryScanResults,
  desmumeWatchpointAdd,
  desmumeWatchpointRemove,
  desmumeDisassembleLive,
  ndsCorrelateStopContext,
];
