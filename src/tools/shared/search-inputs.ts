// Input pieces shared by the search and extraction tools: the canonical component selector (the only
// way a caller names ROM bytes) and the four pattern kinds.
import { z } from 'zod/v4';

export const componentSelectorSchema = z
  .discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('arm9') }),
    z.strictObject({ kind: z.literal('arm7') }),
    z.strictObject({
      kind: z.literal('overlay'),
      processor: z.enum(['arm9', 'arm7']).describe('Overlay table: arm9 or arm7.'),
      id: z.number().int().min(0).max(0xffffffff).describe('Overlay ID as nds_list_overlays reports it.'),
    }),
    z.strictObject({
      kind: z.literal('file'),
      fileId: z.number().int().min(0).max(0xffff).describe('NitroFS/FAT file ID (0..65535).'),
    }),
    z.strictObject({
      kind: z.literal('path'),
      path: z
        .string()
        .min(1)
        .max(1024)
        .describe('Exact NitroFS path as nds_list_files reports it (case-sensitive, no leading slash).'),
    }),
  ])
  .describe('A canonical component: arm9, arm7, overlay {processor,id}, file {fileId} or path {path}.');

export const patternSchema = z
  .discriminatedUnion('kind', [
    z.strictObject({
      kind: z.literal('byte-signature'),
      signature: z
        .string()
        .min(1)
        .max(32768)
        .describe('Whitespace-separated bytes of two hex digits; "??" is the only wildcard (whole byte).'),
    }),
    z.strictObject({
      kind: z.literal('integer'),
      value: z.number().int().describe('The integer; must fit the width and signedness.'),
      width: z.union([z.literal(8), z.literal(16), z.literal(32)]).describe('Width in bits: 8, 16 or 32.'),
      endianness: z.enum(['little', 'big']).describe('Byte order (required, also for 8-bit).'),
      signed: z.boolean().describe('Two’s-complement signed, or unsigned.'),
      alignment: z
        .union([z.literal(1), z.literal(2), z.literal(4)])
        .default(1)
        .describe('Alignment of the ROM offset of a hit.'),
    }),
    z.strictObject({
      kind: z.literal('ascii'),
      text: z.string().min(1).max(4096).describe('Exact, case-sensitive ASCII text; no terminator is added.'),
    }),
    z.strictObject({
      kind: z.literal('utf16le'),
      text: z
        .string()
        .min(1)
        .max(2048)
        .describe('Exact text encoded as UTF-16LE code units; no terminator, normalization or folding.'),
    }),
  ])
  .describe('One of: byte-signature, integer, ascii, utf16le; 1..4096 encoded bytes.');
