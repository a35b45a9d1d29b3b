// Output schemas as published: said once, without words the values already say, and by default
// summarised (summarize: the result's own fields, JSON types below, no `required` list where every
// field is required; RE_MCP_OUTPUT_SCHEMAS=full keeps them complete). The complete form accepts exactly the values the compacted zod schema does; the
// summary accepts at least those.
//
// `type` beside `enum`/`const` is dropped when every listed value already has that type
// ({"enum":["arm","thumb"]} accepts what {"type":"string","enum":["arm","thumb"]} did). Input schemas
// keep it: form-based clients choose a widget from `type`.
//
// A repeated part is said once: identical subschemas (the address string
// with its pattern, a {start, end} range, the ARM9/ARM7 block of nds_inspect_rom) move to `$defs`
// and every occurrence becomes a `$ref` to it. A `$ref` to a definition validates exactly what the
// inlined copy did, so the schema accepts the same values; only bytes go. A part is shared only when
// that saves bytes (a `{"type":"integer"}` stays inline).
import type { OutputSchemaMode } from '../config/config.js';

type Schema = Record<string, unknown>;

/** Keys whose value is a subschema, and keys whose value is a list or map of subschemas. */
const SCHEMA_KEYS = ['items', 'additionalProperties', 'not', 'contains', 'propertyNames'];
const LIST_KEYS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const MAP_KEYS = ['properties', '$defs', 'patternProperties'];

const isSchema = (v: unknown): v is Schema => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Calls `visit` for every subschema below `schema` (not `schema` itself), with its property name. */
function eachSubschema(schema: Schema, visit: (s: Schema, key: string | null) => void): void {
  for (const key of SCHEMA_KEYS) {
    const v = schema[key];
    if (isSchema(v)) {
      visit(v, null);
      eachSubschema(v, visit);
    }
  }
  for (const key of LIST_KEYS) {
    const v = schema[key];
    if (!Array.isArray(v)) continue;
    for (const s of v)
      if (isSchema(s)) {
        visit(s, null);
        eachSubschema(s, visit);
      }
  }
  for (const key of MAP_KEYS) {
    const v = schema[key];
    if (!isSchema(v)) continue;
    for (const [name, s] of Object.entries(v))
      if (isSchema(s)) {
        visit(s, key === 'properties' ? name : null);
        eachSubschema(s, visit);
      }
  }
}

/** A copy of `schema` with `fn` applied to each direct subschema (values, enums, defaults untouched). */
function mapSubschemas(schema: Schema, fn: (s: Schema) => Schema): Schema {
  const swap = (s: unknown): unknown => (isSchema(s) ? fn(s) : s);
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (SCHEMA_KEYS.includes(key)) out[key] = swap(value);
    else if (LIST_KEYS.includes(key) && Array.isArray(value)) out[key] = value.map(swap);
    else if (MAP_KEYS.includes(key) && isSchema(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, swap(v)]));
    else out[key] = value;
  }
  return out;
}

/** Rebuilds `schema` with every subschema whose JSON is `json` replaced by `ref`. */
function replace(schema: Schema, json: string, ref: Schema): Schema {
  return mapSubschemas(schema, (s) => (JSON.stringify(s) === json ? ref : replace(s, json, ref)));
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** True when `type` admits nothing the listed values do not already fix. */
function typeImplied(type: unknown, values: unknown[]): boolean {
  const types = typeof type === 'string' ? [type] : Array.isArray(type) ? (type as unknown[]) : null;
  if (types === null) return false;
  return values.every((v) =>
    types.some((t) =>
      t === 'integer' ? Number.isInteger(v) : t === 'number' ? typeof v === 'number' : jsonType(v) === t,
    ),
  );
}

function dropImpliedTypes(schema: Schema): Schema {
  const out = mapSubschemas(schema, dropImpliedTypes);
  const values = 'const' in out ? [out.const] : Array.isArray(out.enum) ? out.enum : null;
  if (values && typeImplied(out.type, values)) delete out.type;
  return out;
}

/**
 * Object depth the summary publishes fields to: the result's own fields (1); 2 would add the fields of
 * each of their objects, or of their arrays' item objects (an array's `items` is not a level). One level
 * keeps the default session's tools/list within its budget (docs/clients.md); the complete schemas are
 * one setting away (RE_MCP_OUTPUT_SCHEMAS=full).
 */
export const SUMMARY_DEPTH = 1;

/** The published form of an output schema (already compacted by json-schema.ts). */
export function publishOutputSchema(
  root: Schema,
  names: ReadonlyMap<string, string>,
  mode: OutputSchemaMode = 'full',
  depth = SUMMARY_DEPTH,
): Schema {
  const exact = dropImpliedTypes(root);
  return shareDefinitions(mode === 'full' ? exact : summarize(exact, 1, depth), names);
}

/** Keys whose subschemas describe the fields of an object (a record's values are fields too). */
const FIELD_KEYS = ['properties', 'patternProperties', 'additionalProperties', 'propertyNames'];

/** True when `schema` describes fields of an object, itself or through its items or branches. */
function hasFields(schema: Schema): boolean {
  if (FIELD_KEYS.some((k) => isSchema(schema[k]))) return true;
  if (isSchema(schema.items) && hasFields(schema.items)) return true;
  return ['anyOf', 'oneOf', 'allOf', 'prefixItems'].some(
    (k) => Array.isArray(schema[k]) && (schema[k] as unknown[]).some((s) => isSchema(s) && hasFields(s)),
  );
}

/**
 * The JSON types `schema` admits, or null when it does not say. Only ever widened: a union's types
 * are all its branches' types, an allOf (an intersection) says nothing here.
 */
export function jsonTypes(schema: Schema): string[] | null {
  let types: string[] | null = null;
  if (typeof schema.type === 'string') types = [schema.type];
  else if (Array.isArray(schema.type)) types = schema.type as string[];
  else if ('const' in schema || Array.isArray(schema.enum)) {
    const values = 'const' in schema ? [schema.const] : (schema.enum as unknown[]);
    types = values.map((v) =>
      typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : jsonType(v),
    );
  } else {
    const branches = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
    if (!Array.isArray(branches)) return null;
    const all = branches.map((b) => (isSchema(b) ? jsonTypes(b) : null));
    if (all.some((t) => t === null)) return null;
    types = all.flat() as string[];
  }
  let unique = [...new Set(types)];
  // "integer" is within "number".
  if (unique.includes('number')) unique = unique.filter((t) => t !== 'integer');
  return unique;
}

/** What stands for `schema` below the cut: its JSON type(s) only (nothing at all when unknown). */
function cut(schema: Schema): Schema {
  const types = jsonTypes(schema);
  if (types === null) return {};
  return { type: types.length === 1 ? types[0] : types };
}

/**
 * The summary of `schema`, whose own fields sit at object depth `level`: fields to `depth` keep every
 * keyword; a node that would describe deeper fields becomes its JSON type(s) (a union there becomes the
 * set of its branches' types). Only subschemas that validate fields, items or branches are cut; each
 * cut drops constraints and adds none, so the summary accepts every value the schema accepts.
 */
export function summarize(schema: Schema, level: number, depth: number): Schema {
  if (level > depth && hasFields(schema)) return cut(schema);
  const out: Schema = {};
  const requiredNote = requiredForSummary(schema);
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties' || key === 'patternProperties') {
      out[key] = isSchema(value)
        ? Object.fromEntries(
            Object.entries(value).map(([k, v]) => [k, isSchema(v) ? summarize(v, level + 1, depth) : v]),
          )
        : value;
    } else if (key === 'additionalProperties' || key === 'propertyNames')
      out[key] = isSchema(value) ? summarize(value, level + 1, depth) : value;
    else if (key === 'items' || key === 'contains')
      // Below the summary's last level, a list of enumerated values (reasons, evidence classes) is
      // summarised to its values' type: the values are in the full schema and in every result.
      out[key] = isSchema(value)
        ? Array.isArray(value.enum) && level > depth
          ? cut(value)
          : summarize(value, level, depth)
        : value;
    else if (['anyOf', 'allOf', 'prefixItems'].includes(key) && Array.isArray(value))
      out[key] = value.map((v) => (isSchema(v) ? summarize(v, level, depth) : v));
    else if (key === 'oneOf' && Array.isArray(value)) {
      // Relaxed branches may overlap, and a oneOf refuses a value two branches accept: an anyOf of
      // the relaxed branches accepts every value exactly one original branch accepted.
      const branches = value.map((v) => (isSchema(v) ? summarize(v, level, depth) : v));
      const same = JSON.stringify(branches) === JSON.stringify(value);
      out[same ? 'oneOf' : 'anyOf'] = branches;
    } else if (key === 'required') {
      if (requiredNote !== undefined) out.required = requiredNote;
    }
    // Anything else (type, enum, const, pattern, bounds, `not`) is kept as it is: relaxing inside a
    // `not` would tighten the whole.
    else out[key] = value;
  }
  if (requiredNote !== undefined && !('required' in out)) out.required = requiredNote;
  return out;
}

/**
 * The `required` list a summary object publishes, or undefined for none. Nearly every output object
 * has all its fields, always (null where one does not apply); the server's instructions say so once,
 * and the summary omits a `required` that lists every field, which is most of them. An object with
 * an optional field keeps its list, and one with no required field says `[]`, so the convention stays
 * true of every published object. Omitting `required` only relaxes the schema.
 */
function requiredForSummary(schema: Schema): string[] | undefined {
  if (!isSchema(schema.properties))
    return Array.isArray(schema.required) ? (schema.required as string[]) : undefined;
  const fields = Object.keys(schema.properties);
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  return fields.every((f) => required.includes(f)) ? undefined : required;
}

/**
 * Moves repeated subschemas of `root` to `root.$defs`, the biggest saving first, until no move saves
 * bytes. `names` names well-known parts by their JSON (e.g. "a", the address string); any other
 * definition gets the shortest free name (b, c, ...): a name is repeated in every `$ref`, and a short
 * one makes sharing pay for smaller parts too.
 */
export function shareDefinitions(root: Schema, names: ReadonlyMap<string, string> = new Map()): Schema {
  let current = root;
  const defs: Record<string, Schema> = isSchema(root.$defs)
    ? { ...(root.$defs as Record<string, Schema>) }
    : {};
  for (;;) {
    const seen = new Map<string, number>();
    eachSubschema({ ...current, $defs: defs }, (s) => {
      if ('$ref' in s && Object.keys(s).length === 1) return;
      const json = JSON.stringify(s);
      seen.set(json, (seen.get(json) ?? 0) + 1);
    });
    let best: { json: string; name: string; saving: number } | null = null;
    for (const [json, count] of seen) {
      if (count < 2) continue;
      const name = names.get(json) ?? shortName(defs, names);
      const refBytes = `{"$ref":"#/$defs/${name}"}`.length;
      const defBytes = `"${name}":${json},`.length + (Object.keys(defs).length === 0 ? 11 : 0);
      const saving = count * (json.length - refBytes) - defBytes;
      if (saving > 0 && (!best || saving > best.saving)) best = { json, name, saving };
    }
    if (!best) break;
    const ref = { $ref: `#/$defs/${best.name}` };
    const body = JSON.parse(best.json) as Schema;
    current = replace(current, best.json, ref);
    for (const [k, v] of Object.entries(defs))
      defs[k] = JSON.stringify(v) === best.json ? v : replace(v, best.json, ref);
    defs[best.name] = body;
  }
  if (Object.keys(defs).length === 0) return current;
  return { ...current, $defs: defs };
}

/** The shortest name not taken by a definition or reserved for a well-known part: b, c, ..., z, ba, ... */
function shortName(taken: Record<string, unknown>, names: ReadonlyMap<string, string>): string {
  const reserved = new Set(names.values());
  for (let i = 1; ; i++) {
    let n = i;
    let name = '';
    do {
      name = String.fromCharCode(97 + (n % 26)) + name;
      n = Math.floor(n / 26);
    } while (n > 0);
    if (!(name in taken) && !reserved.has(name)) return name;
  }
}
