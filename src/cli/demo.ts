// `re-mcp demo`: copies the bundled demo workspace to a temporary directory, starts this server on it
// over stdio, drives it with the real MCP client and prints the transcript. Demo steps are data
// (demo-steps.ts) so each tool family can show itself.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { DEMO_STEPS } from './demo-steps.js';

/** The package root: the nearest folder above this module holding re-mcp's package.json. */
function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'examples', 'demo-workspace')) && existsSync(join(dir, 'package.json')))
      return dir;
    dir = resolve(dir, '..');
  }
  throw new Error('cannot find the re-mcp package root (examples/demo-workspace)');
}

function show(label: string, value: unknown): void {
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  const lines = text.split('\n');
  const shown = lines.length > 40 ? [...lines.slice(0, 40), `... (${lines.length - 40} more lines)`] : lines;
  process.stdout.write(`${label}\n${shown.map((l) => `    ${l}`).join('\n')}\n`);
}

export async function runDemo(): Promise<number> {
  const workspace = await realpath(await mkdtemp(join(tmpdir(), 're-mcp-demo-')));
  let failures = 0;
  try {
    await cp(join(findPackageRoot(), 'examples', 'demo-workspace'), workspace, { recursive: true });
    try {
      execFileSync('git', ['init', '-q'], { cwd: workspace, stdio: 'ignore' });
    } catch {
      // No git: get_project_status will say so.
    }
    for (const step of DEMO_STEPS) await step.prepare?.(workspace);
    const transport = new StdioClientTransport({
      command: process.execPath,
      // The same entry script that is running this demo (the bundle or the unbundled CLI).
      args: [process.argv[1] ?? '', 'serve'],
      // The static tools and the project's checks: the demo's steps use both (two profiles combined).
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        RE_MCP_WORKSPACE_ROOT: workspace,
        RE_MCP_PROFILE: 'static,project',
      },
      stderr: 'ignore',
    });
    const client = new Client({ name: 're-mcp-demo', version: '1.0.0' });
    const started = performance.now();
    await client.connect(transport);
    const { tools } = await client.listTools();
    process.stdout.write(
      `# re-mcp demo\nworkspace: ${workspace}\nconnected and listed ${tools.length} tools in ${Math.round(performance.now() - started)} ms\n\n`,
    );
    for (const step of DEMO_STEPS) {
      process.stdout.write(`## ${step.title}\n`);
      show(`-> ${step.tool}`, step.args);
      const result = await client.callTool({ name: step.tool, arguments: step.args });
      const text = result.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
      show(result.isError ? '<- ERROR' : '<- text', text);
      show('<- structuredContent', result.structuredContent ?? null);
      const expectedError = step.expectError ?? false;
      if (Boolean(result.isError) !== expectedError) failures++;
      process.stdout.write('\n');
    }
    await client.close();
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
  process.stdout.write(
    failures === 0
      ? 'demo finished: every step behaved as expected\n'
      : `demo: ${failures} unexpected results\n`,
  );
  return failures === 0 ? 0 : 1;
}
