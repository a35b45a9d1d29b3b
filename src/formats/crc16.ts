// CRC-16/MODBUS (reflected polynomial 0xA001, initial value 0xFFFF, no final XOR): the checksum the
// NDS cartridge header uses for its logo (0x0C0..0x15B) and for itself (0x000..0x15D).
// Table-driven because the secure-area and header checks run on every inspection.

const TABLE = buildTable();

function buildTable(): Uint16Array {
  const table = new Uint16Array(256);
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xa001 : crc >>> 1;
    table[byte] = crc;
  }
  return table;
}

/** CRC-16/MODBUS of `bytes` (optionally continuing from a previous `crc`). */
export function crc16Modbus(bytes: Uint8Array, crc = 0xffff): number {
  let value = crc & 0xffff;
  for (let i = 0; i < bytes.length; i++) value = (value >>> 8) ^ TABLE[(value ^ bytes[i]!) & 0xff]!;
  return value;
}
