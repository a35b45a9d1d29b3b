// The debugger tools (profile runtime), in tools/list order: each emulator's own (`<prefix>_<verb>`,
// made from one definition per tool for every emulator), then the tools that serve every emulator.
import type { z } from 'zod/v4';
import type { Emulator } from '../../debug/backend.js';
import type { ToolDefinition } from '../../mcp/tool.js';
import {
  emuBreakpointAdd,
  emuBreakpointCondition,
  emuBreakpointList,
  emuBreakpointRemove,
  emuExecutableRangesReplace,
} from './breakpoints.js';
import { ndsCorrelateStopContext } from './correlate.js';
import {
  emuCaptureRuntimeEvidence,
  emuCaptureStopContext,
  emuDisassembleLive,
  emuReadMemory,
  emuReadRegisterPacket,
} from './inspect.js';
import { emuProbeGdb, emuStart, emuStatus, emuStop, emuWaitForGdb } from './lifecycle.js';
import { emuMemoryScanNarrow, emuMemoryScanResults, emuMemoryScanStart } from './memory-scan.js';
import { type EmulatorTool, forEmulator } from './per-emulator.js';
import {
  emuContinue,
  emuPause,
  emuStepInstruction,
  emuStepOut,
  emuStepOver,
  emuWaitForStop,
} from './run-control.js';
import { emuWatchpointAdd, emuWatchpointRemove } from './watchpoints.js';

const EMULATOR_TOOLS: readonly EmulatorTool<z.ZodObject, z.ZodObject>[] = [
  emuStart,
  emuStatus,
  emuStop,
  emuProbeGdb,
  emuWaitForGdb,
  emuReadRegisterPacket,
  emuReadMemory,
  emuBreakpointAdd,
  emuBreakpointRemove,
  emuBreakpointList,
  emuBreakpointCondition,
  emuContinue,
  emuStepInstruction,
  emuStepOver,
  emuStepOut,
  emuPause,
  emuWaitForStop,
  emuCaptureStopContext,
  emuCaptureRuntimeEvidence,
  emuExecutableRangesReplace,
  emuMemoryScanStart,
  emuMemoryScanNarrow,
  emuMemoryScanResults,
  emuWatchpointAdd,
  emuWatchpointRemove,
  emuDisassembleLive,
];

/** One emulator's tools. */
export function emulatorTools(emu: Emulator): ToolDefinition[] {
  return EMULATOR_TOOLS.map((def) => forEmulator(emu, def));
}

/** The tools that serve whichever emulator is running. */
export const sharedDebugTools = [ndsCorrelateStopContext];
