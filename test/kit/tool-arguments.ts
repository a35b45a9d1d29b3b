// Arguments derived from a tool's definition, so the checks every tool meets (hostile paths, the
// tool-level fuzz, the context budgets) keep no list of tools: a call's arguments are the required
// fields of its zod input schema, each given a value of its type (a path of the kind its workspacePath
// mark names, src/tools/shared/paths.ts; an address from the caller; an enum's first value or one the
// caller picks) with the definition's `needs` over them (what the schema cannot say: exactly one of
// address and romOffset, a kind's own fields), and its path arguments are read from those marks.
import { z } from 'zod/v4';
import { NAME_ARG_CHARS } from '../../src/core/vocabulary.js';
import type { ToolDefinition } from '../../src/mcp/tool.js';
import { type PathKind, WORKSPACE_PATHS } from '../../src/tools/shared/paths.js';

type Schema = Record<string, any>;

/** The input schema as JSON Schema with the workspace path marks in it (tools/list shows none). */
export function markedInputSchema(def: ToolDefinition): Schema {
  return z.toJSONSchema(def.input, {
    io: 'input',
    unrepresentable: 'any',
    metadata: WORKSPACE_PATHS,
  }) as Schema;
}

/** A top-level argument the tool resolves in the workspace. */
export interface PathArgument {
  arg: string;
  kind: PathKind;
  /** The other arguments the tool needs before it reads the path (its mark's readWith). */
  readWith: Record<string, unknown>;
}

export function pathArguments(def: ToolDefinition): PathArgument[] {
  const properties = (markedInputSchema(def).properties ?? {}) as Record<string, Schema>;
  return Object.entries(properties)
    .filter(([, s]) => typeof s.workspacePath === 'string')
    .map(([arg, s]) => ({ arg, kind: s.workspacePath as PathKind, readWith: s.readWith ?? {} }));
}

/** Where in the input each marked path is, top-level or nested (`operations[].artifact`). */
export function markedPathPlaces(def: ToolDefinition): string[] {
  return places(markedInputSchema(def), (s) => typeof s.workspacePath === 'string');
}

/** Where in the published input schema an argument's description calls it a workspace-relative path. */
export function describedPathPlaces(def: ToolDefinition): string[] {
  const published = z.toJSONSchema(def.input, { io: 'input', unrepresentable: 'any' }) as Schema;
  return places(published, (s) => /workspace-relative/i.test(String(s.description ?? '')));
}

function places(schema: Schema, hit: (s: Schema) => boolean, at = ''): string[] {
  const out: string[] = [];
  if (schema === null || typeof schema !== 'object') return out;
  if (at !== '' && hit(schema)) out.push(at);
  for (const [name, s] of Object.entries((schema.properties ?? {}) as Record<string, Schema>))
    out.push(...places(s, hit, at === '' ? name : `${at}.${name}`));
  if (schema.items) out.push(...places(schema.items, hit, `${at}[]`));
  for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])])
    out.push(...places(branch, hit, at));
  return [...new Set(out)];
}

/** Where the values of a derived call come from. */
export interface Fill {
  /** A workspace path of the kind an argument names. */
  path(kind: PathKind, arg: string): string;
  /** An address or ROM offset (an `addressArg`). */
  address(arg: string): number | string;
  /** One of an enum's values or a union's branches; the first by default. */
  choose?<T>(values: readonly T[], arg: string): T;
  /** An integer within [min, max]; the least by default. */
  integer?(min: number, max: number, arg: string): number;
  /** Whether an optional field is given too; never by default. */
  optional?(arg: string): boolean;
}

/** `addressArg` (an integer or a short string) or `nameOrAddressArg` (a string as long as a name). */
function isAddress(s: Schema): boolean {
  const branches = s.anyOf as Schema[] | undefined;
  return (
    Array.isArray(branches) &&
    branches.length === 2 &&
    branches.some((b) => b.type === 'integer') &&
    branches.some((b) => b.type === 'string' && (b.maxLength === 12 || b.maxLength === NAME_ARG_CHARS))
  );
}

function sample(s: Schema, arg: string, fill: Fill): unknown {
  const choose = <T>(values: readonly T[]) => (fill.choose ? fill.choose(values, arg) : values[0]!);
  if (typeof s.workspacePath === 'string') return fill.path(s.workspacePath as PathKind, arg);
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum)) return choose(s.enum);
  if (isAddress(s)) return fill.address(arg);
  const branches = ((s.anyOf ?? s.oneOf) as Schema[] | undefined)?.filter((b) => b.type !== 'null');
  if (branches && branches.length > 0) return sample(choose(branches), arg, fill);
  switch (s.type) {
    case 'object':
      return objectOf(s, arg, fill);
    case 'array': {
      const count = Math.max(s.minItems ?? 0, fill.optional?.(`${arg}[]`) ? 1 : 0);
      return Array.from({ length: count }, () => sample(s.items ?? {}, `${arg}[]`, fill));
    }
    case 'integer':
    case 'number': {
      const min = Math.max(s.minimum ?? 0, s.exclusiveMinimum === undefined ? 0 : s.exclusiveMinimum + 1);
      const max = Math.min(
        s.maximum ?? 2 ** 32 - 1,
        s.exclusiveMaximum === undefined ? Infinity : s.exclusiveMaximum - 1,
      );
      return fill.integer ? fill.integer(min, max, arg) : min;
    }
    case 'boolean':
      return choose([false, true]);
    case 'string':
      return 'x'.repeat(Math.max(s.minLength ?? 1, 1));
    default:
      return undefined;
  }
}

function objectOf(s: Schema, at: string, fill: Fill): Record<string, unknown> {
  const required = new Set<string>(s.required ?? []);
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) {
    const arg = at === '' ? name : `${at}.${name}`;
    if (required.has(name) || fill.optional?.(arg)) out[name] = sample(field, arg, fill);
  }
  return out;
}

/**
 * A call's arguments from the tool's definition: the required fields of its input schema (and the
 * optional ones `fill` asks for), with its `needs` over them.
 */
export function derivedArguments(def: ToolDefinition, fill: Fill): Record<string, unknown> {
  return { ...objectOf(markedInputSchema(def), '', fill), ...(def.needs ?? {}) };
}

/** Why the tool's input schema refuses `args`, or null when it accepts them. */
export function argumentsProblem(def: ToolDefinition, args: Record<string, unknown>): string | null {
  const parsed = def.input.safeParse(args);
  return parsed.success ? null : z.prettifyError(parsed.error).replace(/\n/g, '; ');
}
