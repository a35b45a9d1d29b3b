// NDS structural tools (profile static, all read-only).
import { ndsResolveRomOffset, ndsResolveRuntimeAddress } from './addresses.js';
import { ndsListFiles, ndsListOverlays } from './files-and-overlays.js';
import { ndsInspectRom } from './nds-inspect-rom.js';
import { ndsReadBytes } from './nds-read-bytes.js';

export const ndsStructureTools = [
  ndsInspectRom,
  ndsListFiles,
  ndsListOverlays,
  ndsResolveRuntimeAddress,
  ndsResolveRomOffset,
  ndsReadBytes,
];
