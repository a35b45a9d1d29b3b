// Names as addresses, for every tool at once: an address argument made with nameOrAddressArg parses a
// name (`utilLoad`, `utilLoad+0x10`) to a NamedAddress; before the handler runs, the pipeline finds each
// one in the arguments (nested ones too: a draft's operations, a search's seeds), asks the tool's
// `names` hook where names are looked up (the ROM's symbol store on the call's processor), and puts
// the address in its place. A tool without the hook refuses names. What was resolved is said with
// the result: a first text line and `_meta["re-mcp/names"]` ({argument, name, processor, address,
// overlayId} each; docs/clients.md).
import { ReMcpError } from '../core/errors.js';
import { formatAddress, NamedAddress, type Processor } from '../core/vocabulary.js';
import type { ToolContext, ToolDefinition } from './tool.js';

export const NAMES_META_KEY = 're-mcp/names';

/** Depth of nested arguments searched for names (an operation inside a list inside the arguments). */
const MAX_DEPTH = 4;

/** One name the call gave, as the result reports it. */
export interface NameUse {
  /** The argument's path: `address`, `operations.0.address`. */
  argument: string;
  name: string;
  processor: Processor;
  address: string;
  overlayId: number | null;
}

interface Found {
  holder: Record<string, unknown>;
  key: string;
  path: string;
  value: NamedAddress;
}

function collect(value: unknown, path: string, depth: number, out: Found[]): void {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return;
  const entries = Array.isArray(value)
    ? value.map((v, i) => [String(i), v] as const)
    : Object.entries(value as Record<string, unknown>);
  for (const [key, v] of entries) {
    const at = path === '' ? key : `${path}.${key}`;
    if (v instanceof NamedAddress)
      out.push({ holder: value as Record<string, unknown>, key, path: at, value: v });
    else collect(v, at, depth + 1, out);
  }
}

/**
 * Replaces every name in `args` (parsed arguments, changed in place) by the address it names; returns
 * what was resolved, in argument order. Refuses a name where the tool takes none.
 */
export async function resolveNamedArguments(
  def: ToolDefinition,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<NameUse[]> {
  const found: Found[] = [];
  collect(args, '', 0, found);
  if (found.length === 0) return [];
  if (!def.names)
    throw new ReMcpError(
      'invalid-argument',
      `${found[0]!.path}: ${def.name} takes addresses as numbers only`,
    );
  const namer = await def.names(args as never, ctx);
  const uses: NameUse[] = [];
  for (const f of found) {
    const hit = namer(f.value.text, f.holder);
    f.holder[f.key] = hit.address;
    uses.push({
      argument: f.path,
      name: f.value.text,
      processor: hit.processor,
      address: formatAddress(hit.address),
      overlayId: hit.overlayId,
    });
  }
  return uses;
}

/** The text line saying what the names resolved to. */
export function namesLine(uses: readonly NameUse[]): string {
  return `names: ${uses
    .map(
      (u) =>
        `${u.argument} ${u.name} = ${u.processor} ${u.address}${u.overlayId === null ? '' : ` (overlay ${u.overlayId})`}`,
    )
    .join('; ')}`;
}
