// Profiles combine: `static,runtime,build` lists the union of the three, in the server and the CLI;
// `full` anywhere means every tool; an unknown name anywhere is refused.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/config.js';
import { isReMcpError } from '../../src/core/errors.js';
import { parseProfileSelection } from '../../src/core/profiles.js';
import { loadAllTools, toolsForProfile } from '../../src/tools/index.js';
import { makeWorkspace, startServer } from '../kit/mcp-harness.js';

const ALL_TOOLS = await loadAllTools();

test('a comma-separated profile setting is the union of its profiles', () => {
  assert.deepEqual(parseProfileSelection('build, static,runtime,static'), ['static', 'runtime', 'build']);
  assert.deepEqual(parseProfileSelection('static,full'), ['full']);
  assert.equal(parseProfileSelection('static,bogus'), null);
  assert.equal(parseProfileSelection(',,'), null);
  const union = new Set(
    ['static', 'runtime', 'build'].flatMap((p) =>
      toolsForProfile(ALL_TOOLS, p as 'static').map((t) => t.name),
    ),
  );
  const combined = toolsForProfile(ALL_TOOLS, ['static', 'runtime', 'build']).map((t) => t.name);
  assert.deepEqual(new Set(combined), union);
  assert.equal(combined.length, union.size, 'no tool twice');
  assert.ok(combined.length < toolsForProfile(ALL_TOOLS, 'full').length);
});

test('the server serves a combined profile, and refuses an unknown name in one', async () => {
  const workspace = await makeWorkspace();
  assert.throws(
    () => loadConfig({ RE_MCP_WORKSPACE_ROOT: workspace, RE_MCP_PROFILE: 'static,nope' }),
    (e: unknown) =>
      isReMcpError(e) && e.code === 'config-invalid' && /unknown profile "static,nope"/.test(e.message),
  );
  const h = await startServer({ workspace, env: { RE_MCP_PROFILE: 'static,runtime,build' } });
  try {
    const listed = (await h.client.listTools()).tools.map((t) => t.name);
    const expected = toolsForProfile(ALL_TOOLS, ['static', 'runtime', 'build']).map((t) => t.name);
    assert.deepEqual([...listed].sort(), [...expected].sort());
    assert.ok(
      listed.includes('nds_mutation_build') &&
        listed.includes('desmume_start') &&
        listed.includes('nds_program_map'),
    );
    assert.ok(!listed.includes('retroarch_ping'));
    const caps = await h.ok<{ profile: string }>('server_capabilities');
    assert.equal(caps.profile, 'static,runtime,build');
  } finally {
    await h.close();
  }
});
