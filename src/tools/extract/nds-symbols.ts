import { z } from 'zod/v4';
import { type StartupCopies, storedOfRun } from '../../analysis/run-address.js';
import { ReMcpError } from '../../core/errors.js';
import { formatAddress as hex, limitArg, nameOrAddressArg, type Processor } from '../../core/vocabulary.js';
import { exportSymbols, readSymbolFile, SYMBOL_FILE_LIMITS } from '../../extract/symbol-files.js';
import {
  type CopiedRuns,
  getSymbolStore,
  type ImportResult,
  mergeSymbols,
  placeKey,
  placeOf,
  type StoredSymbol,
  SYMBOL_STORE_LIMITS,
  type SymbolStore,
} from '../../extract/symbol-store.js';
import {
  badName,
  type ParsedSymbols,
  SYMBOL_FORMATS,
  SYMBOL_LIMITS,
  SYMBOL_MODES,
  type SymbolMode,
} from '../../formats/symbols/types.js';
import { defineTool } from '../../mcp/tool.js';
import type { RomHandle } from '../../roms/rom-store.js';
import type { Workspace } from '../../workspace/workspace.js';
import { startupCopies } from '../shared/copied.js';
import { romArgNames } from '../shared/names.js';
import { workspacePath } from '../shared/paths.js';
import { overlayIdArg, processorArg, romArg, withToolRom } from '../shared/rom.js';

const PAGE = { limit: { default: 64, min: 1, max: 1000, unit: 'names a page' } } as const;
const ACTIONS = ['list', 'set', 'remove', 'import', 'export'] as const;
/** The fields each action takes besides rom, action and processor. */
const FIELDS: Record<(typeof ACTIONS)[number], readonly string[]> = {
  list: ['contains', 'offset', 'limit'],
  set: ['address', 'overlayId', 'name', 'mode', 'comment'],
  remove: ['address', 'overlayId'],
  import: ['file', 'format', 'replace'],
  export: ['format'],
};
const REQUIRED: Partial<Record<(typeof ACTIONS)[number], readonly string[]>> = {
  set: ['address', 'name'],
  remove: ['address'],
  import: ['file'],
};

const symbolOut = z.object({
  processor: z.string(),
  address: z.string(),
  overlayId: z.number().int().nullable(),
  component: z.string(),
  mode: z.string().nullable(),
  name: z.string(),
  size: z.number().int().nullable(),
  comment: z.string().nullable(),
  source: z.string(),
});
const view = (s: StoredSymbol) => ({ ...s, address: hex(s.address) });

type Action = (typeof ACTIONS)[number];

/** What an action changed in the store (the answer's `changes`). */
interface Changes {
  added: number;
  replaced: number;
  removed: number;
  unchanged: number;
  skipped: { line: number; why: string }[];
  conflicts: { name: string; address: string; processor: string; why: string }[];
}
const noChanges = (): Changes => ({
  added: 0,
  replaced: 0,
  removed: 0,
  unchanged: 0,
  skipped: [],
  conflicts: [],
});

/** Refuses fields another action takes, missing required ones, and a bad name or comment. */
function checkActionArgs(args: {
  action: Action;
  offset: number;
  limit: number;
  name?: string | undefined;
  comment?: string | undefined;
}): void {
  const given = (Object.keys(FIELDS) as Action[]).flatMap((a) => FIELDS[a]);
  const extra = [...new Set(given)].filter(
    (f) =>
      !FIELDS[args.action].includes(f) &&
      (args as Record<string, unknown>)[f] !== undefined &&
      !(f === 'offset' && args.offset === 0) &&
      !(f === 'limit' && args.limit === PAGE.limit.default),
  );
  const missing = (REQUIRED[args.action] ?? []).filter(
    (f) => (args as Record<string, unknown>)[f] === undefined,
  );
  if (extra.length > 0 || missing.length > 0)
    throw new ReMcpError(
      'invalid-argument',
      `action ${args.action} takes ${FIELDS[args.action].join(', ')}${missing.length > 0 ? `; missing ${missing.join(', ')}` : ''}${extra.length > 0 ? `; not for this action: ${extra.join(', ')}` : ''}`,
    );
  if (args.name !== undefined && badName(args.name))
    throw new ReMcpError('invalid-argument', `name refused: ${badName(args.name)}`);
  if (args.comment !== undefined && /[\u0000-\u001f\u007f-\u009f\u2028-\u202e]/.test(args.comment))
    throw new ReMcpError('invalid-argument', 'a comment is one line of printable text');
}

/**
 * Names a place (a new name, or a rename keeping the size, and the mode and comment unless given);
 * the stored name and what changed.
 */
async function setName(
  store: SymbolStore,
  rom: RomHandle,
  given: {
    processor: Processor;
    address: number;
    place: { component: string; overlayId: number | null };
    name: string;
    mode: SymbolMode | undefined;
    comment: string | undefined;
  },
  signal: AbortSignal,
): Promise<{ shown: StoredSymbol[]; changes: Changes }> {
  const s: StoredSymbol = {
    processor: given.processor,
    address: given.address,
    overlayId: given.place.overlayId,
    component: given.place.component,
    mode: given.mode ?? null,
    name: given.name,
    size: null,
    comment: given.comment ?? null,
    source: 'user',
  };
  let changes = noChanges();
  const shown = await store.update(
    rom,
    function* (symbols) {
      const at = symbols.findIndex((x) => placeKey(x) === placeKey(s));
      if (at < 0) {
        symbols.push(s);
        changes = { ...noChanges(), added: 1 };
      } else if (
        symbols[at]!.name === s.name &&
        (given.mode === undefined || given.mode === symbols[at]!.mode) &&
        (given.comment === undefined || given.comment === symbols[at]!.comment)
      ) {
        changes = { ...noChanges(), unchanged: 1 };
      } else {
        const old = symbols[at]!;
        symbols[at] = {
          ...old,
          ...s,
          mode: given.mode ?? old.mode,
          comment: given.comment ?? old.comment,
          size: old.size,
        };
        changes = { ...noChanges(), replaced: 1 };
      }
      return [symbols[at < 0 ? symbols.length - 1 : at]!];
    },
    signal,
  );
  return { shown, changes };
}

/** Exports the names as text beside the store; where, and the names the format cannot express. */
async function exportNames(
  workspace: Workspace,
  rom: RomHandle,
  symbols: StoredSymbol[],
  format: (typeof SYMBOL_FORMATS)[number],
  processor: Processor | null,
): Promise<{ exported: string; changes: Changes | null }> {
  if (format === 'elf')
    throw new ReMcpError('invalid-argument', 'names are exported as text (nosgba, symbols-txt, plain, csv)');
  const e = await exportSymbols(workspace, rom, symbols, format, processor);
  const changes =
    e.omitted.length > 0
      ? {
          ...noChanges(),
          skipped: e.omitted.slice(0, 200).map((n) => ({
            line: 0,
            why: `${n}: not expressible in ${format} (a leading '.' is a directive there)`,
          })),
        }
      : null;
  return { exported: e.path, changes };
}

/** Removes the name of one place; what changed. */
async function removeName(
  store: SymbolStore,
  rom: RomHandle,
  key: string,
  signal: AbortSignal,
): Promise<Changes> {
  let changes = noChanges();
  await store.update(
    rom,
    function* (symbols) {
      const at = symbols.findIndex((x) => placeKey(x) === key);
      if (at >= 0) symbols.splice(at, 1);
      changes = { ...noChanges(), removed: at >= 0 ? 1 : 0, unchanged: at >= 0 ? 0 : 1 };
    },
    signal,
  );
  return changes;
}

/** An import's changes: the merge's counts and conflicts, the file's skipped lines (200 listed). */
function importChanges(parsed: ParsedSymbols, r: ImportResult): Changes {
  return {
    added: r.added,
    replaced: r.replaced,
    removed: 0,
    unchanged: r.unchanged,
    skipped: [
      ...parsed.skipped.slice(0, 200),
      ...(parsed.skipped.length > 200 || parsed.skippedMore > 0
        ? [{ line: 0, why: `${parsed.skipped.length - 200 + parsed.skippedMore} more line(s) skipped` }]
        : []),
      ...(parsed.cut > 0
        ? [{ line: 0, why: `${parsed.cut} more past ${SYMBOL_LIMITS.maxSymbols.max}` }]
        : []),
    ],
    conflicts: r.conflicts.map((c) => ({ ...c, address: hex(c.address) })),
  };
}

export const ndsSymbols = defineTool({
  name: 'nds_symbols',
  title: 'Names of a ROM (symbol store)',
  profiles: ['static'],
  description: {
    purpose:
      'Names per ROM: list, set/rename, remove, import (ELF, no$gba .sym, symbols.txt, plain, CSV), export.',
    useWhen: 'naming what you found; other tools then show names (name+0x10). User-asserted, never proof.',
    behaviour: 'one name per address (and overlay); conflicts reported, kept unless replace.',
    limits: `${SYMBOL_STORE_LIMITS.maxSymbols.max} names; files up to ${SYMBOL_FILE_LIMITS.fileBytes.max / 2 ** 20} MiB, read in ${SYMBOL_FILE_LIMITS.parseMs.max / 1000} s; names ${SYMBOL_LIMITS.nameChars.max}, comments ${SYMBOL_LIMITS.commentChars.max}, lines ${SYMBOL_LIMITS.lineChars.max} characters.`,
  },
  input: z.object({
    rom: romArg,
    action: z.enum(ACTIONS).default('list'),
    processor: processorArg.optional().describe('Default arm9 (export csv: both).'),
    address: nameOrAddressArg('Or a name: its place (bar+4), overlay too').optional(),
    overlayId: overlayIdArg(),
    name: z.string().min(1).max(SYMBOL_LIMITS.nameChars.max).optional().describe('set: no spaces.'),
    mode: z.enum(SYMBOL_MODES).optional(),
    comment: z.string().max(SYMBOL_LIMITS.commentChars.max).optional().describe('set: one line.'),
    // Read by an import only (its format told from the content unless given).
    file: workspacePath(
      z.string().min(1).max(1024).optional().describe('import: workspace-relative file.'),
      'file',
      { action: 'import', format: 'plain' },
    ),
    format: z.enum(SYMBOL_FORMATS).optional().describe('import: from the content if left out.'),
    replace: z.boolean().optional(),
    contains: z.string().min(1).max(256).optional().describe('list: case-insensitive.'),
    offset: z.number().int().min(0).max(SYMBOL_STORE_LIMITS.maxSymbols.max).default(0),
    limit: limitArg(PAGE.limit),
  }),
  output: z.object({
    action: z.enum(ACTIONS),
    store: z.string(),
    total: z.number().int(),
    symbols: z.array(symbolOut),
    nextOffset: z.number().int().nullable(),
    changes: z
      .object({
        added: z.number().int(),
        replaced: z.number().int(),
        removed: z.number().int(),
        unchanged: z.number().int(),
        skipped: z.array(z.object({ line: z.number().int(), why: z.string() })),
        conflicts: z.array(
          z.object({ name: z.string(), address: z.string(), processor: z.string(), why: z.string() }),
        ),
      })
      .nullable(),
    exported: z.string().nullable(),
    format: z.enum(SYMBOL_FORMATS).nullable(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  limits: {
    storeBytes: SYMBOL_STORE_LIMITS.storeBytes,
    ...SYMBOL_FILE_LIMITS,
    ...SYMBOL_LIMITS,
    ...PAGE,
  },
  // set and remove take a place by a stored name too: `bar+4` for an alias near bar, `foo` for foo's
  // own place (set renames it there: one name per place), in the overlay of the name given.
  names: romArgNames,
  async handler(args, ctx) {
    checkActionArgs(args);
    // The place of a name given for the address is in that name's overlay unless overlayId says.
    const named = ctx.names?.find((u) => u.argument === 'address');
    const givenOverlay = args.overlayId ?? named?.overlayId ?? null;
    // A hostile import path is refused before the ROM is opened.
    if (args.action === 'import') await ctx.services.workspace.resolveExisting(args.file, 'file');
    const store = getSymbolStore(ctx.services);
    const processor = args.processor ?? 'arm9';
    return withToolRom(ctx, args.rom, async (rom, romStore) => {
      const storePath = store.path(rom);
      // Names where start-up copies code run there, owned by the copy (ITCM, WRAM, main moved down).
      const copiesOf = new Map<Processor, StartupCopies>();
      const copiedRuns = async (processors: Iterable<Processor>): Promise<CopiedRuns> => {
        for (const p of new Set(processors))
          if (!copiesOf.has(p)) copiesOf.set(p, await startupCopies(ctx, romStore, rom, p));
        return (p, address) => {
          const c = copiesOf.get(p);
          return c !== undefined && storedOfRun(c, address) !== null;
        };
      };
      let changes: Changes | null = null;
      let exported: string | null = null;
      let read: (typeof SYMBOL_FORMATS)[number] | null = null;
      let shown: StoredSymbol[] = [];
      let nextOffset: number | null = null;
      if (args.action === 'set') {
        const address = args.address!;
        const overlayId = givenOverlay;
        const place = placeOf(rom, processor, address, overlayId, await copiedRuns([processor]));
        if ('why' in place) throw new ReMcpError('invalid-argument', `${hex(address)}: ${place.why}`);
        ({ shown, changes } = await setName(
          store,
          rom,
          { processor, address, place, name: args.name!, mode: args.mode, comment: args.comment },
          ctx.signal,
        ));
      } else if (args.action === 'remove') {
        // The same place a set names: an address only one overlay holds is that overlay's.
        const place = placeOf(rom, processor, args.address!, givenOverlay);
        if ('why' in place) throw new ReMcpError('invalid-argument', `${hex(args.address!)}: ${place.why}`);
        const key = placeKey({ processor, overlayId: place.overlayId, address: args.address! });
        changes = await removeName(store, rom, key, ctx.signal);
      } else if (args.action === 'import') {
        const { parsed, format } = await readSymbolFile(
          ctx.services.workspace,
          args.file!,
          args.format,
          ctx.signal,
        );
        read = format;
        const copied = await copiedRuns([
          processor,
          ...parsed.symbols.flatMap((x) => (x.processor === null ? [] : [x.processor])),
        ]);
        const r = await store.update(
          rom,
          (symbols) =>
            mergeSymbols(rom, symbols, parsed.symbols, {
              processor,
              source: format,
              replace: args.replace === true,
              copied,
            }),
          ctx.signal,
        );
        changes = importChanges(parsed, r);
      }
      const table = await store.table(rom);
      if (args.action === 'export') {
        ({ exported, changes } = await exportNames(
          ctx.services.workspace,
          rom,
          table.symbols,
          args.format ?? 'csv',
          args.format === undefined || args.format === 'csv' ? (args.processor ?? null) : processor,
        ));
      }
      if (args.action === 'list') {
        const needle = args.contains?.toLowerCase();
        const all = table.symbols
          .filter(
            (s) =>
              s.processor === processor && (needle === undefined || s.name.toLowerCase().includes(needle)),
          )
          .sort((a, b) => a.address - b.address || (a.overlayId ?? -1) - (b.overlayId ?? -1));
        shown = all.slice(args.offset, args.offset + args.limit);
        nextOffset = args.offset + shown.length < all.length ? args.offset + shown.length : null;
      }
      const c = changes as typeof changes;
      const summary =
        args.action === 'list'
          ? `${shown.length} name(s) from #${args.offset}${nextOffset !== null ? `, next offset ${nextOffset}` : ''}`
          : args.action === 'export'
            ? `exported to ${exported}`
            : `${read !== null ? `read as ${read}: ` : ''}${c?.added ?? 0} added, ${c?.replaced ?? 0} replaced, ${c?.removed ?? 0} removed, ${c?.conflicts.length ?? 0} conflict(s), ${c?.skipped.length ?? 0} line(s) skipped`;
      return {
        structured: {
          action: args.action,
          store: storePath,
          total: table.size,
          symbols: shown.map(view),
          nextOffset,
          changes: c,
          exported,
          format: read,
        },
        text: `${summary}; ${table.size} name(s) stored in ${storePath}`,
      };
    });
  },
});
