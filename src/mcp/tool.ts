// The one way to define a tool. A definition is data plus a handler; the server, the CLI's `call`
// and the tests all run it through the same pipeline (src/mcp/invoke.ts), so validation, error
// mapping, output limits, progress and cancellation behave identically everywhere.
import type { z } from 'zod/v4';
import type { ProfileName } from '../core/profiles.js';
import type { LimitSpec, Processor } from '../core/vocabulary.js';
import type { Services } from '../services.js';

/** Rendered into one description string with a fixed layout an assistant can rely on. */
export interface ToolDescription {
  /** One sentence: what the tool does. */
  purpose: string;
  /** When to use it, and which tool to use instead in neighbouring cases. */
  useWhen: string;
  /** Behaviour and side effects: read-only? destructive? fire-and-forget or confirmed? */
  behaviour: string;
  /** The bounds in force (defaults and maxima), in one line. */
  limits: string;
  /** What the structured result holds that its field names and enums cannot say; omitted when none. */
  returns?: string;
}

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** A documented bound: reported by server_capabilities next to the tool that enforces it. */
export type { LimitSpec } from '../core/vocabulary.js';

export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

export interface ToolContext {
  services: Services;
  /** Fires when the client cancels the request (or the server shuts down). */
  signal: AbortSignal;
  /** Reports progress when the caller sent a progress token; a no-op otherwise. Rate-limit yourself. */
  progress(update: ProgressUpdate): void;
  /**
   * The names the call gave for addresses, as the pipeline resolved them (src/mcp/named-args.ts), in
   * argument order; absent when it gave none. The handler sees only the numbers in its arguments: this
   * says which came from a name, and the overlay of the place it names.
   */
  names?: readonly { argument: string; name: string; overlayId: number | null }[];
}

interface ImageBlock {
  type: 'image';
  data: string;
  mimeType: string;
}

export interface ToolSuccess<O> {
  /** Must match the tool's output schema. */
  structured: O;
  /**
   * A short human-readable summary (one to a few lines); never a JSON dump of `structured`. The
   * pipeline appends a rendering of `structured` (src/mcp/render/: tables, listings, hexdumps) so the
   * text block alone carries the data; a tool never renders its data here itself.
   */
  text: string;
  /** Extra content blocks (e.g. a screenshot) appended after the text. */
  images?: ImageBlock[];
}

export interface ToolDefinition<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  /** Profiles that list this tool; `full` always lists every tool and need not be named. */
  profiles: readonly ProfileName[];
  description: ToolDescription;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  limits?: Record<string, LimitSpec>;
  /**
   * What a valid call needs beyond the arguments the input schema requires, where the schema cannot say
   * it (exactly one of address and romOffset; the fields of a kind, which the handler checks so that
   * tools/list stays small): one valid choice. Not published. The tests build each tool's calls from
   * its input schema and this (test/kit/tool-arguments.ts), so a tool that takes such arguments needs
   * no line in their files.
   */
  needs?: Partial<z.input<I>>;
  /**
   * Where a name given for an address argument (nameOrAddressArg) is looked up: the ROM's names on the
   * call's processor. Asked only when a call gives a name; a tool without it takes numbers only (the
   * pipeline refuses a name: src/mcp/named-args.ts).
   */
  names?: (args: z.output<I>, ctx: ToolContext) => Promise<AddressNamer>;
  handler(args: z.output<I>, ctx: ToolContext): Promise<ToolSuccess<z.input<O>>>;
}

/** What one name given for an address resolved to. */
interface ResolvedName {
  /** The stored name (without the offset). */
  symbol: string;
  offset: number;
  address: number;
  processor: Processor;
  overlayId: number | null;
}

/**
 * Resolves the name `text` given for an address argument; `holder` is the object holding the argument
 * (its own processor, overlayId or component, where it has them). Throws a typed error for an unknown
 * or ambiguous name.
 */
export type AddressNamer = (text: string, holder: Readonly<Record<string, unknown>>) => ResolvedName;

/** Identity function that keeps the generic types tied together at the definition site. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(
  def: ToolDefinition<I, O>,
): ToolDefinition<I, O> {
  return def;
}

/** Renders the description template. Kept lean: every byte is read by the assistant on each tools/list. */
export function renderDescription(d: ToolDescription): string {
  const returns = d.returns ? `\nReturns: ${d.returns}` : '';
  return `${d.purpose}\nUse: ${d.useWhen}\nBehaviour: ${d.behaviour}\nLimits: ${d.limits}${returns}`;
}
