// The assembly a caller may hand the assembler, and the file the assembler is given. armips reads
// directives that touch files (.include, .incbin, .open, .create, .import...), run scripts or change
// the output: a caller's source may use only the directives below (data, alignment, labels, macros,
// conditions, areas, pools, the instruction set); anything else starting with a dot is refused before
// the assembler sees it. The wrapper around the source chooses the processor's architecture, the one
// in-memory output file and its load address, and the mode; names a caller uses that the ROM's symbol
// store knows are defined as labels. Pure: text in, text out.
import { ReMcpError } from '../core/errors.js';

/** Directives a caller's source may use (armips spells them case-insensitively). */
const ALLOWED = new Set([
  '.arm',
  '.thumb',
  '.align',
  '.word',
  '.dw',
  '.halfword',
  '.dh',
  '.byte',
  '.db',
  '.ascii',
  '.asciiz',
  '.fill',
  '.skip',
  '.definelabel',
  '.pool',
  '.func',
  '.endfunc',
  '.if',
  '.elseif',
  '.else',
  '.endif',
  '.ifdef',
  '.ifndef',
  '.macro',
  '.endmacro',
  '.area',
  '.endarea',
]);

/** Directives whose first argument is a size in bytes. */
const SIZED = new Set(['.fill', '.skip', '.align', '.area']);

export const ASM_LIMITS = {
  sourceChars: { default: 65_536, max: 65_536, unit: 'characters of assembly' },
  outputBytes: { default: 65_536, max: 65_536, unit: 'bytes assembled' },
  labels: { default: 512, max: 512, unit: 'symbol-store names defined' },
} as const;

/**
 * The source as armips reads it, with what cannot hold a directive blanked: strings (`"..."`, where
 * `\"` and `\\` are escapes and a line end is an error) become `""`, one-character literals (`'x'`)
 * become `0`, comments (`;` and `//` to the end of the line, `/* ... *\/` across lines) become spaces,
 * line ends kept. Scanned once, left to right, so a comment opener inside a string and a quote inside a
 * comment are what armips takes them for. A string or comment left open, or a `'` that opens no
 * one-character literal, is refused: armips would read it some way this scan does not.
 */
function codeOf(source: string): string {
  let out = '';
  let line = 1;
  const refuse = (why: string): never => {
    throw new ReMcpError('invalid-argument', `line ${line}: ${why}`);
  };
  for (let i = 0; i < source.length; ) {
    const c = source[i]!;
    if (c === '"') {
      let j = i + 1;
      for (;;) {
        const d = source[j];
        if (d === undefined || d === '\n') refuse('a string is not closed on its line');
        if (d === '\\' && (source[j + 1] === '"' || source[j + 1] === '\\')) j += 2;
        else if (d === '"') break;
        else j++;
      }
      out += '""';
      i = j + 1;
    } else if (c === "'") {
      if (source[i + 2] !== "'" || source[i + 1] === '\n' || source[i + 1] === undefined)
        refuse("a ' that does not open a one-character literal ('x')");
      out += '0';
      i += 3;
    } else if (c === ';' || (c === '/' && source[i + 1] === '/')) {
      const end = source.indexOf('\n', i);
      i = end < 0 ? source.length : end;
    } else if (c === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2);
      if (end < 0) refuse('a /* comment is not closed');
      for (const ch of source.slice(i, end + 2)) {
        out += ch === '\n' ? '\n' : ' ';
        if (ch === '\n') line++;
      }
      i = end + 2;
    } else {
      if (c === '\n') line++;
      out += c;
      i++;
    }
  }
  return out;
}

/**
 * A word starting with a dot that does not continue a name or a number (`label.sub`, `1.5`): what
 * armips reads as a directive, anywhere in a line (after a label, after `::`, as a macro argument).
 */
const DIRECTIVE = /(?<![A-Za-z0-9_@])(\.[A-Za-z_][A-Za-z0-9_]*)/g;

/** Refuses a source that is too long, uses a directive outside the allowed set, or holds a NUL. */
export function checkSource(source: string): void {
  if (source.length > ASM_LIMITS.sourceChars.max)
    throw new ReMcpError(
      'limit-exceeded',
      `the assembly is ${source.length} characters; at most ${ASM_LIMITS.sourceChars.max}`,
    );
  if (source.includes('\u0000'))
    throw new ReMcpError('invalid-argument', 'the assembly holds a NUL character');
  const code = codeOf(source);
  for (const [n, line] of code.split('\n').entries()) {
    for (const m of line.matchAll(DIRECTIVE)) {
      const directive = m[1]!.toLowerCase();
      if (!ALLOWED.has(directive))
        throw new ReMcpError(
          'invalid-argument',
          `line ${n + 1}: the directive ${m[1]} is not allowed (files, scripts and output are the server's; allowed: ${[...ALLOWED].join(' ')})`,
        );
      if (SIZED.has(directive)) {
        // The size must be a number here: an expression could ask for gigabytes before any bound holds.
        const rest = line.slice((m.index ?? 0) + m[0].length).trim();
        const size = /^(0x[0-9a-f]+|[0-9]+)\b/i.exec(rest)?.[1];
        if (size === undefined || Number(size) > ASM_LIMITS.outputBytes.max)
          throw new ReMcpError(
            'invalid-argument',
            `line ${n + 1}: ${m[1]} needs a number of at most ${ASM_LIMITS.outputBytes.max} as its size`,
          );
      }
    }
  }
}

/** Identifiers a source mentions (candidates for symbol-store labels). */
export function identifiers(source: string): Set<string> {
  const out = new Set<string>();
  let code: string;
  try {
    code = codeOf(source);
  } catch {
    return out; // checkSource refuses such a source before anything is defined for it
  }
  for (const m of code.matchAll(/[A-Za-z_@][A-Za-z0-9_@.]*/g)) out.add(m[0]);
  return out;
}

/** The file armips is given (the wrapped source) and the one it may write. */
export const INPUT_FILE = 'asm.s';
export const OUTPUT_FILE = 'out.bin';

/** A stored name armips can take as a label. */
export const ASM_LABEL = /^[A-Za-z_@][A-Za-z0-9_@.]*$/;

/** The whole file armips assembles. */
export function wrapSource(
  source: string,
  options: {
    processor: 'arm9' | 'arm7';
    mode: 'arm' | 'thumb';
    address: number;
    labels: ReadonlyMap<string, number>;
  },
): string {
  const lines = [
    // .nds: ARMv5TE (the ARM9); .gba: ARMv4T (the ARM7 has the GBA's CPU).
    options.processor === 'arm9' ? '.nds' : '.gba',
    `.create "${OUTPUT_FILE}", 0x${options.address.toString(16)}`,
    ...[...options.labels].map(([name, value]) => `.definelabel ${name}, 0x${value.toString(16)}`),
    options.mode === 'arm' ? '.arm' : '.thumb',
    source,
    '.close',
    '',
  ];
  return lines.join('\n');
}
