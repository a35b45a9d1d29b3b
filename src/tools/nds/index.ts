// NDS structural tools (profile static, all read-only).
import { ndsInspectRom } from './nds-inspect-rom.js';
import { ndsListFiles } from './nds-list-files.js';
import { ndsListOverlays } from './nds-list-overlays.js';
import { ndsReadBytes } from './nds-read-bytes.js';
import { ndsResolveRomOffset } from './nds-resolve-rom-offset.js';
import { ndsResolveRuntimeAddress } from './nds-resolve-runtime-address.js';

export const ndsStructureTools = [
  ndsInspectRom,
  ndsListFiles,
  ndsListOverlays,
  ndsResolveRuntimeAddress,
  ndsResolveRomOffset,
  ndsReadBytes,
];
