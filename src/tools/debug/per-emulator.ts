// A debugger tool is written once and made for every emulator the server offers: its name is the
// emulator's tool prefix plus the tool's verb (`start` -> desmume_start), and any text that names the
// emulator or another of its tools is a function of the emulator. The handler is given the emulator
// whose session it drives.
import type { z } from 'zod/v4';
import { type Emulator, toolName } from '../../debug/backend.js';
import type { AddressNamer, ToolContext, ToolDefinition, ToolSuccess } from '../../mcp/tool.js';

/** A text that is the same for every emulator, or made from the emulator. */
type EmulatorText = string | ((emu: Emulator) => string);

export interface EmulatorTool<I extends z.ZodObject, O extends z.ZodObject>
  extends Omit<ToolDefinition<I, O>, 'name' | 'title' | 'description' | 'input' | 'handler' | 'names'> {
  /** The name after the emulator's prefix. */
  verb: string;
  title: EmulatorText;
  /** As ToolDescription, each text possibly made from the emulator. */
  description: {
    purpose: EmulatorText;
    useWhen: EmulatorText;
    behaviour: EmulatorText;
    limits: EmulatorText;
    returns?: EmulatorText;
  };
  /** The input schema, or a function of the emulator when a field's description names one of its tools. */
  input: I | ((emu: Emulator) => I);
  handler(args: z.output<I>, ctx: ToolContext, emu: Emulator): Promise<ToolSuccess<z.input<O>>>;
  /** As ToolDefinition's names, given the emulator whose session holds the ROM. */
  names?: (args: z.output<I>, ctx: ToolContext, emu: Emulator) => Promise<AddressNamer>;
}

/** Identity function that keeps the generic types tied together at the definition site (as defineTool). */
export function emulatorTool<I extends z.ZodObject, O extends z.ZodObject>(
  def: EmulatorTool<I, O>,
): EmulatorTool<I, O> {
  return def;
}

/** The emulator's tool for `verb`, for the texts that name one. */
export function tool(emu: Emulator, verb: string): string {
  return toolName(emu.names, verb);
}

/** The tool definition for one emulator. */
export function forEmulator<I extends z.ZodObject, O extends z.ZodObject>(
  emu: Emulator,
  def: EmulatorTool<I, O>,
): ToolDefinition<I, O> {
  const text = (t: EmulatorText) => (typeof t === 'function' ? t(emu) : t);
  const { verb, title, description: d, input, handler, names, ...rest } = def;
  return {
    ...rest,
    name: tool(emu, verb),
    title: text(title),
    description: {
      purpose: text(d.purpose),
      useWhen: text(d.useWhen),
      behaviour: text(d.behaviour),
      limits: text(d.limits),
      ...(d.returns === undefined ? {} : { returns: text(d.returns) }),
    },
    input: typeof input === 'function' ? input(emu) : input,
    handler: (args, ctx) => handler(args, ctx, emu),
    ...(names === undefined ? {} : { names: (args, ctx) => names(args, ctx, emu) }),
  };
}
