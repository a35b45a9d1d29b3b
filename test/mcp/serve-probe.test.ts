import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { test } from 'node:test';
import { startServer } from '../kit/mcp-harness.js';

async function freeUdpPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  socket.close();
  return port;
}

test('serve probes RetroArch in the background and only logs the outcome', async () => {
  const port = await freeUdpPort();
  const h = await startServer({ env: { RETROARCH_PORT: String(port), RETROARCH_TIMEOUT_MS: '200' } });
  try {
    const { tools } = await h.client.listTools();
    assert.ok(
      tools.some((t) => t.name === 'retroarch_ping'),
      'tools are listed while RetroArch is absent',
    );
    const deadline = Date.now() + 10_000;
    while (!/RetroArch not reachable/.test(h.stderr()) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    assert.match(h.stderr(), new RegExp(`RetroArch not reachable at 127\\.0\\.0\\.1:${port}`));
  } finally {
    await h.close();
  }
});

test('profiles without RetroArch tools do not probe it', async () => {
  const h = await startServer({
    env: { RE_MCP_PROFILE: 'project', RETROARCH_PORT: String(await freeUdpPort()) },
  });
  try {
    await h.client.listTools();
    await new Promise((r) => setTimeout(r, 700));
    assert.doesNotMatch(h.stderr(), /RetroArch/);
  } finally {
    await h.close();
  }
});
