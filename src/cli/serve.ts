// `re-mcp serve`: the stdio MCP server. Stdout carries protocol messages only; every log goes to stderr.
import { Console } from 'node:console';
import { z } from 'zod/v4';
import type { Config } from '../config/config.js';
import { startupMark } from '../core/startup-trace.js';
import { escapeUnsafe } from '../core/text-safety.js';
import { McpSession } from '../mcp/session.js';
import { LineStdioTransport } from '../mcp/stdio-transport.js';
import { Services } from '../services.js';
import { Workspace } from '../workspace/workspace.js';
import { profileTools } from './catalog.js';

/**
 * Stdout belongs to the protocol: anything in the process that logs through `console` (a dependency,
 * an Emscripten module's default print) writes to stderr instead of corrupting the message stream.
 */
function consoleToStderr(): void {
  const toStderr = new Console({ stdout: process.stderr, stderr: process.stderr });
  const methods = [
    'log',
    'info',
    'debug',
    'warn',
    'error',
    'trace',
    'dir',
    'dirxml',
    'table',
    'group',
    'groupCollapsed',
    'groupEnd',
    'count',
    'countReset',
    'time',
    'timeEnd',
    'timeLog',
    'assert',
  ] as const;
  for (const method of methods) {
    (console as unknown as Record<string, unknown>)[method] = (
      toStderr[method] as (...args: unknown[]) => void
    ).bind(toStderr);
  }
}

/** Longest wait, after stdin ends, for the requests already received to be answered. */
const SETTLE_MS = 60_000;
/** Longest wait for stdout to drain before the process exits. */
const FLUSH_MS = 5_000;
/** The RetroArch probe: first try after connecting, retry while busy, and how many retries at most. */
const PROBE_DELAY_MS = 200;
const PROBE_RETRY_MS = 100;
const PROBE_DEFERRALS = 50;

export async function serve(config: Config): Promise<void> {
  startupMark('serve loaded');
  consoleToStderr();
  // A stray rejected promise (a background probe, a socket callback) is a bug to log, not a reason to
  // drop every session and owned process: tool calls already turn their own failures into results.
  process.on('unhandledRejection', (reason) => {
    process.stderr.write(
      `re-mcp: unhandled rejection: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}\n`,
    );
  });
  // Each schema is parsed a handful of times per call: zod's per-object parser compilation costs the
  // first call of every tool more than it ever saves.
  z.config({ jitless: true });
  const services = new Services(config, new Workspace(config.workspaceRoot));
  const { source, tools, report } = await profileTools(
    config.profile,
    config.outputSchemas,
    config.profileOrigin,
  );
  services.tools = tools;
  services.profileReport = report;
  startupMark('catalog read');
  // What others said (a RetroArch's reply, a stack trace with their text) reaches a terminal escaped.
  const log = (line: string) => process.stderr.write(`${escapeUnsafe(line, 'lines').text}\n`);
  const transport = new LineStdioTransport();
  const server = new McpSession(source, services, transport, log, report.note);
  let closing = false;
  let exitCode = 0;
  /**
   * Ends the session. On stdin's end every request already received is answered first (waiting at most
   * SETTLE_MS); on a signal the ones still running are stopped and answered with an error at once.
   * Either way stdout is drained (at most FLUSH_MS) before the process exits.
   */
  const shutdown = async (reason: string, settleMs: number) => {
    if (closing) {
      // A signal while stdin's requests are being answered: stop waiting for them.
      if (settleMs === 0) server.hurry();
      return;
    }
    closing = true;
    process.stderr.write(`re-mcp: shutting down (${reason})\n`);
    const stopped = await server.settle(settleMs, `the server is shutting down (${reason})`);
    if (stopped > 0) process.stderr.write(`re-mcp: ${stopped} request(s) stopped unanswered\n`);
    await services.dispose();
    await transport.flush(FLUSH_MS);
    await server.close().catch(() => {});
    process.exit(exitCode);
  };
  transport.onend = () => void shutdown('stdin closed', SETTLE_MS);
  transport.onerror = (error) => {
    // The output failing is the end of the session: said, and the exit code is not 0.
    process.stderr.write(`re-mcp: stdio error: ${error.message}\n`);
    exitCode = 1;
  };
  transport.onclose = () => void shutdown('transport closed', 0);
  process.on('SIGINT', () => void shutdown('SIGINT', 0));
  process.on('SIGTERM', () => void shutdown('SIGTERM', 0));
  // A closed terminal (SIGHUP) or a quit key (SIGQUIT) ends the server the same way: owned emulators
  // and running checks are stopped, never orphaned.
  process.on('SIGHUP', () => void shutdown('SIGHUP', 0));
  process.on('SIGQUIT', () => void shutdown('SIGQUIT', 0));
  await server.connect();
  startupMark('connected');
  process.stderr.write(
    `re-mcp: serving ${services.tools.length} tools (profile ${config.profile.join(',')}) for ${config.workspaceRoot}\n`,
  );
  if (services.tools.some((t) => t.name.startsWith('retroarch_'))) {
    // A log-only background probe: it never delays tools/list, and an absent RetroArch is just a note.
    // Loading its modules takes the main thread for some milliseconds: it waits while a request is
    // being handled (a client's first calls usually come at once), at most PROBE_DEFERRALS times.
    let deferrals = 0;
    const probe = () => {
      if (server.busy && deferrals++ < PROBE_DEFERRALS) {
        setTimeout(probe, PROBE_RETRY_MS).unref();
        return;
      }
      import('../retroarch/service.js')
        .then(({ probeRetroArch }) => probeRetroArch(services, log))
        .catch((error: unknown) => log(`re-mcp: RetroArch probe failed: ${String(error)}`));
    };
    setTimeout(probe, PROBE_DELAY_MS).unref();
  }
}
