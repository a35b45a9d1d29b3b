// `re-mcp config <host>`: the exact block a host needs to start this installation: absolute paths
// of this Node and this entry, the validated workspace, and every other re-mcp setting given (by
// environment or flag). Stdout carries only the block, ready to paste; where it goes is on stderr.
import { realpathSync } from 'node:fs';
import { settingsWith, validateWorkspaceRoot } from '../config/config.js';
import { ReMcpError } from '../core/errors.js';
import type { Emulator } from '../debug/backend.js';
import { EMULATORS, emulatorSettings } from '../debug/emulators.js';

export const HOSTS = ['claude-code', 'claude-desktop', 'cursor', 'vscode'] as const;
type Host = (typeof HOSTS)[number];
const SERVER_KEY = 're-mcp';

interface Launch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

const isHost = (value: string): value is Host => (HOSTS as readonly string[]).includes(value);

/** How this process was started (Node and the entry it runs), and the settings to pass on. */
export function launchFor(
  env: Record<string, string | undefined>,
  entry: string,
  emulators: readonly Emulator[] = EMULATORS,
): Launch {
  const workspace = validateWorkspaceRoot(env.RE_MCP_WORKSPACE_ROOT);
  const settings: Record<string, string> = { RE_MCP_WORKSPACE_ROOT: workspace };
  for (const [name] of settingsWith(emulatorSettings(emulators))) {
    const value = env[name];
    if (name !== 'RE_MCP_WORKSPACE_ROOT' && value !== undefined && value !== '') settings[name] = value;
  }
  return { command: process.execPath, args: [realpathSync(entry), 'serve'], env: settings };
}

/** POSIX shell quoting: bare when safe, else single quotes. */
function sh(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function snippet(host: Host, launch: Launch): { text: string; where: string } {
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  const server = { command: launch.command, args: launch.args, env: launch.env };
  switch (host) {
    case 'claude-code': {
      const env = Object.entries(launch.env).flatMap(([k, v]) => ['--env', `${k}=${v}`]);
      const words = [
        'claude',
        'mcp',
        'add',
        '--scope',
        'user',
        SERVER_KEY,
        ...env,
        '--',
        launch.command,
        ...launch.args,
      ];
      return {
        text: `${words.map(sh).join(' ')}\n`,
        where: 'run this command once (--scope project writes .mcp.json in the project instead)',
      };
    }
    case 'claude-desktop':
      return {
        text: json({ mcpServers: { [SERVER_KEY]: server } }),
        where:
          'merge into claude_desktop_config.json (macOS: ~/Library/Application Support/Claude/, Windows: %APPDATA%\\Claude\\), then restart Claude Desktop',
      };
    case 'cursor':
      return {
        text: json({ mcpServers: { [SERVER_KEY]: server } }),
        where: 'merge into ~/.cursor/mcp.json (all projects) or .cursor/mcp.json (one project)',
      };
    case 'vscode':
      return {
        text: json({ servers: { [SERVER_KEY]: { type: 'stdio', ...server } } }),
        where:
          'merge into .vscode/mcp.json in the workspace (or the user mcp.json: MCP: Open User Configuration)',
      };
  }
}

export function printHostConfig(host: string | undefined, env: Record<string, string | undefined>): number {
  if (host === undefined || !isHost(host)) {
    throw new ReMcpError('invalid-argument', `usage: re-mcp config ${HOSTS.join('|')} --workspace-root DIR`);
  }
  const entry = process.argv[1];
  if (entry === undefined) throw new ReMcpError('internal-error', 'cannot tell which entry is running');
  const { text, where } = snippet(host, launchFor(env, entry));
  process.stdout.write(text);
  process.stderr.write(`re-mcp: ${where}\n`);
  for (const line of installedHints(env)) process.stderr.write(`re-mcp: ${line}\n`);
  return 0;
}

/**
 * The block lists the default profile; an emulator installed here is one flag away. One line for each
 * emulator found at its usual place while none of its settings (nor RE_MCP_PROFILE) is given.
 */
export function installedHints(
  env: Record<string, string | undefined>,
  emulators: readonly Emulator[] = EMULATORS,
): string[] {
  if (env.RE_MCP_PROFILE !== undefined) return [];
  return emulators.flatMap((emu) => {
    if (emu.settings.some((s) => env[s.name] !== undefined)) return [];
    const installed = emu.located({});
    const name = emu.names.emulator;
    return installed === null
      ? []
      : [
          `${name} is installed here (${installed}), but this block lists the static tools only: add --profile static,runtime for the ${name} tools (or --profile full for every tool) and run this again`,
        ];
  });
}
