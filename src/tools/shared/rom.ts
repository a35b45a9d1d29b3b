// Shared argument and output pieces of the NDS structural tools.
import { z } from 'zod/v4';
import { PROCESSORS } from '../../core/vocabulary.js';
import type { ToolContext } from '../../mcp/tool.js';
import { getRomStore, type HashProgress, type RomHandle, type RomStore } from '../../roms/rom-store.js';
import { workspacePath } from './paths.js';

export const romArg = workspacePath(
  z.string().min(1).max(1024).describe('Workspace-relative .nds path.'),
  'file',
);

export const processorArg = z.enum(PROCESSORS);

/** An optional overlay ID, 0..0xFFFFFFFF: a static disambiguator only (`what` says how it is used;
 * omitted where the field's place says it, as inside a seed). */
export const overlayIdArg = (what?: string) => {
  const arg = z.number().int().min(0).max(0xffffffff).optional();
  return what === undefined ? arg : arg.describe(what);
};

export { READ_ONLY } from './annotations.js';

/** Forwards cold-open hashing progress (large ROMs) to the caller's progress token. */
const hashProgress =
  (ctx: ToolContext) =>
  (done: number, total: number): void =>
    ctx.progress({ progress: done, total, message: 'hashing the ROM' });

/**
 * Runs `work` on the caller's ROM as every ROM tool does: through the server's ROM store, cancellable
 * by the call's signal. `onHash` receives cold-open hashing progress: by default it goes to the
 * caller's progress token; a tool with phases of its own passes its own; null reports none.
 */
export function withToolRom<T>(
  ctx: ToolContext,
  rel: string,
  work: (rom: RomHandle, store: RomStore) => Promise<T> | T,
  onHash: HashProgress | null = hashProgress(ctx),
): Promise<T> {
  const store = getRomStore(ctx.services);
  return store.withRom(rel, (rom) => work(rom, store), ctx.signal, onHash ?? undefined);
}
