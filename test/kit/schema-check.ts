// An independent check of every tool result the test suite produces: ajv (not zod, which produced
// the schemas) validates each success's structuredContent against the tool's complete output schema
// (RE_MCP_OUTPUT_SCHEMAS=full) and, over MCP, also against the outputSchema the server published (by
// default the summary, which its clients validate with), and each error's `_meta["re-mcp/error"]` (wire form) or `structuredContent.error` (the in-process
// pipeline's form) against the published error schema. Hooked into the MCP harness and the
// in-process call helpers, so it runs on every call of the whole suite.
import assert from 'node:assert/strict';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { invokeTool } from '../../src/mcp/invoke.js';
import { listTools } from '../../src/mcp/published.js';
import { ERROR_META_KEY, ERROR_META_SCHEMA } from '../../src/mcp/wire.js';
import { loadAllTools } from '../../src/tools/index.js';

const ALL_TOOLS = await loadAllTools();

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

let complete: Map<string, object> | null = null;

/** The complete output schema of every tool of the registry (what RE_MCP_OUTPUT_SCHEMAS=full publishes). */
function completeSchema(tool: string): object | undefined {
  complete ??= new Map(listTools(ALL_TOOLS, { outputSchemas: 'full' }).map((t) => [t.name, t.outputSchema]));
  return complete.get(tool);
}

/**
 * Checks a result received over MCP against the outputSchema the same server published, and against
 * the tool's complete output schema.
 */
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
  const full = completeSchema(tool);
  if (full !== undefined)
    assertValid(validatorFor(`tool:${tool}`, full), result.structuredContent, `${tool} structuredContent`);
}

/** Checks an in-process pipeline result against the tool's complete output schema. */
export function checkPipelineResult(tool: string, result: AnyResult): void {
  if (result.isError) {
    const error = (result.structuredContent as { error?: unknown } | undefined)?.error;
    assertValid(errorValidator, error, `${tool} error`);
    return;
  }
  const schema = completeSchema(tool);
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
