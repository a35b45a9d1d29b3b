import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod/v4';
import { compactSchema } from '../../src/mcp/json-schema.js';

test('compaction removes only noise', () => {
  const schema = z.object({
    count: z.number().int(),
    bounded: z.number().int().min(0).max(10),
    maybe: z.string().nullable(),
    either: z.union([z.string(), z.number()]).nullable(),
    objOrNull: z.object({ x: z.number() }).nullable(),
    nested: z.object({ a: z.boolean() }),
  });
  const out = compactSchema(z.toJSONSchema(schema, { io: 'output' }), { output: true }) as any;
  assert.equal(out.$schema, undefined);
  assert.deepEqual(out.properties.count, { type: 'integer' });
  assert.deepEqual(out.properties.bounded, { type: 'integer', minimum: 0, maximum: 10 });
  assert.deepEqual(out.properties.maybe, { type: ['string', 'null'] });
  assert.deepEqual(out.properties.either, { type: ['string', 'number', 'null'] });
  assert.equal(out.properties.objOrNull.type[1], 'null');
  assert.deepEqual(Object.keys(out.properties.objOrNull.properties), ['x']);
  assert.equal(out.properties.nested.additionalProperties, undefined);
  assert.deepEqual(out.required, ['count', 'bounded', 'maybe', 'either', 'objOrNull', 'nested']);
  const strict = compactSchema(z.toJSONSchema(z.strictObject({ a: z.number() }), { io: 'input' }), {
    output: false,
  }) as any;
  assert.equal(strict.additionalProperties, false, 'input objects keep additionalProperties: false');
});
