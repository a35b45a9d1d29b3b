// Names follow builds (extract/carry-names.ts): after a build or a patch applied, the source ROM's
// names are carried to the output ROM's store where they still name the same bytes; the answer says
// what was carried and what was dropped.
import { z } from 'zod/v4';
import { isReMcpError } from '../../core/errors.js';
import { formatAddress, PROCESSORS } from '../../core/vocabulary.js';
import { type CarriedNames, carryNames } from '../../extract/carry-names.js';
import { getSymbolStore } from '../../extract/symbol-store.js';
import type { ToolContext } from '../../mcp/tool.js';
import { startupCopies } from '../shared/copied.js';
import { withToolRom } from '../shared/rom.js';

export const carriedNamesOut = z
  .object({
    store: z.string(),
    carried: z.number().int(),
    alreadyNamed: z.number().int(),
    dropped: z.number().int(),
    notCarried: z.string().nullable().describe('Why none could be (an output not read as a ROM)'),
    droppedNames: z.array(
      z.object({
        name: z.string(),
        processor: z.enum(PROCESSORS),
        address: z.string(),
        overlayId: z.number().int().nullable(),
        why: z.string(),
      }),
    ),
  })
  .describe('Source names carried where bytes hold');

/**
 * Carries the names of the ROM at `source` to the ROM at `output` (both workspace-relative). An output
 * the server cannot read as a ROM (a patch may make anything) gets none: said in notCarried, the build
 * or the patch itself stands.
 */
export async function carryTo(
  ctx: ToolContext,
  source: string,
  output: string,
): Promise<z.input<typeof carriedNamesOut>> {
  const r: CarriedNames & { notCarried: string | null } = await withToolRom(
    ctx,
    source,
    async (from, store) => {
      const none = { store: '', carried: 0, alreadyNamed: 0, dropped: 0, droppedNames: [], notCarried: null };
      const size = (await getSymbolStore(ctx.services).table(from)).size;
      if (size === 0) return none;
      try {
        return await withToolRom(
          ctx,
          output,
          async (to) => ({
            ...(await carryNames(
              ctx.services,
              store,
              from,
              to,
              (p) => startupCopies(ctx, store, from, p),
              ctx.signal,
            )),
            notCarried: null,
          }),
          null,
        );
      } catch (error) {
        if (!isReMcpError(error) || error.code === 'cancelled') throw error;
        return { ...none, dropped: size, notCarried: `${error.code}: ${error.message}` };
      }
    },
    null,
  );
  return { ...r, droppedNames: r.droppedNames.map((d) => ({ ...d, address: formatAddress(d.address) })) };
}

/** The text line of a carry. */
export function carriedText(n: z.input<typeof carriedNamesOut>): string {
  if (n.notCarried !== null) return `names: none carried (${n.notCarried})`;
  return `names: ${n.carried} carried to ${n.store}${n.alreadyNamed > 0 ? ` (${n.alreadyNamed} already named)` : ''}, ${n.dropped} dropped${
    n.droppedNames.length > 0
      ? ` (${n.droppedNames
          .slice(0, 3)
          .map((d) => `${d.name}: ${d.why}`)
          .join('; ')}${n.dropped > 3 ? '; ...' : ''})`
      : ''
  }`;
}
