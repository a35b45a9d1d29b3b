// Writers for the ARM9 module params and the nitrocode footer, the inverses of their readers. The
// magic words are written as the format defines them (a record whose magic was wrong is not
// reproduced: the rebuild never writes an invalid record).
import { putU32 } from './le.js';
import {
  MODULE_PARAMS_SIZE,
  NITROCODE,
  NITROCODE_FOOTER_SIZE,
  NITROCODE_SWAPPED,
  type RawModuleParams,
  type RawNitrocodeFooter,
} from './module-params.js';

export function writeRawModuleParams(p: RawModuleParams): Uint8Array {
  const out = new Uint8Array(MODULE_PARAMS_SIZE);
  putU32(out, 0, p.autoloadListStart);
  putU32(out, 4, p.autoloadListEnd);
  putU32(out, 8, p.autoloadDataStart);
  putU32(out, 12, p.bssStart);
  putU32(out, 16, p.bssEnd);
  putU32(out, 20, p.compressedStaticEnd);
  putU32(out, 24, p.sdkVersion);
  putU32(out, 28, NITROCODE);
  putU32(out, 32, NITROCODE_SWAPPED);
  return out;
}

export function writeRawNitrocodeFooter(f: RawNitrocodeFooter): Uint8Array {
  const out = new Uint8Array(NITROCODE_FOOTER_SIZE);
  putU32(out, 0, NITROCODE);
  putU32(out, 4, f.moduleParamsOffset);
  putU32(out, 8, f.overlaySignaturesOffset);
  return out;
}
