// Chooses the text block of a successful tool result: the tool's own summary line(s) followed by a
// rendering of the structured data (./text.ts), or a specialised rendering registered here by tool
// name. Kept within the output bound: a rendering that does not fit is cut at a line boundary with
// an explicit marker, never silently.
import { escapeUnsafe } from '../../core/text-safety.js';
import { hexdump, renderStructuredCounted } from './text.js';

type Renderer = (
  summary: string,
  structured: Record<string, unknown>,
  json: boolean,
) => string | { text: string; escaped: number };

/** RetroArch reads: the head line and the complete hexdump, in place of the tool's own summary. */
const retroarchRead: Renderer = (_summary, s) => {
  const base = Number.parseInt(String(s.address).slice(2), 16);
  const head = `${s.address}: ${s.returned} of ${s.requested} bytes (${s.space})${s.truncated ? ', cut at the end of the region' : ''}`;
  return [head, ...hexdump(String(s.hex ?? ''), Number.isFinite(base) ? base : null)].join('\n');
};

const SPECIALISED: Record<string, Renderer> = {
  retroarch_read_memory: retroarchRead,
  retroarch_read_ram: retroarchRead,
};

const generic: Renderer = (summary, structured, json) => {
  const data = renderStructuredCounted(structured, json);
  return { text: `${summary}\n\n${data.text}`, escaped: data.escaped };
};

/** Bytes the text costs inside the serialized result (JSON escaping included). */
function jsonBytes(text: string): number {
  return Buffer.byteLength(JSON.stringify(text), 'utf8') - 2;
}

/** Keeps whole lines while they fit in `budget` bytes; says what was cut and where the rest is. */
export function boundText(text: string, budget: number): string {
  if (jsonBytes(text) <= budget) return text;
  const total = Buffer.byteLength(text, 'utf8');
  const lines = text.split('\n');
  const marker = (kept: number) =>
    `... text cut after ${kept} of ${lines.length} lines (${total} bytes) to stay within RE_MCP_MAX_OUTPUT_BYTES; the full data is in structuredContent, or request a smaller window`;
  const room = budget - jsonBytes(marker(lines.length)) - 2;
  const kept: string[] = [];
  let used = 0;
  for (const line of lines) {
    const cost = jsonBytes(line) + 2;
    if (used + cost > room) break;
    kept.push(line);
    used += cost;
  }
  return [...kept, marker(kept.length)].join('\n');
}

/**
 * The text block for a success: data included, at most `budget` bytes once serialized. `json`: the
 * structured data is already as JSON carries it (parsed from its serialization), nothing to normalise.
 */
export function renderToolText(
  name: string,
  summary: string,
  structured: Record<string, unknown>,
  budget: number,
  options: { json?: boolean } = {},
): string {
  const render = SPECIALISED[name] ?? generic;
  const rendered = render(summary, structured, options.json === true);
  const body = typeof rendered === 'string' ? { text: rendered, escaped: 0 } : rendered;
  // Whatever a summary embedded: controls other than tabs and line breaks are escaped too.
  const safe = escapeUnsafe(body.text, 'lines');
  const escaped = body.escaped + safe.escaped;
  const note =
    escaped > 0
      ? `\nnote: ${escaped} control or invisible character(s) from the data are shown escaped (\\xNN, \\uNNNN); structuredContent holds the raw strings`
      : '';
  return boundText(`${safe.text}${note}`, Math.max(budget, 0));
}
