// The catalog the build writes into the bundle is the registry's: the built server's tools/list for
// every profile is exactly what listTools derives from the definitions now (output schemas summarised,
// or complete with RE_MCP_OUTPUT_SCHEMAS=full), and the catalog, made family by family from the
// registry (src/tools/families.ts), holds the same tools in the same order as the whole tool list.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildCatalog, packCatalog, publishedText } from '../../src/cli/catalog.js';
import { PROFILE_NAMES } from '../../src/core/profiles.js';
import { listTools } from '../../src/mcp/published.js';
import { loadAllTools, toolsForProfile } from '../../src/tools/index.js';
import { startServer } from '../kit/mcp-harness.js';

const ALL_TOOLS = await loadAllTools();

test('the catalog is the registry, in order', async () => {
  const catalog = await buildCatalog();
  assert.deepEqual(
    catalog.map((e) => e.published.name),
    ALL_TOOLS.map((t) => t.name),
  );
  assert.deepEqual(
    catalog.map((e) => e.published),
    listTools(ALL_TOOLS),
  );
  assert.deepEqual(
    catalog.map((e) => e.fullOutputSchema),
    listTools(ALL_TOOLS, { outputSchemas: 'full' }).map((t) => t.outputSchema),
  );
});

test('the packed catalog gives each definition as tools/list sends it, in either output-schema mode', async () => {
  const packed = packCatalog(await buildCatalog());
  const summary = listTools(ALL_TOOLS);
  const full = listTools(ALL_TOOLS, { outputSchemas: 'full' });
  let spliced = 0;
  for (const [i, entry] of packed.entries()) {
    assert.equal(publishedText(entry, 'summary'), JSON.stringify(summary[i]), entry.name);
    assert.equal(publishedText(entry, 'full'), JSON.stringify(full[i]), entry.name);
    if (entry.fullOutput) spliced++;
  }
  // Only the tools whose summary drops something (a level or an all-required list) carry their
  // complete schema twice.
  const differ = summary.filter((t, i) => JSON.stringify(t) !== JSON.stringify(full[i])).length;
  assert.equal(spliced, differ, `${spliced} tools carry a complete output schema`);
  assert.ok(spliced >= 20, `${spliced} tools carry a complete output schema`);
});

test('the built server lists, per profile, exactly the definitions of the source', async () => {
  for (const profile of PROFILE_NAMES) {
    const h = await startServer({ env: { RE_MCP_PROFILE: profile } });
    try {
      const { tools } = await h.client.listTools();
      assert.deepEqual(
        tools,
        listTools(toolsForProfile(ALL_TOOLS, profile)),
        `profile ${profile}: rebuild (npm run build)`,
      );
      // A tool's code loads on its first call: the first call of a family works like any other.
      if (profile === 'static') {
        const failure = await h.fail('nds_inspect_rom', { rom: 'absent.nds' });
        assert.equal(failure.code, 'not-found');
      }
    } finally {
      await h.close();
    }
  }
});

test('RE_MCP_OUTPUT_SCHEMAS=full (or --output-schemas full) publishes the complete output schemas', async () => {
  for (const options of [
    { env: { RE_MCP_OUTPUT_SCHEMAS: 'full' } },
    { args: ['--output-schemas', 'full'] },
  ]) {
    const h = await startServer(options);
    try {
      const { tools } = await h.client.listTools();
      assert.deepEqual(tools, listTools(ALL_TOOLS, { outputSchemas: 'full' }), JSON.stringify(options));
      // The complete schema arms the client's own validation the same way.
      await h.ok('server_capabilities');
    } finally {
      await h.close();
    }
  }
});

test('each tool loads alone from its own module: the same definition its family lists', async () => {
  const { FAMILIES, loadTool } = await import('../../src/tools/families.js');
  let alone = 0;
  for (const family of FAMILIES) {
    const listed = await family.load();
    if (!family.tools) continue;
    assert.deepEqual(
      Object.keys(family.tools).sort(),
      listed.map((t) => t.name).sort(),
      `${family.name}: a loader for every tool and none more`,
    );
    for (const def of listed) {
      assert.equal(await family.tools[def.name]!(), def, `${def.name} alone is the listed definition`);
      assert.equal(await loadTool(family.name, def.name), def);
      alone++;
    }
  }
  // Families made at run time (one per emulator) load whole; every fixed family loads tool by tool.
  assert.ok(alone >= 30, `only ${alone} tools load alone`);
  const debug = FAMILIES.find((f) => !f.tools)!;
  const first = (await debug.load())[0]!;
  assert.equal((await loadTool(debug.name, first.name))?.name, first.name);
  assert.equal(await loadTool(debug.name, 'no_such_tool'), undefined);
});
