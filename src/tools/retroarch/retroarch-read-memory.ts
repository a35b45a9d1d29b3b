// retroarch_read_memory: RetroArch: read the system memory map (shared shape with retroarch_read_ram).
import { readTool } from './memory-common.js';

export const retroarchReadMemory = readTool(
  'memory',
  'retroarch_read_memory',
  'RetroArch: read system memory',
  {
    purpose:
      "Reads bytes from the loaded core's system memory map (READ_CORE_MEMORY), e.g. GBA EWRAM at 0x02000000.",
    useWhen:
      'the core publishes a memory map (mGBA does). When this fails with no-memory-map (e.g. Nestopia), use retroarch_read_ram.',
    behaviour:
      'read-only; split into requests of up to 16 KiB, each re-sent on timeout. A read running past the end of a region returns fewer bytes (truncated: true). RetroArch -1 answers become typed errors: no-memory-map, no-descriptor.',
  },
);
