// Trims JSON Schemas derived from zod for tools/list: an assistant reads every byte of that answer.
// Only noise is removed (the schemas accept exactly the same values): the safe-integer bounds zod adds
// to every integer, `additionalProperties: false` on output objects (outputs are ours), and
// `anyOf [X, null]` pairs, folded into a type list when X is a plain typed schema. One thing is added:
// a top-level `type` on every union (see addUnionType).
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
  addUnionType(schema);
  return schema;
}

function typesOf(branch: Schema): string[] | null {
  if (typeof branch.type === 'string') return [branch.type];
  if (Array.isArray(branch.type)) return branch.type as string[];
  const values = 'const' in branch ? [branch.const] : Array.isArray(branch.enum) ? branch.enum : null;
  if (values === null) {
    const nested = (branch.anyOf ?? branch.oneOf) as Schema[] | undefined;
    if (!Array.isArray(nested)) return null;
    const all = nested.map(typesOf);
    return all.every((t) => t !== null) ? (all.flat() as string[]) : null;
  }
  return values.map((v) =>
    v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v,
  );
}

/**
 * A oneOf/anyOf without a top-level `type` gets one (the union of its branches' types): form-based
 * clients and the MCP Inspector pick an input widget from `type` alone and otherwise send the value
 * as a string, so an object or integer-or-hex argument could not be sent at all.
 */
function addUnionType(schema: Schema): void {
  if ('type' in schema) return;
  const branches = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (!Array.isArray(branches) || branches.length === 0) return;
  const all = branches.map(typesOf);
  if (all.some((t) => t === null)) return;
  let types = [...new Set(all.flat() as string[])];
  // "integer" is within "number": listing both is noise.
  if (types.includes('number')) types = types.filter((t) => t !== 'integer');
  schema.type = types.length === 1 ? types[0] : types;
}
