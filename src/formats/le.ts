// Little-endian loads and stores of 16- and 32-bit words: the one definition every byte format
// (NDS tables, the BLZ footer, BPS), the ARM decoder and the debugger read and write their words with.
export function u16(bytes: Uint8Array, at: number): number {
  return bytes[at]! | (bytes[at + 1]! << 8);
}

export function u32(bytes: Uint8Array, at: number): number {
  return (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;
}

/** The word at `at` as a signed 32-bit integer: u32's bits, for keys and int32 arithmetic. */
export function i32(bytes: Uint8Array, at: number): number {
  return bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24);
}

/** The unsigned value of the `width` bytes at `at` (1 to 6: every such value is exact in a number). */
export function uint(bytes: Uint8Array, at: number, width: number): number {
  let v = 0;
  for (let i = width - 1; i >= 0; i--) v = v * 256 + bytes[at + i]!;
  return v;
}

/** The same bytes read as two's complement. */
export function int(bytes: Uint8Array, at: number, width: number): number {
  const v = uint(bytes, at, width);
  return v >= 2 ** (8 * width - 1) ? v - 2 ** (8 * width) : v;
}

export function putU16(bytes: Uint8Array, at: number, value: number): void {
  bytes[at] = value & 0xff;
  bytes[at + 1] = (value >>> 8) & 0xff;
}

export function putU32(bytes: Uint8Array, at: number, value: number): void {
  bytes[at] = value & 0xff;
  bytes[at + 1] = (value >>> 8) & 0xff;
  bytes[at + 2] = (value >>> 16) & 0xff;
  bytes[at + 3] = (value >>> 24) & 0xff;
}
