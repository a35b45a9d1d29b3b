// PURE codec for RetroArch's Network Control Interface (plain-text UDP commands). It builds command
// datagrams, says which reply (if any) each command gets and how to recognise it, and parses replies.
// No sockets here: src/retroarch/transport.ts moves the bytes. Facts below were observed on a real
// RetroArch 1.14.0 (see ../shared/reference/emulators.md).
import { ReMcpError } from '../core/errors.js';
import { formatAddress } from '../core/vocabulary.js';
import { putU16, putU32 } from '../formats/le.js';

/**
 * Hotkey-like commands (FRAMEADVANCE, PAUSE_TOGGLE, STATE_SLOT_*...) are edge-triggered once per main
 * loop turn: presses closer than ~50 ms merge or are lost, so they are sent at least this far apart.
 */
export const PRESS_SPACING_MS = 60;
/** After a press while paused the loop sleeps ~10 ms: wait this long before looking at the effect. */
export const SETTLE_MS = 30;
/** Frames one call advances or holds. */
export const MAX_FRAMES = 600;

/** RetroArch cuts incoming datagrams at 2,047 bytes; we stay under that with room to spare. */
export const MAX_COMMAND_BYTES = 2_000;
/** Largest READ answered was 21,827 bytes (beyond that: no reply at all). 16 KiB keeps a margin. */
export const READ_CHUNK_BYTES = 16_384;

export type Version = readonly [number, number, number];

/** Commands that exist only from some version on. Anything not listed is in 1.14 (what we test). */
export const COMMAND_SINCE: Readonly<Record<string, Version>> = {
  // Added by libretro/RetroArch PR #15010 (Feb 2023), first released in 1.15.0.
  LOAD_STATE_SLOT: [1, 15, 0],
  // Added upstream in May 2026; the first release carrying it is not pinned down here, so the gate is
  // set high on purpose: older versions fall back to walking the slot pointer, which always works.
  SAVE_STATE_SLOT: [1, 23, 0],
};

/** A query: the datagram to send and the key its reply will carry (replies have no request id). */
export interface Query {
  datagram: string;
  key: string;
}

export function parseVersion(text: string): Version | null {
  const m = /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(text.trim());
  if (!m) return null;
  return [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
}

export function versionAtLeast(v: Version, min: Version): boolean {
  for (let i = 0; i < 3; i++) {
    if (v[i]! !== min[i]!) return v[i]! > min[i]!;
  }
  return true;
}

export function formatVersion(v: Version): string {
  return v.join('.');
}

/** Throws `unsupported` when `command` is newer than the detected version. */
export function requireCommand(command: string, version: Version): void {
  const since = COMMAND_SINCE[command];
  if (since && !versionAtLeast(version, since)) {
    throw new ReMcpError(
      'unsupported',
      `${command} needs RetroArch ${formatVersion(since)} or newer; this one is ${formatVersion(version)}`,
      { command, since: formatVersion(since), version: formatVersion(version) },
    );
  }
}

/** RetroArch echoes addresses as lowercase hex without 0x or leading zeros. */
export function addressKey(address: number): string {
  return address.toString(16);
}

function checkAddress(address: number): void {
  if (!Number.isSafeInteger(address) || address < 0 || address > 0xffff_ffff) {
    throw new ReMcpError('invalid-argument', `address must be 0..0xFFFFFFFF, got ${address}`);
  }
}

export const versionQuery = (): Query => ({ datagram: 'VERSION', key: 'VERSION' });
export const statusQuery = (): Query => ({ datagram: 'GET_STATUS', key: 'GET_STATUS' });

/** Keys are restricted to RetroArch's setting-name alphabet: a space or newline would smuggle commands. */
export function configQuery(name: string): Query {
  if (!/^[A-Za-z0-9_]{1,64}$/.test(name)) {
    throw new ReMcpError('invalid-argument', 'config key must be 1-64 characters of A-Z a-z 0-9 _');
  }
  return { datagram: `GET_CONFIG_PARAM ${name}`, key: `GET_CONFIG_PARAM ${name}` };
}

/** RetroArch's two address spaces: the core's memory map, and the achievements (RAM) address space. */
export const MEMORY_SPACES = ['memory', 'ram'] as const;
export type Space = (typeof MEMORY_SPACES)[number];
const READ_CMD: Record<Space, string> = { memory: 'READ_CORE_MEMORY', ram: 'READ_CORE_RAM' };

/** Lengths are DECIMAL on the wire (a `0x10` length reads zero bytes); addresses are hex. */
export function readQuery(space: Space, address: number, length: number): Query {
  checkAddress(address);
  if (!Number.isInteger(length) || length < 1 || length > READ_CHUNK_BYTES) {
    throw new ReMcpError('invalid-argument', `one read request is 1..${READ_CHUNK_BYTES} bytes`);
  }
  const cmd = READ_CMD[space];
  return { datagram: `${cmd} ${addressKey(address)} ${length}`, key: `${cmd} ${addressKey(address)}` };
}

function hexBytes(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) {
    if (i > 0) out += ' ';
    out += bytes[i]!.toString(16).padStart(2, '0').toUpperCase();
  }
  return out;
}

const WRITE_CMD: Record<Space, string> = { memory: 'WRITE_CORE_MEMORY', ram: 'WRITE_CORE_RAM' };

export interface WritePiece {
  address: number;
  bytes: Uint8Array;
  datagram: string;
  /** Reply key for WRITE_CORE_MEMORY; `null` for WRITE_CORE_RAM, which RetroArch never answers. */
  key: string | null;
}

/** Splits a write so every datagram stays under RetroArch's receive limit (3 characters per byte). */
export function planWrite(space: Space, address: number, bytes: Uint8Array): WritePiece[] {
  checkAddress(address);
  if (bytes.length === 0) throw new ReMcpError('invalid-argument', 'nothing to write');
  if (address + bytes.length - 1 > 0xffff_ffff) {
    throw new ReMcpError('invalid-argument', 'the write runs past address 0xFFFFFFFF');
  }
  const cmd = WRITE_CMD[space];
  const pieces: WritePiece[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const at = address + offset;
    const header = `${cmd} ${addressKey(at)} `;
    const fits = Math.floor((MAX_COMMAND_BYTES - header.length + 1) / 3);
    const chunk = bytes.subarray(offset, offset + fits);
    pieces.push({
      address: at,
      bytes: chunk,
      datagram: header + hexBytes(chunk),
      key: space === 'memory' ? `${cmd} ${addressKey(at)}` : null,
    });
    offset += chunk.length;
  }
  return pieces;
}

/** Splits a read into requests RetroArch answers. */
export function planRead(address: number, length: number): Array<{ address: number; length: number }> {
  checkAddress(address);
  const out: Array<{ address: number; length: number }> = [];
  for (let offset = 0; offset < length; offset += READ_CHUNK_BYTES) {
    out.push({ address: address + offset, length: Math.min(READ_CHUNK_BYTES, length - offset) });
  }
  return out;
}

/** SHOW_MSG text: one line of printable characters (a newline would start a second command). */
export function showMessageCommand(text: string): string {
  if (text.length === 0 || text.length > 200) {
    throw new ReMcpError('invalid-argument', 'message must be 1..200 characters');
  }
  if (/[\u0000-\u001f\u007f]/.test(text)) {
    throw new ReMcpError('invalid-argument', 'message must be a single line without control characters');
  }
  return `SHOW_MSG ${text}`;
}

export function slotCommand(command: 'LOAD_STATE_SLOT' | 'SAVE_STATE_SLOT', slot: number): string {
  if (!Number.isInteger(slot) || slot < 0 || slot > 999) {
    throw new ReMcpError('invalid-argument', 'slot must be 0..999');
  }
  return `${command} ${slot}`;
}

// ---------------------------------------------------------------------------------------------
// Replies

/** The key a reply datagram answers, or null when it is nothing we asked for. */
export function replyKey(text: string): string | null {
  if (parseVersion(text) !== null) return 'VERSION';
  const m = /^([A-Z_]+)(?: (\S+))?/.exec(text);
  if (!m) return null;
  const [, cmd, arg] = m;
  switch (cmd) {
    case 'GET_STATUS':
      return 'GET_STATUS';
    case 'GET_CONFIG_PARAM':
    case 'READ_CORE_MEMORY':
    case 'READ_CORE_RAM':
    case 'WRITE_CORE_MEMORY':
      return arg === undefined ? null : `${cmd} ${cmd.startsWith('GET') ? arg : arg.toLowerCase()}`;
    default:
      return null;
  }
}

export const RUN_STATES = ['playing', 'paused', 'contentless'] as const;

export interface Status {
  state: (typeof RUN_STATES)[number];
  system: string | null;
  game: string | null;
  crc32: string | null;
}

/** `GET_STATUS PLAYING|PAUSED <system>,<game>,crc32=<hex>` or `GET_STATUS CONTENTLESS`. */
export function parseStatus(text: string): Status {
  const body = text.trim();
  const m = /^GET_STATUS (PLAYING|PAUSED|CONTENTLESS)(?: (.*))?$/s.exec(body);
  if (!m) throw protocolError('GET_STATUS', body);
  const state = m[1]!.toLowerCase() as Status['state'];
  if (state === 'contentless' || m[2] === undefined) return { state, system: null, game: null, crc32: null };
  let rest = m[2];
  let crc32: string | null = null;
  // The game name may itself contain commas: the system is before the first, the CRC after the last.
  const crc = /,crc32=([0-9a-fA-F]+)$/.exec(rest);
  if (crc) {
    crc32 = crc[1]!.toLowerCase().padStart(8, '0');
    rest = rest.slice(0, crc.index);
  }
  const comma = rest.indexOf(',');
  const system = comma < 0 ? rest : rest.slice(0, comma);
  const game = comma < 0 ? null : rest.slice(comma + 1);
  return { state, system: system || null, game: game || null, crc32 };
}

/** `GET_CONFIG_PARAM <name> <value>`; `unsupported` means RetroArch does not expose that key. */
export function parseConfig(text: string, name: string): { supported: boolean; value: string | null } {
  const body = text.replace(/\n$/, '');
  const prefix = `GET_CONFIG_PARAM ${name}`;
  if (!body.startsWith(prefix)) throw protocolError('GET_CONFIG_PARAM', body);
  const value = body.slice(prefix.length).replace(/^ /, '');
  if (value === 'unsupported') return { supported: false, value: null };
  return { supported: true, value };
}

/** Maps RetroArch's `-1 <reason>` to a typed error carrying its own words. */
function failure(cmd: string, address: number, reason: string): ReMcpError {
  const where = formatAddress(address);
  const details = { command: cmd, address: where, retroarchReason: reason || null };
  if (/no memory map/i.test(reason)) {
    return new ReMcpError(
      'no-memory-map',
      `${cmd} ${where}: the loaded core exposes no memory map (RetroArch: "${reason}")`,
      details,
    );
  }
  if (/readonly|read-only|read only/i.test(reason)) {
    return new ReMcpError(
      'read-only',
      `${cmd} ${where}: that region is read-only (RetroArch: "${reason}")`,
      details,
    );
  }
  if (/descriptor/i.test(reason)) {
    return new ReMcpError(
      'no-descriptor',
      `${cmd} ${where}: no memory descriptor covers that address (RetroArch: "${reason}")`,
      details,
    );
  }
  // READ_CORE_RAM answers a bare `-1`: the address is outside the achievements address space (or the
  // core exposes none).
  return new ReMcpError(
    'no-descriptor',
    `${cmd} ${where}: RetroArch answered -1${reason ? ` (${reason})` : ' with no reason: the address is outside the readable space'}`,
    details,
  );
}

function protocolError(cmd: string, body: string): ReMcpError {
  return new ReMcpError('protocol-error', `unexpected ${cmd} reply: ${JSON.stringify(body.slice(0, 120))}`);
}

/** `READ_CORE_* <addr> XX XX ...` (possibly fewer than asked: cut at a region end) or `... -1 reason`. */
export function parseReadReply(space: Space, address: number, text: string): Uint8Array {
  const cmd = READ_CMD[space];
  const body = text.replace(/\n$/, '');
  const prefix = `${cmd} ${addressKey(address)}`;
  if (!body.startsWith(prefix)) throw protocolError(cmd, body);
  const rest = body.slice(prefix.length).trim();
  if (rest === '-1' || rest.startsWith('-1 ')) throw failure(cmd, address, rest.slice(2).trim());
  if (rest === '') return new Uint8Array(0);
  const tokens = rest.split(' ');
  const out = new Uint8Array(tokens.length);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (!/^[0-9A-Fa-f]{2}$/.test(t)) throw protocolError(cmd, body);
    out[i] = Number.parseInt(t, 16);
  }
  return out;
}

/** `WRITE_CORE_MEMORY <addr> <count>` or `... -1 <reason>`. Returns the count RetroArch confirms. */
export function parseWriteReply(address: number, text: string, requested?: number): number {
  const body = text.replace(/\n$/, '');
  const prefix = `WRITE_CORE_MEMORY ${addressKey(address)} `;
  if (!body.startsWith(prefix)) throw protocolError('WRITE_CORE_MEMORY', body);
  const rest = body.slice(prefix.length).trim();
  if (rest === '-1' || rest.startsWith('-1 '))
    throw failure('WRITE_CORE_MEMORY', address, rest.slice(2).trim());
  if (!/^\d+$/.test(rest)) throw protocolError('WRITE_CORE_MEMORY', body);
  const count = Number(rest);
  // Confirming more bytes than were sent (or a count past any integer) is not a short write: the
  // reply is not an answer to this request.
  if (!Number.isSafeInteger(count) || (requested !== undefined && count > requested))
    throw protocolError('WRITE_CORE_MEMORY', body);
  return count;
}

/** How many bytes a read reply carries, without fully parsing it (used to tell replies apart). */
export function readReplyCount(text: string): number {
  const body = text.replace(/\n$/, '');
  const parts = body.split(' ');
  if (parts[2] === '-1') return -1;
  return Math.max(0, parts.length - 2);
}

/** Throws `not-running` when RetroArch has no content (nothing to pause, save or reset). */
export function requireContent(s: Status): void {
  if (s.state === 'contentless') {
    throw new ReMcpError('not-running', 'RetroArch has no content loaded (GET_STATUS CONTENTLESS)');
  }
}

// RetroArch's network remote pad (not the command interface): one UDP port per player, base port +
// player - 1, each datagram the C struct {int32 port; int32 device; int32 index; int32 id; uint16
// state} little-endian with its 2 bytes of tail padding (20 bytes; 18-byte datagrams are ignored).
// A button's state holds until the next datagram for that button.

/** The libretro joypad buttons, in id order (B is 0). */
export const PAD_BUTTONS = [
  'b',
  'y',
  'select',
  'start',
  'up',
  'down',
  'left',
  'right',
  'a',
  'x',
  'l',
  'r',
  'l2',
  'r2',
  'l3',
  'r3',
] as const;
export type PadButton = (typeof PAD_BUTTONS)[number];
export const PAD_DATAGRAM_BYTES = 20;
export const MAX_PLAYERS = 4;
const RETRO_DEVICE_JOYPAD = 1;

/** The datagram that presses (or releases) `button` of `player` (1-based). */
export function padDatagram(player: number, button: PadButton, pressed: boolean): Uint8Array {
  if (!Number.isInteger(player) || player < 1 || player > MAX_PLAYERS)
    throw new RangeError(`player must be 1..${MAX_PLAYERS}`);
  const id = PAD_BUTTONS.indexOf(button);
  if (id < 0) throw new RangeError(`unknown button ${String(button)}`);
  const out = new Uint8Array(PAD_DATAGRAM_BYTES);
  putU32(out, 0, player - 1);
  putU32(out, 4, RETRO_DEVICE_JOYPAD);
  putU32(out, 8, 0);
  putU32(out, 12, id);
  putU16(out, 16, pressed ? 1 : 0);
  return out;
}
