// Input pieces shared by the search and extraction tools: the canonical component selector (the only
// way a caller names ROM bytes) and the four pattern kinds.
import { z } from 'zod/v4';

export const componentSelectorSchema = z
  .discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('arm9') }),
    z.strictObject({ kind: z.literal('arm7') }),
    z.strictObject({
      kind: z.literal('overlay'),
      processor: z.enum(['arm9', 'arm7']),
      id: z.number().int().min(0).max(0xffffffff),
    }),
    z.strictObject({
      kind: z.literal('file'),
      fileId: z.number().int().min(0).max(0xffff),
    }),
    z.strictObject({
      kind: z.literal('path'),
      path: z.string().min(1).max(1024).describe('As nds_list_files reports it.'),
    }),
  ])
  .describe('Executable, overlay or file.');

export const patternSchema = z
  .discriminatedUnion('kind', [
    z.strictObject({
      kind: z.literal('byte-signature'),
      signature: z.string().min(1).max(32768).describe('Hex bytes, space-separated; ?? any byte.'),
    }),
    z.strictObject({
      kind: z.literal('integer'),
      value: z.number().int().describe('Must fit width and signedness.'),
      width: z.union([z.literal(8), z.literal(16), z.literal(32)]).describe('Bits.'),
      endianness: z.enum(['little', 'big']),
      signed: z.boolean(),
      alignment: z
        .union([z.literal(1), z.literal(2), z.literal(4)])
        .default(1)
        .describe("Of a hit's ROM offset."),
    }),
    z.strictObject({
      kind: z.literal('ascii'),
      text: z.string().min(1).max(4096).describe('Exact; no terminator added.'),
    }),
    z.strictObject({
      kind: z.literal('utf16le'),
      text: z.string().min(1).max(2048).describe('Exact; no terminator, normalization or folding.'),
    }),
  ])
  .describe('1..4096 bytes encoded.');
