// retroarch_read_ram: RetroArch: read achievements RAM (shared shape with retroarch_read_memory).
import { readTool } from './memory-common.js';

export const retroarchReadRam = readTool('ram', 'retroarch_read_ram', 'RetroArch: read achievements RAM', {
  purpose:
    'Reads bytes from the RetroAchievements address space (READ_CORE_RAM), e.g. NES RAM at $0000-$07FF.',
  useWhen:
    'the core has no memory map (retroarch_read_memory says no-memory-map), or for achievement addresses.',
  behaviour:
    'RetroArch checks only the start address: bytes past the end of the space are not meaningful; a start outside gives no-descriptor.',
});
