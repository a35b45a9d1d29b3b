// A new tool is one folder edit plus generated files (docs/ARCHITECTURE.md, "Adding a tool"), shown
// on a fake one: its definition, in a family of its own added in-process through the registry's
// extension point (loadAllTools(families), what a line in src/tools/families.ts or the family's
// index.ts gives), is picked up by every check a tool meets, with no line for it anywhere: its
// snapshot file and README row (made by `npm run snapshots`), its budget line (the same), its
// hostile-path calls, its fuzz arguments and its context call (derived from its definition). Where a
// derived call cannot reach the path, the check says what to declare.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { z } from 'zod/v4';
import { loadConfig } from '../../src/config/config.js';
import { ReMcpError } from '../../src/core/errors.js';
import { DEFAULT_PROFILE } from '../../src/core/profiles.js';
import {
  addressArg,
  addressOut,
  formatAddress,
  type LimitSpec,
  limitArg,
} from '../../src/core/vocabulary.js';
import { invokeTool } from '../../src/mcp/invoke.js';
import { defineTool, type ToolDefinition } from '../../src/mcp/tool.js';
import { Services } from '../../src/services.js';
import { FAMILIES, type Family } from '../../src/tools/families.js';
import { loadAllTools, toolsForProfile } from '../../src/tools/index.js';
import { workspacePath } from '../../src/tools/shared/paths.js';
import { processorArg, READ_ONLY, romArg, withToolRom } from '../../src/tools/shared/rom.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { fuzzedTools, runToolFuzz } from '../fuzz/tool-fuzz.js';
import { defaultCalls } from '../kit/context-calls.js';
import { REPO_ROOT } from '../kit/mcp-harness.js';
import { programRomBytes } from '../kit/program-rom.js';
import {
  type Caller,
  type HostileWorkspace,
  hostilePathProblems,
  hostileWorkspace,
  pathTargets,
  unmarkedPaths,
} from '../workspace/hostile-path-cases.js';
import {
  BUDGETS_FILE,
  type Budgets,
  budgetProblems,
  firstBudget,
  publishedSizes,
  readmeWithTable,
  SNAPSHOTS_DIR,
  snapshotNames,
  snapshotTexts,
  updatedBudgets,
} from './surface.js';

const NAME = 'nds_fake_table_lookup';
const LIMITS = { maxRows: { default: 16, min: 1, max: 256, unit: 'rows' } } satisfies Record<
  string,
  LimitSpec
>;
const ACTIONS = ['count', 'read'] as const;

/**
 * The fake tool as a family folder would hold it: a ROM, an address, and a table file it reads for
 * action read only (the mark says so; `readWith` null leaves that out, to show the check
 * noticing).
 */
function fakeTool(readWith: Record<string, unknown> | null = { action: 'read' }) {
  return defineTool({
    name: NAME,
    title: 'Look an address up in a table (test fixture)',
    profiles: ['static'],
    description: {
      purpose: 'Counts the rows of a workspace table near an address of a ROM.',
      useWhen: 'never: it exists in a test only.',
      behaviour: 'read-only.',
      limits: `${LIMITS.maxRows.max} rows.`,
    },
    input: z.object({
      rom: romArg,
      processor: processorArg,
      address: addressArg(),
      action: z.enum(ACTIONS).default('count'),
      table: workspacePath(
        z.string().min(1).max(1024).optional().describe('read: workspace-relative table file.'),
        'file',
        readWith ?? undefined,
      ),
      maxRows: limitArg(LIMITS.maxRows),
    }),
    output: z.object({
      rom: z.string(),
      processor: z.string(),
      address: addressOut,
      table: z.string().nullable(),
      rows: z.number().int(),
    }),
    annotations: READ_ONLY,
    limits: LIMITS,
    async handler(args, ctx) {
      if ((args.action === 'read') !== (args.table !== undefined))
        throw new ReMcpError('invalid-argument', 'action read takes table; count does not');
      const table =
        args.table === undefined ? null : await ctx.services.workspace.resolveExisting(args.table);
      return withToolRom(ctx, args.rom, (rom) => ({
        structured: {
          rom: rom.path,
          processor: args.processor,
          address: formatAddress(args.address),
          table: table?.relative ?? null,
          rows: Math.min(args.maxRows, rom.identity.size >>> 16),
        },
        text: `${rom.path}: looked up`,
      }));
    },
  });
}

const fakeFamily = (def: ToolDefinition): Family => ({ name: 'fake', load: async () => [def] });
const withFake = (def: ToolDefinition) => loadAllTools([...FAMILIES, fakeFamily(def)]);

let w: HostileWorkspace;
let services: Services;

before(async () => {
  w = await hostileWorkspace();
  await writeFile(join(w.workspace, 'roms', 'program.nds'), programRomBytes());
  services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: w.workspace }), new Workspace(w.workspace));
});

after(async () => {
  await services?.dispose();
  await w?.close();
});

const inProcess =
  (tools: readonly ToolDefinition[]): Caller =>
  async (name, args) => {
    const def = tools.find((t) => t.name === name)!;
    const r = await invokeTool(def, args, services, { signal: new AbortController().signal, log: () => {} });
    if (!r.isError) return null;
    return (r.structuredContent as { error: { code: string; message: string } }).error;
  };

test('the registry lists the new tool in its family order, in its profile', async () => {
  const fake = fakeTool();
  const all = await withFake(fake);
  assert.equal(all.at(-1), fake);
  assert.ok(toolsForProfile(all, 'static').includes(fake));
  assert.ok(!toolsForProfile(await loadAllTools(), 'full').some((t) => t.name === NAME));
});

test('generated files: npm run snapshots writes its snapshot, README row and budget line, and the checks say so until then', async () => {
  const all = await withFake(fakeTool());
  // Snapshots: the fake has a text and no file (tool-snapshot.test.ts: "run `npm run snapshots`"),
  // and no other tool's text changes.
  const texts = snapshotTexts(all);
  const files = new Set(snapshotNames(join(REPO_ROOT, SNAPSHOTS_DIR)));
  assert.deepEqual(
    [...texts.keys()].filter((n) => !files.has(n)),
    [NAME],
  );
  for (const [name, text] of texts)
    if (name !== NAME)
      assert.equal(text, readFileSync(join(REPO_ROOT, SNAPSHOTS_DIR, `${name}.json`), 'utf8'));
  // README: only the static row (and the full row's cost) change, and the static row names it.
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const next = readmeWithTable(readme, all)!;
  const changed = next.split('\n').filter((line) => !readme.split('\n').includes(line));
  assert.equal(changed.length, 2, changed.join('\n'));
  assert.match(changed[0]!, new RegExp(`^\\| \`static\` .*\`${NAME}\` \\|$`));
  assert.match(changed[1]!, /^\| `full` /);
  // Budgets: the check names the file and the line; the update writes exactly that line.
  const budgets = JSON.parse(readFileSync(join(REPO_ROOT, BUDGETS_FILE), 'utf8')) as Budgets;
  const size = publishedSizes(all).get(NAME)!;
  const problems = budgetProblems(all, budgets);
  assert.equal(problems.length, 1, problems.join('\n'));
  assert.ok(problems[0]!.includes(`"${NAME}": ${firstBudget(size)}`), problems[0]);
  assert.ok(problems[0]!.includes(BUDGETS_FILE) && problems[0]!.includes('npm run snapshots'), problems[0]);
  const updated = updatedBudgets(all, budgets);
  assert.deepEqual(updated.tools, { ...budgets.tools, [NAME]: firstBudget(size) });
  assert.deepEqual(budgetProblems(all, updated), []);
});

test('hostile paths: both path arguments are found from the marks and refuse every hostile input', async () => {
  const fake = fakeTool();
  const all = await withFake(fake);
  assert.deepEqual(
    pathTargets(all).filter((t) => t.startsWith(NAME)),
    [`${NAME}.rom`, `${NAME}.table`],
  );
  assert.deepEqual(unmarkedPaths(all), []);
  assert.deepEqual(await hostilePathProblems([fake], inProcess([fake]), w), []);
});

test('hostile paths: a path read only for some arguments, unmarked as such, is named with what to declare', async () => {
  const fake = fakeTool(null);
  const problems = await hostilePathProblems([fake], inProcess([fake]), w);
  assert.equal(problems.length, 1, problems.join('\n'));
  assert.match(
    problems[0]!,
    new RegExp(
      `^${NAME}\\.table: .*answered invalid-argument.*workspacePath\\(schema, 'file', \\{ \\.\\.\\. \\}\\)`,
    ),
  );
  // And a path argument declared without workspacePath is named too.
  const plain = defineTool({
    ...fake,
    input: z.object({ rom: romArg, table: z.string().describe('Workspace-relative table file.') }),
  } as unknown as ToolDefinition);
  assert.deepEqual(
    unmarkedPaths([plain]).map((p) => p.split(' ')[0]),
    [`${NAME}.table`],
  );
});

test('fuzz: the new static tool is fuzzed with arguments drawn from its definition, past its argument checks', async () => {
  const fake = fakeTool();
  assert.ok(fuzzedTools(await withFake(fake)).includes(fake));
  const figures = await runToolFuzz(48, 46, { all: [fake] });
  assert.deepEqual(figures.crashes, []);
  assert.deepEqual(figures.internalErrors, []);
  assert.equal(figures.perTool[NAME], 48);
  assert.ok((figures.passed[NAME] ?? 0) > 0, JSON.stringify(figures.outcomes));
  assert.ok((figures.outcomes.ok ?? 0) > 0, JSON.stringify(figures.outcomes));
});

test('context budgets: the new default-profile tool gets a derived call, which answers', async () => {
  const fake = fakeTool();
  const session = toolsForProfile(await withFake(fake), DEFAULT_PROFILE);
  const rom = 'roms/program.nds';
  const calls = defaultCalls(session, rom, '0x02000000', '0x02000000').filter((c) => c.tool === NAME);
  assert.deepEqual(calls, [
    { tool: NAME, args: { rom, processor: 'arm9', address: '0x02000000' }, derived: true },
  ]);
  assert.equal(await inProcess([fake])(NAME, calls[0]!.args), null);
});
