// retroarch_read_memory: RetroArch: read the system memory map (shared shape with retroarch_read_ram).
import { readTool } from './memory-common.js';

export const retroarchReadMemory = readTool(
  'memory',
  'retroarch_read_memory',
  'RetroArch: read system memory',
  {
    purpose: "Reads the core's system memory map (READ_CORE_MEMORY), e.g. GBA EWRAM at 0x02000000.",
    useWhen: 'cores with a memory map (mGBA); on no-memory-map (Nestopia) retroarch_read_ram.',
    behaviour:
      "fewer bytes past a region's end (truncated); -1 answers become no-memory-map or no-descriptor.",
  },
);
