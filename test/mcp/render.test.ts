// The text block of a success carries the data: the generic renderer by shape, the output bound.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod/v4';
import { loadConfig } from '../../src/config/config.js';
import { invokeTool } from '../../src/mcp/invoke.js';
import { boundText, renderToolText } from '../../src/mcp/render/registry.js';
import { renderStructured } from '../../src/mcp/render/text.js';
import { defineTool, type ToolDefinition } from '../../src/mcp/tool.js';
import { Services } from '../../src/services.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { makeWorkspace } from '../kit/mcp-harness.js';

test('a key whose value is undefined is absent, as in the JSON a client receives', () => {
  const rows = [
    { id: 0, path: 'a.bin', note: undefined, at: { start: '0x0', end: undefined } },
    { id: 1, path: 'b.bin', note: undefined, at: { start: '0x4', end: undefined } },
  ];
  const withUndefined = renderStructured({ files: rows, one: { k: 1, gone: undefined } } as never);
  const withoutKeys = renderStructured({
    files: rows.map(({ id, path, at }) => ({ id, path, at: { start: at.start } })),
    one: { k: 1 },
  });
  assert.equal(withUndefined, withoutKeys);
  assert.doesNotMatch(withUndefined, /undefined|note|end/);
});

test('scalars, tables, listings and hexdumps', () => {
  const text = renderStructured({
    rom: 'roms/a.nds',
    total: 2,
    next: null,
    files: [
      { id: 0, path: 'a/b.bin', size: 12 },
      { id: 1, path: 'c.bin', size: 3400, extra: { x: 1 } },
    ],
    tags: ['x', 'y'],
    empty: [],
    instructions: [
      { address: '0x02000000', size: 4, bytes: '0103a0e3', mnemonic: 'mov', operands: 'r0, #0x4000000' },
      {
        address: 0x02000004,
        size: 4,
        bytes: '080280e5',
        mnemonic: 'str',
        operands: 'r0, [r0]',
        flow: 'none',
        readsPc: true,
      },
    ],
    memory: { address: '0x02000010', hex: '00112233445566778899aabbccddeeff0102' },
  });
  assert.match(text, /^rom: roms\/a\.nds$/m);
  assert.match(text, /^next: null$/m);
  assert.ok(
    text.includes(
      'files (2):\n  id  path     size  extra.x\n  0   a/b.bin  12    -\n  1   c.bin    3400  1\n',
    ),
  );
  assert.match(text, /^tags \(2\): x, y$/m);
  assert.match(text, /^empty: \(none\)$/m);
  assert.match(text, /^ {2}0x02000000 {2}0103a0e3 {2}mov r0, #0x4000000$/m);
  assert.match(text, /^ {2}0x02000004 {2}080280e5 {2}str r0, \[r0\] {2}; flow=none readsPc$/m);
  assert.match(text, /^ {4}0x02000010: 00 11 22 33 44 55 66 77 88 99 aa bb cc dd ee ff$/m);
  assert.match(text, /^ {4}0x02000020: 01 02$/m);
});

test('a rendering over the budget is cut at a line with an explicit marker', () => {
  const lines = Array.from({ length: 1000 }, (_, i) => `line ${i}`).join('\n');
  const cut = boundText(lines, 2000);
  assert.ok(Buffer.byteLength(JSON.stringify(cut)) - 2 <= 2000);
  assert.match(cut, /\n\.\.\. text cut after \d+ of 1000 lines .*RE_MCP_MAX_OUTPUT_BYTES/);
  assert.equal(boundText('short', 2000), 'short');
  // The tool's summary comes first, then the data.
  assert.equal(renderToolText('x', 'summary', { a: 1 }, 1000), 'summary\n\na: 1');
});

test('through the pipeline a large result stays within RE_MCP_MAX_OUTPUT_BYTES, text cut, data whole', async () => {
  const root = await makeWorkspace();
  const services = new Services(
    loadConfig({ RE_MCP_WORKSPACE_ROOT: root, RE_MCP_MAX_OUTPUT_BYTES: '65536' }),
    new Workspace(root),
  );
  const rows = Array.from({ length: 1000 }, (_, i) => ({ index: i, name: `entry-${i}`, size: i * 3 }));
  const tool = defineTool({
    name: 'rows',
    title: 'rows',
    profiles: [],
    description: { purpose: 'p', useWhen: 'u', behaviour: 'b', limits: 'l', returns: 'r' },
    input: z.object({}),
    output: z.object({ rows: z.array(z.object({ index: z.number(), name: z.string(), size: z.number() })) }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async () => ({ structured: { rows }, text: '1000 rows' }),
  }) as unknown as ToolDefinition;
  const r = await invokeTool(tool, {}, services, { signal: new AbortController().signal });
  assert.equal(r.isError, undefined);
  assert.ok(Buffer.byteLength(JSON.stringify(r)) <= 65536, `${Buffer.byteLength(JSON.stringify(r))} bytes`);
  assert.equal((r.structuredContent as { rows: unknown[] }).rows.length, 1000);
  const text = (r.content[0] as { text: string }).text;
  assert.match(text, /^1000 rows\n\nrows \(1000\):\n {2}index {2}name/);
  assert.match(text, /\.\.\. text cut after \d+ of 1004 lines/);
});

test('a value too wide for a table cell turns the table into one line per record, nothing cut', () => {
  const long = `0x${'ab'.repeat(100)}`;
  const text = renderStructured({
    hits: [
      { offset: '0x10', runtimeAddress: long, owners: [{ kind: 'main', name: 'a b', empty: '' }] },
      { offset: '0x20', runtimeAddress: '0x02000000', owners: [] },
    ],
  });
  assert.ok(!text.includes('cut'), text);
  assert.ok(
    text.includes(`  - offset=0x10 runtimeAddress=${long} owners=[{kind=main name="a b" empty=""}]`),
    text,
  );
  assert.ok(text.includes('  - offset=0x20 runtimeAddress=0x02000000 owners=[]'), text);
});

test('small records of scalars in a table become sub-columns', () => {
  const text = renderStructured({
    functions: [
      { identity: { processor: 'arm9', address: '0x02000000' }, tier: 'proven' },
      { identity: { processor: 'arm9', address: '0x02000100' }, tier: 'heuristic' },
    ],
  });
  assert.match(text, /identity\.processor {2}identity\.address {2}tier/);
  assert.match(text, /arm9 {16}0x02000100 {8}heuristic/);
});

test('an instruction listing with a data row stays a compact listing', () => {
  const rows = Array.from({ length: 20 }, (_, i) => ({
    address: `0x${(0x02000000 + i * 4).toString(16)}`,
    bytes: '00 00 a0 e1',
    mnemonic: 'mov',
    operands: 'r0, r0',
  }));
  rows.splice(5, 0, { address: '0x02000014', bytes: '78 56 34 12', kind: 'data' } as never);
  const text = renderStructured({ instructions: rows });
  const lines = text.split('\n').filter((l) => l.startsWith('  0x'));
  assert.equal(lines.length, 21, text);
  assert.ok(
    lines.some((l) => /^ {2}0x02000014 {2}78 56 34 12 .*; kind=data/.test(l)),
    text,
  );
  assert.ok(!/address\s+bytes\s+mnemonic/.test(text), 'no wide table header');
});

test('a text of several lines is an indented block with its tabs; inside a table or a line it stays one line', () => {
  const text = renderStructured({
    dot: 'digraph g {\n\ta -> b;\r\n}\n',
    text: { encoding: 'utf-8', content: 'x\ny' },
    rows: [{ name: 'a\nb', kind: 'c\td' }],
  });
  assert.equal(
    text,
    [
      'dot (3 lines):',
      '  digraph g {',
      '  \ta -> b;',
      '  }',
      'text:',
      '  encoding: utf-8',
      '  content (2 lines):',
      '    x',
      '    y',
      'rows (1):',
      '  name    kind',
      '  a\\x0ab  c\td',
    ].join('\n'),
  );
});
