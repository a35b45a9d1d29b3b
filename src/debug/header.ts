// The few ROM facts the debugger needs before launch, taken from the canonical NDS model: each CPU's
// entry point and the runtime range of its main binary (which seeds the breakpoint allowlist; for a
// BLZ-compressed ARM9 that is the decoded range, which is what actually executes).
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { parseNdsRom } from '../formats/nds/index.js';
import type { MainExecutable } from '../formats/nds/model.js';

export interface CpuImage {
  entry: number;
  ramAddress: number;
  size: number;
}

export interface DebugHeader {
  gameTitle: string;
  gameCode: string;
  arm9: CpuImage;
  arm7: CpuImage;
}

function image(exe: MainExecutable): CpuImage {
  return {
    entry: exe.entryAddress,
    ramAddress: exe.runtime.start,
    size: exe.runtime.end - exe.runtime.start,
  };
}

/** Parses the ROM at `path` through a file-descriptor reader (tables only, never the whole file). */
export function readDebugHeader(path: string): DebugHeader {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const model = parseNdsRom({
      size,
      read(offset, length) {
        const buffer = new Uint8Array(Math.max(0, Math.min(length, size - offset)));
        let done = 0;
        while (done < buffer.length) {
          const n = readSync(fd, buffer, done, buffer.length - done, offset + done);
          if (n === 0) break;
          done += n;
        }
        return buffer.subarray(0, done);
      },
    });
    const printable = model.header.title.replace(/[^\x20-\x7e]/g, '?');
    return {
      gameTitle: printable,
      gameCode: model.header.gameCode,
      arm9: image(model.arm9),
      arm7: image(model.arm7),
    };
  } finally {
    closeSync(fd);
  }
}
