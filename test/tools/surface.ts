// The published surface of a list of tools, as the files `npm run snapshots` writes: each tool's
// snapshot text (snapshots/<name>.json), README's tools-by-profile table, and each tool's byte budget
// (tool-budgets.json: a new tool's line is written once, from its size then; a line is never raised
// here, only in review). tool-snapshot.test.ts and tool-budget.test.ts check the registry's tools
// against them; test/tools/new-tool.test.ts shows a new tool reaching each.
import { readdirSync } from 'node:fs';
import { PROFILE_NAMES } from '../../src/core/profiles.js';
import { listTools } from '../../src/mcp/published.js';
import type { ToolDefinition } from '../../src/mcp/tool.js';
import { toolsForProfile } from '../../src/tools/index.js';

export const SNAPSHOTS_DIR = 'test/tools/snapshots';
/** The order file of the snapshots folder; every other file of it is one tool's. */
export const ORDER = 'index.json';
export const BUDGETS_FILE = 'test/tools/tool-budgets.json';
export const TABLE_START = /<!-- tools-by-profile:[^\n]*-->\n/;
export const TABLE_END = '<!-- /tools-by-profile -->';

export const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v), 'utf8');

/** Each tool's snapshot text, by name, in tools/list order. */
export function snapshotTexts(tools: readonly ToolDefinition[]): Map<string, string> {
  const listed = listTools(tools);
  const full = listTools(tools, { outputSchemas: 'full' });
  return new Map(
    listed.map((t, i) => {
      const complete = full[i]!.outputSchema;
      const entry = {
        ...t,
        ...(JSON.stringify(complete) !== JSON.stringify(t.outputSchema)
          ? { outputSchemaFull: complete }
          : {}),
        profiles: tools[i]!.profiles,
        limits: tools[i]!.limits ?? {},
      };
      return [t.name, json(entry)];
    }),
  );
}

/** The tools that have a snapshot file in `dir`. */
export function snapshotNames(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json') && f !== ORDER)
    .map((f) => f.slice(0, -'.json'.length));
}

/** What a profile costs in the assistant's context: its tools/list answer, in bytes and rough tokens. */
function listCost(tools: ToolDefinition[]): string {
  const size = bytes({ tools: listTools(tools) });
  // About 4 bytes a token for this JSON-heavy text; a host's own tokenizer will differ somewhat.
  return `${size.toLocaleString('en-US')} B, ≈${Math.round(size / 4 / 100) / 10}k tokens`;
}

export function profileTable(tools: readonly ToolDefinition[]): string {
  const rows = PROFILE_NAMES.filter((p) => p !== 'full').map((p) => {
    const listed = toolsForProfile(tools, p);
    const names = listed.map((t) => t.name).filter((n) => n !== 'server_capabilities');
    return `| \`${p}\` | ${listCost(listed)} | ${names.map((n) => `\`${n}\``).join(', ')} |`;
  });
  return [
    '| profile | tools/list cost | tools |',
    '|---|---|---|',
    ...rows,
    `| \`full\` | ${listCost(toolsForProfile(tools, 'full'))} | all of the above |`,
    '',
  ].join('\n');
}

/** `readme` with its tools-by-profile table made from `tools`; null when it lacks the markers. */
export function readmeWithTable(readme: string, tools: readonly ToolDefinition[]): string | null {
  const start = TABLE_START.exec(readme);
  const end = readme.indexOf(TABLE_END);
  if (!start || end <= start.index) return null;
  return readme.slice(0, start.index + start[0].length) + profileTable(tools) + readme.slice(end);
}

export interface Budgets {
  averageBytesPerTool: number;
  tools: Record<string, number>;
}

/** The budget a new tool's line starts with: its size, some headroom, in tens of bytes. */
export const firstBudget = (size: number) => Math.ceil((size + 20) / 10) * 10;

/** Each tool's published size in bytes, by name. */
export function publishedSizes(tools: readonly ToolDefinition[]): Map<string, number> {
  return new Map(listTools(tools).map((t) => [t.name, bytes(t)]));
}

/**
 * The budgets as `npm run snapshots` leaves them: a line added for each new tool (at the end) and the
 * line of each tool that is gone removed; no line is raised.
 */
export function updatedBudgets(tools: readonly ToolDefinition[], budgets: Budgets): Budgets {
  const sizes = publishedSizes(tools);
  const kept = Object.entries(budgets.tools).filter(([name]) => sizes.has(name));
  const added = [...sizes].filter(([name]) => !(name in budgets.tools)).map(([n, s]) => [n, firstBudget(s)]);
  return { ...budgets, tools: Object.fromEntries([...kept, ...added]) };
}

/** What is wrong with the tools' sizes against the budgets, each said with what to do. */
export function budgetProblems(tools: readonly ToolDefinition[], budgets: Budgets): string[] {
  const sizes = publishedSizes(tools);
  const problems: string[] = [];
  for (const [name, size] of sizes) {
    const budget = budgets.tools[name];
    if (budget === undefined)
      problems.push(
        `${name} has no line in ${BUDGETS_FILE}: run \`npm run snapshots\` (it adds "${name}": ${firstBudget(size)}) and commit the reviewed line`,
      );
    else if (size > budget)
      problems.push(
        `${name}: its published definition is ${size} B, over its budget of ${budget} B in ${BUDGETS_FILE}: shrink it, or raise the line in review`,
      );
  }
  for (const name of Object.keys(budgets.tools))
    if (!sizes.has(name))
      problems.push(`${BUDGETS_FILE} has a line for ${name}, which is no tool: run \`npm run snapshots\``);
  const average = bytes({ tools: listTools(tools) }) / Math.max(sizes.size, 1);
  if (average > budgets.averageBytesPerTool)
    problems.push(
      `tools/list averages ${Math.round(average)} B per tool, over averageBytesPerTool ${budgets.averageBytesPerTool} in ${BUDGETS_FILE}`,
    );
  return problems;
}
