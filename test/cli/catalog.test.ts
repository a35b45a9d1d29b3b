// The catalog the build writes into the bundle is the registry's: the built server's tools/list for
// every profile is exactly what listTools derives from the definitions now, and the lazily imported
// families hold the same tools, in the same order, as the registry.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildCatalog } from '../../src/cli/catalog.js';
import { PROFILE_NAMES } from '../../src/core/profiles.js';
import { listTools } from '../../src/mcp/server.js';
import { ALL_TOOLS, toolsForProfile } from '../../src/tools/index.js';
import { startServer } from '../kit/mcp-harness.js';

test('the lazily loaded families are the registry, in order', async () => {
  const catalog = await buildCatalog();
  assert.deepEqual(
    catalog.map((e) => e.published.name),
    ALL_TOOLS.map((t) => t.name),
  );
  assert.deepEqual(
    catalog.map((e) => e.published),
    listTools(ALL_TOOLS),
  );
});

test('the built server lists, per profile, exactly the definitions of the source', async () => {
  for (const profile of PROFILE_NAMES) {
    const h = await startServer({ env: { RE_MCP_PROFILE: profile } });
    try {
      const { tools } = await h.client.listTools();
      assert.deepEqual(
        tools,
        listTools(toolsForProfile(profile)),
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
