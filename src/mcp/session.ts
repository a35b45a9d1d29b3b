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
import { invokeTool } from './invoke.js';
import { isRequestId, RawJson } from './jsonrpc.js';
import { INSTRUCTIONS, type ToolSource } from './server.js';
import type { LineStdioTransport } from './stdio-transport.js';
import { takesPublishedTools, toWireResult, toWireTools } from './wire.js';

/** Newest first: what the SDK's server negotiates by default (its SUPPORTED_PROTOCOL_VERSIONS). */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];

export const CAPABILITIES = { tools: { listChanged: false } };

const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;

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
export function initializeResult(requested: string): Json {
  return {
    protocolVersion: PROTOCOL_VERSIONS.includes(requested) ? requested : PROTOCOL_VERSIONS[0],
    capabilities: CAPABILITIES,
    serverInfo: { name: SERVER_NAME, version: VERSION },
    instructions: INSTRUCTIONS,
  };
}

export class McpSession {
  private negotiated: string | undefined;
  /** Requests being handled; a cancelled one is aborted and never answered. */
  private readonly inFlight = new Map<Id, AbortController>();

  constructor(
    private readonly tools: ToolSource,
    private readonly services: Services,
    private readonly transport: LineStdioTransport,
    private readonly log: (line: string) => void,
  ) {}

  async connect(): Promise<void> {
    this.transport.onmessage = (message) => this.receive(message as unknown as Json);
    await this.transport.start();
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
              message: error instanceof Error ? error.message : 'Internal error',
            },
          });
        },
      )
      .catch((error: unknown) => this.log(`re-mcp: could not answer ${method}: ${String(error)}`))
      .finally(() => {
        if (this.inFlight.get(id) === controller) this.inFlight.delete(id);
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
    const result = initializeResult(params.protocolVersion);
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
    const token = isObject(params._meta) ? params._meta.progressToken : undefined;
    const onProgress = isRequestId(token)
      ? (update: { progress: number; total?: number; message?: string }) => {
          const notification = {
            jsonrpc: '2.0',
            method: 'notifications/progress',
            params: { progressToken: token, ...update },
          };
          this.transport.send(notification as unknown as JSONRPCMessage).catch(() => {});
        }
      : undefined;
    const result = await invokeTool(def, params.arguments, this.services, {
      signal,
      ...(onProgress ? { onProgress } : {}),
      log: this.log,
    });
    return toWireResult(result, this.negotiated);
  }
}
