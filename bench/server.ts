// Server start-up and round-trip figures: spawn-to-first-tools/list (median of 20 fresh processes),
// server_capabilities round trip, and the size of the tools/list answer per tool.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { makeWorkspace, SERVER_ENTRY } from '../test/kit/mcp-harness.js';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function connect(workspace: string, profile = 'full'): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER_ENTRY, 'serve'],
    env: { PATH: process.env.PATH ?? '', RE_MCP_WORKSPACE_ROOT: workspace, RE_MCP_PROFILE: profile },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  return client;
}

export async function benchServer(): Promise<Record<string, unknown>> {
  const workspace = await makeWorkspace('re-mcp-bench-');
  const spawnToList: number[] = [];
  let listBytes = 0;
  let toolCount = 0;
  for (let i = 0; i < 20; i++) {
    const started = performance.now();
    const client = await connect(workspace);
    const listed = await client.listTools();
    spawnToList.push(performance.now() - started);
    listBytes = Buffer.byteLength(JSON.stringify(listed));
    toolCount = listed.tools.length;
    await client.close();
  }
  const client = await connect(workspace);
  const roundTrips: number[] = [];
  for (let i = 0; i < 50; i++) {
    const started = performance.now();
    await client.callTool({ name: 'server_capabilities', arguments: {} });
    roundTrips.push(performance.now() - started);
  }
  await client.close();
  return {
    spawnToToolsListMs: {
      median: Math.round(median(spawnToList)),
      min: Math.round(Math.min(...spawnToList)),
      runs: 20,
    },
    serverCapabilitiesRoundTripMs: { median: Number(median(roundTrips).toFixed(2)), runs: 50 },
    toolsList: {
      tools: toolCount,
      bytes: listBytes,
      bytesPerTool: Math.round(listBytes / Math.max(toolCount, 1)),
    },
  };
}
