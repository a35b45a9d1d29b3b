// The only requests the debugger may send, and parsers for the replies they get. A request is a typed
// value, never a caller string: there is deliberately no way to build a register write, a memory
// write or an arbitrary packet here (the security model allows exactly these ten). Watchpoints
// (Z2/Z3/Z4) are allowed for the stubs that honour them; see src/debug/watchpoints.ts. How large one
// memory read may be is the stub's limit, which the caller passes (a backend's quirk).
import type { ArmMode } from '../../arm/types.js';
import { ReMcpError } from '../../core/errors.js';
import { MAX_INBOUND_PAYLOAD } from './codec.js';

/** A software breakpoint's size, said as the instruction set it patches (4 bytes ARM, 2 Thumb). */
export type BreakpointKind = ArmMode;

export type AllowedRequest =
  | { op: 'stop-status' }
  | { op: 'read-registers' }
  | { op: 'read-memory'; address: number; length: number }
  | { op: 'insert-breakpoint'; address: number; kind: BreakpointKind }
  | { op: 'remove-breakpoint'; address: number; kind: BreakpointKind }
  | { op: 'insert-watchpoint'; address: number; length: 1 | 2 | 4; type: 2 | 3 | 4 }
  | { op: 'remove-watchpoint'; address: number; length: 1 | 2 | 4; type: 2 | 3 | 4 }
  | { op: 'continue' }
  | { op: 'step' }
  | { op: 'start-no-ack-mode' };

/** The largest memory read any stub may be asked for: its reply (two hex digits a byte) must fit the decoder. */
export const MEMORY_CHUNK_CEILING = MAX_INBOUND_PAYLOAD / 2;

function checkAddress(address: number): void {
  if (!Number.isInteger(address) || address < 0 || address > 0xffff_ffff) {
    throw new ReMcpError('invalid-argument', `address out of the 32-bit space: ${address}`);
  }
}

/** The stub wants bare lowercase hex without 0x. */
function hex(n: number): string {
  return n.toString(16);
}

/** The packet of `req`; a memory read is bounded by `maxMemoryChunk`, the stub's largest safe read. */
export function buildRequest(req: AllowedRequest, maxMemoryChunk: number = MEMORY_CHUNK_CEILING): string {
  switch (req.op) {
    case 'stop-status':
      return '?';
    case 'read-registers':
      return 'g';
    case 'read-memory':
      checkAddress(req.address);
      if (
        !Number.isInteger(req.length) ||
        req.length < 1 ||
        req.length > Math.min(maxMemoryChunk, MEMORY_CHUNK_CEILING)
      ) {
        throw new ReMcpError(
          'limit-exceeded',
          `one memory packet reads 1..${Math.min(maxMemoryChunk, MEMORY_CHUNK_CEILING)} bytes`,
        );
      }
      if (req.address + req.length > 0x1_0000_0000) {
        throw new ReMcpError('invalid-argument', 'the read runs past the end of the address space');
      }
      return `m${hex(req.address)},${hex(req.length)}`;
    case 'insert-breakpoint':
    case 'remove-breakpoint': {
      checkAddress(req.address);
      // Kind is the instruction size: 4 for ARM, 2 for Thumb. The stub checks at fetch; memory is not patched.
      const size = req.kind === 'arm' ? 4 : 2;
      if (req.address % size !== 0) {
        throw new ReMcpError('invalid-argument', `${req.kind} breakpoints must be ${size}-byte aligned`);
      }
      return `${req.op === 'insert-breakpoint' ? 'Z' : 'z'}0,${hex(req.address)},${size}`;
    }
    case 'insert-watchpoint':
    case 'remove-watchpoint':
      checkAddress(req.address);
      if (
        ![1, 2, 4].includes(req.length) ||
        req.address % req.length !== 0 ||
        ![2, 3, 4].includes(req.type)
      ) {
        throw new ReMcpError('invalid-argument', 'a watchpoint is 1, 2 or 4 aligned bytes of type 2, 3 or 4');
      }
      return `${req.op === 'insert-watchpoint' ? 'Z' : 'z'}${req.type},${hex(req.address)},${hex(req.length)}`;
    case 'continue':
      return 'c';
    case 'step':
      return 's';
    case 'start-no-ack-mode':
      return 'QStartNoAckMode';
  }
}

/** True for stop replies (`S05`, `T05...`, `W00`, `X09`): the only unsolicited packets a stub sends. */
export function isStopReply(payload: string): boolean {
  return /^[STWX][0-9a-fA-F]{2}/.test(payload);
}

export interface StopReply {
  /** `signal` for S/T, `exited` for W, `terminated` for X. */
  kind: 'signal' | 'exited' | 'terminated';
  /** 5 = SIGTRAP (breakpoint or step), 2 = SIGINT (interrupt). */
  signal: number;
  raw: string;
}

export function parseStopReply(payload: string): StopReply {
  if (!isStopReply(payload)) throw new ReMcpError('protocol-error', `not a stop reply: ${clip(payload)}`);
  const value = Number.parseInt(payload.slice(1, 3), 16);
  const kind = payload[0] === 'W' ? 'exited' : payload[0] === 'X' ? 'terminated' : 'signal';
  return { kind, signal: value, raw: payload };
}

/**
 * A W or X stop reply means there is no target left to inspect: the typed error saying so (exit status
 * or terminating signal), or null for an S/T reply (a stop with a signal, registers readable).
 */
export function targetGoneError(stop: StopReply): ReMcpError | null {
  if (stop.kind === 'signal') return null;
  const what =
    stop.kind === 'exited'
      ? `the target exited with status ${stop.signal}`
      : `the target was terminated by signal ${stop.signal}`;
  return new ReMcpError('emulator-exited', `${what} (stub reply ${clip(stop.raw)})`, {
    stopReply: clip(stop.raw),
    kind: stop.kind,
    value: stop.signal,
  });
}

/** An `m` reply: exactly `length` bytes of hex. `Enn` is an error reply; anything else is a protocol fault. */
export function parseMemoryReply(payload: string, length: number): Uint8Array {
  if (/^E[0-9a-fA-F]{2}$/.test(payload)) {
    throw new ReMcpError('protocol-error', `the stub refused the memory read (${payload})`);
  }
  if (payload.length !== length * 2 || !/^[0-9a-fA-F]*$/.test(payload)) {
    throw new ReMcpError(
      'protocol-error',
      `memory reply: expected ${length * 2} hex digits, got ${payload.length}: ${clip(payload)}`,
    );
  }
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = Number.parseInt(payload.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** `OK` confirms a breakpoint change; an empty reply means the stub does not support it. */
export function parseOkReply(payload: string, what: string): void {
  if (payload === 'OK') return;
  if (payload === '') throw new ReMcpError('unsupported', `the stub does not support ${what}`);
  throw new ReMcpError('protocol-error', `${what}: the stub answered ${clip(payload)}`);
}

/** Splits a read into pieces of at most `chunk` bytes (the stub's largest safe read). */
export function memoryChunks(
  address: number,
  length: number,
  chunk: number,
): Array<{ address: number; length: number }> {
  if (!Number.isInteger(chunk) || chunk < 1)
    throw new Error(`memory chunk must be a positive integer: ${chunk}`);
  const chunks: Array<{ address: number; length: number }> = [];
  for (let done = 0; done < length; done += chunk) {
    chunks.push({ address: address + done, length: Math.min(chunk, length - done) });
  }
  return chunks;
}

function clip(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}...` : text);
}
