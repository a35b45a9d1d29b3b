// Calls tools in-process through the real pipeline (input/output schemas, error mapping), without a
// server: call returns the raw result, ok asserts success and returns structuredContent, fails
// asserts a typed refusal with the given code. `defaults` are merged under every call's arguments.
// Every result is validated by ajv against the schema tools/list publishes (schema-check.ts).
import assert from 'node:assert/strict';
import type { ToolDefinition } from '../../src/mcp/tool.js';
import type { Services } from '../../src/services.js';
import { invokeChecked } from './schema-check.js';

export interface InProcessResult {
  isError?: boolean;
  structuredContent: Record<string, any>;
  content: Array<{ text: string }>;
}

export function inProcess(
  tools: readonly unknown[],
  services: Services,
  defaults: Record<string, unknown> = {},
) {
  const tool = (name: string) => {
    const found = (tools as ToolDefinition[]).find((t) => t.name === name);
    if (!found) throw new Error(`no tool ${name}`);
    return found;
  };
  async function call(name: string, args: Record<string, unknown>): Promise<InProcessResult> {
    // Discovery is read whole here (every function on one page, callers, callees and call sites);
    // its paged summary default is tested on its own (test/mcp/context-budgets.test.ts).
    const whole = name === 'nds_discover_functions' ? { detail: 'full', limit: 1024 } : {};
    // invokeChecked: ajv checks the result against the published schema (schema-check.ts).
    return (await invokeChecked(tool(name), { ...defaults, ...whole, ...args }, services, {
      signal: new AbortController().signal,
      log: () => {},
    })) as InProcessResult;
  }
  async function ok(name: string, args: Record<string, unknown>) {
    const r = await call(name, args);
    assert.notEqual(r.isError, true, JSON.stringify(r.structuredContent));
    return r.structuredContent;
  }
  async function fails(name: string, args: Record<string, unknown>, code: string) {
    const r = await call(name, args);
    assert.equal(r.isError, true, `expected ${code}`);
    assert.equal(r.structuredContent.error?.code, code, JSON.stringify(r.structuredContent));
    return r.structuredContent.error as { code: string; message: string; details?: Record<string, unknown> };
  }
  return { call, ok, fails };
}
