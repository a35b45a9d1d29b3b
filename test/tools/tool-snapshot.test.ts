// The public surface as a visible diff: every tool's published definition (name, title, description,
// input and output JSON Schema, annotations; plus its profiles and declared limits, and its complete
// output schema where the published summary leaves something out) is snapshotted in its own file,
// snapshots/<tool name>.json, and snapshots/index.json lists the names in tools/list order; the
// README's tools-by-profile table is derived from the same registry (./surface.ts makes them all).
// After changing a tool (or merging a branch that did): `npm run snapshots` rewrites them all (and
// deletes the file of a tool that is gone); review the diff and commit it.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadAllTools } from '../../src/tools/index.js';
import { REPO_ROOT } from '../kit/mcp-harness.js';
import { json, ORDER, readmeWithTable, SNAPSHOTS_DIR, snapshotNames, snapshotTexts } from './surface.js';

const ALL_TOOLS = await loadAllTools();

const UPDATE = process.env.UPDATE_SNAPSHOTS === '1';
const SNAPSHOTS = join(REPO_ROOT, SNAPSHOTS_DIR);
const README = join(REPO_ROOT, 'README.md');
const snapshotFiles = () => snapshotNames(SNAPSHOTS);

test('every published tool definition matches its file in test/tools/snapshots/', () => {
  const now = snapshotTexts(ALL_TOOLS);
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
  const expected = readmeWithTable(readme, ALL_TOOLS);
  assert.ok(expected !== null, 'README lacks the tools-by-profile markers');
  if (UPDATE) {
    writeFileSync(README, expected);
    return;
  }
  assert.equal(readme, expected, 'README table differs from the registry: run `npm run snapshots`');
});

test('tool names are unique and every tool is in at least one profile', () => {
  const names = ALL_TOOLS.map((t) => t.name);
  assert.deepEqual(
    names.filter((n, i) => names.indexOf(n) !== i),
    [],
    'tool names given twice (a tool is listed once, in its family index.ts)',
  );
  for (const t of ALL_TOOLS) assert.ok(t.profiles.length > 0, t.name);
});
