// Trims JSON Schemas derived from zod for tools/list: an assistant reads every byte of that answer.
// Only noise is removed (the schemas accept exactly the same values): the safe-integer bounds zod adds
// to every integer, `additionalProperties: false` on output objects (outputs are ours), and
// `anyOf [X, null]` pairs, folded into a type list when X is a plain typed schema, any other anyOf of
// plain typed branches that differ only by type and type-specific keywords (foldTypeUnion), and in
// output schemas the descriptions (field names say it; outputs are ours). One thing is added: a
// top-level `type` on every union (see addUnionType).
type Schema = Record<string, unknown>;

const SAFE = Number.MAX_SAFE_INTEGER;

function isPlainTyped(s: Schema): boolean {
  return (
    typeof s.type === 'string' && !('anyOf' in s) && !('oneOf' in s) && !('enum' in s) && !('const' in s)
  );
}

/** {enum: [...]} with at most a `type` beside it. */
function isPlainEnum(s: Schema): boolean {
  return Array.isArray(s.enum) && Object.keys(s).every((k) => k === 'enum' || k === 'type');
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
    if (key === 'description' && options.output && typeof value === 'string') continue;
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
    } else if (other && isPlainEnum(other) && !('enum' in schema)) {
      // anyOf [{enum: [a, b]}, {type: null}] accepts exactly {enum: [a, b, null]}.
      delete schema.anyOf;
      if (typeof other.type === 'string') schema.type = [other.type, 'null'];
      schema.enum = [...(other.enum as unknown[]), null];
    }
  }
  foldConstUnion(schema);
  foldTypeUnion(schema);
  addUnionType(schema);
  return schema;
}

/**
 * `anyOf [{type: T, const: a}, {type: T, const: b}]` (zod's union of literals) accepts exactly what
 * `{type: T, enum: [a, b]}` does: a value equal to one of the constants (each of which has type T).
 */
function foldConstUnion(schema: Schema): void {
  const branches = schema.anyOf;
  if (!Array.isArray(branches) || branches.length < 2 || 'enum' in schema) return;
  const values: unknown[] = [];
  let type: unknown;
  for (const [i, branch] of (branches as Schema[]).entries()) {
    if (branch === null || typeof branch !== 'object' || !('const' in branch)) return;
    if (Object.keys(branch).some((k) => k !== 'const' && k !== 'type')) return;
    if (i > 0 && branch.type !== type) return;
    type = branch.type;
    values.push(branch.const);
  }
  if (type !== undefined && 'type' in schema && schema.type !== type) return;
  delete schema.anyOf;
  if (type !== undefined) schema.type = type;
  schema.enum = values;
}

/** The keywords that constrain only values of one JSON type (others pass them unconditionally). */
const TYPE_KEYWORDS: Record<string, readonly string[]> = {
  string: ['minLength', 'maxLength', 'pattern', 'format'],
  integer: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  array: ['items', 'prefixItems', 'minItems', 'maxItems', 'uniqueItems', 'contains'],
  object: [
    'properties',
    'required',
    'additionalProperties',
    'patternProperties',
    'propertyNames',
    'minProperties',
    'maxProperties',
  ],
  boolean: [],
  null: [],
};

/**
 * `anyOf [{type: A, ...A-only keywords}, {type: B, ...B-only keywords}]` accepts exactly what
 * `{type: [A, B], ...both keyword sets}` does: a value of type A is untouched by B's keywords (they
 * constrain only B values) and vice versa. So an address argument, anyOf integer | string maxLength 12,
 * becomes {"type":["integer","string"],"maxLength":12}. Folded only when the branches' types are
 * distinct, none of integer/number overlap, and every branch keyword belongs to that branch's type alone.
 */
function foldTypeUnion(schema: Schema): void {
  const branches = schema.anyOf;
  if (!Array.isArray(branches) || branches.length < 2 || 'type' in schema) return;
  const types: string[] = [];
  const merged: Schema = {};
  for (const branch of branches as Schema[]) {
    if (branch === null || typeof branch !== 'object' || typeof branch.type !== 'string') return;
    const type = branch.type;
    if (!(type in TYPE_KEYWORDS) || types.includes(type)) return;
    types.push(type);
    for (const [key, value] of Object.entries(branch)) {
      if (key === 'type') continue;
      if (!TYPE_KEYWORDS[type]!.includes(key) || key in merged || key in schema) return;
      merged[key] = value;
    }
  }
  if (types.includes('integer') && types.includes('number')) return;
  // A keyword of one branch must not constrain another branch's type.
  for (const key of Object.keys(merged)) {
    const owners = types.filter((t) => TYPE_KEYWORDS[t]!.includes(key));
    if (owners.length !== 1) return;
  }
  delete schema.anyOf;
  Object.assign(schema, { type: types }, merged);
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
