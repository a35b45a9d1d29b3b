// Disassemble, then assemble back (ual-roundtrip.test.ts and .long.ts): pieces of ARM, Thumb and
// data are decoded by our own decoder, each instruction written as the disassembly prints it
// (`mnemonic operands`), the whole run rewritten by ual.ts and assembled by armips at the run's
// address, in pieces of at most CHUNK_CHARS characters. Data, and bytes the decoder stops at, are
// written back as `.db`, so every instruction is assembled at its own address; the result is compared
// instruction by instruction and every difference is reported with what was written, what ual.ts made
// of it and what came back (decoded again by our decoder).
import assert from 'node:assert/strict';
import { decodeWindow } from '../../src/arm/decoder.js';
import { assemble } from '../../src/asm/armips.js';
import { toArmipsSyntax } from '../../src/asm/ual.js';
import { ReMcpError } from '../../src/core/errors.js';

export interface Piece {
  /** Names the piece in reports (a program's name). */
  tag?: string;
  address: number;
  mode: 'arm' | 'thumb' | 'data';
  bytes: Uint8Array;
}

export interface Outcome {
  tag: string;
  address: number;
  mode: 'arm' | 'thumb';
  /** The instruction's bytes, hex in memory order. */
  bytes: string;
  /** As the disassembly prints it. */
  text: string;
  /** What ual.ts made of the line. */
  armips: string;
  notes: string[];
  /** Exact: the same bytes came back. Refused: ual.ts refused the line (its message in `why`). */
  result: 'exact' | 'differs' | 'refused';
  /** Differs: the bytes and text that came back. */
  got: string | null;
  gotText: string | null;
  why: string | null;
}

/** Characters of source per assembly (the assembler takes 65,536). */
const CHUNK_CHARS = 60_000;

interface Line {
  text: string;
  mode: 'arm' | 'thumb' | 'data';
  address: number;
  bytes: Uint8Array;
  outcome: Outcome | null;
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const printed = (i: { mnemonic: string; operands: string }) =>
  i.operands ? `${i.mnemonic} ${i.operands}` : i.mnemonic;

function dataLines(address: number, bytes: Uint8Array): Line[] {
  const out: Line[] = [];
  for (let at = 0; at < bytes.length; at += 16) {
    const part = bytes.subarray(at, at + 16);
    out.push({
      text: `.db ${[...part].map((b) => `0x${b.toString(16)}`).join(',')}`,
      mode: 'data',
      address: address + at,
      bytes: part,
      outcome: null,
    });
  }
  return out;
}

/** The lines of a piece: its instructions as printed, and `.db` where the decoder stops. */
async function pieceLines(piece: Piece, processor: 'arm9' | 'arm7'): Promise<Line[]> {
  if (piece.mode === 'data') return dataLines(piece.address, piece.bytes);
  const mode = piece.mode;
  const out: Line[] = [];
  let at = 0;
  while (at < piece.bytes.length) {
    const r = await decodeWindow(piece.bytes.subarray(at), piece.address + at, mode, processor, 65_536);
    for (const i of r.instructions) {
      const text = printed(i);
      let armips: string;
      let notes: string[] = [];
      let why: string | null = null;
      try {
        const t = toArmipsSyntax(text, { mode, processor });
        armips = t.source;
        notes = t.notes;
      } catch (error) {
        if (!(error instanceof ReMcpError)) throw error;
        armips = '';
        why = error.message;
      }
      const bytes = piece.bytes.subarray(i.address - piece.address, i.address - piece.address + i.size);
      const outcome: Outcome = {
        tag: piece.tag ?? '',
        address: i.address,
        mode,
        bytes: i.bytes,
        text,
        armips,
        notes,
        result: why === null ? 'exact' : 'refused',
        got: null,
        gotText: null,
        why,
      };
      out.push(
        why === null
          ? { text, mode, address: i.address, bytes, outcome }
          : { ...dataLines(i.address, bytes)[0]!, outcome },
      );
      at = i.address + i.size - piece.address;
    }
    if (r.stop) {
      // Not an instruction of this processor (data, a later architecture's encoding): as bytes.
      const size = Math.min(mode === 'arm' ? 4 : 2, piece.bytes.length - at);
      out.push(...dataLines(piece.address + at, piece.bytes.subarray(at, at + size)));
      at += size;
    }
  }
  return out;
}

/** Every instruction of `pieces` (contiguous or not) disassembled and assembled back. */
export async function roundTrip(pieces: readonly Piece[], processor: 'arm9' | 'arm7'): Promise<Outcome[]> {
  const lines: Line[] = [];
  for (const p of pieces) lines.push(...(await pieceLines(p, processor)));
  // Chunks: contiguous addresses, at most CHUNK_CHARS characters once rewritten.
  const chunks: { lines: Line[]; source: string; mode: 'arm' | 'thumb' }[] = [];
  for (let from = 0; from < lines.length; ) {
    let to = from;
    let chars = 0;
    const firstCode = lines.slice(from, from + 64).find((l) => l.mode !== 'data');
    const startMode = firstCode?.mode === 'thumb' ? 'thumb' : 'arm';
    let mode = startMode;
    const source: string[] = [];
    while (to < lines.length && chars < CHUNK_CHARS) {
      const l = lines[to]!;
      const previous = lines[to - 1];
      if (to > from && previous!.address + previous!.bytes.length !== l.address) break;
      if (l.mode !== 'data' && l.mode !== mode) {
        source.push(`.${l.mode}`);
        mode = l.mode;
      }
      source.push(l.text);
      chars += Math.max(l.text.length, l.outcome?.armips.length ?? 0) + 1;
      to++;
    }
    chunks.push({ lines: lines.slice(from, to), source: source.join('\n'), mode: startMode });
    from = to;
  }
  // Two at a time: the assembler runs one worker per core.
  const results = new Array<Uint8Array>(chunks.length);
  let next = 0;
  const worker = async () => {
    while (next < chunks.length) {
      const k = next++;
      const c = chunks[k]!;
      const translated = toArmipsSyntax(c.source, { mode: c.mode, processor });
      const r = await assemble({
        source: translated.source,
        processor,
        mode: c.mode,
        address: c.lines[0]!.address,
        labels: new Map(),
      });
      results[k] = r.bytes;
    }
  };
  await Promise.all([worker(), worker()]);
  const outcomes: Outcome[] = [];
  for (const [k, c] of chunks.entries()) {
    const bytes = results[k]!;
    let at = 0;
    for (const l of c.lines) {
      const got = bytes.subarray(at, at + l.bytes.length);
      at += l.bytes.length;
      const o = l.outcome;
      if (o === null) {
        if (hex(got) !== hex(l.bytes))
          throw new Error(`data at 0x${l.address.toString(16)} came back as ${hex(got)}`);
        continue;
      }
      outcomes.push(o);
      if (o.result === 'refused' || hex(got) === o.bytes) continue;
      const d = await decodeWindow(got, o.address, o.mode, processor, 1);
      o.result = 'differs';
      o.got = hex(got);
      o.gotText =
        d.instructions[0] && d.instructions[0].size === got.length ? printed(d.instructions[0]) : null;
    }
    if (at !== bytes.length)
      throw new Error(
        `the chunk at 0x${c.lines[0]!.address.toString(16)} assembled to ${bytes.length} bytes, not ${at}`,
      );
  }
  return outcomes;
}

/** A report line for a failed assertion. */
export const describe = (o: Outcome) =>
  `${o.tag ? `${o.tag} ` : ''}0x${o.address.toString(16)} ${o.mode} ${o.bytes} "${o.text}" -> "${o.armips}" -> ${o.got ?? ''} "${o.gotText ?? ''}"${o.why ? ` (${o.why})` : ''}${o.notes.length ? ` [${o.notes.join('; ')}]` : ''}`;

/** What may come back other than exactly, why, and what is asserted instead. */
export const EXCEPTIONS: {
  name: string;
  why: string;
  applies(o: Outcome): boolean;
  /** Throws when the outcome is not what the reason says. */
  check(o: Outcome): void;
}[] = [
  {
    name: 'one text, several encodings',
    why:
      'the disassembly does not print bits the architecture says should be zero or one (Rd of CMP/TST/' +
      'TEQ/CMN, Rn of MOV/MVN, the MSR mask of a register form...) nor which of two encodings it read ' +
      '(Thumb CMP of two low registers, high-register form or not): armips writes the canonical one',
    applies: (o) => o.result === 'differs' && o.gotText === o.text,
    check: (o) => assert.equal(o.gotText, o.text),
  },
  {
    name: 'Thumb high-register ADD/MOV of two low registers',
    why:
      'UNPREDICTABLE on ARMv4T/ARMv5TE; armips reads "add r0, r1" as ADDS r0, r0, r1 and "mov r0, r1" ' +
      'as ADDS r0, r1, #0 (its pre-UAL meaning, kept for its own syntax); the answer notes it',
    applies: (o) => o.result === 'differs' && o.mode === 'thumb' && /^(add|mov) r[0-7], r[0-7]$/.test(o.text),
    check: (o) => {
      const [, op, d, m] = /^(add|mov) (r[0-7]), (r[0-7])$/.exec(o.text)!;
      assert.equal(o.gotText, op === 'add' ? `adds ${d}, ${d}, ${m}` : `adds ${d}, ${m}, #0`);
      assert.match(o.notes.join(' '), /read as armips reads it/);
    },
  },
  {
    name: 'MSR without fields',
    why:
      'the disassembly prints a field mask of 0 as "msr cpsr, ..."; armips reads that spelling as all ' +
      'four fields (cpsr_fsxc), kept for its own syntax; the answer notes it',
    applies: (o) => o.result === 'differs' && /^msr\w* [cs]psr, /.test(o.text),
    check: (o) => {
      assert.equal(o.gotText, o.text.replace(/^(msr\w* [cs]psr)/, '$1_fsxc'));
      assert.match(o.notes.join(' '), /writes all four fields/);
    },
  },
  {
    name: 'PC where it is UNPREDICTABLE',
    why:
      'PC as the base of LDM/STM, an operand of a multiply, CLZ, SWP or saturating add, the target of ' +
      'BLX, the core register of MCR: UNPREDICTABLE on these processors and refused by armips; ual.ts ' +
      'refuses it with the reason (the bytes are in the disassembly for a .dw)',
    applies: (o) => o.result === 'refused' && o.mode === 'arm',
    check: (o) => assert.match(o.why ?? '', /PC as .* is UNPREDICTABLE/),
  },
];

/** Outcomes that are neither exact nor an exception that holds, described. */
export function unexplained(outcomes: readonly Outcome[]): { wrong: string[]; used: Map<string, number> } {
  const wrong: string[] = [];
  const used = new Map<string, number>();
  for (const o of outcomes) {
    if (o.result === 'exact') continue;
    const e = EXCEPTIONS.find((x) => x.applies(o));
    if (!e) {
      wrong.push(describe(o));
      continue;
    }
    try {
      e.check(o);
      used.set(e.name, (used.get(e.name) ?? 0) + 1);
    } catch (error) {
      wrong.push(`${describe(o)}: ${e.name}: ${(error as Error).message.split('\n')[0]}`);
    }
  }
  return { wrong, used };
}

/** xorshift32 from `seed`. */
export function words(seed: number, count: number, conditional: boolean): number[] {
  let s = seed >>> 0 || 1;
  const next = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
  // Three in four unconditional (AL), as real code mostly is; the rest any condition.
  return Array.from({ length: count }, () => {
    const w = next();
    return conditional && (next() & 3) !== 0 ? w : ((w & 0x0fffffff) | 0xe0000000) >>> 0;
  });
}

export const armPiece = (list: number[], address: number) => {
  const bytes = new Uint8Array(list.length * 4);
  const dv = new DataView(bytes.buffer);
  for (const [i, w] of list.entries()) dv.setUint32(i * 4, w, true);
  return { address, mode: 'arm' as const, bytes };
};

export const thumbPiece = (halfwords: number[], address: number) => {
  const bytes = new Uint8Array(halfwords.length * 2);
  const dv = new DataView(bytes.buffer);
  for (const [i, h] of halfwords.entries()) dv.setUint16(i * 2, h, true);
  return { address, mode: 'thumb' as const, bytes };
};

/** BL/BLX pairs: a prefix halfword and a suffix (BL or BLX), random offsets. */
export function branchPairs(seed: number, count: number): number[] {
  return words(seed, count, true).flatMap((w) => [
    0xf000 | (w & 0x7ff),
    (w & 0x10000 ? 0xf800 : 0xe800) | ((w >>> 17) & 0x7fe),
  ]);
}
