// The public surface as a visible diff: every tool's published definition (name, title, description,
// input and output JSON Schema, annotations; plus its profiles and declared limits, and its complete
// output schema where the published summary leaves something out) is snapshotted in
// tool-snapshot.json, and the README's tools-by-profile table is derived from the same registry.
// After changing a tool (or merging a branch that did): `npm run snapshots` rewrites both; review
// the diff and commit it.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { PROFILE_NAMES } from '../../src/core/profiles.js';
import { listTools } from '../../src/mcp/server.js';
import { ALL_TOOLS, toolsForProfile } from '../../src/tools/index.js';
import { REPO_ROOT } from '../kit/mcp-harness.js';

const UPDATE = process.env.UPDATE_SNAPSHOTS === '1';
const SNAPSHOT = join(REPO_ROOT, 'test/tools/tool-snapshot.json');
const README = join(REPO_ROOT, 'README.md');
const TABLE_START = /<!-- tools-by-profile:[^\n]*-->\n/;
const TABLE_END = '<!-- /tools-by-profile -->';

function published(): string {
  const listed = listTools(ALL_TOOLS);
  const full = listTools(ALL_TOOLS, { outputSchemas: 'full' });
  const tools = listed.map((t, i) => {
    const complete = full[i]!.outputSchema;
    return {
      ...t,
      ...(JSON.stringify(complete) !== JSON.stringify(t.outputSchema) ? { outputSchemaFull: complete } : {}),
      profiles: ALL_TOOLS[i]!.profiles,
      limits: ALL_TOOLS[i]!.limits ?? {},
    };
  });
  return `${JSON.stringify(tools, null, 2)}\n`;
}

/** What a profile costs in the assistant's context: its tools/list answer, in bytes and rough tokens. */
function listCost(tools: ReturnType<typeof toolsForProfile>): string {
  const bytes = Buffer.byteLength(JSON.stringify({ tools: listTools(tools) }), 'utf8');
  // About 4 bytes a token for this JSON-heavy text; a host's own tokenizer will differ somewhat.
  return `${bytes.toLocaleString('en-US')} B, ≈${Math.round(bytes / 4 / 100) / 10}k tokens`;
}

function profileTable(): string {
  const rows = PROFILE_NAMES.filter((p) => p !== 'full').map((p) => {
    const tools = toolsForProfile(p);
    const names = tools.map((t) => t.name).filter((n) => n !== 'server_capabilities');
    return `| \`${p}\` | ${listCost(tools)} | ${names.map((n) => `\`${n}\``).join(', ')} |`;
  });
  return [
    '| profile | tools/list cost | tools |',
    '|---|---|---|',
    ...rows,
    `| \`full\` | ${listCost(toolsForProfile('full'))} | all of the above |`,
    '',
  ].join('\n');
}

function readmeWithTable(readme: string): string {
  const start = TABLE_START.exec(readme);
  const end = readme.indexOf(TABLE_END);
  assert.ok(start && end > start.index, 'README lacks the tools-by-profile markers');
  return readme.slice(0, start.index + start[0].length) + profileTable() + readme.slice(end);
}

test('every published tool definition matches test/tools/tool-snapshot.json', () => {
  const now = published();
  if (UPDATE) {
    writeFileSync(SNAPSHOT, now);
    return;
  }
  assert.equal(now, readFileSync(SNAPSHOT, 'utf8'), 'the public surface changed: run `npm run snapshots`');
});

test("README's tools-by-profile table is the registry's", () => {
  const readme = readFileSync(README, 'utf8');
  const expected = readmeWithTable(readme);
  if (UPDATE) {
    writeFileSync(README, expected);
    return;
  }
  assert.equal(readme, expected, 'README table differs from the registry: run `npm run snapshots`');
});

test('tool names are unique and every tool is in at least one profile', () => {
  const names = ALL_TOOLS.map((t) => t.name);
  assert.equal(new Set(names).size, names.length);
  for (const t of ALL_TOOLS) assert.ok(t.profiles.length > 0, t.name);
});
