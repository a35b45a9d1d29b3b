// Text that leaves the stdio server, read from outside on its raw stdout: an error whose message
// carries hostile characters (armips echoing the source, a refused path, a JSON-RPC error naming an
// unknown tool) reaches the host with every control, bidi and invisible character escaped, in the
// text block, in _meta["re-mcp/error"].message and in JSON-RPC error messages; the code stays first.
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { escapeUnsafe } from '../../src/core/text-safety.js';
import { toWireResult } from '../../src/mcp/wire.js';
import { makeWorkspace } from '../kit/mcp-harness.js';
import { programRomBytes } from '../kit/program-rom.js';
import { INITIALIZE, INITIALIZED, startRawServer } from '../kit/raw-server.js';

const HOSTILE = '\u001b[2J\u0007\u009b31m\u202egnp.exe\u2066x\u2069';

/** Every string a person reads in one wire message (text blocks, error messages, progress). */
function readable(message: Record<string, any>): string[] {
  const out: string[] = [];
  for (const block of message.result?.content ?? []) if (typeof block.text === 'string') out.push(block.text);
  const meta = message.result?._meta?.['re-mcp/error'];
  if (typeof meta?.message === 'string') out.push(meta.message);
  if (typeof message.error?.message === 'string') out.push(message.error.message);
  if (typeof message.params?.message === 'string') out.push(message.params.message);
  return out;
}

/** True when `text` holds nothing escapeUnsafe would escape (newlines allowed). */
const safe = (text: string) => escapeUnsafe(text, true).escaped === 0;

test('toWireResult escapes error text, details and success text blocks; structured data stays raw', () => {
  const error = toWireResult(
    {
      content: [{ type: 'text', text: 'x' }],
      structuredContent: {
        error: { code: 'invalid-argument', message: `bad ${HOSTILE}`, details: { why: HOSTILE } },
      },
      isError: true,
    },
    '2025-06-18',
  );
  const text = (error.content[0] as { text: string }).text;
  assert.ok(safe(text), JSON.stringify(text));
  assert.match(text, /^\[invalid-argument\] bad \\x1b\[2J\\x07\\x9b31m\\u202e/);
  const meta = (error._meta as Record<string, { message: string; details: { why: string } }>)[
    're-mcp/error'
  ]!;
  assert.ok(safe(meta.message));
  assert.equal(meta.details.why, HOSTILE, 'details are data: kept raw');
  const ok = toWireResult(
    { content: [{ type: 'text', text: `line 1\nline ${HOSTILE}` }], structuredContent: { name: HOSTILE } },
    '2025-06-18',
  );
  assert.equal((ok.content[0] as { text: string }).text, `line 1\n${escapeUnsafe(`line ${HOSTILE}`).text}`);
  assert.equal((ok.structuredContent as { name: string }).name, HOSTILE);
  // Idempotent: escaped text passes unchanged.
  const again = toWireResult(ok, '2025-06-18');
  assert.deepEqual(again.content, ok.content);
});

test('the stdio server escapes hostile error text from armips, paths and JSON-RPC errors', async () => {
  const root = await makeWorkspace('re-mcp-wire-');
  try {
    await mkdir(join(root, 'roms'));
    await writeFile(join(root, 'roms/program.nds'), programRomBytes());
    const server = await startRawServer(root);
    try {
      server.send(INITIALIZE);
      server.send(INITIALIZED);
      const calls: Array<[string, Record<string, unknown>]> = [
        // armips echoes what it could not parse.
        [
          'nds_assemble',
          { processor: 'arm9', mode: 'arm', address: '0x02000000', source: `nop\n${HOSTILE}` },
        ],
        ['verify_file_sha256', { path: `roms/${HOSTILE}.nds` }],
        ['list_workspace_files', { path: `a${HOSTILE}` }],
        [`no_such_tool${HOSTILE}`, {}],
      ];
      for (const [i, [name, args]] of calls.entries())
        server.send({ jsonrpc: '2.0', id: 10 + i, method: 'tools/call', params: { name, arguments: args } });
      server.send({ jsonrpc: '2.0', id: 99, method: `no/such${HOSTILE}`, params: {} });
      const deadline = Date.now() + 60_000;
      const answered = () =>
        server.messages().filter((m) => m.id === 99 || (m.id >= 10 && m.id < 10 + calls.length));
      while (answered().length < calls.length + 1 && Date.now() < deadline && server.exited() === null)
        await new Promise((r) => setTimeout(r, 50));
      const answers = answered();
      assert.equal(answers.length, calls.length + 1, server.stderr());
      for (const m of answers) {
        const texts = readable(m);
        assert.ok(texts.length > 0, JSON.stringify(m));
        for (const t of texts) assert.ok(safe(t), `id ${m.id}: ${JSON.stringify(t)}`);
      }
      // The armips message did carry the source's characters, escaped.
      const armips = answers.find((m) => m.id === 10)!;
      assert.equal(armips.result.isError, true);
      assert.match(armips.result.content[0].text, /^\[invalid-argument\] /);
      assert.match(armips.result.content[0].text, /\\x1b|\\x07|\\u202e/);
    } finally {
      await server.close();
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
