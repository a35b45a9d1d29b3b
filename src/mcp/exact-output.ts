// Output validation at the speed of the result. Every tool result is checked against its output
// schema before it leaves the server; zod's parse does that by building a copy of the whole result,
// which costs a warm answer as much as making it. This compiles a schema once into a check that only
// reads: it says true exactly when zod's parse would succeed AND return a value equal to the input,
// same keys in the same order (no key stripped, none reordered, no default or transform applied),
// and the value is plain JSON data (no undefined anywhere, nothing but JSON's own types): its JSON
// text read back is the same value again. Then the result is used as it is, and rendered as it is;
// otherwise (false) the caller parses with zod as before, which either reports the problem or makes
// the canonical copy. So the result a client receives is byte-for-byte what zod's copy would have
// been, and a check that says false only costs speed.
//
// Understood exactly: object (zod's default strip mode), array, string, number, boolean, enum,
// literal, null, nullable, optional, union, unknown; number checks of the safe-integer format and
// string regex checks. Anything else (records, defaults, transforms, refinements, other checks) is
// checked by zod on that part, and counts as exact only when zod's copy equals the part itself.
import type { z } from 'zod/v4';

type Check = (value: unknown) => boolean;

/** A zod v4 schema's internals, as far as this reads them. */
interface Internals {
  def: {
    type: string;
    checks?: Array<{ _zod: { def: { check: string; format?: string; pattern?: RegExp } } }>;
    shape?: Record<string, z.ZodType>;
    catchall?: z.ZodType;
    element?: z.ZodType;
    innerType?: z.ZodType;
    options?: z.ZodType[];
    discriminator?: string;
  };
  values?: ReadonlySet<unknown>;
  optin?: string;
  optout?: string;
}

const internals = (schema: z.ZodType): Internals => (schema as unknown as { _zod: Internals })._zod;

const compiled = new WeakMap<z.ZodType, Check>();

/**
 * True when zod would accept `value` for `schema` and give back an equal value (keys in order), and the
 * value is plain JSON data (its JSON text parses back to an equal value).
 */
export function isExactOutput(schema: z.ZodType, value: unknown): boolean {
  return compile(schema)(value);
}

function compile(schema: z.ZodType): Check {
  let check = compiled.get(schema);
  if (check === undefined) {
    // A placeholder first: a schema that contains itself (z.lazy) resolves through the map.
    compiled.set(schema, (v) => compiled.get(schema)!(v));
    check = build(schema) ?? viaZod(schema);
    compiled.set(schema, check);
  }
  return check;
}

/** The part checked by zod itself: exact when zod's copy is equal to it and plain JSON data. */
function viaZod(schema: z.ZodType): Check {
  return (v) => {
    if (!isJsonData(v)) return false;
    const parsed = schema.safeParse(v);
    return parsed.success && sameValue(parsed.data, v);
  };
}

/** JSON's own types all through: null, booleans, finite numbers, strings, arrays and plain objects. */
function isJsonData(v: unknown, depth = 0): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (typeof v !== 'object' || depth > 64) return false;
  if (Array.isArray(v)) {
    for (let k = 0; k < v.length; k++) if (!isJsonData(v[k], depth + 1)) return false;
    return true;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const k of Object.keys(v)) if (!isJsonData((v as Record<string, unknown>)[k], depth + 1)) return false;
  return true;
}

/** Deep equality with object keys in the same order (what JSON.stringify of each would show). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i]!;
    if (k !== kb[i] || !sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
      return false;
  }
  return true;
}

/** The check a schema's own checks add, or null when one of them is not understood here. */
function ownChecks(i: Internals): Check | null | undefined {
  const checks = i.def.checks ?? [];
  if (checks.length === 0) return undefined;
  const parts: Check[] = [];
  for (const c of checks) {
    const d = c._zod.def;
    if (d.check === 'number_format' && d.format === 'safeint') parts.push((v) => Number.isSafeInteger(v));
    else if (d.check === 'string_format' && d.format === 'regex' && d.pattern instanceof RegExp) {
      const pattern = d.pattern;
      parts.push((v) => {
        pattern.lastIndex = 0;
        return pattern.test(v as string);
      });
    } else return null;
  }
  return parts.length === 1 ? parts[0]! : (v) => parts.every((p) => p(v));
}

/** The compiled check, or null when this schema is not understood here (zod checks it then). */
function build(schema: z.ZodType): Check | null {
  const i = internals(schema);
  const extra = ownChecks(i);
  if (extra === null) return null;
  const base = baseCheck(i);
  if (base === null) return null;
  return extra === undefined ? base : (v) => base(v) && extra(v);
}

function baseCheck(i: Internals): Check | null {
  const d = i.def;
  switch (d.type) {
    case 'string':
      return (v) => typeof v === 'string';
    case 'number':
      return (v) => typeof v === 'number' && Number.isFinite(v);
    case 'boolean':
      return (v) => typeof v === 'boolean';
    case 'null':
      return (v) => v === null;
    case 'unknown':
    case 'any':
      return (v) => isJsonData(v);
    case 'enum':
    case 'literal': {
      const values = i.values;
      return values ? (v) => values.has(v) : null;
    }
    case 'nullable': {
      const inner = compile(d.innerType!);
      return (v) => v === null || inner(v);
    }
    case 'optional': {
      // An optional whose inner schema supplies a default substitutes for undefined: not exact. An
      // absent key is the object's to accept (objectCheck); a value undefined is no JSON data.
      if (internals(d.innerType!).optin === 'defaulted') return null;
      const inner = compile(d.innerType!);
      return (v) => v !== undefined && inner(v);
    }
    case 'array': {
      const element = compile(d.element!);
      return (v) => {
        if (!Array.isArray(v)) return false;
        for (let k = 0; k < v.length; k++) if (!element(v[k])) return false;
        return true;
      };
    }
    case 'object':
      return d.catchall === undefined ? objectCheck(d.shape!) : null;
    case 'union':
      return d.discriminator === undefined ? unionCheck(d.options!) : null;
    default:
      return null;
  }
}

/**
 * zod's default object: a plain object whose own keys are shape keys in the shape's order; a key
 * absent only where zod omits it too (optional in and out). Extra keys would be stripped by zod, and a
 * key out of order would come back in the shape's order: either makes the check false; so does a key
 * present with the value undefined (its JSON has no such key).
 */
function objectCheck(shape: Record<string, z.ZodType>): Check {
  const keys = Object.keys(shape);
  const checks = keys.map((k) => compile(shape[k]!));
  const mayBeAbsent = keys.map((k) => {
    const s = internals(shape[k]!);
    return s.optin === 'optional' && s.optout === 'optional';
  });
  return (v) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return false;
    const record = v as Record<string, unknown>;
    const own = Object.keys(record);
    let next = 0;
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k]!;
      if (own[next] === key) {
        if (!checks[k]!(record[key])) return false;
        next++;
      } else if (!mayBeAbsent[k] || key in record) return false;
    }
    return next === own.length;
  };
}

/** zod's union takes the first option that accepts: exact only when that option's copy is the value. */
function unionCheck(options: z.ZodType[]): Check {
  const checks = options.map(compile);
  return (v) => {
    for (let k = 0; k < options.length; k++) {
      if (checks[k]!(v)) return true;
      if (options[k]!.safeParse(v).success) return false;
    }
    return false;
  };
}
