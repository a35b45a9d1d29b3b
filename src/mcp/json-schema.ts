// Trims JSON Schemas derived from zod for tools/list: an assistant reads every byte of that answer.
// Only noise is removed (the schemas accept exactly the same values): the safe-integer bounds zod adds
// to every integer, `additionalProperties: false` on output objects (outputs are ours), and
// `anyOf [X, null]` pairs, folded into a type list when X is a plain typed schema.
type Schema = Record<string, unknown>;

const SAFE = Number.MAX_SAFE_INTEGER;

function isPlainTyped(s: Schema): boolean {
  return (
    typeof s.type === 'string' && !('anyOf' in s) && !('oneOf' in s) && !('enum' in s) && !('const' in s)
  );
}

export function compactSchema(input: unknown, options: { output: boolean }): unknown {
  if (Array.isArray(input)) return input.map((v) => compactSchema(v, options));
  if (input === null || typeof input !== 'object') return input;
  const schema: Schema = {};
  for (const [key, value] of Object.entries(input as Schema)) {
    if (key === '$schema') continue;
    if (key === 'minimum' && value === -SAFE) continue;
    if (key === 'maximum' && value === SAFE) continue;
    if (key === 'additionalProperties' && value === false && options.output) continue;
    schema[key] = compactSchema(value, options);
  }
  const anyOf = schema.anyOf;
  if (Array.isArray(anyOf) && anyOf.length === 2) {
    const [a, b] = anyOf as Schema[];
    const nullFirst = b && a?.type === 'null' && Object.keys(a).length === 1;
    const nullSecond = a && b?.type === 'null' && Object.keys(b).length === 1;
    const other = nullSecond ? a : nullFirst ? b : null;
    if (other && isPlainTyped(other)) {
      delete schema.anyOf;
      Object.assign(schema, other, { type: [other.type, 'null'] });
    }
  }
  return schema;
}
