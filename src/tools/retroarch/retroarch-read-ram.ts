// retroarch_read_ram: RetroArch: read achievements RAM (shared shape with retroarch_read_memory).
import { readTool } from './memory-common.js';

export const retroarchReadRam = readTool('ram', 'retroarch_read_ram', 'RetroArch: read achievements RAM', {
  purpose: 'Reads the RetroAchievements address space (READ_CORE_RAM), e.g. NES RAM at $0000-$07FF.',
  useWhen: 'no memory map (retroarch_read_memory: no-memory-map), or achievement addresses.',
  behaviour:
    "only the start is checked: bytes past the space's end are meaningless; a start outside is no-descriptor.",
});
