// What each tool costs in the assistant's context, held to a budget: the bytes of its published
// definition (name, title, description, input and output schema, annotations, as tools/list sends
// it) may not grow past tool-budgets.json. A tool that must grow raises its own line there, in review;
// a new tool's line is written by `npm run snapshots` from its size then (./surface.ts), like its
// snapshot. And every description names its limits: each declared limit is either the bound of an
// argument (published as its maximum, or written in its description) or is named in the Limits line
// (its maximum, or the setting that governs it).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { listTools } from '../../src/mcp/published.js';
import { loadAllTools } from '../../src/tools/index.js';
import { REPO_ROOT } from '../kit/mcp-harness.js';
import { BUDGETS_FILE, type Budgets, budgetProblems, json, updatedBudgets } from './surface.js';

const ALL_TOOLS = await loadAllTools();
const UPDATE = process.env.UPDATE_SNAPSHOTS === '1';
const FILE = join(REPO_ROOT, BUDGETS_FILE);

test('every published tool definition is within its byte budget', () => {
  let budgets = JSON.parse(readFileSync(FILE, 'utf8')) as Budgets;
  if (UPDATE) {
    // New tools get their first line, lines of tools that are gone go; no line is raised.
    budgets = updatedBudgets(ALL_TOOLS, budgets);
    if (json(budgets) !== readFileSync(FILE, 'utf8')) writeFileSync(FILE, json(budgets));
  }
  assert.deepEqual(budgetProblems(ALL_TOOLS, budgets), []);
});
/** The ways a maximum may be written: 65536, 65,536, 64 KiB, 16 MiB, 4 GiB, 15 s. */
function forms(n: number): string[] {
  const out = [String(n), n.toLocaleString('en-US')];
  if (n >= 2 ** 30 && n % 2 ** 30 === 0) out.push(`${n / 2 ** 30} GiB`);
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) out.push(`${n / (1024 * 1024)} MiB`);
  if (n >= 1024 && n % 1024 === 0) out.push(`${n / 1024} KiB`);
  if (n >= 1000 && n % 1000 === 0) out.push(`${n / 1000} s`);
  return out;
}

test('every tool description names its limits', () => {
  const listed = listTools(ALL_TOOLS);
  const unnamed: string[] = [];
  for (const [i, def] of ALL_TOOLS.entries()) {
    const line = def.description.limits;
    assert.ok(line.trim().length > 2, `${def.name} has a Limits line`);
    assert.match(listed[i]!.description, /\nLimits: .+(\n|$)/, `${def.name}: the Limits line is published`);
    const args = Object.values(
      (listed[i]!.inputSchema.properties ?? {}) as Record<string, { maximum?: number; description?: string }>,
    );
    for (const [name, spec] of Object.entries(def.limits ?? {})) {
      const written = (text: string) => forms(spec.max).some((f) => text.includes(f));
      const asArgument = args.some((a) => a.maximum === spec.max || written(a.description ?? ''));
      const setting = /\b(?:RE_MCP|RETROARCH)_[A-Z_]+\b/.exec(spec.unit)?.[0];
      if (asArgument || written(line) || (setting !== undefined && line.includes(setting))) continue;
      unnamed.push(`${def.name}.${name} (max ${spec.max} ${spec.unit}): "${line}"`);
    }
  }
  assert.deepEqual(unnamed, [], 'declared limits that neither an argument nor the Limits line names');
});
