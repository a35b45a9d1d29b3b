// The complete output schemas (RE_MCP_OUTPUT_SCHEMAS=full) say each repeated part once and drop a
// `type` an enum/const already fixes, yet accept exactly the same values: inlining every $ref and
// putting the implied types back gives the compacted zod schema again, for every tool. (The default
// summary is checked against these in output-schema-summary.test.ts.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod/v4';
import { compactSchema } from '../../src/mcp/json-schema.js';
import { publishOutputSchema, shareDefinitions } from '../../src/mcp/output-schema.js';
import { listTools } from '../../src/mcp/published.js';
import { loadAllTools } from '../../src/tools/index.js';

const ALL_TOOLS = await loadAllTools();

type Schema = Record<string, any>;

/** Replaces every {"$ref":"#/$defs/x"} by the definition, recursively, and drops $defs. */
function inline(schema: unknown, defs: Schema): unknown {
  if (Array.isArray(schema)) return schema.map((s) => inline(s, defs));
  if (schema === null || typeof schema !== 'object') return schema;
  const s = schema as Schema;
  if (typeof s.$ref === 'string') {
    assert.equal(Object.keys(s).length, 1, 'a $ref stands alone');
    const name = s.$ref.replace('#/$defs/', '');
    assert.ok(name in defs, `${s.$ref} is defined`);
    return inline(defs[name], defs);
  }
  const out: Schema = {};
  for (const [k, v] of Object.entries(s))
    if (k !== '$defs') out[k] = k === 'enum' || k === 'const' ? v : inline(v, defs);
  return out;
}

/** Puts back the `type` of every enum/const (the values' JSON type(s) where it was dropped). */
function restoreTypes(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(restoreTypes);
  if (schema === null || typeof schema !== 'object') return schema;
  const s = schema as Schema;
  const out: Schema = {};
  for (const [k, v] of Object.entries(s)) out[k] = k === 'enum' || k === 'const' ? v : restoreTypes(v);
  const values = 'const' in s ? [s.const] : Array.isArray(s.enum) ? s.enum : null;
  if (values && !('type' in s)) {
    // One type, or a nullable enum's [type, "null"] (values first, null last).
    const types = [...new Set(values.map((v: unknown) => (v === null ? 'null' : typeof v)))];
    assert.ok(
      types.length === 1 || (types.length === 2 && types[1] === 'null'),
      `type dropped only when the values fix it: ${JSON.stringify(values)}`,
    );
    return { type: types.length === 1 ? types[0] : types, ...out };
  }
  return out;
}

/** Key order does not matter to a validator: compare canonical forms. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.keys(v as Schema)
      .sort()
      .map((k) => [k, canonical((v as Schema)[k])]),
  );
}

test('every complete output schema is its compacted zod schema, said once', () => {
  const published = listTools(ALL_TOOLS, { outputSchemas: 'full' });
  let shared = 0;
  for (const [i, def] of ALL_TOOLS.entries()) {
    const out = published[i]!.outputSchema as Schema;
    const compact = compactSchema(z.toJSONSchema(def.output, { io: 'output', unrepresentable: 'any' }), {
      output: true,
    });
    assert.equal(out.type, 'object', `${def.name}: an object at the root`);
    const restored = restoreTypes(inline(out, (out.$defs ?? {}) as Schema));
    assert.deepEqual(canonical(restored), canonical(compact), def.name);
    if (out.$defs) shared++;
  }
  assert.ok(shared >= 10, `repeated parts are shared in many tools (${shared})`);
});

test('a part is shared only when that saves bytes, and properties named like keywords are left alone', () => {
  const small = { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } } };
  assert.deepEqual(shareDefinitions(small), small, 'a short repeated part stays inline');
  const range = { type: 'object', properties: { start: { type: 'string', pattern: '^0x[0-9a-f]{8,}$' } } };
  const big = { type: 'object', properties: { x: range, y: range, z: range } };
  const shared = shareDefinitions(big, new Map([[JSON.stringify(range), 'range']]));
  assert.deepEqual(shared.properties, {
    x: { $ref: '#/$defs/range' },
    y: { $ref: '#/$defs/range' },
    z: { $ref: '#/$defs/range' },
  });
  assert.ok(JSON.stringify(shared).length < JSON.stringify(big).length);
  const keywords = {
    type: 'object',
    properties: {
      type: { type: 'string', enum: ['a', 'b'] },
      enum: { type: 'integer' },
      const: { type: 'boolean', const: true },
      mixed: { type: 'string', enum: ['a', 1] },
    },
  };
  const out = publishOutputSchema(keywords, new Map());
  assert.deepEqual(out.properties, {
    type: { enum: ['a', 'b'] },
    enum: { type: 'integer' },
    const: { const: true },
    mixed: { type: 'string', enum: ['a', 1] },
  });
});
