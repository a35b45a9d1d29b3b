// UDP transport for RetroArch's network commands. RetroArch replies carry no request id, so a reply
// is matched to its query by the key the codec derives (command + address / config key). To keep that
// matching unambiguous, at most one query per key is on the wire at a time; others with the same key
// wait in the queue. The number of queries in flight is bounded (RetroArch lost replies at 256 in
// flight, 64 were fine) and the queue is bounded too.
//
// Reliability rules: idempotent queries (reads, status) are re-sent on timeout a bounded number of
// times; non-idempotent ones (writes) are sent exactly once and a missing reply is reported, never
// retried. A query that settled while a reply of its may still arrive (timed out, cancelled, or sent
// more than once) holds its key back for a while, so that late reply cannot answer a newer query.
// Time on the wire is bounded by `attempts x timeoutMs`; time waiting in the queue is bounded by the
// same amount, so no call outlives twice its budget even when the queue is congested (in practice the
// queue drains in microseconds and a call ends within its budget).
import dgram from 'node:dgram';
import { isIP } from 'node:net';
import { ReMcpError } from '../core/errors.js';
import { replyKey } from './codec.js';

export interface TransportOptions {
  host: string;
  port: number;
  /** Per-attempt reply timeout. */
  timeoutMs: number;
  /** Extra attempts for idempotent queries (default 2). */
  readRetries?: number;
  /** Queries on the wire at once (default 32; RetroArch answered bursts of 64, lost replies at 256). */
  maxInFlight?: number;
  /** Queries allowed to wait (default 512); beyond that a call fails with `busy`. */
  maxQueued?: number;
}

interface QueryOptions {
  /** Re-send on timeout (reads, status). Writes pass false: they are sent once. */
  idempotent: boolean;
  signal?: AbortSignal;
  /** Extra check on a reply with the right key (e.g. the byte count), so strays are not taken. */
  accept?: (text: string) => boolean;
}

interface TransportStats {
  sent: number;
  received: number;
  unmatched: number;
  retries: number;
  timeouts: number;
}

interface Pending {
  datagram: string;
  key: string;
  idempotent: boolean;
  attemptsLeft: number;
  accept: ((text: string) => boolean) | undefined;
  resolve(text: string): void;
  reject(error: ReMcpError): void;
  attemptTimer: NodeJS.Timeout | null;
  /** Bounds the wait in the queue; cleared once the query is on the wire (attempt timers take over). */
  queueTimer: NodeJS.Timeout | null;
  onAbort: (() => void) | null;
  signal: AbortSignal | undefined;
  sent: boolean;
  /** Copies put on the wire, and when the last one went out. */
  attempts: number;
  lastSentAt: number;
  /** The queue wait was lengthened once to let a quarantine of its key end (see expire). */
  waitedOutQuarantine: boolean;
}

export class RetroArchTransport {
  readonly host: string;
  readonly port: number;
  readonly timeoutMs: number;
  readonly readRetries: number;
  readonly maxInFlight: number;
  readonly maxQueued: number;
  readonly stats: TransportStats = { sent: 0, received: 0, unmatched: 0, retries: 0, timeouts: 0 };
  private socket: dgram.Socket | null = null;
  private opening: Promise<dgram.Socket> | null = null;
  private readonly inFlight = new Map<string, Pending>();
  private readonly queue: Pending[] = [];
  private readonly shared = new Map<string, Promise<string>>();
  /**
   * Keys with a reply possibly still on the way (a query settled without its reply: timed out or
   * cancelled after sending; or answered after being sent more than once): that late reply would look
   * exactly like the answer to the next query with the key (an old read taken for a newer one, the
   * acknowledgement of an earlier write taken for the next). Queries with such a key wait until two
   * timeouts have passed since the last copy was sent.
   */
  private readonly quarantined = new Map<string, NodeJS.Timeout>();
  /** When each quarantine ends (Date.now() time). */
  private readonly quarantineEnds = new Map<string, number>();
  private closed = false;
  /**
   * RetroArch was seen absent: the kernel reported its port unreachable, or a query went unanswered
   * after every attempt. The next datagram from it then means it is back, perhaps as a new process.
   */
  private absent = false;
  private readonly returnListeners: Array<() => void> = [];
  /** How many times RetroArch answered again after being seen absent (possible restarts). */
  returns = 0;

  constructor(options: TransportOptions) {
    this.host = options.host;
    this.port = options.port;
    this.timeoutMs = options.timeoutMs;
    this.readRetries = options.readRetries ?? 2;
    this.maxInFlight = options.maxInFlight ?? 32;
    this.maxQueued = options.maxQueued ?? 512;
  }

  get target(): string {
    return `${this.host}:${this.port}`;
  }

  /** Longest a query may stay on the wire (and, separately, in the queue). */
  budgetMs(idempotent: boolean): number {
    return this.timeoutMs * (idempotent ? this.readRetries + 1 : 1);
  }

  /**
   * Called when RetroArch answers again after being seen absent. The protocol has no process id or
   * uptime, so this is the one restart signal there is: a restart that happens entirely between two
   * queries is not seen.
   */
  onReturn(listener: () => void): void {
    this.returnListeners.push(listener);
  }

  /** Opens the socket lazily: nothing touches the network until the first command. */
  private open(): Promise<dgram.Socket> {
    if (this.closed)
      return Promise.reject(new ReMcpError('not-running', 'the RetroArch transport is closed'));
    if (this.socket) return Promise.resolve(this.socket);
    if (this.opening) return this.opening;
    const family = isIP(this.host) === 6 ? 'udp6' : 'udp4';
    const socket = dgram.createSocket(family);
    this.opening = new Promise<dgram.Socket>((resolve, reject) => {
      const fail = (error: Error): void => {
        this.opening = null;
        socket.close();
        reject(new ReMcpError('unreachable', `cannot reach RetroArch at ${this.target}: ${error.message}`));
      };
      socket.once('error', fail);
      // Connecting the UDP socket filters out datagrams from anyone but RetroArch and makes the
      // kernel report "port unreachable" (ECONNREFUSED) when nothing listens there.
      socket.connect(this.port, this.host, () => {
        socket.off('error', fail);
        if (this.closed) {
          // close() ran while we were connecting: do not keep (leak) a socket nobody will close.
          this.opening = null;
          socket.close();
          reject(new ReMcpError('not-running', 'the RetroArch transport is closed'));
          return;
        }
        socket.on('error', (error) => this.onSocketError(error));
        socket.on('message', (msg) => this.onMessage(msg));
        socket.unref();
        this.socket = socket;
        this.opening = null;
        resolve(socket);
      });
    });
    return this.opening;
  }

  /** Fire-and-forget: resolves once the datagram is handed to the kernel. */
  async send(datagram: string): Promise<void> {
    const socket = await this.open();
    await new Promise<void>((resolve, reject) => {
      socket.send(datagram, (error) => {
        if (error) reject(new ReMcpError('unreachable', `send to ${this.target} failed: ${error.message}`));
        else resolve();
      });
    });
    this.stats.sent++;
  }

  /**
   * Sends a query and resolves with the matching reply text. Identical idempotent queries already
   * under way (say, GET_STATUS from several concurrent tool calls) share that one exchange instead of
   * queueing behind it; each caller keeps its own cancellation.
   */
  query(datagram: string, key: string, options: QueryOptions): Promise<string> {
    if (options.signal?.aborted) return Promise.reject(cancelled());
    if (!options.idempotent) return this.enqueue(datagram, key, options);
    let shared = this.shared.get(datagram);
    if (!shared) {
      // Shared exchanges run without any one caller's signal; they end within their budget anyway.
      const exchange = this.enqueue(datagram, key, { ...options, signal: undefined });
      shared = exchange;
      this.shared.set(datagram, exchange);
      const forget = (): void => {
        if (this.shared.get(datagram) === exchange) this.shared.delete(datagram);
      };
      exchange.then(forget, forget);
    }
    return withSignal(shared, options.signal);
  }

  private enqueue(datagram: string, key: string, options: QueryOptions): Promise<string> {
    if (this.queue.length >= this.maxQueued) {
      return Promise.reject(
        new ReMcpError('busy', `too many RetroArch queries waiting (${this.maxQueued}); try again`),
      );
    }
    return new Promise<string>((resolve, reject) => {
      const budget = this.budgetMs(options.idempotent);
      const pending: Pending = {
        datagram,
        key,
        idempotent: options.idempotent,
        attemptsLeft: options.idempotent ? this.readRetries + 1 : 1,
        accept: options.accept,
        resolve,
        reject,
        attemptTimer: null,
        queueTimer: setTimeout(() => this.expire(pending, budget), budget),
        onAbort: null,
        signal: options.signal,
        sent: false,
        attempts: 0,
        lastSentAt: 0,
        waitedOutQuarantine: false,
      };
      if (options.signal) {
        pending.onAbort = () => this.finish(pending, cancelled());
        options.signal.addEventListener('abort', pending.onAbort, { once: true });
      }
      this.queue.push(pending);
      this.pump();
    });
  }

  /** Starts queued queries while there is room and their key is not already on the wire. */
  private pump(): void {
    for (let i = 0; i < this.queue.length && this.inFlight.size < this.maxInFlight; ) {
      const pending = this.queue[i]!;
      if (this.inFlight.has(pending.key) || this.quarantined.has(pending.key)) {
        i++;
        continue;
      }
      this.queue.splice(i, 1);
      this.inFlight.set(pending.key, pending);
      void this.transmit(pending);
    }
  }

  private async transmit(pending: Pending): Promise<void> {
    let socket: dgram.Socket;
    try {
      socket = await this.open();
    } catch (error) {
      this.finish(pending, error as ReMcpError);
      return;
    }
    if (this.inFlight.get(pending.key) !== pending) return; // finished meanwhile
    if (pending.queueTimer) {
      clearTimeout(pending.queueTimer);
      pending.queueTimer = null;
    }
    pending.attemptsLeft--;
    pending.sent = true;
    pending.attempts++;
    pending.lastSentAt = Date.now();
    this.stats.sent++;
    socket.send(pending.datagram, (error) => {
      if (error) {
        this.finish(
          pending,
          new ReMcpError('unreachable', `send to ${this.target} failed: ${error.message}`),
        );
      }
    });
    pending.attemptTimer = setTimeout(() => this.attemptTimedOut(pending), this.timeoutMs);
  }

  private attemptTimedOut(pending: Pending): void {
    pending.attemptTimer = null;
    if (this.inFlight.get(pending.key) !== pending) return;
    this.stats.timeouts++;
    if (pending.idempotent && pending.attemptsLeft > 0) {
      this.stats.retries++;
      void this.transmit(pending);
      return;
    }
    this.absent = true;
    this.finish(pending, this.noReplyError(pending));
  }

  /** Holds back the key until two timeouts after the last copy was sent (at least one from now). */
  private quarantine(pending: Pending): void {
    if (this.closed) return;
    const key = pending.key;
    const ms = Math.max(this.timeoutMs, pending.lastSentAt + 2 * this.timeoutMs - Date.now());
    clearTimeout(this.quarantined.get(key));
    const timer = setTimeout(() => {
      this.quarantined.delete(key);
      this.quarantineEnds.delete(key);
      this.pump();
    }, ms);
    timer.unref();
    this.quarantined.set(key, timer);
    this.quarantineEnds.set(key, Date.now() + ms);
  }

  /**
   * The queue wait bound fired before the query could be sent. A query held only by the quarantine of
   * its key (the server's own precaution, which can outlast one timeout by the time the event loop
   * took to start the last copy's timer) waits once more, until that quarantine ends plus one timeout:
   * the caller's budget is not spent on it. Its queue wait stays bounded (by two timeouts past the
   * last copy of the quarantined query, plus one).
   */
  private expire(pending: Pending, budget: number): void {
    const ends = this.quarantineEnds.get(pending.key);
    if (!pending.waitedOutQuarantine && ends !== undefined && !this.inFlight.has(pending.key)) {
      pending.waitedOutQuarantine = true;
      const extra = Math.max(0, ends - Date.now()) + this.timeoutMs;
      pending.queueTimer = setTimeout(() => this.expire(pending, budget + extra), extra);
      return;
    }
    this.stats.timeouts++;
    this.finish(pending, this.noReplyError(pending, budget));
  }

  private noReplyError(pending: Pending, budget = this.budgetMs(pending.idempotent)): ReMcpError {
    const command = pending.datagram.split(' ')[0];
    if (!pending.sent) {
      return new ReMcpError('timeout', `${command} waited ${budget} ms in the queue without being sent`, {
        command,
        budgetMs: budget,
      });
    }
    if (!pending.idempotent) {
      return new ReMcpError(
        'unconfirmed',
        `${command} was sent once to ${this.target} but no acknowledgement came within ${budget} ms: it may or may not have been applied, and it was not re-sent`,
        { command, timeoutMs: budget },
      );
    }
    return new ReMcpError(
      'unreachable',
      `RetroArch at ${this.target} did not answer ${command} within ${budget} ms (${this.readRetries + 1} attempts). Is it running with network_cmd_enable = "true" and network_cmd_port = ${this.port}?`,
      { command, timeoutMs: budget, target: this.target },
    );
  }

  private onMessage(msg: Buffer): void {
    this.stats.received++;
    if (this.absent) {
      // Before the reply settles its query, so the caller already sees the reset state.
      this.absent = false;
      this.returns++;
      for (const listener of this.returnListeners) listener();
    }
    const text = msg.toString('latin1');
    const key = replyKey(text);
    const pending = key === null ? undefined : this.inFlight.get(key);
    if (!pending || (pending.accept && !pending.accept(text))) {
      this.stats.unmatched++; // a duplicate, a late reply to a finished query, or noise
      return;
    }
    this.complete(pending, () => pending.resolve(text), true);
  }

  /** ICMP port-unreachable on the connected socket: nobody listens, fail what is on the wire now. */
  private onSocketError(error: NodeJS.ErrnoException): void {
    this.absent = true;
    const reason =
      error.code === 'ECONNREFUSED'
        ? `nothing listens on UDP ${this.target} (port unreachable). Is RetroArch running with network_cmd_enable = "true" and network_cmd_port = ${this.port}?`
        : `socket error talking to ${this.target}: ${error.message}`;
    for (const pending of [...this.inFlight.values()]) {
      if (pending.sent) this.finish(pending, new ReMcpError('unreachable', reason, { target: this.target }));
    }
  }

  private finish(pending: Pending, error: ReMcpError): void {
    this.complete(pending, () => pending.reject(error));
  }

  private complete(pending: Pending, settle: () => void, answered = false): void {
    const queued = this.queue.indexOf(pending);
    if (queued >= 0) this.queue.splice(queued, 1);
    else if (this.inFlight.get(pending.key) === pending) this.inFlight.delete(pending.key);
    else return; // already settled
    if (pending.sent && (!answered || pending.attempts > 1)) this.quarantine(pending);
    if (pending.queueTimer) clearTimeout(pending.queueTimer);
    if (pending.attemptTimer) clearTimeout(pending.attemptTimer);
    if (pending.onAbort) pending.signal?.removeEventListener('abort', pending.onAbort);
    settle();
    this.pump();
  }

  /** Fails everything outstanding and releases the socket. */
  close(): void {
    this.closed = true;
    for (const timer of this.quarantined.values()) clearTimeout(timer);
    this.quarantined.clear();
    this.quarantineEnds.clear();
    const error = new ReMcpError('cancelled', 'the RetroArch connection was closed');
    for (const pending of [...this.queue, ...this.inFlight.values()]) this.finish(pending, error);
    this.socket?.close();
    this.socket = null;
  }
}

/** Rejects with `cancelled` when the caller's signal fires, without touching the shared exchange. */
function withSignal(p: Promise<string>, signal: AbortSignal | undefined): Promise<string> {
  if (!signal) return p;
  return new Promise<string>((resolve, reject) => {
    const onAbort = (): void => reject(cancelled());
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

function cancelled(): ReMcpError {
  return new ReMcpError('cancelled', 'the operation was cancelled by the client');
}
