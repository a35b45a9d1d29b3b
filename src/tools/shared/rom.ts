// Shared argument and output pieces of the NDS structural tools.
import { z } from 'zod/v4';
import { PROCESSORS } from '../../core/vocabulary.js';
import type { ToolContext } from '../../mcp/tool.js';

export const romArg = z
  .string()
  .min(1)
  .max(1024)
  .describe('Workspace-relative path of the .nds ROM, e.g. "roms/game.nds" (read-only; never modified).');

export const processorArg = z.enum(PROCESSORS).describe('Processor whose address space is meant.');

/** An optional overlay ID, 0..0xFFFFFFFF: a static disambiguator only (`what` says how it is used). */
export const overlayIdArg = (what: string) =>
  z.number().int().min(0).max(0xffffffff).optional().describe(what);

export { READ_ONLY } from './annotations.js';

export const IDENTITY_NOTE =
  'identity is SHA-256 + size, cached by (device, inode, size, mtime, ctime) and re-checked after the call; a ROM modified meanwhile fails with rom-changed; an unusable header fails with invalid-rom naming the field.';

/** Forwards cold-open hashing progress (large ROMs) to the caller's progress token. */
export const hashProgress =
  (ctx: ToolContext) =>
  (done: number, total: number): void =>
    ctx.progress({ progress: done, total, message: 'hashing the ROM' });
