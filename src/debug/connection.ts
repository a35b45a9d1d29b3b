// One TCP connection to an emulator's GDB stub. The session owns it and every tool shares it (a stub
// accepts a single client). The host is fixed to 127.0.0.1; the port comes from the owned process.
// The link follows the backend's quirks: its largest memory read, and its ack mode. In ack mode we
// send `+` for every packet at once (a stub may resend, and swallow, whatever byte comes first), and
// we never resend on `-`, because a stub may answer `-` to a packet that arrives while the target
// runs yet still execute it: a resend would run it twice and desynchronise replies. In no-ack mode,
// negotiated with QStartNoAckMode on connecting, neither side acknowledges: a resume is sent, not
// confirmed, and a corrupt reply leaves its request to time out.
import { Socket } from 'node:net';
import { ReMcpError } from '../core/errors.js';
import { encodePacket, INTERRUPT_BYTE, RspDecoder } from './rsp/codec.js';
import {
  type AllowedRequest,
  buildRequest,
  isStopReply,
  parseOkReply,
  parseStopReply,
  type StopReply,
} from './rsp/packets.js';

/**
 * The stub's dialect a connection follows (part of a backend's quirks): `ack`, every packet is
 * acknowledged with `+` (the stub knows no other mode); `no-ack`, QStartNoAckMode is negotiated on
 * connecting and neither side acknowledges afterwards. `maxMemoryChunk` bounds one `m` packet.
 */
export interface LinkQuirks {
  ackMode: 'ack' | 'no-ack';
  maxMemoryChunk: number;
}

export const GDB_HOST = '127.0.0.1';
/** Stop replies nobody has consumed yet; older ones are dropped (only the latest state matters). */
const MAX_QUEUED_STOPS = 8;

interface Waiter<T> {
  resolve(value: T): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export interface ConnectionStats {
  packetsSent: number;
  packetsReceived: number;
  nacksReceived: number;
  badPackets: number;
}

export class RspConnection {
  private readonly decoder = new RspDecoder();
  private readonly stops: StopReply[] = [];
  private replyWaiter: Waiter<string> | null = null;
  private ackWaiter: Waiter<void> | null = null;
  private stopWaiter: Waiter<StopReply | null> | null = null;
  private closedError: ReMcpError | null = null;
  private readonly closeListeners: Array<(error: ReMcpError) => void> = [];
  private busy = false;
  /** False once no-ack mode is in force. */
  private acking = true;
  readonly stats: ConnectionStats = { packetsSent: 0, packetsReceived: 0, nacksReceived: 0, badPackets: 0 };

  private constructor(
    private readonly socket: Socket,
    readonly port: number,
    private readonly link: LinkQuirks,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', () => {});
    socket.on('close', () =>
      this.fail(new ReMcpError('unreachable', `the GDB connection on port ${port} closed`)),
    );
  }

  /**
   * Connects once; `unreachable` when nothing accepts within the timeout. In no-ack mode the mode is
   * negotiated before the connection is returned (within the same timeout again).
   */
  static async open(port: number, timeoutMs: number, link: LinkQuirks): Promise<RspConnection> {
    const conn = await RspConnection.connect(port, timeoutMs, link);
    if (link.ackMode === 'no-ack') {
      try {
        parseOkReply(await conn.request({ op: 'start-no-ack-mode' }, timeoutMs), 'QStartNoAckMode');
        conn.acking = false;
      } catch (error) {
        conn.close();
        throw error;
      }
    }
    return conn;
  }

  private static connect(port: number, timeoutMs: number, link: LinkQuirks): Promise<RspConnection> {
    return new Promise((resolve, reject) => {
      const socket = new Socket();
      const timer = setTimeout(() => {
        socket.destroy();
        reject(
          new ReMcpError('unreachable', `no GDB stub accepted on ${GDB_HOST}:${port} within ${timeoutMs} ms`),
        );
      }, timeoutMs);
      socket.once('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        socket.destroy();
        reject(
          new ReMcpError(
            'unreachable',
            `cannot connect to ${GDB_HOST}:${port}: ${error.code ?? error.message}`,
          ),
        );
      });
      socket.connect({ host: GDB_HOST, port }, () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        resolve(new RspConnection(socket, port, link));
      });
    });
  }

  get closed(): boolean {
    return this.closedError !== null;
  }

  onClose(listener: (error: ReMcpError) => void): void {
    if (this.closedError) listener(this.closedError);
    else this.closeListeners.push(listener);
  }

  /** Sends a request that gets one reply packet and returns its payload. One request at a time. */
  async request(req: AllowedRequest, timeoutMs: number): Promise<string> {
    if (req.op === 'continue' || req.op === 'step') throw new Error('resume requests use resume()');
    this.assertOpen();
    if (this.busy) throw new ReMcpError('busy', 'another GDB request is in flight on this connection');
    this.busy = true;
    try {
      // A `?` answers with a stop reply, which we otherwise treat as asynchronous: take it from the queue.
      if (req.op === 'stop-status') {
        this.stops.length = 0;
        this.send(buildRequest(req));
        const stop = await this.waitStop(timeoutMs);
        if (stop === null) {
          // As for any request: a late answer would pass for a stop, so a timed-out connection is spent.
          const error = this.timeoutError('stop-status query', timeoutMs);
          this.close();
          throw error;
        }
        return stop.raw;
      }
      const reply = new Promise<string>((resolve, reject) => {
        this.replyWaiter = this.waiter(resolve, reject, timeoutMs, () =>
          this.timeoutError(req.op, timeoutMs),
        );
      });
      this.send(buildRequest(req, this.link.maxMemoryChunk));
      return await reply;
    } finally {
      this.busy = false;
    }
  }

  /**
   * Sends `c` or `s`: the stub only acknowledges (in no-ack mode, nothing confirms it); the stop reply
   * arrives later via `nextStop`.
   */
  async resume(op: 'continue' | 'step', ackTimeoutMs: number): Promise<void> {
    this.assertOpen();
    if (this.busy) throw new ReMcpError('busy', 'another GDB request is in flight on this connection');
    this.stops.length = 0;
    if (!this.acking) {
      this.send(buildRequest({ op }));
      return;
    }
    const acked = new Promise<void>((resolve, reject) => {
      this.ackWaiter = this.waiter(resolve, reject, ackTimeoutMs, () => this.timeoutError(op, ackTimeoutMs));
    });
    this.send(buildRequest({ op }));
    await acked;
  }

  /** Ctrl-C. A running stub answers with a stop reply (`S02`); a halted one may stay silent. */
  interrupt(): void {
    this.assertOpen();
    this.socket.write(Uint8Array.of(INTERRUPT_BYTE));
  }

  /** The next stop reply, or null when none came within the timeout (the target is still running). */
  nextStop(timeoutMs: number, signal?: AbortSignal): Promise<StopReply | null> {
    this.assertOpen();
    return this.waitStop(timeoutMs, signal);
  }

  /** Drops any stop replies received so far (before a resume they describe an older stop). */
  clearStops(): void {
    this.stops.length = 0;
  }

  close(): void {
    this.socket.destroy();
    this.fail(
      new ReMcpError('unreachable', `the GDB connection on port ${this.port} was closed by the server`),
    );
  }

  private waitStop(timeoutMs: number, signal?: AbortSignal): Promise<StopReply | null> {
    const queued = this.stops.shift();
    if (queued) return Promise.resolve(queued);
    if (this.stopWaiter)
      return Promise.reject(new ReMcpError('busy', 'another caller is waiting for a stop'));
    return new Promise<StopReply | null>((resolve, reject) => {
      const onAbort = () => {
        if (this.stopWaiter) clearTimeout(this.stopWaiter.timer);
        this.stopWaiter = null;
        reject(new ReMcpError('cancelled', 'the wait was cancelled'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => signal?.removeEventListener('abort', onAbort);
      const timer = setTimeout(() => {
        this.stopWaiter = null;
        done();
        resolve(null);
      }, timeoutMs);
      this.stopWaiter = {
        timer,
        resolve: (v) => {
          done();
          resolve(v);
        },
        reject: (e) => {
          done();
          reject(e);
        },
      };
      if (signal?.aborted) onAbort();
    });
  }

  private waiter<T>(
    resolve: (v: T) => void,
    reject: (e: Error) => void,
    timeoutMs: number,
    onTimeout: () => ReMcpError,
  ): Waiter<T> {
    const timer = setTimeout(() => {
      this.replyWaiter = null;
      this.ackWaiter = null;
      reject(onTimeout());
      // A late reply would be taken for the answer to the next request: a timed-out connection is spent.
      this.close();
    }, timeoutMs);
    return { resolve, reject, timer };
  }

  private timeoutError(what: string, timeoutMs: number): ReMcpError {
    return new ReMcpError('timeout', `the GDB stub did not answer ${what} within ${timeoutMs} ms`);
  }

  private send(payload: string): void {
    this.stats.packetsSent++;
    this.socket.write(encodePacket(payload));
  }

  private assertOpen(): void {
    if (this.closedError) throw this.closedError;
  }

  private onData(chunk: Buffer): void {
    for (const event of this.decoder.push(chunk)) {
      if (event.type === 'ack' || event.type === 'nack') {
        if (event.type === 'nack') this.stats.nacksReceived++;
        const w = this.ackWaiter;
        if (w) {
          this.ackWaiter = null;
          clearTimeout(w.timer);
          w.resolve();
        }
        continue;
      }
      if (event.type === 'bad-packet') {
        // `-` asks the stub to resend: the one case where a nack is ours to send.
        this.stats.badPackets++;
        if (this.acking) this.socket.write('-');
        continue;
      }
      if (this.acking) this.socket.write('+');
      this.stats.packetsReceived++;
      if (isStopReply(event.payload)) this.onStop(parseStopReply(event.payload));
      else {
        const w = this.replyWaiter;
        if (w) {
          this.replyWaiter = null;
          clearTimeout(w.timer);
          w.resolve(event.payload);
        }
      }
    }
  }

  private onStop(stop: StopReply): void {
    const w = this.stopWaiter;
    if (w) {
      this.stopWaiter = null;
      clearTimeout(w.timer);
      w.resolve(stop);
      return;
    }
    this.stops.push(stop);
    if (this.stops.length > MAX_QUEUED_STOPS) this.stops.shift();
  }

  private fail(error: ReMcpError): void {
    if (this.closedError) return;
    this.closedError = error;
    for (const w of [this.replyWaiter, this.ackWaiter, this.stopWaiter]) {
      if (w) {
        clearTimeout(w.timer);
        w.reject(error);
      }
    }
    this.replyWaiter = this.ackWaiter = this.stopWaiter = null;
    for (const listener of this.closeListeners.splice(0)) listener(error);
  }
}
