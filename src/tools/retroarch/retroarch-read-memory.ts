// retroarch_read_memory: RetroArch: read the system memory map (shared shape with retroarch_read_ram).
import { readTool } from './memory-common.js';

export const retroarchReadMemory = readTool(
  'memory',
  'retroarch_read_memory',
  'RetroArch: read system memory',
  {
    purpose:
      "Reads bytes from the core's system memory map (READ_CORE_MEMORY), e.g. GBA EWRAM at 0x02000000.",
    useWhen:
      'the core publishes a memory map (mGBA does); on no-memory-map (e.g. Nestopia) use retroarch_read_ram.',
    behaviour:
      'past the end of a region returns fewer bytes (truncated); RetroArch -1 answers become no-memory-map or no-descriptor.',
  },
);
