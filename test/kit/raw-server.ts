// Talks raw JSON-RPC to the built server over its stdio, for tests that must see every byte it writes
// to stdout (the MCP client would hide anything that is not protocol). Optionally preloads a CommonJS
// snippet into the server process to inject faults.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SERVER_ENTRY } from './mcp-harness.js';

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
} as const;
export const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' } as const;

export interface RawServer {
  send(message: unknown): void;
  /** Writes raw bytes to the server's stdin (for malformed input). */
  sendRaw(text: string | Buffer): void;
  /** Every complete JSON line the server wrote to stdout so far, parsed. */
  messages(): Array<Record<string, any>>;
  /** Polls (bounded) until stdout contains `text` or the server exits. */
  waitFor(text: string, timeoutMs?: number): Promise<void>;
  stdout(): string;
  stderr(): string;
  /** Exit code once the server has exited, else null. */
  exited(): number | null;
  /** The server's pid (to signal it). */
  pid: number;
  /** Closes stdin, waits for the exit, removes the preload. */
  close(): Promise<void>;
}

export async function startRawServer(
  workspace: string,
  options: { preload?: string; env?: Record<string, string> } = {},
): Promise<RawServer> {
  let preloadDir: string | null = null;
  const args = [SERVER_ENTRY, 'serve'];
  if (options.preload !== undefined) {
    preloadDir = await mkdtemp(join(tmpdir(), 're-mcp-preload-'));
    const preload = join(preloadDir, 'preload.cjs');
    await writeFile(preload, options.preload);
    args.unshift('--require', preload);
  }
  const child = spawn(process.execPath, args, {
    env: {
      PATH: process.env.PATH ?? '',
      RE_MCP_WORKSPACE_ROOT: workspace,
      RE_MCP_PROFILE: 'full',
      ...options.env,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let exited: number | null = null;
  child.on('exit', (code) => {
    exited = code ?? -1;
  });
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString('utf8');
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  return {
    send: (message) => child.stdin.write(`${JSON.stringify(message)}\n`),
    sendRaw: (text) => child.stdin.write(text),
    messages: () =>
      stdout
        .split('\n')
        .slice(0, -1)
        .map((line) => JSON.parse(line)),
    async waitFor(text, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!stdout.includes(text) && exited === null && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    pid: child.pid ?? -1,
    stdout: () => stdout,
    stderr: () => stderr,
    exited: () => exited,
    async close() {
      child.stdin.end();
      if (exited === null) await new Promise((r) => child.once('exit', r));
      if (preloadDir !== null) await rm(preloadDir, { recursive: true, force: true });
    },
  };
}
