import { desmumeBreakpointAdd } from './desmume-breakpoint-add.js';
import { desmumeBreakpointList } from './desmume-breakpoint-list.js';
import { desmumeBreakpointRemove } from './desmume-breakpoint-remove.js';
import { desmumeCaptureStopContext } from './desmume-capture-stop-context.js';
import { desmumeContinue } from './desmume-continue.js';
import { desmumeExecutableRangesReplace } from './desmume-executable-ranges-replace.js';
import { desmumePause } from './desmume-pause.js';
import { desmumeProbeGdb } from './desmume-probe-gdb.js';
import { desmumeReadMemory } from './desmume-read-memory.js';
import { desmumeReadRegisterPacket } from './desmume-read-register-packet.js';
import { desmumeStart } from './desmume-start.js';
import { desmumeStatus } from './desmume-status.js';
import { desmumeStepInstruction } from './desmume-step-instruction.js';
import { desmumeStop } from './desmume-stop.js';
import { desmumeWaitForGdb } from './desmume-wait-for-gdb.js';
import { desmumeWaitForStop } from './desmume-wait-for-stop.js';

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
  desmumeContinue,
  desmumeStepInstruction,
  desmumePause,
  desmumeWaitForStop,
  desmumeCaptureStopContext,
  desmumeExecutableRangesReplace,
];
