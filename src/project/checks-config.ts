// The workspace's verification checks, declared by the operator in `re-mcp.config.json` at the
// workspace root. Callers only pick a check by name; the command, its directory and bounds come
// from this file, validated strictly (an argv array, never a shell string).
import { z } from 'zod/v4';
import { ReMcpError } from '../core/errors.js';
import { readSmallFile } from '../core/small-file.js';
import { Workspace } from '../workspace/workspace.js';

export const CONFIG_FILE = 're-mcp.config.json';
export const CHECK_LIMITS = {
  timeoutMs: { default: 120_000, min: 100, max: 3_600_000, unit: 'ms' },
  outputBytes: { default: 65_536, min: 256, max: 1_048_576, unit: 'bytes per stream' },
  checks: { max: 64, unit: 'checks' },
} as const;

// A NUL cannot be passed to a process (spawn would throw): refused here as a config error.
const noNul = z.string().regex(/^[^\0]*$/, 'must not contain a NUL byte');

const checkSchema = z
  .object({
    description: z.string().max(200).optional(),
    argv: z.array(noNul.min(1).max(4096)).min(1).max(256),
    cwd: z.string().default('.'),
    timeoutMs: z
      .number()
      .int()
      .min(CHECK_LIMITS.timeoutMs.min)
      .max(CHECK_LIMITS.timeoutMs.max)
      .default(CHECK_LIMITS.timeoutMs.default),
    maxOutputBytes: z
      .number()
      .int()
      .min(CHECK_LIMITS.outputBytes.min)
      .max(CHECK_LIMITS.outputBytes.max)
      .default(CHECK_LIMITS.outputBytes.default),
    env: z.record(z.string().regex(/^[A-Z_][A-Z0-9_]*$/), noNul.max(4096)).default({}),
  })
  .strict();

const configSchema = z
  .object({
    $schema: z.string().optional(),
    checks: z.record(z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/), checkSchema),
  })
  .strict();

type CheckSpec = z.infer<typeof checkSchema>;

/** The config is read whole into memory: a larger file is refused, not read. */
const MAX_CONFIG_BYTES = 1_048_576;

/**
 * Reads the config as a bounded regular file inside the workspace: a symlink leaving it, a FIFO or
 * device (which would block or never end) and an oversized file are refused before any read.
 */
async function readConfigText(workspaceRoot: string): Promise<string> {
  let file: { absolute: string };
  try {
    file = await new Workspace(workspaceRoot).resolveExisting(CONFIG_FILE, 'file');
  } catch (error) {
    if (error instanceof ReMcpError && error.code === 'not-found') {
      throw new ReMcpError(
        'not-configured',
        `no ${CONFIG_FILE} at the workspace root: no verification checks are declared`,
      );
    }
    throw error;
  }
  try {
    const bytes = await readSmallFile(file.absolute, { maxBytes: MAX_CONFIG_BYTES, label: CONFIG_FILE });
    return bytes.toString('utf8');
  } catch (error) {
    if (error instanceof ReMcpError && error.code === 'limit-exceeded')
      throw new ReMcpError('config-invalid', error.message);
    throw error;
  }
}

export async function loadChecks(workspaceRoot: string): Promise<Record<string, CheckSpec>> {
  const text = await readConfigText(workspaceRoot);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    // V8's message quotes the text around the error: report only where it is.
    const at = /position (\d+)/.exec((error as Error).message);
    throw new ReMcpError(
      'config-invalid',
      `${CONFIG_FILE} is not valid JSON${at ? ` (syntax error at offset ${at[1]})` : ''}`,
    );
  }
  const parsed = configSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.join('.');
    const hint = where.endsWith('argv')
      ? ' (argv must be an array of strings; shell strings are not accepted)'
      : '';
    throw new ReMcpError('config-invalid', `${CONFIG_FILE}: ${where}: ${issue.message}${hint}`);
  }
  const names = Object.keys(parsed.data.checks);
  if (names.length > CHECK_LIMITS.checks.max) {
    throw new ReMcpError(
      'config-invalid',
      `${CONFIG_FILE} declares ${names.length} checks; at most ${CHECK_LIMITS.checks.max}`,
    );
  }
  return parsed.data.checks;
}
