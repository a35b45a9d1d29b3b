// The official Python MCP SDK for the real-client test, provisioned by the test itself: a virtual
// environment under the clone's node_modules/.cache (made anew by every `npm ci`, never beside the
// clone), with `mcp` installed from the machine's configured package index. It needs only what the
// README lists among the machine's packages: python3 with its venv module. RE_MCP_PYTHON names an
// interpreter that already has `mcp` instead.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './mcp-harness.js';

const run = promisify(execFile);

/** Where the environment lives; `.ready` marks one whose install finished and imports. */
export const PYTHON_SDK_DIR = join(REPO_ROOT, 'node_modules', '.cache', 're-mcp-tests', 'python-mcp');

async function imports(python: string): Promise<boolean> {
  try {
    await run(python, ['-c', 'import mcp'], { timeout: 60_000 });
    return true;
  } catch {
    return false;
  }
}

/** A Python interpreter that imports `mcp`: RE_MCP_PYTHON, or the test's own environment (made once). */
export async function pythonWithMcp(): Promise<string> {
  const given = process.env.RE_MCP_PYTHON;
  if (given) {
    if (!(await imports(given))) throw new Error(`RE_MCP_PYTHON=${given} does not import mcp`);
    return given;
  }
  const python = join(PYTHON_SDK_DIR, 'bin', 'python');
  const ready = join(PYTHON_SDK_DIR, '.ready');
  if (existsSync(ready) && (await imports(python))) return python;
  // A half-made environment (an interrupted install) is made again from nothing.
  await rm(PYTHON_SDK_DIR, { recursive: true, force: true });
  await mkdir(join(PYTHON_SDK_DIR, '..'), { recursive: true });
  const step = async (what: string, file: string, args: string[]) => {
    try {
      await run(file, args, { timeout: 600_000, maxBuffer: 16 * 1024 * 1024 });
    } catch (error) {
      const e = error as { stderr?: string; message: string };
      throw new Error(
        `${what} failed (the Python client test needs python3 with its venv module, and mcp from the package index pip is configured with): ${(e.stderr ?? e.message).slice(-2000)}`,
      );
    }
  };
  await step('python3 -m venv', 'python3', ['-m', 'venv', PYTHON_SDK_DIR]);
  // --retries 0: an index that cannot be reached fails at once instead of after minutes of retries.
  await step('pip install mcp', python, [
    '-m',
    'pip',
    'install',
    '--quiet',
    '--retries',
    '0',
    '--disable-pip-version-check',
    'mcp',
  ]);
  if (!(await imports(python))) throw new Error(`${python}: mcp was installed but does not import`);
  await writeFile(ready, `${new Date().toISOString()}\n`);
  return python;
}
