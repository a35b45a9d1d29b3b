// What every tool shares is said once, in the server's instructions (sent with the initialize result),
// and not again in each tool's definition: tools/list is read by the assistant in every conversation.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { INSTRUCTIONS, listTools, publishedAnnotations } from '../../src/mcp/published.js';
import { loadAllTools } from '../../src/tools/index.js';
import { startServer } from '../kit/mcp-harness.js';

const ALL_TOOLS = await loadAllTools();

test('the instructions state the shared conventions, briefly', () => {
  assert.ok(Buffer.byteLength(INSTRUCTIONS) <= 1536, `instructions are ${Buffer.byteLength(INSTRUCTIONS)} B`);
  for (const convention of [
    '"0x%08x"', // address and offset format out
    'decimal text or an integer', // and in
    'SHA-256',
    'rom-changed',
    'invalid-rom',
    'max* arguments apply at once',
    '"truncated"',
    '[code] message',
    're-mcp/error',
    'RETROARCH_TIMEOUT_MS',
    'resumeIfPaused',
    'server_capabilities',
  ])
    assert.ok(INSTRUCTIONS.includes(convention), `instructions say ${convention}`);
});

test('no tool description repeats a convention the instructions state', () => {
  for (const tool of listTools(ALL_TOOLS)) {
    for (const repeated of [
      /rom-changed if it changed/,
      /ROM identity \(SHA-256\) verified before and after/,
      /max\* arguments? appl(y|ies) at once/,
      /Ignored by a paused RetroArch/,
    ])
      assert.doesNotMatch(tool.description, repeated, tool.name);
  }
});

test('read-only tools publish readOnlyHint and openWorldHint only; others all four hints', () => {
  for (const [i, tool] of listTools(ALL_TOOLS).entries()) {
    const a = ALL_TOOLS[i]!.annotations;
    const expected = a.readOnlyHint
      ? ['openWorldHint', 'readOnlyHint']
      : ['destructiveHint', 'idempotentHint', 'openWorldHint', 'readOnlyHint'];
    assert.deepEqual(Object.keys(tool.annotations).sort(), expected, tool.name);
    for (const key of expected) assert.equal(tool.annotations[key], a[key as keyof typeof a], tool.name);
  }
  assert.deepEqual(
    publishedAnnotations({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    }),
    { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  );
});

test('a client receives the instructions with the initialize result', async () => {
  const h = await startServer();
  try {
    // The shared conventions, then one line on what this session lists (harness: RE_MCP_PROFILE=full).
    assert.equal(
      h.client.getInstructions(),
      `${INSTRUCTIONS}\n- Profile full, chosen by RE_MCP_PROFILE: ${ALL_TOOLS.length} of ${ALL_TOOLS.length} tools; every tool is listed.`,
    );
  } finally {
    await h.close();
  }
});
