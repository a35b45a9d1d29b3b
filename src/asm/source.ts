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
const SIZED = new Set(['.fill', '.skip', '.align']);

export const ASM_LIMITS = {
  sourceChars: { default: 65_536, max: 65_536, unit: 'characters of assembly' },
  outputBytes: { default: 65_536, max: 65_536, unit: 'bytes assembled' },
  labels: { default: 512, max: 512, unit: 'symbol-store names defined' },
} as const;

/** The source without comments (armips: `;` and `//` to the end of the line, and C-style blocks). */
function stripComments(source: string): string {
  return source
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .split('\n')
    .map((line) => {
      let out = '';
      let quoted = false;
      for (let i = 0; i < line.length; i++) {
        const c = line[i]!;
        if (c === '"') quoted = !quoted;
        if (!quoted && (c === ';' || (c === '/' && line[i + 1] === '/'))) break;
        out += c;
      }
      return out;
    })
    .join('\n');
}

/** Refuses a source that is too long, uses a directive outside the allowed set, or holds a NUL. */
export function checkSource(source: string): void {
  if (source.length > ASM_LIMITS.sourceChars.max)
    throw new ReMcpError(
      'limit-exceeded',
      `the assembly is ${source.length} characters; at most ${ASM_LIMITS.sourceChars.max}`,
    );
  if (source.includes('\u0000'))
    throw new ReMcpError('invalid-argument', 'the assembly holds a NUL character');
  const text = stripComments(source);
  // Any word starting with a dot outside quotes, anywhere on a line (armips allows several
  // statements a line with "::" and directives after labels).
  for (const [n, line] of text.split('\n').entries()) {
    const unquoted = line.replace(/"(?:[^"\\]|\\.)*"/g, '""');
    for (const m of unquoted.matchAll(/(?:^|[\s:,(])(\.[A-Za-z_][A-Za-z0-9_]*)/g)) {
      const directive = m[1]!.toLowerCase();
      if (SIZED.has(directive)) {
        // The size must be a number here: an expression could ask for gigabytes before any bound holds.
        const rest = unquoted.slice((m.index ?? 0) + m[0].length).trim();
        const size = /^(0x[0-9a-f]+|[0-9]+)\b/i.exec(rest)?.[1];
        if (size === undefined || Number(size) > ASM_LIMITS.outputBytes.max)
          throw new ReMcpError(
            'invalid-argument',
            `line ${n + 1}: ${m[1]} needs a number of at most ${ASM_LIMITS.outputBytes.max} as its size`,
          );
      }
      if (!ALLOWED.has(directive))
        throw new ReMcpError(
          'invalid-argument',
          `line ${n + 1}: the directive ${m[1]} is not allowed (files, scripts and output are the server's; allowed: ${[...ALLOWED].join(' ')})`,
        );
    }
  }
}

/** Identifiers a source mentions (candidates for symbol-store labels). */
export function identifiers(source: string): Set<string> {
  const out = new Set<string>();
  for (const m of stripComments(source).matchAll(/[A-Za-z_@][A-Za-z0-9_@.]*/g)) out.add(m[0]);
  return out;
}

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
