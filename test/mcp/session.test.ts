// The server speaks MCP without the SDK at run time (src/mcp/session.ts, src/mcp/jsonrpc.ts); the
// SDK stays the reference. Here: the same protocol versions, the same initialize answer as the SDK's
// own Server for every version a client may ask for, and the same verdict on a message's shape as the
// SDK's guards, on hand-picked edge cases and on thousands of generated messages.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  InMemoryTransport,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  Server,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import { isErrorResponse, isNotification, isRequest, isResultResponse } from '../../src/mcp/jsonrpc.js';
import { INSTRUCTIONS } from '../../src/mcp/published.js';
import { CAPABILITIES, initializeResult, PROTOCOL_VERSIONS } from '../../src/mcp/session.js';
import { SERVER_NAME, VERSION } from '../../src/version.js';
import { rng } from '../kit/rng.js';

test('the served protocol versions are the SDK server default, newest first', () => {
  assert.deepEqual(PROTOCOL_VERSIONS, [...SUPPORTED_PROTOCOL_VERSIONS]);
});

/** What the SDK's Server, configured as re-mcp, answers to initialize with `version`. */
async function sdkInitialize(version: string): Promise<unknown> {
  const server = new Server(
    { name: SERVER_NAME, version: VERSION },
    { capabilities: CAPABILITIES, instructions: INSTRUCTIONS },
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const answer = new Promise<unknown>((resolve) => {
    clientSide.onmessage = (message) => resolve((message as { result?: unknown }).result);
  });
  await server.connect(serverSide);
  await clientSide.start();
  await clientSide.send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  const result = await answer;
  await server.close();
  return result;
}

test('initialize answers exactly as the SDK server would, for every version a client may ask', async () => {
  for (const version of [...PROTOCOL_VERSIONS, '2026-07-28', '2099-01-01', '1999-01-01', 'not-a-date']) {
    assert.deepEqual(initializeResult(version), await sdkInitialize(version), version);
  }
});

const EDGE_CASES: unknown[] = [
  { jsonrpc: '2.0', id: 1, method: 'ping' },
  { jsonrpc: '2.0', id: 'a', method: 'tools/list', params: {} },
  { jsonrpc: '2.0', id: 1.5, method: 'ping' },
  { jsonrpc: '2.0', id: 2 ** 53, method: 'ping' },
  { jsonrpc: '2.0', id: null, method: 'ping' },
  { jsonrpc: '2.0', id: 1, method: 'ping', params: [] },
  { jsonrpc: '2.0', id: 1, method: 'ping', params: null },
  { jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { progressToken: 'p' } } },
  { jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { progressToken: 1.5 } } },
  { jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { progressToken: null } } },
  { jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: [] } },
  {
    jsonrpc: '2.0',
    id: 1,
    method: 'ping',
    params: { _meta: { 'io.modelcontextprotocol/related-task': {} } },
  },
  { jsonrpc: '2.0', id: 1, method: 'ping', extra: true },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
  { jsonrpc: '2.0', method: 7 },
  { jsonrpc: '2.0', id: 1, result: {} },
  { jsonrpc: '2.0', id: 1, result: { _meta: {} } },
  { jsonrpc: '2.0', id: 1, result: { _meta: 3 } },
  { jsonrpc: '2.0', id: 1, result: [] },
  { jsonrpc: '2.0', id: 1, result: null },
  { jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'x' } },
  { jsonrpc: '2.0', error: { code: -32600, message: 'x', data: [1] } },
  { jsonrpc: '2.0', id: 1, error: { code: 1.5, message: 'x' } },
  { jsonrpc: '2.0', id: 1, error: { code: 1 } },
  { jsonrpc: '2.0', id: 1, error: { code: 1, message: 'x', extra: 1 } },
  { jsonrpc: '2.0', id: 1, error: { code: 1, message: 'x' }, result: {} },
  { jsonrpc: '1.0', id: 1, method: 'ping' },
  { id: 1, method: 'ping' },
  {},
];

function verdicts(value: unknown): string {
  const record = value as Record<string, unknown>;
  return JSON.stringify({
    request: [isRequest(record), isJSONRPCRequest(value)],
    notification: [isNotification(record), isJSONRPCNotification(value)],
    result: [isResultResponse(record), isJSONRPCResultResponse(value)],
    error: [isErrorResponse(record), isJSONRPCErrorResponse(value)],
  });
}

/** How often each guard said yes, so the fuzz test can show it exercised both answers of each. */
const accepted = [0, 0, 0, 0];

function agree(value: unknown): void {
  const record = value as Record<string, unknown>;
  const ours = [isRequest(record), isNotification(record), isResultResponse(record), isErrorResponse(record)];
  ours.forEach((yes, i) => {
    if (yes) accepted[i]!++;
  });
  const sdk = [
    isJSONRPCRequest(value),
    isJSONRPCNotification(value),
    isJSONRPCResultResponse(value),
    isJSONRPCErrorResponse(value),
  ];
  assert.deepEqual(ours, sdk, `${JSON.stringify(value)}: ${verdicts(value)}`);
}

test('message shapes: the same verdict as the SDK guards on edge cases', () => {
  for (const value of EDGE_CASES) agree(value);
});

test('message shapes: the same verdict as the SDK guards on generated messages (fuzz)', () => {
  const next = rng(0x5e55);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const values: unknown[] = [1, -3, 1.5, 2 ** 53, 'x', '', null, true, [], {}, [1], { a: 1 }, undefined];
  const meta = () =>
    pick<unknown>([
      undefined,
      undefined,
      {},
      { progressToken: pick(values) },
      { 'io.modelcontextprotocol/related-task': pick<unknown>([{ taskId: 'a' }, { taskId: 1 }, {}, null]) },
      pick(values),
    ]);
  const withMeta = () => {
    const base = next() < 0.7 ? pick<unknown>([{}, { a: 1 }]) : pick(values);
    const m = meta();
    return base !== null && typeof base === 'object' && !Array.isArray(base) && m !== undefined
      ? { ...base, _meta: m }
      : base;
  };
  const fields: Record<string, () => unknown> = {
    jsonrpc: () => pick(['2.0', '2.0', '2.0', '1.0', 2]),
    id: () => (next() < 0.6 ? pick<unknown>([1, 'x', 0]) : pick(values)),
    method: () => pick<unknown>(['ping', 'tools/call', 3, null]),
    params: withMeta,
    result: withMeta,
    error: () =>
      pick<unknown>([
        { code: pick(values), message: pick(values) },
        { code: -32600, message: 'm', data: pick(values) },
        { code: -1, message: 'm', other: 1 },
        pick(values),
      ]),
    extra: () => pick(values),
  };
  accepted.fill(0);
  const runs = 5000;
  const kinds = [
    ['jsonrpc', 'id', 'method', 'params'],
    ['jsonrpc', 'method', 'params'],
    ['jsonrpc', 'id', 'result'],
    ['jsonrpc', 'id', 'error'],
  ];
  const good: Record<string, () => unknown> = {
    jsonrpc: () => '2.0',
    id: () => pick<unknown>([1, 'x', 0]),
    method: () => pick(['ping', 'tools/call']),
    params: () => pick<unknown>([undefined, {}, { a: 1, _meta: {} }]),
    result: () => pick<unknown>([{}, { _meta: {} }]),
    error: () => ({ code: -32600, message: 'm' }),
  };
  for (let i = 0; i < runs; i++) {
    // A well-formed message of one kind, then (usually) one to three random changes to it: a key
    // dropped, a key of another kind added, or a value replaced by a generated one.
    const message: Record<string, unknown> = {};
    for (const key of pick(kinds)) {
      const value = good[key]!();
      if (value !== undefined) message[key] = value;
    }
    const changes = next() < 0.25 ? 0 : 1 + Math.floor(next() * 3);
    for (let c = 0; c < changes; c++) {
      const key = pick(Object.keys(fields));
      if (next() < 0.3) delete message[key];
      else {
        const value = fields[key]!();
        if (value !== undefined) message[key] = value;
      }
    }
    agree(message);
  }
  // Each guard both accepted and refused a fair share of the generated messages.
  for (const count of accepted) assert.ok(count > 250 && count < runs - 250, `accepted ${accepted}`);
});
