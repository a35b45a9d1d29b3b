import { z } from 'zod/v4';
import { ReMcpError } from '../../core/errors.js';
import { addressOut, formatAddress, limitArg, PROCESSORS } from '../../core/vocabulary.js';
import {
  READ_VIEWS,
  READ_WINDOW_LIMITS,
  type ReadRegion,
  readWindow,
  TABLES,
} from '../../extract/read-window.js';
import { uint } from '../../formats/le.js';
import { defineTool } from '../../mcp/tool.js';
import { textView } from '../../search/strings.js';
import { copiesFor, runsAtFields, runsAtSchema } from '../shared/copied.js';
import { nameField, romNames } from '../shared/names.js';
import { kindFieldsProblem } from '../shared/per-kind.js';
import { READ_ONLY, romArg, withToolRom } from '../shared/rom.js';

const L = READ_WINDOW_LIMITS;
const ROW = 16;
const WIDTHS = { hex: 1, u8: 1, u16: 2, u32: 4, text: 1 } as const;
const FORMATS = ['hex', 'u8', 'u16', 'u32', 'text'] as const;

// One flat object (not a union of one object per kind): the same choices in a fifth of the bytes the
// assistant reads in tools/list. Which fields each kind takes is checked by regionOf().
const KINDS = ['arm9', 'arm7', 'overlay', 'file', 'path', 'header', 'table', 'autoload'] as const;
const regionSchema = z
  .strictObject({
    kind: z.enum(KINDS),
    processor: z.enum(PROCESSORS).optional().describe('overlay'),
    id: z.number().int().min(0).max(0xffffffff).optional().describe('overlay id, autoload index'),
    fileId: z.number().int().min(0).max(0xffff).optional().describe('file'),
    path: z.string().min(1).max(1024).optional().describe('path: as nds_list_files says'),
    table: z.enum(TABLES).optional().describe('table'),
  })
  .describe('A component, the header, a header table or an ARM9 autoload block.');

/** The fields each kind takes (besides kind). */
const FIELDS: Record<(typeof KINDS)[number], readonly string[]> = {
  arm9: [],
  arm7: [],
  overlay: ['processor', 'id'],
  file: ['fileId'],
  path: ['path'],
  header: [],
  table: ['table'],
  autoload: ['id'],
};

function regionOf(r: z.infer<typeof regionSchema>): ReadRegion {
  const problem = kindFieldsProblem('region kind', r, FIELDS[r.kind]);
  if (problem !== null) throw new ReMcpError('invalid-argument', problem);
  switch (r.kind) {
    case 'overlay':
      return { kind: 'overlay', processor: r.processor!, id: r.id! };
    case 'file':
      return { kind: 'file', fileId: r.fileId! };
    case 'path':
      return { kind: 'path', path: r.path! };
    case 'table':
      return { kind: 'table', table: r.table! };
    case 'autoload':
      if (r.id! > 255) throw new ReMcpError('invalid-argument', 'an autoload index is 0..255');
      return { kind: 'autoload', index: r.id! };
    default:
      return { kind: r.kind };
  }
}

const printable = (b: number) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.');

export const ndsReadBytes = defineTool({
  name: 'nds_read_bytes',
  title: 'Read bytes of a ROM region',
  profiles: ['static'],
  description: {
    purpose:
      'A window of one ROM region: hex + ASCII or little-endian values, ROM offsets, runtime addresses.',
    useWhen: 'seeing data, tables or strings; nds_disassemble_range for code.',
    behaviour:
      'decoded: the BLZ-decoded image of a compressed executable or overlay (no ROM offsets); runsAt: copied by start-up.',
    limits: `${L.length.max} bytes a call.`,
  },
  input: z.object({
    rom: romArg,
    region: regionSchema,
    view: z.enum(READ_VIEWS).default('stored'),
    offset: limitArg(L.offset).describe('Into the region.'),
    length: limitArg(L.length),
    format: z.enum(FORMATS).default('hex'),
  }),
  output: z.object({
    region: z.string(),
    view: z.enum(READ_VIEWS),
    compressed: z.boolean(),
    size: z.number().int().describe('Bytes of the region in this view'),
    offset: z.number().int(),
    returned: z.number().int(),
    format: z.enum(FORMATS),
    text: z.object({ encoding: z.string(), content: z.string() }).nullable(),
    rows: z.array(
      z.object({
        offset: z.number().int(),
        romOffset: addressOut.nullable(),
        runtimeAddress: addressOut.nullable(),
        name: z.string().optional().describe('The stored name of runtimeAddress (nds_symbols)'),
        ...runsAtSchema,
        hex: z.string(),
        ascii: z.string(),
        values: z.array(z.string()).describe('u8/u16/u32: little-endian, hex'),
      }),
    ),
    notes: z.array(z.string()),
  }),
  annotations: READ_ONLY,
  limits: L,
  async handler(args, ctx) {
    return withToolRom(
      ctx,
      args.rom,
      async (rom, store) => {
        const w = await readWindow(store, rom, regionOf(args.region), {
          offset: args.offset,
          length: args.length,
          view: args.view,
          signal: ctx.signal,
        });
        const width = WIDTHS[args.format];
        const names = await romNames(ctx, rom);
        // Names belong to a processor's code and data: the executables' regions have one.
        const r = args.region;
        const processor =
          r.kind === 'arm9' || r.kind === 'arm7'
            ? r.kind
            : r.kind === 'overlay'
              ? (r.processor ?? null)
              : r.kind === 'autoload'
                ? 'arm9'
                : null;
        const overlayId = r.kind === 'overlay' ? (r.id ?? null) : null;
        // A main executable's bytes the start-up copies elsewhere (ITCM, WRAM): where they run too.
        const main = r.kind === 'arm9' || r.kind === 'arm7' ? r.kind : null;
        const copies = await copiesFor(ctx, store, rom, main === null ? [] : [main]);
        const mainCopies = main === null ? undefined : copies(main);
        if (mainCopies !== undefined && w.bytes.length > 0) {
          const first = w.runtimeOf(w.offset);
          if (first !== null) {
            const last = first + w.bytes.length;
            for (const [kind, list] of [
              ['code', mainCopies.code],
              ['data', mainCopies.data],
            ] as const)
              for (const b of list)
                if (b.source < last && first < b.source + b.size) {
                  const from = Math.max(first, b.source);
                  const to = Math.min(last, b.source + b.size);
                  w.notes.push(
                    `${formatAddress(from)}..${formatAddress(to)} (offset ${from - first + w.offset}..${to - first + w.offset}) runs at ${formatAddress(b.start + (from - b.source))}..${formatAddress(b.start + (to - b.source))}: start-up ${kind} copy of ${b.size} bytes from ${formatAddress(b.source)} to ${formatAddress(b.start)}, stored by the instruction at ${formatAddress(b.storedBy)}`,
                  );
                }
          }
        }
        const rows = [];
        let text: { encoding: string; content: string } | null = null;
        if (args.format === 'text') {
          const t = textView(w.bytes);
          text = { encoding: t.encoding, content: t.content };
          w.notes.push(`text: ${t.encoding} (${t.by})`);
          if (t.controls > 0)
            w.notes.push(`${t.controls} control character(s) shown as Control Pictures (U+2400)`);
          if (t.partialTail > 0)
            w.notes.push(
              `the last ${t.partialTail} byte(s) start a character the window cuts: read on from offset ${w.offset + w.bytes.length - t.partialTail}`,
            );
        }
        for (let i = 0; args.format !== 'text' && i < w.bytes.length; i += ROW) {
          const chunk = w.bytes.subarray(i, i + ROW);
          const o = w.offset + i;
          const values: string[] = [];
          if (args.format !== 'hex')
            for (let j = 0; j + width <= chunk.length; j += width) {
              const v = uint(chunk, j, width);
              values.push(`0x${v.toString(16).padStart(width * 2, '0')}`);
            }
          const rom0 = w.romOffsetOf(o);
          const rt0 = w.runtimeOf(o);
          rows.push({
            offset: o,
            romOffset: rom0 === null ? null : formatAddress(rom0),
            runtimeAddress: rt0 === null ? null : formatAddress(rt0),
            ...(processor !== null && rt0 !== null
              ? nameField('name', names, processor, rt0, overlayId)
              : {}),
            ...runsAtFields(copies, names, main, rt0),
            hex: Array.from(chunk, (b) => b.toString(16).padStart(2, '0')).join(' '),
            ascii: Array.from(chunk, printable).join(''),
            values,
          });
        }
        const tail = w.bytes.length % width;
        if (tail !== 0)
          w.notes.push(`the last ${tail} byte(s) do not fill a ${args.format}: shown in hex only`);
        const first = w.runtimeOf(w.offset);
        return {
          structured: {
            region: w.label,
            view: w.view,
            compressed: w.compressed,
            size: w.size,
            offset: w.offset,
            returned: w.bytes.length,
            format: args.format,
            text,
            rows,
            notes: w.notes,
          },
          text: `${w.label} (${w.view}, ${w.size} bytes): ${w.bytes.length} bytes from +${formatAddress(w.offset)}${first !== null ? ` (runtime ${formatAddress(first)})` : ''}${w.offset + w.bytes.length < w.size ? `, next offset ${w.offset + w.bytes.length}` : ', to the end'}`,
        };
      },
      null,
    );
  },
});
