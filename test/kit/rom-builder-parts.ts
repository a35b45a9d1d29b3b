// Low-level pieces of the test ROM builder, written from the format facts (GBATEK, the shared
// nds-formats notes) and independent of the product's parser: CRC-16, little-endian writers,
// deterministic payloads, and the FNT encoder.

/** A payload given as bytes, or generated on demand (so a 256 MiB ROM never sits in memory twice). */
export type Payload = Uint8Array | { length: number; seed: number };

export function payloadLength(p: Payload): number {
  return p.length;
}

/** Fills `out` with the payload bytes starting at `from` within the payload. */
export function payloadSlice(p: Payload, from: number, out: Uint8Array): void {
  if (p instanceof Uint8Array) {
    out.set(p.subarray(from, from + out.length));
    return;
  }
  for (let i = 0; i < out.length; i++) {
    const x = from + i;
    out[i] = (p.seed * 131 + x * 7 + (x >>> 9)) & 0xff;
  }
}

export function payloadBytes(p: Payload): Uint8Array {
  if (p instanceof Uint8Array) return p;
  const out = new Uint8Array(p.length);
  payloadSlice(p, 0, out);
  return out;
}

/** CRC-16/MODBUS, bit by bit (deliberately not table-driven like the product's). */
export function kitCrc16(bytes: Uint8Array): number {
  let crc = 0xffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xa001 : crc >>> 1;
  }
  return crc;
}

export function putU16(bytes: Uint8Array, at: number, value: number): void {
  bytes[at] = value & 0xff;
  bytes[at + 1] = (value >>> 8) & 0xff;
}

export function putU32(bytes: Uint8Array, at: number, value: number): void {
  new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).setUint32(at, value >>> 0, true);
}

export function getU32(bytes: Uint8Array, at: number): number {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(at, true);
}

/** Recomputes the logo CRC (0x15C) and then the header CRC (0x15E) of a ROM image in place. */
export function fixHeaderCrcs(bytes: Uint8Array): void {
  putU16(bytes, 0x15c, kitCrc16(bytes.subarray(0xc0, 0x15c)));
  putU16(bytes, 0x15e, kitCrc16(bytes.subarray(0, 0x15e)));
}

export interface KitDirectory {
  id: number;
  parentId: number;
  path: string;
  /** Child entries in order: files by name, directories by name + ID. */
  entries: Array<{ name: string; dirId?: number }>;
  firstFileId: number;
}

/** Encodes an FNT: the main directory table then every sub-table, in directory-ID order. */
export function encodeFnt(dirs: KitDirectory[]): Uint8Array {
  const enc = new TextEncoder();
  const subTables = dirs.map((dir) => {
    const parts: number[] = [];
    for (const entry of dir.entries) {
      const name = enc.encode(entry.name);
      if (name.length < 1 || name.length > 127) throw new Error(`bad FNT name length: ${entry.name}`);
      if (entry.dirId === undefined) parts.push(name.length, ...name);
      else parts.push(0x80 | name.length, ...name, entry.dirId & 0xff, entry.dirId >>> 8);
    }
    parts.push(0);
    return Uint8Array.from(parts);
  });
  const mainSize = dirs.length * 8;
  const total = mainSize + subTables.reduce((n, t) => n + t.length, 0);
  const out = new Uint8Array(total);
  let cursor = mainSize;
  dirs.forEach((dir, i) => {
    putU32(out, i * 8, cursor);
    putU16(out, i * 8 + 4, dir.firstFileId);
    putU16(out, i * 8 + 6, i === 0 ? dirs.length : dir.parentId);
    out.set(subTables[i]!, cursor);
    cursor += subTables[i]!.length;
  });
  return out;
}
