import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Ajv } from 'ajv';
import { z } from 'zod/v4';
import { addressArg } from '../../src/core/vocabulary.js';
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

test('an anyOf of typed branches folds into one type list that accepts exactly the same values', () => {
  const ajv = new Ajv({ strict: false });
  const cases: Array<{ schema: Record<string, unknown>; folded: boolean; samples: unknown[] }> = [
    {
      // The address argument: integer, or text of at most 12 characters.
      schema: { anyOf: [{ type: 'integer' }, { type: 'string', maxLength: 12 }] },
      folded: true,
      samples: [
        0,
        7,
        -1,
        1.5,
        2 ** 40,
        '',
        '0x02000000',
        '0x0200000000000',
        'abc',
        null,
        true,
        [],
        {},
        ['0x1'],
      ],
    },
    {
      schema: {
        anyOf: [
          { type: 'integer', minimum: 0, maximum: 9 },
          { type: 'string', pattern: '^a' },
          { type: 'array', items: { type: 'integer' }, maxItems: 2 },
        ],
      },
      folded: true,
      samples: [0, 9, 10, -1, 'a', 'b', 'abc', [], [1, 2], [1, 2, 3], ['x'], null, {}, false, 3.5],
    },
    {
      schema: {
        anyOf: [
          { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
          { type: 'boolean' },
        ],
      },
      folded: true,
      samples: [{}, { a: 'x' }, { a: 1 }, true, false, null, 'a', 1, []],
    },
    // Not foldable: both branches constrain numbers, the same type twice, a branch with its own description.
    {
      schema: {
        anyOf: [
          { type: 'integer', minimum: 5 },
          { type: 'number', maximum: 1 },
        ],
      },
      folded: false,
      samples: [0, 3, 6, 0.5, 5.5],
    },
    {
      schema: {
        anyOf: [
          { type: 'string', maxLength: 2 },
          { type: 'string', pattern: '^x' },
        ],
      },
      folded: false,
      samples: ['ab', 'xyz', 'abc'],
    },
    {
      schema: { anyOf: [{ type: 'string', description: 'd' }, { type: 'integer' }] },
      folded: false,
      samples: ['a', 1, null],
    },
  ];
  for (const { schema, folded, samples } of cases) {
    const out = compactSchema(structuredClone(schema), { output: false }) as Record<string, unknown>;
    assert.equal('anyOf' in out, !folded, JSON.stringify(schema));
    if (folded) assert.ok(Array.isArray(out.type), JSON.stringify(out));
    const before = ajv.compile(schema);
    const after = ajv.compile(out);
    for (const v of samples)
      assert.equal(after(v), before(v), `${JSON.stringify(out)} on ${JSON.stringify(v)}`);
  }
  // The published address argument itself.
  const address = compactSchema(z.toJSONSchema(addressArg('Start'), { io: 'input' }), { output: false });
  assert.deepEqual(address, { description: 'Start.', type: ['integer', 'string'], maxLength: 12 });
});

test('output schemas lose their descriptions, never a property named description', () => {
  const out = compactSchema(
    z.toJSONSchema(
      z.object({ description: z.string().describe('said by the name'), n: z.number().describe('x') }),
      {
        io: 'output',
      },
    ),
    { output: true },
  ) as any;
  assert.deepEqual(out.properties, { description: { type: 'string' }, n: { type: 'number' } });
  assert.deepEqual(out.required, ['description', 'n']);
});

test('a union of literals becomes an enum that accepts exactly the same values', () => {
  const ajv = new Ajv({ strict: false });
  const raw = z.toJSONSchema(z.union([z.literal(1), z.literal(2), z.literal(4)]).describe('Width.'), {
    io: 'input',
  });
  const out = compactSchema(structuredClone(raw), { output: false }) as Record<string, unknown>;
  assert.deepEqual(out, { description: 'Width.', type: 'number', enum: [1, 2, 4] });
  const before = ajv.compile({ ...raw, $schema: undefined });
  const after = ajv.compile(out);
  for (const v of [1, 2, 3, 4, 4.0, '1', null, [1], 0, -1, 8])
    assert.equal(after(v), before(v), JSON.stringify(v));
});

test('a nullable enum becomes one enum with null that accepts exactly the same values', () => {
  const ajv = new Ajv({ strict: false });
  const raw = z.toJSONSchema(z.enum(['arm9', 'arm7']).nullable(), { io: 'output' });
  const out = compactSchema(structuredClone(raw), { output: true }) as Record<string, unknown>;
  assert.deepEqual(out, { type: ['string', 'null'], enum: ['arm9', 'arm7', null] });
  const before = ajv.compile({ ...raw, $schema: undefined });
  const after = ajv.compile(out);
  for (const v of ['arm9', 'arm7', 'arm', null, 0, '', ['arm9'], {}])
    assert.equal(after(v), before(v), JSON.stringify(v));
});
