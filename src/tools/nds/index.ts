// NDS structural tools (profile static, all read-only).
import { ndsInspectRom } from './inspect-rom.js';
import { ndsListFiles } from './list-files.js';
import { ndsListOverlays } from './list-overlays.js';
import { ndsResolveRomOffset, ndsResolveRuntimeAddress } from './resolve.js';

export const ndsStructureTools = [
  ndsInspectRom,
  ndsListFiles,
  ndsListOverlays,
  ndsResolveRuntimeAddress,
  ndsResolveRomOffset,
];
