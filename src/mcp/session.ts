// The MCP protocol layer of the stdio server: initialize, ping, tools/list and tools/call over the
// stdio transport, on our own tool pipeline. It serves the protocol versions the MCP SDK's server
// serves (negotiated the same way) with the same answers, without the SDK at run time: loading the
// SDK and building its protocol schemas cost a new server several times the work of answering
// initialize and tools/list (bench/server.ts measures start-up against a bare Node process), and
// none of it is needed to serve a tools-only server. The SDK stays the reference: the tests drive
// this server with the SDK's own clients (and Python's), and check the negotiation and the version
// list against it (test/mcp/session.test.ts).
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import type { Services } from '../services.js';
import { SERVER_NAME, VERSION } from '../version.js';
import { errorResult, invokeTool, structuredJson, type ToolCallResult } from './invoke.js';
import { isRequestId, RawJson } from './jsonrpc.js';
import { INSTRUCTIONS, type ToolSource } from './published.js';
import type { LineStdioTransport } from './stdio-transport.js';
import { takesPublishedTools, toWireResult, toWireTools, wireText } from './wire.js';

/** Newest first: what the SDK's server negotiates by default (its SUPPORTED_PROTOCOL_VERSIONS). */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];

export const CAPABILITIES = { tools: { listChanged: false } };

const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;
/** JSON-RPC server error: a request received but stopped because the server is ending. */
const SERVER_CLOSING = -32000;

/**
 * Tool calls run at once up to `running`; beyond that up to `waiting` wait their turn (in order), and
 * any further call is answered at once with a `busy` tool error. Pings and tools/list are not counted.
 */
export const CALL_ADMISSION = { running: 32, waiting: 256 } as const;

type Id = string | number;
type Json = Record<string, unknown>;

/** A request refused with a JSON-RPC error code (not a tool error: those are results). */
class RequestError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The answer to initialize: the client's version when we serve it, else our newest. */
export function initializeResult(requested: string, profileNote?: string): Json {
  return {
    protocolVersion: PROTOCOL_VERSIONS.includes(requested) ? requested : PROTOCOL_VERSIONS[0],
    capabilities: CAPABILITIES,
    serverInfo: { name: SERVER_NAME, version: VERSION },
    instructions: profileNote === undefined ? INSTRUCTIONS : `${INSTRUCTIONS}\n- ${profileNote}`,
  };
}

export class McpSession {
  private negotiated: string | undefined;
  /** Requests being handled; a cancelled one is aborted and never answered. */
  private readonly inFlight = new Map<Id, AbortController>();
  private running = 0;
  /** Calls waiting for a running slot, oldest first. */
  private readonly waiting: Array<{ go: () => void; signal: AbortSignal }> = [];
  private readonly settledWaiters = new Set<() => void>();

  constructor(
    private readonly tools: ToolSource,
    private readonly services: Services,
    private readonly transport: LineStdioTransport,
    private readonly log: (line: string) => void,
    /** Appended to the instructions: which tools this session lists and how to list the rest. */
    private readonly profileNote?: string,
  ) {}

  /** True while a request is being handled (background work of the server waits for idle). */
  get busy(): boolean {
    return this.inFlight.size > 0;
  }

  async connect(): Promise<void> {
    this.transport.onmessage = (message) => this.receive(message as unknown as Json);
    await this.transport.start();
  }

  /**
   * Waits (at most `timeoutMs`) for every request received to be answered; those still running then
   * are stopped and answered with a JSON-RPC error saying the server is ending. Returns how many.
   */
  async settle(timeoutMs: number, reason: string): Promise<number> {
    if (this.inFlight.size > 0 && timeoutMs > 0 && !this.hurried) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.settledWaiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, timeoutMs);
        this.settledWaiters.add(done);
      });
    }
    const left = [...this.inFlight];
    this.inFlight.clear();
    this.settledWaiters.clear();
    for (const [id, controller] of left) {
      controller.abort(new Error(reason));
      await this.transport
        .send({
          jsonrpc: '2.0',
          id,
          error: { code: SERVER_CLOSING, message: `stopped unanswered: ${reason}` },
        } as unknown as JSONRPCMessage)
        .catch(() => {});
    }
    return left.length;
  }

  private hurried = false;

  /** Ends a settle() wait now (a signal arrived while stdin's requests were being answered). */
  hurry(): void {
    this.hurried = true;
    for (const w of [...this.settledWaiters]) w();
  }

  /** Stops every request in flight (their results are dropped) and closes the transport. */
  async close(): Promise<void> {
    for (const controller of this.inFlight.values()) controller.abort(new Error('the server is closing'));
    this.inFlight.clear();
    await this.transport.close();
  }

  private receive(message: Json): void {
    if (typeof message.method !== 'string') return; // a response: this server sends no requests
    if (isRequestId(message.id)) this.request(message.id, message.method, message.params);
    else if (message.method === 'notifications/cancelled' && isObject(message.params)) {
      const id = message.params.requestId;
      if (isRequestId(id)) this.inFlight.get(id)?.abort(message.params.reason);
    }
    // Other notifications (initialized, roots changed, progress) need nothing from a tools server.
  }

  private request(id: Id, method: string, params: unknown): void {
    const controller = new AbortController();
    this.inFlight.set(id, controller);
    const answer = (body: { result: unknown } | { error: { code: number; message: string } }) =>
      controller.signal.aborted
        ? undefined
        : this.transport.send({ jsonrpc: '2.0', id, ...body } as unknown as JSONRPCMessage);
    Promise.resolve()
      .then(() => this.handle(method, isObject(params) ? params : {}, controller.signal))
      .then(
        (result) => answer({ result }),
        (error: unknown) => {
          const known = error instanceof RequestError;
          if (!known)
            this.log(`re-mcp: ${method} failed: ${error instanceof Error ? error.stack : String(error)}`);
          return answer({
            error: {
              code: known ? error.code : INTERNAL_ERROR,
              message: error instanceof Error ? wireText(error.message, false) : 'Internal error',
            },
          });
        },
      )
      .catch((error: unknown) => this.log(`re-mcp: could not answer ${method}: ${String(error)}`))
      .finally(() => {
        if (this.inFlight.get(id) !== controller) return;
        this.inFlight.delete(id);
        // Answered or dropped after a cancel: the transport forgets the id (and its token) either way.
        this.transport.finished(id);
        if (this.inFlight.size === 0) for (const w of [...this.settledWaiters]) w();
      });
  }

  private async handle(method: string, params: Json, signal: AbortSignal): Promise<unknown> {
    switch (method) {
      case 'initialize':
        return this.initialize(params);
      case 'ping':
        return {};
      case 'tools/list':
        // Current clients get the definitions as the build serialised them; older ones a reduced copy.
        return takesPublishedTools(this.negotiated)
          ? new RawJson(`{"tools":${this.tools.listedJson()}}`)
          : { tools: toWireTools(this.tools.listed(), this.negotiated) };
      case 'tools/call':
        return this.call(params, signal);
      default:
        throw new RequestError(METHOD_NOT_FOUND, 'Method not found');
    }
  }

  private initialize(params: Json): Json {
    const client = params.clientInfo;
    if (
      typeof params.protocolVersion !== 'string' ||
      !isObject(params.capabilities) ||
      !isObject(client) ||
      typeof client.name !== 'string' ||
      typeof client.version !== 'string'
    ) {
      throw new RequestError(
        INVALID_PARAMS,
        'initialize needs params {protocolVersion, capabilities, clientInfo: {name, version}}',
      );
    }
    const result = initializeResult(params.protocolVersion, this.profileNote);
    this.negotiated = result.protocolVersion as string;
    return result;
  }

  private async call(params: Json, signal: AbortSignal): Promise<unknown> {
    // The transport has checked the shape: a string name, an object (or no) arguments.
    const name = params.name as string;
    const def = await this.tools.load(name);
    if (!def) {
      // The specification lists an unknown tool as a protocol error (invalid params), not a tool result.
      throw new RequestError(INVALID_PARAMS, `unknown tool: ${name} (not in this profile; see tools/list)`);
    }
    if (!(await this.admit(signal))) {
      return toWireResult(
        errorResult({
          code: 'busy',
          message: `the server is at its limit of ${CALL_ADMISSION.running} running and ${CALL_ADMISSION.waiting} waiting tool calls; try again when some have finished`,
          details: { running: CALL_ADMISSION.running, waiting: CALL_ADMISSION.waiting },
        }),
        this.negotiated,
      );
    }
    try {
      return await this.run(def, params, signal);
    } finally {
      this.leave();
    }
  }

  /** Takes a running slot, waiting in line if need be; false when the line is full too. */
  private async admit(signal: AbortSignal): Promise<boolean> {
    if (this.running < CALL_ADMISSION.running) {
      this.running++;
      return true;
    }
    if (this.waiting.length >= CALL_ADMISSION.waiting) return false;
    await new Promise<void>((resolve, reject) => {
      const entry = {
        signal,
        go: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        const at = this.waiting.indexOf(entry);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(signal.reason ?? new Error('cancelled'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(entry);
    });
    return true; // the slot was handed over by leave()
  }

  /** Frees a running slot, handing it straight to the oldest waiting call. */
  private leave(): void {
    const next = this.waiting.shift();
    if (next) next.go();
    else this.running--;
  }

  private async run(
    def: NonNullable<Awaited<ReturnType<ToolSource['load']>>>,
    params: Json,
    signal: AbortSignal,
  ): Promise<unknown> {
    const token = isObject(params._meta) ? params._meta.progressToken : undefined;
    const onProgress = isRequestId(token)
      ? (update: { progress: number; total?: number; message?: string }) => {
          const notification = {
            jsonrpc: '2.0',
            method: 'notifications/progress',
            params: {
              progressToken: token,
              ...update,
              ...(update.message !== undefined ? { message: wireText(update.message, false) } : {}),
            },
          };
          this.transport.send(notification as unknown as JSONRPCMessage).catch(() => {});
        }
      : undefined;
    const result = await invokeTool(def, params.arguments, this.services, {
      signal,
      ...(onProgress ? { onProgress } : {}),
      log: this.log,
    });
    return serialized(toWireResult(result, this.negotiated), result);
  }
}

/**
 * The wire result as its JSON text, with the structured result's text that invokeTool made already
 * (a page of results is not serialised twice): the same bytes JSON.stringify(wire) gives. Only for a
 * result that carries the pipeline's own structured result and nothing but content, structuredContent
 * and _meta, in that order; any other goes as the object.
 */
function serialized(wire: ToolCallResult, result: ToolCallResult): ToolCallResult | RawJson {
  const json = structuredJson(result);
  if (json === undefined || wire.structuredContent !== result.structuredContent) return wire;
  const keys = Object.keys(wire);
  const meta = keys.length === 3 && keys[2] === '_meta';
  if (keys[0] !== 'content' || keys[1] !== 'structuredContent' || (keys.length !== 2 && !meta)) return wire;
  const tail = meta ? `,"_meta":${JSON.stringify(wire._meta)}` : '';
  return new RawJson(`{"content":${JSON.stringify(wire.content)},"structuredContent":${json}${tail}}`);
}
