// The public surface as a visible diff: every tool's published definition (name, title, description,
// input and output JSON Schema, annotations; plus its profiles and declared limits, and its complete
// output schema where the published summary leaves something out) is snapshotted in its own file,
// snapshots/<tool name>.json, and snapshots/index.json lists the names in tools/list order; the
// README's tools-by-profile table is derived from the same registry.
// After changing a tool (or merging a branch that did): `npm run snapshots` rewrites them all (and
// deletes the file of a tool that is gone); review the diff and commit it.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { PROFILE_NAMES } from '../../src/core/profiles.js';
import { listTools } from '../../src/mcp/published.js';
import type { ToolDefinition } from '../../src/mcp/tool.js';
import { loadAllTools, toolsForProfile } from '../../src/tools/index.js';
import { REPO_ROOT } from '../kit/mcp-harness.js';

const ALL_TOOLS = await loadAllTools();

const UPDATE = process.env.UPDATE_SNAPSHOTS === '1';
const SNAPSHOTS = join(REPO_ROOT, 'test/tools/snapshots');
/** The order file; every other file of the folder is one tool's. */
const ORDER = 'index.json';
const README = join(REPO_ROOT, 'README.md');
const TABLE_START = /<!-- tools-by-profile:[^\n]*-->\n/;
const TABLE_END = '<!-- /tools-by-profile -->';

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** Each tool's snapshot text, by name, in tools/list order. */
function published(): Map<string, string> {
  const listed = listTools(ALL_TOOLS);
  const full = listTools(ALL_TOOLS, { outputSchemas: 'full' });
  return new Map(
    listed.map((t, i) => {
      const complete = full[i]!.outputSchema;
      const entry = {
        ...t,
        ...(JSON.stringify(complete) !== JSON.stringify(t.outputSchema)
          ? { outputSchemaFull: complete }
          : {}),
        profiles: ALL_TOOLS[i]!.profiles,
        limits: ALL_TOOLS[i]!.limits ?? {},
      };
      return [t.name, json(entry)];
    }),
  );
}

/** The tool snapshot files in the folder, by tool name. */
function snapshotFiles(): string[] {
  return readdirSync(SNAPSHOTS)
    .filter((f) => f.endsWith('.json') && f !== ORDER)
    .map((f) => f.slice(0, -'.json'.length));
}

/** What a profile costs in the assistant's context: its tools/list answer, in bytes and rough tokens. */
function listCost(tools: ToolDefinition[]): string {
  const bytes = Buffer.byteLength(JSON.stringify({ tools: listTools(tools) }), 'utf8');
  // About 4 bytes a token for this JSON-heavy text; a host's own tokenizer will differ somewhat.
  return `${bytes.toLocaleString('en-US')} B, ≈${Math.round(bytes / 4 / 100) / 10}k tokens`;
}

function profileTable(): string {
  const rows = PROFILE_NAMES.filter((p) => p !== 'full').map((p) => {
    const tools = toolsForProfile(ALL_TOOLS, p);
    const names = tools.map((t) => t.name).filter((n) => n !== 'server_capabilities');
    return `| \`${p}\` | ${listCost(tools)} | ${names.map((n) => `\`${n}\``).join(', ')} |`;
  });
  return [
    '| profile | tools/list cost | tools |',
    '|---|---|---|',
    ...rows,
    `| \`full\` | ${listCost(toolsForProfile(ALL_TOOLS, 'full'))} | all of the above |`,
    '',
  ].join('\n');
}

function readmeWithTable(readme: string): string {
  const start = TABLE_START.exec(readme);
  const end = readme.indexOf(TABLE_END);
  assert.ok(start && end > start.index, 'README lacks the tools-by-profile markers');
  return readme.slice(0, start.index + start[0].length) + profileTable() + readme.slice(end);
}

test('every published tool definition matches its file in test/tools/snapshots/', () => {
  const now = published();
  if (UPDATE) {
    mkdirSync(SNAPSHOTS, { recursive: true });
    for (const name of snapshotFiles()) if (!now.has(name)) rmSync(join(SNAPSHOTS, `${name}.json`));
    for (const [name, text] of now) writeFileSync(join(SNAPSHOTS, `${name}.json`), text);
    writeFileSync(join(SNAPSHOTS, ORDER), json([...now.keys()]));
    return;
  }
  const hint = 'the public surface changed: run `npm run snapshots`';
  const files = new Set(snapshotFiles());
  assert.deepEqual(
    [...now.keys()].filter((name) => !files.has(name)),
    [],
    `tools without a snapshot file; ${hint}`,
  );
  assert.deepEqual(
    [...files].filter((name) => !now.has(name)),
    [],
    `snapshot files of no tool; ${hint}`,
  );
  for (const [name, text] of now)
    assert.equal(text, readFileSync(join(SNAPSHOTS, `${name}.json`), 'utf8'), `${name}: ${hint}`);
  assert.equal(
    json([...now.keys()]),
    readFileSync(join(SNAPSHOTS, ORDER), 'utf8'),
    `the tools/list order differs from snapshots/${ORDER}; ${hint}`,
  );
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
