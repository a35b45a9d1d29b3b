// An independent check of every tool result the test suite produces: ajv (not zod, which produced
// the schemas) validates each success's structuredContent against the tool's published outputSchema,
// and each error's `_meta["re-mcp/error"]` (wire form) or `structuredContent.error` (the in-process
// pipeline's form) against the published error schema. Hooked into the MCP harness and the
// in-process call helpers, so it runs on every call of the whole suite.
import assert from 'node:assert/strict';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { invokeTool } from '../../src/mcp/invoke.js';
import { listTools } from '../../src/mcp/server.js';
import { ERROR_META_KEY, ERROR_META_SCHEMA } from '../../src/mcp/wire.js';
import { toolsForProfile } from '../../src/tools/index.js';

// Formats are not checked (zod emits few, and ajv needs a plugin for them); every other keyword is.
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
const validators = new Map<string, ValidateFunction>();
const errorValidator = ajv.compile(ERROR_META_SCHEMA as object);
let checked = 0;

function validatorFor(key: string, schema: object): ValidateFunction {
  let v = validators.get(key);
  if (!v) {
    v = ajv.compile(schema);
    validators.set(key, v);
  }
  return v;
}

function assertValid(v: ValidateFunction, value: unknown, what: string): void {
  const ok = v(value);
  assert.ok(
    ok,
    `${what} fails its JSON Schema (ajv): ${ajv.errorsText(v.errors)}; value ${JSON.stringify(value).slice(0, 400)}`,
  );
  checked += 1;
}

interface AnyResult {
  isError?: boolean;
  structuredContent?: unknown;
  _meta?: unknown;
}

/** Checks a result received over MCP against the outputSchema the same server published. */
export function checkWireResult(tool: string, outputSchema: object | undefined, result: AnyResult): void {
  if (result.isError) {
    assert.equal(result.structuredContent, undefined, `${tool}: an error result carries structuredContent`);
    const error = (result._meta as Record<string, unknown> | undefined)?.[ERROR_META_KEY];
    assertValid(errorValidator, error, `${tool} error _meta`);
    return;
  }
  if (outputSchema === undefined) return; // an older protocol version: no schema, no structured content
  assertValid(
    validatorFor(`wire:${JSON.stringify(outputSchema)}`, outputSchema),
    result.structuredContent,
    `${tool} structuredContent`,
  );
}

let published: Map<string, object> | null = null;

/** Checks an in-process pipeline result against the schema tools/list publishes for the tool. */
export function checkPipelineResult(tool: string, result: AnyResult): void {
  published ??= new Map(listTools(toolsForProfile('full')).map((t) => [t.name, t.outputSchema]));
  if (result.isError) {
    const error = (result.structuredContent as { error?: unknown } | undefined)?.error;
    assertValid(errorValidator, error, `${tool} error`);
    return;
  }
  const schema = published.get(tool);
  if (schema === undefined) return; // a test-only tool defined inside a test
  assertValid(validatorFor(`tool:${tool}`, schema), result.structuredContent, `${tool} structuredContent`);
}

/** How many results were validated in this process (tests assert the hook ran). */
export function schemaChecks(): number {
  return checked;
}

/** `invokeTool` with the ajv check of its result: the in-process call helpers use this. */
export async function invokeChecked(...args: Parameters<typeof invokeTool>): ReturnType<typeof invokeTool> {
  const result = await invokeTool(...args);
  checkPipelineResult(args[0].name, result);
  return result;
}
