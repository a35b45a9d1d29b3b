// RE_MCP_TRACE_STARTUP=1: one stderr line per start-up phase, in milliseconds since the process
// started (performance.now() counts from there), to find where start-up and the first calls spend
// their time. Off, it costs one comparison per mark; only the first messages of a session are marked.
const enabled = process.env.RE_MCP_TRACE_STARTUP === '1';
let messages = 0;
const MAX_MESSAGE_MARKS = 8;

export function startupMark(what: string): void {
  if (enabled) process.stderr.write(`re-mcp: startup ${performance.now().toFixed(1)} ms ${what}\n`);
}

/** Marks one of the first messages in or out (method or id), then stays silent. */
export function messageMark(direction: 'in' | 'out', message: Record<string, unknown>): void {
  if (!enabled || messages >= MAX_MESSAGE_MARKS) return;
  messages++;
  startupMark(`${direction} ${String(message.method ?? `#${String(message.id)}`)}`);
}
