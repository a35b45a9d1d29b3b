import { z } from 'zod/v4';
import { runBounded } from '../../core/bounded-process.js';
import { fitEncodedTail, tailBudget } from '../../core/encoded-tail.js';
import { ReMcpError } from '../../core/errors.js';
import { defineTool } from '../../mcp/tool.js';
import { CHECK_LIMITS, CONFIG_FILE, loadChecks } from '../../project/checks-config.js';

const streamSchema = z.object({ tail: z.string(), totalBytes: z.number().int(), truncated: z.boolean() });

export const runProjectVerification = defineTool({
  name: 'run_project_verification',
  title: 'Run a verification check',
  profiles: ['project'],
  description: {
    purpose: "Runs one check (build, lint, tests...) from the workspace's re-mcp.config.json.",
    useWhen: 'verifying a project after a change; get_project_status for git state.',
    behaviour:
      'declared argv, no shell, minimal env; process group killed on timeout or cancel; may write files as the check does.',
    limits: `${CHECK_LIMITS.checks.max} checks; timeouts up to ${CHECK_LIMITS.timeoutMs.max} ms (default ${CHECK_LIMITS.timeoutMs.default}); output tails ${CHECK_LIMITS.outputBytes.max / 1048576} MiB a stream (default ${CHECK_LIMITS.outputBytes.default / 1024} KiB).`,
  },
  input: z.object({
    check: z.string().min(1).max(64).describe(`Declared under "checks" in ${CONFIG_FILE}.`),
  }),
  output: z.object({
    check: z.string(),
    argv: z.array(z.string()),
    cwd: z.string(),
    exitCode: z.number().int().nullable(),
    signal: z.string().nullable(),
    durationMs: z.number().int(),
    timedOut: z.boolean(),
    passed: z.boolean(),
    stdout: streamSchema,
    stderr: streamSchema,
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  limits: CHECK_LIMITS,
  async handler(args, ctx) {
    const { workspace } = ctx.services;
    const checks = await loadChecks(workspace.root);
    const spec = Object.hasOwn(checks, args.check) ? checks[args.check] : undefined;
    if (!spec) {
      throw new ReMcpError('not-found', `no check named "${args.check}" in ${CONFIG_FILE}`, {
        available: Object.keys(checks),
      });
    }
    const cwd =
      spec.cwd === '.'
        ? { absolute: workspace.root, relative: '.' }
        : await workspace.resolveExisting(spec.cwd, 'directory');
    const run = await runBounded({
      argv: spec.argv,
      cwd: cwd.absolute,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? workspace.root,
        LANG: 'C.UTF-8',
        CI: '1',
        ...spec.env,
      },
      timeoutMs: spec.timeoutMs,
      maxOutputBytes: spec.maxOutputBytes,
      signal: ctx.signal,
    });
    if (run.spawnError)
      throw new ReMcpError('launch-failed', `check "${args.check}" could not start: ${run.spawnError}`);
    if (run.cancelled)
      throw new ReMcpError('cancelled', `check "${args.check}" was cancelled and its processes killed`);
    const passed = !run.timedOut && run.exitCode === 0;
    const verdict = run.timedOut
      ? `timed out after ${spec.timeoutMs} ms (killed)`
      : passed
        ? 'passed'
        : `failed (exit ${run.exitCode ?? run.signal})`;
    const head = {
      check: args.check,
      argv: spec.argv,
      cwd: cwd.relative,
      exitCode: run.exitCode,
      signal: run.signal,
      durationMs: run.durationMs,
      timedOut: run.timedOut,
      passed,
    };
    // The tails are bounded as encoded (escaped control bytes grow 6x), so the verdict always fits.
    const budget = tailBudget(ctx.services.config.maxOutputBytes, head);
    return {
      structured: {
        ...head,
        stdout: fitEncodedTail(run.stdout, budget),
        stderr: fitEncodedTail(run.stderr, budget),
      },
      text: `check ${args.check}: ${verdict} in ${run.durationMs} ms`,
    };
  },
});
