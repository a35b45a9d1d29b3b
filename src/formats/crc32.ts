// CRC-32 (reflected polynomial 0xEDB88320, initial and final XOR 0xFFFFFFFF): the checksum of PNG
// chunks, zlib, and of the source, target and patch in a BPS patch. Table-driven, continuable.

const TABLE: Uint32Array = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 of the bytes, continuing from `crc` when given (the CRC of what came before). */
export function crc32(bytes: Uint8Array, crc = 0): number {
  let c = ~crc >>> 0;
  for (let i = 0; i < bytes.length; i++) c = TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

// Combining CRCs without the bytes: the CRC of A followed by B from the CRCs of A and B and B's length
// (zlib's crc32_combine: the operator "append 2^i zero bytes" is a 32x32 matrix over GF(2), made by
// squaring the one-zero-bit matrix; the operators are made once and kept), and the CRC of n zero bytes.

function times(matrix: Uint32Array, vector: number): number {
  let sum = 0;
  for (let i = 0, v = vector >>> 0; v !== 0; i++, v >>>= 1) if (v & 1) sum ^= matrix[i]!;
  return sum >>> 0;
}

function squared(matrix: Uint32Array): Uint32Array {
  const out = new Uint32Array(32);
  for (let n = 0; n < 32; n++) out[n] = times(matrix, matrix[n]!);
  return out;
}

/** ZERO_BYTES[i]: the operator appending 2^i zero bytes (made as far as asked). */
const ZERO_BYTES: Uint32Array[] = [];

function zeroBytes(i: number): Uint32Array {
  if (ZERO_BYTES.length === 0) {
    const bit = new Uint32Array(32);
    bit[0] = 0xedb88320; // one zero bit
    for (let n = 1, row = 1; n < 32; n++, row *= 2) bit[n] = row;
    ZERO_BYTES.push(squared(squared(squared(bit)))); // eight zero bits
  }
  while (ZERO_BYTES.length <= i) ZERO_BYTES.push(squared(ZERO_BYTES[ZERO_BYTES.length - 1]!));
  return ZERO_BYTES[i]!;
}

/** CRC-32 of A then B, from crc32(A), crc32(B) and B's length in bytes (any safe integer). */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  let crc = crcA >>> 0;
  for (let i = 0, rest = lengthB; rest > 0; i++, rest = Math.floor(rest / 2))
    if (rest % 2 === 1) crc = times(zeroBytes(i), crc);
  return (crc ^ crcB) >>> 0;
}

/** ZEROS[i]: crc32 of 2^i zero bytes. */
const ZEROS: number[] = [];

/** CRC-32 of `n` zero bytes. */
export function crc32Zeros(n: number): number {
  if (ZEROS.length === 0) ZEROS.push(crc32(new Uint8Array(1)));
  let crc = 0;
  for (let i = 0, rest = n; rest > 0; i++, rest = Math.floor(rest / 2)) {
    // crc(0^2k) = combine(crc(0^k), crc(0^k), k)
    while (ZEROS.length <= i) {
      const k = 2 ** (ZEROS.length - 1);
      ZEROS.push(crc32Combine(ZEROS[ZEROS.length - 1]!, ZEROS[ZEROS.length - 1]!, k));
    }
    if (rest % 2 === 1) crc = crc32Combine(crc, ZEROS[i]!, 2 ** i);
  }
  return crc;
}
