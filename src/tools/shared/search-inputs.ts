// Input pieces shared by the search and extraction tools: the canonical component selector (the only
// way a caller names ROM bytes) and the four pattern kinds.
import { z } from 'zod/v4';
import { PROCESSORS } from '../../core/vocabulary.js';
import { ENDIANNESSES, type PatternInput } from '../../search/pattern.js';
import type { ComponentSelector } from '../../search/search-scope.js';
import { kindFieldsProblem } from './per-kind.js';

const SELECTOR_KINDS = ['arm9', 'arm7', 'overlay', 'file', 'path'] as const;
/** The fields each selector kind takes besides kind. */
const SELECTOR_FIELDS: Record<(typeof SELECTOR_KINDS)[number], readonly string[]> = {
  arm9: [],
  arm7: [],
  overlay: ['processor', 'id'],
  file: ['fileId'],
  path: ['path'],
};

// One flat object checked per kind (not a union of one object per kind): the same choices and the
// same accepted values in a fraction of the bytes tools/list costs the assistant.
export const componentSelectorSchema = z
  .strictObject({
    kind: z.enum(SELECTOR_KINDS),
    processor: z.enum(PROCESSORS).optional(),
    id: z.number().int().min(0).max(0xffffffff).optional(),
    fileId: z.number().int().min(0).max(0xffff).optional(),
    path: z.string().min(1).max(1024).optional().describe('As nds_list_files reports it.'),
  })
  .describe('Executable; overlay (processor, id); file (fileId) or path.')
  .transform((s, ctx): ComponentSelector => {
    const problem = kindFieldsProblem('selector kind', s, SELECTOR_FIELDS[s.kind]);
    if (problem !== null) {
      ctx.addIssue({ code: 'custom', message: problem });
      return z.NEVER;
    }
    switch (s.kind) {
      case 'overlay':
        return { kind: 'overlay', processor: s.processor!, id: s.id! };
      case 'file':
        return { kind: 'file', fileId: s.fileId! };
      case 'path':
        return { kind: 'path', path: s.path! };
      default:
        return { kind: s.kind };
    }
  });

const PATTERN_KINDS = ['byte-signature', 'integer', 'ascii', 'utf16le'] as const;
const PATTERN_FIELDS: Record<(typeof PATTERN_KINDS)[number], { required: string[]; optional: string[] }> = {
  'byte-signature': { required: ['signature'], optional: [] },
  integer: { required: ['value', 'width', 'endianness', 'signed'], optional: ['alignment'] },
  ascii: { required: ['text'], optional: [] },
  utf16le: { required: ['text'], optional: [] },
};
/** Characters of a UTF-16LE text (two bytes each within the 4096-byte pattern). */
const UTF16_CHARS = 2048;

// Flat and checked per kind, like the component selector.
export const patternSchema = z
  .strictObject({
    kind: z.enum(PATTERN_KINDS),
    signature: z.string().min(1).max(32768).optional().describe('Hex bytes, space-separated; ?? any byte.'),
    value: z.number().int().optional().describe('integer: must fit width and signedness.'),
    width: z
      .union([z.literal(8), z.literal(16), z.literal(32)])
      .optional()
      .describe('Bits.'),
    endianness: z.enum(ENDIANNESSES).optional(),
    signed: z.boolean().optional(),
    alignment: z
      .union([z.literal(1), z.literal(2), z.literal(4)])
      .optional()
      .describe("integer: of a hit's ROM offset (default 1)."),
    text: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .describe(`ascii/utf16le (${UTF16_CHARS} characters at most): exact, no terminator or folding.`),
  })
  .describe('1..4096 bytes encoded.')
  .transform((p, ctx): PatternInput => {
    const { required, optional } = PATTERN_FIELDS[p.kind];
    const tooLong = p.kind === 'utf16le' && p.text !== undefined && p.text.length > UTF16_CHARS;
    const problem = tooLong
      ? `a utf16le text is at most ${UTF16_CHARS} characters`
      : kindFieldsProblem('pattern kind', p, required, optional);
    if (problem !== null) {
      ctx.addIssue({ code: 'custom', message: problem });
      return z.NEVER;
    }
    switch (p.kind) {
      case 'byte-signature':
        return { kind: p.kind, signature: p.signature! };
      case 'integer':
        return {
          kind: p.kind,
          value: p.value!,
          width: p.width!,
          endianness: p.endianness!,
          signed: p.signed!,
          alignment: p.alignment ?? 1,
        };
      default:
        return { kind: p.kind, text: p.text! };
    }
  });
