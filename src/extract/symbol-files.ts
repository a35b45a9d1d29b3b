// Symbol files in and out of the workspace: a caller's file read through the workspace's path policy
// (bounded, regular files only) and parsed by its format; an export written atomically beside the
// store under the ROM's directory, its name chosen by the server.
import { driveSteps } from '../core/cooperative.js';
import { ReMcpError } from '../core/errors.js';
import { detectSymbolFormat } from '../formats/symbols/detect.js';
import { ElfError, elfSymbolSteps } from '../formats/symbols/elf.js';
import { symbolTextSteps, writeSymbolText } from '../formats/symbols/text.js';
import type { ParsedSymbols, RawSymbol, SymbolFormat } from '../formats/symbols/types.js';
import type { RomHandle } from '../roms/rom-store.js';
import type { Workspace } from '../workspace/workspace.js';
import { romDirSegments } from './artifacts.js';
import type { StoredSymbol } from './symbol-store.js';

export const SYMBOL_FILE_LIMITS = {
  /** Bytes of a symbol file read for an import. */
  fileBytes: { max: 64 * 1024 * 1024, unit: 'bytes' },
  /** Time the parse of one file may take (it runs in slices: the server answers meanwhile). */
  parseMs: { max: 30_000, unit: 'milliseconds' },
} as const;

const EXTENSIONS: Record<Exclude<SymbolFormat, 'elf'>, string> = {
  nosgba: 'sym',
  'symbols-txt': 'symbols.txt',
  plain: 'txt',
  csv: 'csv',
};

/**
 * Reads and parses a workspace file of `format` (told from its content when not given:
 * detectSymbolFormat), in slices, within SYMBOL_FILE_LIMITS.parseMs.
 */
export async function readSymbolFile(
  workspace: Workspace,
  path: string,
  given: SymbolFormat | undefined,
  signal?: AbortSignal,
): Promise<{ path: string; parsed: ParsedSymbols; format: SymbolFormat }> {
  const { resolved, handle } = await workspace.openFile(path);
  let bytes: Buffer;
  try {
    const info = await handle.stat();
    if (info.size > SYMBOL_FILE_LIMITS.fileBytes.max)
      throw new ReMcpError(
        'limit-exceeded',
        `${resolved.relative} is ${info.size} bytes; a symbol file is read up to ${SYMBOL_FILE_LIMITS.fileBytes.max}`,
      );
    bytes = Buffer.alloc(info.size);
    let at = 0;
    while (at < bytes.length) {
      const { bytesRead } = await handle.read(bytes, at, bytes.length - at, at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    bytes = bytes.subarray(0, at);
  } finally {
    await handle.close();
  }
  let format: SymbolFormat;
  if (given !== undefined) format = given;
  else {
    const detected = detectSymbolFormat(bytes);
    if ('why' in detected) throw new ReMcpError('invalid-argument', `${resolved.relative}: ${detected.why}`);
    format = detected.format;
  }
  const drive = {
    ...(signal ? { signal } : {}),
    deadline: { ms: SYMBOL_FILE_LIMITS.parseMs.max, what: `reading the symbols of ${resolved.relative}` },
  };
  if (format === 'elf') {
    try {
      return {
        path: resolved.relative,
        // A view of the bytes read, not a copy: copying 4 MiB held the event loop 14-41 ms here.
        parsed: await driveSteps(
          elfSymbolSteps(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)),
          drive,
        ),
        format,
      };
    } catch (error) {
      if (error instanceof ElfError)
        throw new ReMcpError('invalid-argument', `${resolved.relative}: ${error.message}`);
      throw error;
    }
  }
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  return {
    path: resolved.relative,
    parsed: await driveSteps(symbolTextSteps(format, text), drive),
    format,
  };
}

/** Writes the names of `processor` (all when null) in `format`; returns the workspace-relative path. */
export async function exportSymbols(
  workspace: Workspace,
  rom: RomHandle,
  symbols: readonly StoredSymbol[],
  format: Exclude<SymbolFormat, 'elf'>,
  processor: 'arm9' | 'arm7' | null,
): Promise<{ path: string; count: number; omitted: string[] }> {
  // no$gba reads a name starting with '.' as a directive: such names cannot be written there.
  const representable = (s: StoredSymbol) => format !== 'nosgba' || !s.name.startsWith('.');
  const all = symbols.filter((s) => processor === null || s.processor === processor);
  const chosen = all.filter(representable);
  const omitted = all.filter((s) => !representable(s)).map((s) => s.name);
  const raw: RawSymbol[] = chosen.map((s) => ({
    address: s.address,
    name: s.name,
    mode: s.mode,
    size: s.size,
    comment: s.comment,
    processor: s.processor,
    overlayId: s.overlayId,
    line: 0,
  }));
  const [area, sha16] = romDirSegments(rom.identity.sha256) as [string, string];
  const name = `symbols${processor ? `-${processor}` : ''}.${EXTENSIONS[format]}`;
  const dir = await workspace.outputDir('analysis/generated', [area, sha16]);
  try {
    await dir.writeAtomic(name, writeSymbolText(format, raw));
    await dir.verifyInPlace();
    return { path: `${dir.relative}/${name}`, count: raw.length, omitted };
  } finally {
    await dir.close();
  }
}
