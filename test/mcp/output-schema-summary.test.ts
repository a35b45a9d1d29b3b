// The default published output schema is a summary of the complete one (src/mcp/output-schema.ts):
// the result's own fields with every keyword, JSON types below. It must stay true of every result,
// so it may only drop constraints, never add or change one. Checked three ways over every tool: a
// structural proof that each summary node is a relaxation of its complete node; ajv accepting, under
// the summary, generated values the complete schema accepts (and still refusing values that break
// what the summary says); and the depth rule itself, on a schema built for it. The server itself
// still checks every result against the complete zod schema.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { z } from 'zod/v4';
import { loadConfig } from '../../src/config/config.js';
import { invokeTool } from '../../src/mcp/invoke.js';
import { jsonTypes, SUMMARY_DEPTH, summarize } from '../../src/mcp/output-schema.js';
import { INSTRUCTIONS, listTools } from '../../src/mcp/published.js';
import { defineTool } from '../../src/mcp/tool.js';
import { Services } from '../../src/services.js';
import { loadAllTools } from '../../src/tools/index.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { makeWorkspace } from '../kit/mcp-harness.js';

const ALL_TOOLS = await loadAllTools();

type Schema = Record<string, any>;

const isSchema = (v: unknown): v is Schema => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Replaces every {"$ref":"#/$defs/x"} by its definition and drops $defs. */
function inline(schema: unknown, defs: Schema): unknown {
  if (Array.isArray(schema)) return schema.map((s) => inline(s, defs));
  if (!isSchema(schema)) return schema;
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.replace('#/$defs/', '');
    assert.ok(name in defs, `${schema.$ref} is defined`);
    return inline(defs[name], defs);
  }
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema))
    if (k !== '$defs') out[k] = k === 'enum' || k === 'const' ? v : inline(v, defs);
  return out;
}

const inlined = (s: Schema): Schema => inline(s, s.$defs ?? {}) as Schema;

const SUMMARY = listTools(ALL_TOOLS);
const FULL = listTools(ALL_TOOLS, { outputSchemas: 'full' });

/** True when every type of `inner` is one of `outer` ("integer" is within "number"). */
function typesCovered(outer: string[], inner: string[]): boolean {
  return inner.every((t) => outer.includes(t) || (t === 'integer' && outer.includes('number')));
}

/**
 * The ways `summary` fails to be a relaxation of `full` (empty when it is one): every keyword the
 * summary keeps is the complete schema's own, with subschemas that are themselves relaxations; a
 * `type` may only widen; `required` may only shrink; a oneOf's branches may not change.
 */
function relaxationFaults(summary: Schema, full: Schema, path: string): string[] {
  const faults: string[] = [];
  const sub = (s: unknown, f: unknown, p: string) => {
    if (s === true || (isSchema(s) && Object.keys(s).length === 0)) return;
    if (isSchema(s) && isSchema(f)) faults.push(...relaxationFaults(s, f, p));
    else if (JSON.stringify(s) !== JSON.stringify(f))
      faults.push(`${p}: ${JSON.stringify(s)} is not ${JSON.stringify(f)}`);
  };
  for (const [key, value] of Object.entries(summary)) {
    const at = `${path}/${key}`;
    if (key === 'type') {
      const outer = jsonTypes(summary)!;
      const inner = jsonTypes(full);
      if (inner === null || !typesCovered(outer, inner))
        faults.push(`${at}: ${JSON.stringify(value)} does not admit every type of ${JSON.stringify(full)}`);
    } else if (key === 'required') {
      const missing = (value as string[]).filter((r) => !((full.required ?? []) as string[]).includes(r));
      if (missing.length) faults.push(`${at}: requires ${missing.join(', ')} the complete schema does not`);
    } else if (key === 'properties' || key === 'patternProperties') {
      for (const [name, s] of Object.entries(value as Schema)) {
        if (!isSchema(full[key]) || !(name in full[key]))
          faults.push(`${at}/${name}: not in the complete schema`);
        else sub(s, full[key][name], `${at}/${name}`);
      }
    } else if (['items', 'additionalProperties', 'propertyNames', 'contains'].includes(key)) {
      if (!(key in full)) faults.push(`${at}: not in the complete schema`);
      else sub(value, full[key], at);
    } else if (key === 'anyOf' || key === 'allOf' || key === 'prefixItems') {
      // An anyOf may stand for a complete oneOf (a relaxed oneOf is published as an anyOf).
      const other = full[key] ?? (key === 'anyOf' ? full.oneOf : undefined);
      if (!Array.isArray(other) || other.length !== (value as unknown[]).length)
        faults.push(`${at}: branches differ from the complete schema's`);
      else for (const [i, s] of (value as unknown[]).entries()) sub(s, other[i], `${at}/${i}`);
    } else if (JSON.stringify(value) !== JSON.stringify(full[key])) {
      // oneOf, not, enum, const, pattern, bounds, ...: kept exactly or not at all.
      faults.push(`${at}: ${JSON.stringify(value)} differs from ${JSON.stringify(full[key])}`);
    }
  }
  return faults;
}

test('every summary output schema is a relaxation of the complete one, node by node', () => {
  let cut = 0;
  for (const [i, tool] of SUMMARY.entries()) {
    const summary = inlined(tool.outputSchema);
    const full = inlined(FULL[i]!.outputSchema);
    assert.deepEqual(relaxationFaults(summary, full, tool.name), [], tool.name);
    if (JSON.stringify(summary) !== JSON.stringify(full)) cut++;
  }
  assert.ok(cut >= 20, `the summary drops detail in many tools (${cut})`);
});

/**
 * Where the published summary breaks the convention the instructions state (an object that lists no
 * `required` has every field it lists), walking summary and complete nodes side by side.
 */
function requiredConventionFaults(summary: unknown, full: unknown, path: string): string[] {
  if (!isSchema(summary) || !isSchema(full)) return [];
  const faults: string[] = [];
  if (isSchema(summary.properties) && !Array.isArray(summary.required)) {
    const required = (full.required ?? []) as string[];
    const optional = Object.keys(summary.properties).filter((f) => !required.includes(f));
    if (optional.length) faults.push(`${path}: lists no required, but ${optional.join(', ')} may be absent`);
  }
  for (const key of ['properties', 'patternProperties'])
    if (isSchema(summary[key]) && isSchema(full[key]))
      for (const [name, sub] of Object.entries(summary[key] as Schema))
        faults.push(...requiredConventionFaults(sub, full[key][name], `${path}/${name}`));
  for (const key of ['items', 'additionalProperties'])
    faults.push(...requiredConventionFaults(summary[key], full[key], `${path}/${key}`));
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const other = full[key] ?? (key === 'anyOf' ? full.oneOf : undefined);
    if (Array.isArray(summary[key]) && Array.isArray(other))
      for (const [i, sub] of (summary[key] as unknown[]).entries())
        faults.push(...requiredConventionFaults(sub, other[i], `${path}/${key}/${i}`));
  }
  return faults;
}

test('an object the summary publishes without `required` has every field it lists, as the instructions say', () => {
  assert.match(
    INSTRUCTIONS,
    /Output objects have every field they list .*unless their schema lists `required`/,
  );
  let omitted = 0;
  for (const [i, tool] of SUMMARY.entries()) {
    const summary = inlined(tool.outputSchema);
    assert.deepEqual(
      requiredConventionFaults(summary, inlined(FULL[i]!.outputSchema), tool.name),
      [],
      tool.name,
    );
    omitted += (JSON.stringify(FULL[i]!.outputSchema).match(/"required"/g) ?? []).length;
    omitted -= (JSON.stringify(tool.outputSchema).match(/"required"/g) ?? []).length;
  }
  assert.ok(omitted >= 50, `most all-required lists are left out (${omitted})`);
  // The rule itself: an all-required list goes, a partial one stays, none at all becomes [].
  const obj = (required?: string[]) => ({
    type: 'object',
    properties: { a: { type: 'integer' }, b: { type: 'string' } },
    ...(required ? { required } : {}),
  });
  assert.equal('required' in summarize(obj(['a', 'b']), 1, 2), false);
  assert.deepEqual(summarize(obj(['b']), 1, 2).required, ['b']);
  assert.deepEqual(summarize(obj(), 1, 2).required, []);
  // And the check catches a summary that drops a partial list.
  const full = obj(['a']);
  assert.notDeepEqual(requiredConventionFaults(obj(), full, ''), []);
});

test('the relaxation check refuses a summary that adds or changes a constraint', () => {
  const full = {
    type: 'object',
    properties: { a: { enum: ['x', 'y'] }, b: { type: 'object', properties: { c: { type: 'integer' } } } },
    required: ['a'],
  };
  const bad: Schema[] = [
    { ...full, required: ['a', 'b'] },
    { ...full, properties: { ...full.properties, a: { enum: ['x'] } } },
    { ...full, properties: { ...full.properties, b: { type: 'string' } } },
    { ...full, properties: { ...full.properties, d: { type: 'string' } } },
    {
      ...full,
      properties: { ...full.properties, b: { type: 'object', properties: { c: { type: 'string' } } } },
    },
    { ...full, additionalProperties: false },
  ];
  for (const s of bad) assert.notDeepEqual(relaxationFaults(s, full, ''), [], JSON.stringify(s));
  assert.deepEqual(relaxationFaults(summarize(full, 1, 1), full, ''), []);
});

test('fields to depth 2 keep every keyword but list values; deeper objects and arrays of objects become their types', () => {
  const address = { type: 'string', pattern: '^0x[0-9a-f]{8,}$' };
  const deep = { type: 'object', properties: { x: address, y: { type: 'integer' } }, required: ['x'] };
  const schema = {
    type: 'object',
    properties: {
      status: { enum: ['complete', 'truncated'] },
      at: address,
      one: {
        type: ['object', 'null'],
        properties: {
          a: address,
          inner: deep,
          list: { type: 'array', items: deep },
          tags: { type: 'array', items: { enum: ['p', 'q'] } },
        },
        required: ['a', 'inner'],
      },
      many: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            k: { const: 1 },
            either: { anyOf: [deep, { type: 'string' }] },
            map: { type: 'object', propertyNames: address, additionalProperties: deep },
          },
          required: ['k'],
        },
      },
      record: { type: 'object', propertyNames: address, additionalProperties: deep },
    },
    required: ['status', 'one', 'many'],
  };
  assert.deepEqual(summarize(schema, 1, 2), {
    type: 'object',
    properties: {
      status: { enum: ['complete', 'truncated'] },
      at: address,
      one: {
        type: ['object', 'null'],
        properties: {
          a: address,
          inner: { type: 'object' },
          list: { type: 'array' },
          // A list of enumerated values keeps its values' type, not the values.
          tags: { type: 'array', items: { type: 'string' } },
        },
        required: ['a', 'inner'],
      },
      many: {
        type: 'array',
        items: {
          type: 'object',
          properties: { k: { const: 1 }, either: { type: ['object', 'string'] }, map: { type: 'object' } },
          required: ['k'],
        },
      },
      // A record's values are its fields: depth 2 here, so their own fields are cut.
      record: { type: 'object', propertyNames: address, additionalProperties: { type: 'object' } },
    },
    required: ['status', 'one', 'many'],
  });
  assert.deepEqual((summarize(schema, 1, 1) as Schema).properties.one, { type: ['object', 'null'] });
  assert.deepEqual(summarize(schema, 1, 4), schema, 'nothing is cut where the schema is not deeper');
  // Relaxed oneOf branches could overlap (a oneOf refuses a value two branches accept): anyOf then.
  const union = { oneOf: [deep, { type: 'object', properties: { z: deep } }] };
  assert.deepEqual((summarize({ type: 'object', properties: { u: union } }, 1, 1) as Schema).properties.u, {
    type: 'object',
  });
  assert.deepEqual(
    Object.keys((summarize({ type: 'object', properties: { u: union } }, 1, 2) as Schema).properties.u),
    ['anyOf'],
  );
  assert.equal(SUMMARY_DEPTH, 1);
});

/** A small seeded PRNG (mulberry32): the same values every run. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Strings for the patterns output schemas use; a new pattern needs a sample here. */
const PATTERN_SAMPLES = ['0x0200abcd', '0xffffffff', 'a1B2', '0'.repeat(64), 'name_1'];

/** A value the (inlined) complete schema accepts, with optional fields, branches and sizes varied. */
function generate(schema: Schema, next: () => number, level = 0): unknown {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return pick(schema.enum);
  const branches = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(branches)) return generate(pick(branches), next, level);
  const type = Array.isArray(schema.type) ? pick(schema.type as string[]) : schema.type;
  switch (type) {
    case 'null':
      return null;
    case 'boolean':
      return next() < 0.5;
    case 'integer':
      return Math.floor(next() * 1000);
    case 'number':
      return next() * 1000;
    case 'string': {
      if (typeof schema.pattern !== 'string') return pick(['', 'text', 'arm9']);
      const re = new RegExp(schema.pattern);
      const sample = PATTERN_SAMPLES.find((s) => re.test(s));
      assert.ok(sample !== undefined, `no sample string for pattern ${schema.pattern}`);
      return sample;
    }
    case 'array': {
      if (!isSchema(schema.items) || level > 12) return [];
      const n = Math.floor(next() * 3);
      return Array.from({ length: n }, () => generate(schema.items, next, level + 1));
    }
    case 'object': {
      const out: Record<string, unknown> = {};
      const required = (schema.required ?? []) as string[];
      for (const [name, s] of Object.entries((schema.properties ?? {}) as Schema))
        if (required.includes(name) || next() < 0.6) out[name] = generate(s, next, level + 1);
      if (isSchema(schema.additionalProperties) && level <= 12)
        for (let i = Math.floor(next() * 3); i > 0; i--) {
          const key = isSchema(schema.propertyNames) ? generate(schema.propertyNames, next) : `k${i}`;
          out[String(key)] = generate(schema.additionalProperties, next, level + 1);
        }
      return out;
    }
    default:
      // No type said (an unknown value): anything.
      return pick([null, 1, 'x', { a: [1] }]);
  }
}

test('ajv: every generated value the complete schema accepts, the summary accepts', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  let values = 0;
  for (const [i, tool] of SUMMARY.entries()) {
    const full = FULL[i]!.outputSchema;
    const fullOk = ajv.compile(full);
    const summaryOk = ajv.compile(tool.outputSchema);
    const complete = inlined(full);
    const next = rng(i + 1);
    for (let n = 0; n < 40; n++) {
      const value = generate(complete, next);
      assert.ok(
        fullOk(value),
        `${tool.name}: generated value outside the complete schema: ${ajv.errorsText(fullOk.errors)}`,
      );
      assert.ok(
        summaryOk(value),
        `${tool.name}: the summary refuses ${JSON.stringify(value).slice(0, 300)}: ${ajv.errorsText(summaryOk.errors)}`,
      );
      values++;
    }
  }
  assert.equal(values, SUMMARY.length * 40);
});

test('ajv: the summary still refuses what it says is wrong (a missing required field, a wrong type)', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  let refused = 0;
  for (const [i, tool] of SUMMARY.entries()) {
    const summaryOk = ajv.compile(tool.outputSchema);
    const value = generate(inlined(FULL[i]!.outputSchema), rng(1000 + i)) as Record<string, unknown>;
    const field = ((FULL[i]!.outputSchema.required ?? []) as string[])[0];
    if (field === undefined) continue;
    // A field the summary lists as required (a partial list: the rest are all present by convention).
    if (((tool.outputSchema.required ?? []) as string[]).includes(field)) {
      const { [field]: _dropped, ...missing } = value;
      assert.equal(summaryOk(missing), false, `${tool.name}: accepts a result without ${field}`);
    }
    // A value of a JSON type the field does not have (the summary keeps every field's own type).
    const types = jsonTypes(inlined(FULL[i]!.outputSchema).properties[field]) ?? [];
    const wrong = [[[]], 'x', true, { x: 1 }].find(
      (v) => !types.includes(Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v),
    );
    assert.equal(summaryOk({ ...value, [field]: wrong }), false, `${tool.name}: accepts a wrong ${field}`);
    refused++;
  }
  assert.ok(refused >= 60, `${refused} tools checked`);
});

test('a result wrong below the cut is refused by the server (complete zod schema), though the summary admits it', async () => {
  const deep = defineTool({
    name: 'deep',
    title: 'Deep',
    profiles: ['project'],
    description: { purpose: 'p', useWhen: 'u', behaviour: 'b', limits: 'l', returns: 'r' },
    input: z.object({}),
    output: z.object({ a: z.object({ b: z.object({ c: z.enum(['x', 'y']) }) }) }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async handler() {
      return { structured: { a: { b: { c: 'z' as 'x' } } }, text: 'wrong' };
    },
  });
  const [published] = listTools([deep]);
  assert.deepEqual(published!.outputSchema.properties, { a: { type: 'object' } });
  const ajv = new Ajv2020({ strict: false });
  assert.ok(ajv.validate(published!.outputSchema, { a: { b: { c: 'z' } } }), 'the summary admits it');
  const root = await makeWorkspace();
  try {
    const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
    assert.equal(services.config.outputSchemas, 'summary');
    const r = await invokeTool(deep, {}, services, { signal: new AbortController().signal, log: () => {} });
    assert.equal(r.isError, true);
    const error = (r.structuredContent as { error: { code: string; message: string } }).error;
    assert.equal(error.code, 'internal-error');
    assert.match(error.message, /outside its output schema: a\.b\.c/);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
