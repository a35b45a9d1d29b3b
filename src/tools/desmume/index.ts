import { desmumeBreakpointAdd } from './desmume-breakpoint-add.js';
import { desmumeBreakpointCondition } from './desmume-breakpoint-condition.js';
import { desmumeBreakpointList } from './desmume-breakpoint-list.js';
import { desmumeBreakpointRemove } from './desmume-breakpoint-remove.js';
import { desmumeCaptureRuntimeEvidence } from './desmume-capture-runtime-evidence.js';
import { desmumeCaptureStopContext } from './desmume-capture-stop-context.js';
import { desmumeContinue } from './desmume-continue.js';
import { desmumeDisassembleLive } from './desmume-disassemble-live.js';
import { desmumeExecutableRangesReplace } from './desmume-executable-ranges-replace.js';
import { desmumeMemoryScanNarrow } from './desmume-memory-scan-narrow.js';
import { desmumeMemoryScanResults } from './desmume-memory-scan-results.js';
import { desmumeMemoryScanStart } from './desmume-memory-scan-start.js';
import { desmumePause } from './desmume-pause.js';
import { desmumeProbeGdb } from './desmume-probe-gdb.js';
import { desmumeReadMemory } from './desmume-read-memory.js';
import { desmumeReadRegisterPacket } from './desmume-read-register-packet.js';
import { desmumeStart } from './desmume-start.js';
import { desmumeStatus } from './desmume-status.js';
import { desmumeStepInstruction } from './desmume-step-instruction.js';
import { desmumeStepOut } from './desmume-step-out.js';
import { desmumeStepOver } from './desmume-step-over.js';
import { desmumeStop } from './desmume-stop.js';
import { desmumeWaitForGdb } from './desmume-wait-for-gdb.js';
import { desmumeWaitForStop } from './desmume-wait-for-stop.js';
import { desmumeWatchpointAdd } from './desmume-watchpoint-add.js';
import { desmumeWatchpointRemove } from './desmume-watchpoint-remove.js';
import { ndsCorrelateStopContext } from './nds-correlate-stop-context.js';

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
