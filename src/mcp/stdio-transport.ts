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
// - every message is handed to stdout the moment it is sent: nothing waits for the next input chunk.
// Nothing of the MCP SDK is loaded at run time: the message shapes are checked by ./jsonrpc.ts.
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { messageMark } from '../core/startup-trace.js';
import { isErrorResponse, isNotification, isRequest, isResultResponse, RawJson } from './jsonrpc.js';

/** Longest accepted line (bytes). Longer lines are refused with -32600 and skipped; the session goes on. */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const INVALID_PARAMS = -32602;

type Id = string | number;

function isId(value: unknown): value is Id {
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
}

export class LineStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private chunks: Buffer[] = [];
  private pending = 0;
  /** True while skipping the rest of an over-long line (up to its newline). */
  private discarding = false;
  private closed = false;
  /** Requests received and not yet answered; the cancelled ones among them. */
  private readonly open = new Set<Id>();
  private readonly cancelled = new Set<Id>();
  /** progress token -> the request it belongs to, for requests still open. */
  private readonly tokenOwner = new Map<Id, Id>();

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
  }

  private readonly onEnd = () => void this.close();
  private readonly onInputError = (error: Error) => this.onerror?.(error);
  private readonly onOutputError = (error: Error) => {
    if (this.closed) return;
    this.onerror?.(error);
    void this.close();
  };

  private readonly onData = (chunk: Buffer | string) => {
    let data = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    while (data.length > 0) {
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
        this.chunks = [];
        this.pending = 0;
        this.handleLine(line);
      }
      this.discarding = false;
      data = data.subarray(nl + 1);
    }
  };

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
      this.open.add(message.id);
      const token = (message.params as { _meta?: { progressToken?: unknown } } | undefined)?._meta
        ?.progressToken;
      if (isId(token)) this.tokenOwner.set(token, message.id);
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
    return new Promise((resolve) => {
      if (this.output.write(text)) resolve();
      else this.output.once('drain', () => resolve());
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error('the stdio transport is closed');
    const m = message as Record<string, unknown>;
    if (!('method' in m) && isId(m.id)) {
      // A response: the last word about this request. Dropped if the client cancelled it.
      const id = m.id;
      for (const [token, owner] of this.tokenOwner) if (owner === id) this.tokenOwner.delete(token);
      this.open.delete(id);
      if (this.cancelled.delete(id)) return;
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
    this.chunks = [];
    this.onclose?.();
  }
}
