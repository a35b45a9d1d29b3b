// The compiled output check (src/mcp/exact-output.ts) against zod itself: whenever it says a value is
// exact, zod accepts the value and its copy is the same value with its keys in the same order, on
// every tool's output schema, for values made from the schema and for those values broken one place
// at a time. And the warm answers users wait on are exact as the tools make them (their fast path).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { z } from 'zod/v4';
import { loadConfig } from '../../src/config/config.js';
import { isExactOutput, sameValue } from '../../src/mcp/exact-output.js';
import { invokeTool, type ToolCallResult } from '../../src/mcp/invoke.js';
import type { ToolDefinition } from '../../src/mcp/tool.js';
import { toWireResult } from '../../src/mcp/wire.js';
import { Services } from '../../src/services.js';
import { loadAllTools } from '../../src/tools/index.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { makeWorkspace, SERVER_ENTRY } from '../kit/mcp-harness.js';
import { kitRomBytes } from '../kit/program-rom.js';
import { rng } from '../kit/rng.js';

type Def = { type: string; [k: string]: any };
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

const STRINGS = ['', 'a', '0x02000000', '0x0200abcd', 'x y', 'arm9', 'thumb', '\u0000\u202e'];

/** A value for the schema, keys in the shape's order (undefined when none could be made). */
function sample(s: z.ZodType, r: () => number, depth = 0): unknown {
  const d = defOf(s);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)] as T;
  switch (d.type) {
    case 'string': {
      const ok = STRINGS.filter((v) => s.safeParse(v).success);
      return ok.length ? pick(ok) : undefined;
    }
    case 'number':
      return (d.checks ?? []).length ? Math.floor(r() * 1000) - 10 : r() * 100;
    case 'boolean':
      return r() < 0.5;
    case 'null':
      return null;
    case 'enum':
    case 'literal':
      return pick([...((s as unknown as { _zod: { values: Set<unknown> } })._zod.values ?? [])]);
    case 'nullable':
      return r() < 0.3 ? null : sample(d.innerType, r, depth);
    case 'optional':
      return r() < 0.3 ? undefined : sample(d.innerType, r, depth);
    case 'array': {
      const n = depth > 4 ? 0 : Math.floor(r() * 3);
      return Array.from({ length: n }, () => sample(d.element, r, depth + 1));
    }
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(d.shape as Record<string, z.ZodType>)) {
        const value = sample(v, r, depth + 1);
        if (value !== undefined) out[k] = value;
      }
      return out;
    }
    case 'union':
      return sample(pick(d.options as z.ZodType[]), r, depth);
    case 'record':
      return r() < 0.5 ? {} : { key: sample(d.valueType, r, depth + 1) };
    default:
      return pick([1, 'x', null, { a: 1 }, [1]]);
  }
}

/** Every object and array inside a value, with a way to replace what is at one place. */
function places(v: unknown, out: Array<{ holder: any; key: string | number }> = []) {
  if (v !== null && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) {
      out.push({ holder: v, key: Array.isArray(v) ? Number(k) : k });
      places(x, out);
    }
  return out;
}

/** The value broken at one place: a wrong type, a key dropped, added, set undefined or moved. */
function mutate(value: unknown, r: () => number): unknown {
  const copy = structuredClone(value);
  const all = places(copy);
  if (all.length === 0) return r() < 0.5 ? null : { extra: 1 };
  const { holder, key } = all[Math.floor(r() * all.length)]!;
  const how = Math.floor(r() * 9);
  if (how === 0) holder[key] = 'x';
  else if (how === 1) holder[key] = Number.NaN;
  else if (how === 2) holder[key] = 2 ** 60;
  else if (how === 3) holder[key] = null;
  else if (how === 4) holder[key] = undefined;
  else if (how === 5 && !Array.isArray(holder)) delete holder[key];
  else if (how === 6 && !Array.isArray(holder)) holder.unexpected = 1;
  else if (how === 7 && !Array.isArray(holder)) {
    // The key moved to the end: same data, another order.
    const v = holder[key];
    delete holder[key];
    holder[key] = v;
  } else holder[key] = 1.5;
  return copy;
}

/** The promise: exact means zod accepts it and gives back the same value, keys in the same order. */
function assertSound(schema: z.ZodType, v: unknown, where: string) {
  if (!isExactOutput(schema, v)) return false;
  const parsed = schema.safeParse(v);
  assert.ok(parsed.success, `${where}: exact, but zod refuses ${JSON.stringify(v)?.slice(0, 300)}`);
  assert.ok(sameValue(parsed.data, v), `${where}: exact, but zod's copy differs`);
  assert.equal(JSON.stringify(parsed.data), JSON.stringify(v), where);
  // Plain JSON data: its JSON text reads back as the same value (the server renders it as it is).
  assert.ok(sameValue(JSON.parse(JSON.stringify(v)), v), `${where}: exact, but not plain JSON data`);
  return true;
}

test('exact means zod accepts and copies it unchanged, on every output schema, whole and broken', async () => {
  const tools = await loadAllTools();
  const r = rng(2026);
  let exact = 0;
  let broken = 0;
  let brokenExact = 0;
  for (const t of tools) {
    for (let i = 0; i < 40; i++) {
      const v = sample(t.output, r);
      if (assertSound(t.output, v, `${t.name} sample ${i}`)) exact++;
      for (let m = 0; m < 6; m++) {
        broken++;
        if (assertSound(t.output, mutate(v, r), `${t.name} sample ${i} mutation ${m}`)) brokenExact++;
      }
    }
  }
  // The made values are in the shape's order: nearly all are exact (those holding records or other
  // parts zod checks itself are too, when zod's copy equals them); broken ones mostly are not.
  assert.ok(exact >= tools.length * 40 * 0.9, `only ${exact} of ${tools.length * 40} made values exact`);
  assert.ok(brokenExact < broken / 2, `${brokenExact} of ${broken} broken values called exact`);
});

test('each kind of difference from zod makes a value not exact', () => {
  const s = z.object({
    a: z.string().regex(/^0x[0-9a-f]{8}$/),
    b: z.number().int().nullable(),
    c: z.enum(['x', 'y']).optional(),
    d: z.array(z.object({ e: z.boolean() })),
    f: z.union([z.object({ g: z.literal(1) }), z.object({ g: z.literal(2), h: z.string() })]),
    i: z.string().default('dflt'),
  });
  const good = { a: '0x02000000', b: 3, c: 'x', d: [{ e: true }], f: { g: 2, h: 'k' }, i: 'v' };
  assert.ok(isExactOutput(s, good));
  // zod keeps an optional key present as undefined, but its JSON has no such key: not exact.
  assert.equal(isExactOutput(s, { ...good, c: undefined }), false, 'an optional key present as undefined');
  const { c: _c, ...noC } = good;
  assert.ok(isExactOutput(s, noC), 'an optional key may be absent');
  const cases: Array<[string, unknown]> = [
    ['regex', { ...good, a: '0x0200' }],
    ['not an integer', { ...good, b: 1.5 }],
    ['unsafe integer', { ...good, b: 2 ** 60 }],
    ['NaN', { ...good, b: Number.NaN }],
    ['enum', { ...good, c: 'z' }],
    ['nested type', { ...good, d: [{ e: 'true' }] }],
    ['extra key (zod strips it)', { ...good, extra: 1 }],
    ['extra nested key', { ...good, d: [{ e: true, more: 1 }] }],
    ['order (zod reorders)', { b: 3, a: '0x02000000', c: 'x', d: [], f: { g: 1 }, i: 'v' }],
    ['required key absent', { a: '0x02000000', c: 'x', d: [], f: { g: 1 }, i: 'v' }],
    ['default (zod substitutes)', { a: '0x02000000', b: 3, c: 'x', d: [], f: { g: 1 } }],
    ['union: the first option strips h', { ...good, f: { g: 1, h: 'k' } }],
    ['a class instance', Object.assign(new (class X {})(), good)],
    ['an array for an object', [good]],
  ];
  // Anything goes in z.unknown(), for zod; exact only when it is JSON data.
  const any = z.object({ u: z.unknown() });
  assert.ok(isExactOutput(any, { u: { a: [1, 'x', null, true] } }));
  for (const odd of [undefined, Number.NaN, new Date(0), [undefined], { a: () => 1 }, 10n])
    assert.equal(isExactOutput(any, { u: odd }), false, String(odd));
  assert.equal(
    isExactOutput(z.array(z.number().optional()), [1, undefined]),
    false,
    'a hole is null in JSON',
  );
  for (const [what, v] of cases) {
    assert.equal(isExactOutput(s, v), false, what);
    assertSound(s, v, what);
  }
  // What zod checks itself (a record here) is exact when its copy is equal.
  const rec = z.object({ m: z.record(z.string(), z.number()) });
  assert.ok(isExactOutput(rec, { m: { a: 1, b: 2 } }));
  assert.equal(isExactOutput(rec, { m: { a: 'x' } }), false);
});

test('sameValue compares deeply, keys in order', () => {
  assert.ok(sameValue({ a: [1, { b: null }] }, { a: [1, { b: null }] }));
  assert.equal(sameValue({ a: 1, b: 2 }, { b: 2, a: 1 }), false);
  assert.equal(sameValue([1, 2], { 0: 1, 1: 2 }), false);
  assert.equal(sameValue({ a: undefined }, {}), false);
  assert.equal(sameValue(1, '1'), false);
});

async function kitServices(): Promise<Services> {
  const root = await makeWorkspace();
  await mkdir(join(root, 'roms'));
  await writeFile(join(root, 'roms/program.nds'), kitRomBytes('arm9-program', 'arm7-program'));
  return new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
}

test('the answers users wait on (warm pages, first calls, assembly) are exact as made: no copy by zod on their path', async () => {
  const services = await kitServices();
  const tools = await loadAllTools();
  const tool = (name: string) => tools.find((t) => t.name === name) as ToolDefinition;
  const signal = new AbortController().signal;
  const run = async (name: string, args: Record<string, unknown>) => {
    const def = tool(name);
    const out = await def.handler(def.input.parse(args), { services, signal, progress: () => {} });
    return { def, structured: out.structured };
  };
  const base = { rom: 'roms/program.nds', processor: 'arm9', scope: 'program' };
  const page = await run('nds_discover_functions', { ...base, order: 'callers' });
  const target = (page.structured as { functions: Array<{ identity: { address: string } }> }).functions[0]!
    .identity.address;
  const answers = [
    page,
    await run('nds_discover_functions', { ...base, detail: 'full', limit: 8 }),
    await run('nds_find_xrefs', { ...base, address: target }),
    await run('nds_function_at', { ...base, address: target }),
    await run('nds_list_files', { rom: 'roms/program.nds' }),
    await run('nds_inspect_rom', { rom: 'roms/program.nds' }),
    await run('nds_resolve_runtime_address', { rom: 'roms/program.nds', processor: 'arm9', address: target }),
    await run('nds_assemble', {
      source: 'push {r4, lr}\nldr r0, [pc, #4]\nadds r1, r0, #3\nbleq 0x02000100\npop {r4, pc}',
      processor: 'arm9',
      mode: 'arm',
      address: '0x02000000',
    }),
  ];
  for (const { def, structured } of answers) {
    assert.ok(isExactOutput(def.output, structured), `${def.name}: not exact as made`);
    assertSound(def.output, structured, def.name);
  }
});

test('the served result is byte for byte the wire object serialised, with its JSON made once', async () => {
  const services = await kitServices();
  const root = services.config.workspaceRoot;
  const child = spawn(process.execPath, [SERVER_ENTRY, 'serve'], {
    env: { PATH: process.env.PATH ?? '', RE_MCP_WORKSPACE_ROOT: root, RE_MCP_PROFILE: 'full' },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const lines: string[] = [];
  let buffer = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffer += chunk;
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      lines.push(buffer.slice(0, i));
      buffer = buffer.slice(i + 1);
    }
  });
  const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`);
  const reply = async (id: number) => {
    for (let t = 0; t < 600; t++) {
      const line = lines.find((l) => l.startsWith(`{"jsonrpc":"2.0","id":${id},`));
      if (line) return line;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`no reply ${id}`);
  };
  try {
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    await reply(1);
    const tools = await loadAllTools();
    const calls: Array<[string, Record<string, unknown>]> = [
      ['nds_discover_functions', { rom: 'roms/program.nds', processor: 'arm9', scope: 'program', limit: 8 }],
      ['nds_inspect_rom', { rom: 'roms/program.nds' }],
      ['server_capabilities', {}],
    ];
    for (const [i, [name, args]] of calls.entries()) {
      send({ jsonrpc: '2.0', id: 10 + i, method: 'tools/call', params: { name, arguments: args } });
      const line = await reply(10 + i);
      const parsed = JSON.parse(line) as { result: ToolCallResult };
      // The text on the wire is exactly the result object serialised (nothing re-ordered or lost) ...
      assert.equal(line, JSON.stringify({ jsonrpc: '2.0', id: 10 + i, result: parsed.result }), name);
      // ... and that object is what the pipeline answers in process, as the wire adapts it (the
      // capabilities report this server's own profile).
      if (name === 'server_capabilities') continue;
      const def = tools.find((t) => t.name === name) as ToolDefinition;
      const local = toWireResult(
        await invokeTool(def, args, services, { signal: new AbortController().signal }),
        '2025-06-18',
      );
      assert.deepEqual(
        parsed.result.structuredContent,
        JSON.parse(JSON.stringify(local.structuredContent)),
        name,
      );
      assert.deepEqual(parsed.result.content, local.content, name);
    }
  } finally {
    child.stdin.end();
    await new Promise((r) => child.once('exit', r));
  }
});
