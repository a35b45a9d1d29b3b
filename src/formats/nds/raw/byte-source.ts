// The parser's only view of a ROM: a size and a synchronous random-access read. Tests pass a buffer;
// the service passes a file-descriptor reader, so a 256 MiB ROM is never loaded whole just to parse
// its tables.
import { ReMcpError } from '../../../core/errors.js';

export interface ByteSource {
  /** Physical size of the file in bytes. */
  readonly size: number;
  /** Returns up to `length` bytes from `offset` (fewer only at the end of the file). */
  read(offset: number, length: number): Uint8Array;
}

export function bufferSource(bytes: Uint8Array): ByteSource {
  return {
    size: bytes.length,
    read: (offset, length) => bytes.subarray(offset, Math.min(bytes.length, offset + length)),
  };
}

/** Reads exactly `length` bytes or refuses the ROM, naming the structure that lies outside the file. */
export function readExact(source: ByteSource, offset: number, length: number, field: string): Uint8Array {
  if (offset < 0 || length < 0 || offset + length > source.size) {
    throw new ReMcpError('invalid-rom', `${field} lies outside the file`, { field, offset, length });
  }
  const bytes = source.read(offset, length);
  if (bytes.length !== length) {
    throw new ReMcpError('invalid-rom', `${field} could not be read in full`, { field, offset, length });
  }
  return bytes;
}

export function invalidRom(field: string, message: string, details: Record<string, unknown> = {}): never {
  throw new ReMcpError('invalid-rom', message, { field, ...details });
}
