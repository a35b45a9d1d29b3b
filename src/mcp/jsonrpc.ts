// The shapes of the four JSON-RPC 2.0 messages MCP exchanges, checked by hand: what the stdio
// transport must tell apart before anything else runs. They accept exactly what the MCP
// specification's message schemas accept (no unknown top-level keys; ids are strings or integers;
// params and results are objects whose optional _meta is an object; a progress token is a string or
// an integer), so a message is judged the same with or without the SDK loaded.
// test/mcp/session.test.ts checks them against the SDK's own guards on many messages.

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

export const isRequestId = (value: unknown): value is string | number =>
  typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value));

function onlyKeys(value: Json, allowed: readonly string[]): boolean {
  for (const key of Object.keys(value)) if (!allowed.includes(key)) return false;
  return true;
}

/** Request and notification params: an object; its _meta (if any) an object with a valid progress token. */
function validParams(params: unknown): boolean {
  if (params === undefined) return true;
  if (!isObject(params)) return false;
  const meta = params._meta;
  if (meta === undefined) return true;
  if (!isObject(meta)) return false;
  if (meta.progressToken !== undefined && !isRequestId(meta.progressToken)) return false;
  const task = meta['io.modelcontextprotocol/related-task'];
  return task === undefined || (isObject(task) && typeof task.taskId === 'string');
}

export function isRequest(value: Json): boolean {
  return (
    onlyKeys(value, ['jsonrpc', 'id', 'method', 'params']) &&
    value.jsonrpc === '2.0' &&
    isRequestId(value.id) &&
    typeof value.method === 'string' &&
    validParams(value.params)
  );
}

export function isNotification(value: Json): boolean {
  return (
    onlyKeys(value, ['jsonrpc', 'method', 'params']) &&
    value.jsonrpc === '2.0' &&
    typeof value.method === 'string' &&
    validParams(value.params)
  );
}

export function isResultResponse(value: Json): boolean {
  return (
    onlyKeys(value, ['jsonrpc', 'id', 'result']) &&
    value.jsonrpc === '2.0' &&
    isRequestId(value.id) &&
    isObject(value.result) &&
    (value.result._meta === undefined || isObject(value.result._meta))
  );
}

export function isErrorResponse(value: Json): boolean {
  const error = value.error;
  return (
    onlyKeys(value, ['jsonrpc', 'id', 'error']) &&
    value.jsonrpc === '2.0' &&
    (value.id === undefined || isRequestId(value.id)) &&
    isObject(error) &&
    typeof error.code === 'number' &&
    Number.isSafeInteger(error.code) &&
    typeof error.message === 'string'
  );
}

/**
 * A result already serialised (the tools/list text the build made): the transport writes it as it
 * is inside the response envelope instead of serialising an object.
 */
export class RawJson {
  constructor(readonly text: string) {}
}
