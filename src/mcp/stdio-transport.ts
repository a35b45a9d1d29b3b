// Our own stdio framing for the MCP server, in place of the SDK's StdioServerTransport, because the
// SDK's one drops what JSON-RPC says must be answered:
// - its line reader skips a line that is not JSON without a word (JSON-RPC: -32700, id null);
// - a line that is JSON but not a JSON-RPC 2.0 message (a batch array, "jsonrpc":"1.0", a request
//   without a method) fails its schema parse and only reaches `onerror`: the client waits forever;
// - a line over its 10 MiB buffer closes the transport: the session ends with exit 0 and no message.
// Here every such line gets its error response (and a line on stderr), and the session keeps serving.
// It also owns two guarantees the protocol layer cannot give on its own:
// - once the client cancels request X, nothing more about X is written: not its result (the handler
//   may have finished in the same tick) and not a progress notification for X's token;
// - every message is handed to stdout the moment it is sent: nothing waits for the next input chunk;
// - back-pressure: while more than OUTPUT_HIGH_BYTES wait to be written, or the requests read and not
//   finished exceed OPEN_LIMITS, no further input line is handled (the rest of the chunk is kept and
//   stdin is paused), so a client that stops reading, or floods, cannot grow the server's memory;
// - a finished request (answered, or cancelled and dropped) is forgotten at once: ids may be reused;
// - stdin's end is reported (onend) without closing the output, so what was received can be answered
//   and stdout drained (flush) before the process exits.
// Nothing of the MCP SDK is loaded at run time: the message shapes are checked by ./jsonrpc.ts.
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { messageMark } from '../core/startup-trace.js';
import { isErrorResponse, isNotification, isRequest, isResultResponse, RawJson } from './jsonrpc.js';

/** Longest accepted line (bytes). Longer lines are refused with -32600 and skipped; the session goes on. */
const MAX_LINE_BYTES = 10 * 1024 * 1024;

/** Bytes queued for stdout above which no further input line is handled until it drains. */
export const OUTPUT_HIGH_BYTES = 8 * 1024 * 1024;
/** Requests read and not yet finished (and their lines' bytes) above which input waits. */
const OPEN_LIMITS = { requests: 1024, bytes: 64 * 1024 * 1024 } as const;
/**
 * Input lines handled per event-loop turn. Answers are written after the turn, so this bounds how far
 * output can overshoot OUTPUT_HIGH_BYTES: at most this many immediate answers (tools/list is the largest).
 */
export const LINES_PER_TURN = 32;

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;

type Id = string | number;

function isId(value: unknown): value is Id {
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
}

export class LineStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Stdin ended. Without a handler the transport closes; with one, the owner decides (and flushes). */
  onend?: () => void;

  private chunks: Buffer[] = [];
  private pending = 0;
  /** True while skipping the rest of an over-long line (up to its newline). */
  private discarding = false;
  private closed = false;
  private ended = false;
  /** Requests received and not yet finished (the bytes of their lines); the cancelled ones among them. */
  private readonly open = new Map<Id, number>();
  private openBytes = 0;
  private readonly cancelled = new Set<Id>();
  /** progress token -> the request it belongs to, and back, for requests still open. */
  private readonly tokenOwner = new Map<Id, Id>();
  private readonly ownToken = new Map<Id, Id>();
  /** Input not yet handled while back-pressure holds it (the rest of a chunk). */
  private held: Buffer | null = null;
  /** One 'drain' listener for every writer waiting, not one per write. */
  private drainWaiters: Array<() => void> = [];
  private lineBytes = 0;
  /** Lines handled in this event-loop turn, and whether the turn's end is scheduled. */
  private turnLines = 0;
  private turnEnds = false;

  constructor(
    private readonly input: NodeJS.ReadableStream = process.stdin,
    private readonly output: NodeJS.WritableStream = process.stdout,
    private readonly log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
    private readonly maxLineBytes = MAX_LINE_BYTES,
  ) {}

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('close', this.onEnd);
    this.input.on('error', this.onInputError);
    this.output.on('error', this.onOutputError);
    this.output.on('drain', this.onDrain);
  }

  private readonly onEnd = () => {
    if (this.ended) return;
    this.ended = true;
    // Input already read but held back still counts as received: it is handled as output drains.
    if (this.held === null) this.reportEnd();
  };

  private reportEnd(): void {
    if (this.onend) this.onend();
    else void this.close();
  }

  /** Whether input must wait: output over its bound, or too many requests open. */
  private congested(): boolean {
    return (
      (this.output as NodeJS.WritableStream & { writableLength?: number }).writableLength! >
        OUTPUT_HIGH_BYTES ||
      this.open.size >= OPEN_LIMITS.requests ||
      this.openBytes >= OPEN_LIMITS.bytes
    );
  }

  private readonly onDrain = () => {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const w of waiters) w();
    this.release();
  };

  /** Counts a handled line against this turn's LINES_PER_TURN; the count resets when the turn ends. */
  private countLine(): void {
    this.turnLines++;
    if (this.turnEnds) return;
    this.turnEnds = true;
    setImmediate(() => {
      this.turnLines = 0;
      this.turnEnds = false;
      this.release();
    });
  }

  /** Handles held input once nothing holds it back any more, then reads on. */
  private release(): void {
    if (this.held === null || this.closed || this.congested() || this.turnLines >= LINES_PER_TURN) return;
    const data = this.held;
    this.held = null;
    this.consume(data);
    if (this.held === null) {
      if (this.ended) this.reportEnd();
      else this.input.resume();
    }
  }

  /** Requests received and not yet finished. */
  get openRequests(): number {
    return this.open.size;
  }

  /**
   * The session is done with request `id` (answered, or dropped after a cancel): everything about it
   * is forgotten, and input held back for it may be read again.
   */
  finished(id: Id): void {
    const bytes = this.open.get(id);
    if (bytes === undefined) return;
    this.open.delete(id);
    this.openBytes -= bytes;
    this.cancelled.delete(id);
    const token = this.ownToken.get(id);
    if (token !== undefined) {
      this.ownToken.delete(id);
      this.tokenOwner.delete(token);
    }
    this.release();
  }

  /** Resolves once everything written so far has been handed to the OS, or after `timeoutMs`. */
  flush(timeoutMs: number): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      timer.unref?.();
      // A write's callback runs once it (and everything before it) has been flushed.
      this.output.write('', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
  private readonly onInputError = (error: Error) => this.onerror?.(error);
  private readonly onOutputError = (error: Error) => {
    if (this.closed) return;
    this.onerror?.(error);
    void this.close();
  };

  private readonly onData = (chunk: Buffer | string) => {
    const data = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    if (this.held !== null) {
      // A chunk that was already on its way when input paused: it queues behind what is held.
      this.held = Buffer.concat([this.held, data]);
      return;
    }
    this.consume(data);
  };

  /** Handles the complete lines of `data`; stops (holding the rest, input paused) under back-pressure. */
  private consume(input: Buffer): void {
    let data = input;
    while (data.length > 0) {
      if (!this.discarding && this.pending === 0) {
        if (this.congested()) {
          this.held = data;
          this.input.pause();
          return; // released by 'drain' or a finished request
        }
        if (this.turnLines >= LINES_PER_TURN) {
          // Let this turn's answers reach the output (and its length count) before reading on.
          this.held = data;
          this.input.pause();
          return; // released when the turn ends
        }
      }
      const nl = data.indexOf(0x0a);
      const part = nl === -1 ? data : data.subarray(0, nl);
      if (!this.discarding) {
        if (this.pending + part.length > this.maxLineBytes) {
          // Refused before buffering it all: memory stays bounded whatever the client sends.
          this.discarding = true;
          this.chunks = [];
          this.pending = 0;
          this.log(`re-mcp: refused an input line over ${this.maxLineBytes} bytes`);
          this.reply(null, INVALID_REQUEST, `message refused: a line over ${this.maxLineBytes} bytes`);
        } else {
          this.chunks.push(part);
          this.pending += part.length;
        }
      }
      if (nl === -1) break;
      if (!this.discarding) {
        const line = Buffer.concat(this.chunks).toString('utf8').replace(/\r$/, '');
        this.lineBytes = this.pending;
        this.chunks = [];
        this.pending = 0;
        this.handleLine(line);
        this.countLine();
      }
      this.discarding = false;
      data = data.subarray(nl + 1);
    }
  }

  private handleLine(line: string): void {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.log('re-mcp: an input line is not JSON (answered -32700)');
      this.reply(null, PARSE_ERROR, 'parse error: the line is not valid JSON');
      return;
    }
    if (Array.isArray(value)) {
      this.reply(null, INVALID_REQUEST, 'invalid request: JSON-RPC batches are not supported by MCP');
      return;
    }
    if (value === null || typeof value !== 'object') {
      this.reply(null, INVALID_REQUEST, 'invalid request: a JSON-RPC message is an object');
      return;
    }
    const record = value as Record<string, unknown>;
    messageMark('in', record);
    const id = isId(record.id) ? record.id : null;
    if (record.jsonrpc !== '2.0') {
      this.reply(id, INVALID_REQUEST, 'invalid request: "jsonrpc" must be "2.0"');
      return;
    }
    const wellFormed =
      isRequest(record) || isNotification(record) || isResultResponse(record) || isErrorResponse(record);
    if (!wellFormed) {
      // A malformed response or notification has no one to answer: logged only. Anything else is
      // answered, with its id when one could be read.
      const isResponse = 'result' in record || 'error' in record;
      const isNotification = typeof record.method === 'string' && record.id === undefined;
      if (isResponse || isNotification)
        this.log('re-mcp: ignored a malformed JSON-RPC response/notification');
      else this.reply(id, INVALID_REQUEST, 'invalid request: not a well-formed JSON-RPC 2.0 request');
      return;
    }
    const message = value as JSONRPCMessage & Record<string, unknown>;
    if (typeof message.method === 'string' && 'id' in message && isId(message.id)) {
      if (message.method === 'tools/call') {
        const params = message.params as Record<string, unknown> | undefined;
        if (params === undefined || params === null || typeof params.name !== 'string') {
          this.reply(
            message.id,
            INVALID_PARAMS,
            'tools/call needs params {"name": <tool name>, "arguments": {...}}',
          );
          return;
        }
        if (
          params.arguments !== undefined &&
          (params.arguments === null ||
            typeof params.arguments !== 'object' ||
            Array.isArray(params.arguments))
        ) {
          this.reply(message.id, INVALID_PARAMS, 'tools/call "arguments" must be an object');
          return;
        }
      }
      // A reused id is a new request: a cancel of the earlier one with that id no longer applies.
      this.cancelled.delete(message.id);
      if (!this.open.has(message.id)) {
        this.open.set(message.id, this.lineBytes);
        this.openBytes += this.lineBytes;
      }
      const token = (message.params as { _meta?: { progressToken?: unknown } } | undefined)?._meta
        ?.progressToken;
      if (isId(token)) {
        this.tokenOwner.set(token, message.id);
        this.ownToken.set(message.id, token);
      }
    } else if (message.method === 'notifications/cancelled') {
      const requestId = (message.params as { requestId?: unknown } | undefined)?.requestId;
      // Only open requests: the set stays bounded by what the client has in flight.
      if (isId(requestId) && this.open.has(requestId)) this.cancelled.add(requestId);
    }
    this.onmessage?.(message);
  }

  private reply(id: Id | null, code: number, message: string): void {
    this.write({ jsonrpc: '2.0', id, error: { code, message } });
  }

  private write(message: unknown): Promise<void> {
    if (this.closed) return Promise.resolve();
    const m = message as { id?: unknown; result?: unknown };
    const text =
      m.result instanceof RawJson
        ? `{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":${m.result.text}}\n`
        : `${JSON.stringify(message)}\n`;
    messageMark('out', message as Record<string, unknown>);
    // Handed to the stream now, in this tick; a full pipe only delays the promise, never the order.
    if (this.output.write(text)) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error('the stdio transport is closed');
    const m = message as Record<string, unknown>;
    if (!('method' in m) && isId(m.id)) {
      // A response: the last word about this request. Dropped if the client cancelled it.
      const id = m.id;
      const cancelled = this.cancelled.has(id);
      this.finished(id);
      if (cancelled) return;
    } else if (m.method === 'notifications/progress') {
      const token = (m.params as { progressToken?: unknown } | undefined)?.progressToken;
      const owner = isId(token) ? this.tokenOwner.get(token) : undefined;
      if (owner !== undefined && this.cancelled.has(owner)) return;
    }
    await this.write(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('close', this.onEnd);
    this.input.off('error', this.onInputError);
    this.output.off('drain', this.onDrain);
    this.chunks = [];
    this.held = null;
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const w of waiters) w();
    this.onclose?.();
  }
}
