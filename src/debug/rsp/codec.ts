// Pure GDB remote-serial-protocol codec. Framing is `$payload#cc` with cc the modulo-256 sum of the
// payload bytes in two hex digits; inside a payload `}` escapes the next byte XOR 0x20, and `*`
// introduces a run-length repeat; `+` and `-` between packets acknowledge. A stub's own limits (its
// largest memory read, its register layout, whether it acknowledges) are its backend's quirks, not
// this file's. This file never touches a socket: it turns bytes into events and requests into bytes.
import { ReMcpError } from '../../core/errors.js';

/**
 * Largest payload we accept from a stub: the reply to the largest memory read any stub may be asked
 * for (2,048 bytes, two hex digits each). Anything larger is garbage, reported rather than buffered.
 */
export const MAX_INBOUND_PAYLOAD = 4_096;
/** The interrupt request is a bare byte outside any packet. */
export const INTERRUPT_BYTE = 0x03;

const DOLLAR = 0x24;
const HASH = 0x23;
const ESCAPE = 0x7d;
const RUN = 0x2a;

export function checksum(bytes: Uint8Array): number {
  let sum = 0;
  for (const b of bytes) sum = (sum + b) & 0xff;
  return sum;
}

function hex2(n: number): string {
  return n.toString(16).padStart(2, '0');
}

/** Frames a payload. Bytes with a framing meaning are escaped, so any payload round-trips. */
export function encodePacket(payload: string): Uint8Array {
  const body: number[] = [];
  for (let i = 0; i < payload.length; i++) {
    const c = payload.charCodeAt(i);
    if (c > 0xff) throw new ReMcpError('invalid-argument', 'an RSP payload is 8-bit text');
    if (c === DOLLAR || c === HASH || c === ESCAPE || c === RUN) body.push(ESCAPE, c ^ 0x20);
    else body.push(c);
  }
  const bytes = Uint8Array.from(body);
  const trailer = `#${hex2(checksum(bytes))}`;
  const out = new Uint8Array(bytes.length + 4);
  out[0] = DOLLAR;
  out.set(bytes, 1);
  for (let i = 0; i < 3; i++) out[bytes.length + 1 + i] = trailer.charCodeAt(i);
  return out;
}

export type RspEvent =
  | { type: 'ack' }
  | { type: 'nack' }
  | { type: 'packet'; payload: string }
  | { type: 'bad-packet'; reason: string };

type State = 'idle' | 'body' | 'escape' | 'run' | 'sum1' | 'sum2';

/**
 * Incremental decoder: feed it whatever the socket delivered, get complete events back. Bytes between
 * packets other than `+`/`-` are noise and dropped. Payloads are bounded; an oversize packet is
 * reported as bad (and skipped) rather than buffered without limit.
 */
export class RspDecoder {
  private state: State = 'idle';
  private body: number[] = [];
  private sum = 0;
  private received = '';
  private overflow = false;
  private malformed = false;

  push(chunk: Uint8Array): RspEvent[] {
    const events: RspEvent[] = [];
    for (const b of chunk) {
      switch (this.state) {
        case 'idle':
          if (b === 0x2b) events.push({ type: 'ack' });
          else if (b === 0x2d) events.push({ type: 'nack' });
          else if (b === DOLLAR) this.begin();
          break;
        case 'body':
          if (b === HASH) this.state = 'sum1';
          else {
            this.sum = (this.sum + b) & 0xff;
            if (b === ESCAPE) this.state = 'escape';
            else if (b === RUN) this.state = 'run';
            else this.append(b);
          }
          break;
        case 'escape':
          this.sum = (this.sum + b) & 0xff;
          this.append(b ^ 0x20);
          this.state = 'body';
          break;
        case 'run':
          // `X*n` repeats the previous byte n - 29 more times (only raw `*` marks a run, not `}\n`).
          this.sum = (this.sum + b) & 0xff;
          this.repeat(b - 29);
          this.state = 'body';
          break;
        case 'sum1':
          this.received = String.fromCharCode(b);
          this.state = 'sum2';
          break;
        case 'sum2':
          this.received += String.fromCharCode(b);
          this.state = 'idle';
          events.push(this.finish());
          break;
      }
    }
    return events;
  }

  private begin(): void {
    this.state = 'body';
    this.body = [];
    this.sum = 0;
    this.overflow = false;
    this.malformed = false;
  }

  private append(b: number): void {
    if (this.body.length >= MAX_INBOUND_PAYLOAD) this.overflow = true;
    else this.body.push(b);
  }

  private repeat(count: number): void {
    if (this.body.length === 0 || count < 0) {
      this.malformed = true;
      return;
    }
    const last = this.body[this.body.length - 1]!;
    for (let k = 0; k < count; k++) this.append(last);
  }

  private finish(): RspEvent {
    if (!/^[0-9a-fA-F]{2}$/.test(this.received)) return { type: 'bad-packet', reason: 'malformed checksum' };
    if (Number.parseInt(this.received, 16) !== this.sum)
      return { type: 'bad-packet', reason: 'checksum mismatch' };
    if (this.overflow) return { type: 'bad-packet', reason: `payload over ${MAX_INBOUND_PAYLOAD} bytes` };
    if (this.malformed) return { type: 'bad-packet', reason: 'malformed run-length encoding' };
    return { type: 'packet', payload: String.fromCharCode(...this.body) };
  }
}
