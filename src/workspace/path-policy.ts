// Lexical checks on a caller-supplied workspace-relative path, before the filesystem is touched.
// Everything that could make two spellings name one file, or make a check see a different name
// than the filesystem, is refused outright rather than normalized: there is exactly one accepted
// spelling for every file.
import { ReMcpError } from '../core/errors.js';

export const PATH_LIMITS = { maxChars: 1_024, maxSegmentBytes: 255, maxDepth: 64 } as const;

// Control characters, Unicode format characters (zero-width, bidi overrides) and look-alikes of
// '/', '\\' and '.' (fullwidth, division slash, fraction slash, one-dot leader, ...).
const FORBIDDEN_CHARS =
  /[\u0000-\u001f\u007f-\u009f\p{Cf}\uff0e\uff0f\uff3c\u2215\u2044\u2024\u2025\u2026\u29f8\u29f9\ufe52\ufe68]/u;
const PERCENT_ESCAPE = /%[0-9a-fA-F]{2}/;
const DRIVE_LETTER = /^[A-Za-z]:/;

function refuse(message: string, input: string): never {
  throw new ReMcpError('workspace-escape', message, { path: input.slice(0, 200) });
}

/** Returns the path's segments when it is an acceptable workspace-relative path; throws otherwise. */
export function checkRelativePath(input: unknown): string[] {
  if (typeof input !== 'string') throw new ReMcpError('invalid-argument', 'a path must be a string');
  if (input.length === 0) throw new ReMcpError('invalid-argument', 'the path is empty');
  if (input.length > PATH_LIMITS.maxChars)
    refuse(`the path is longer than ${PATH_LIMITS.maxChars} characters`, input);
  if (input.includes('\0')) refuse('the path contains a NUL byte', input);
  if (FORBIDDEN_CHARS.test(input))
    refuse('the path contains a control, invisible or look-alike character', input);
  if (input.normalize('NFC') !== input) refuse('the path is not in Unicode NFC form', input);
  if (input.includes('\\')) refuse('backslash separators are not accepted; use "/"', input);
  if (DRIVE_LETTER.test(input)) refuse('drive letters are not accepted; paths are workspace-relative', input);
  if (input.startsWith('/')) refuse('absolute paths are not accepted; paths are workspace-relative', input);
  if (input.startsWith('~')) refuse('home-relative paths are not accepted', input);
  if (PERCENT_ESCAPE.test(input)) refuse('percent-escapes are not accepted; write the plain name', input);
  const segments = input.split('/');
  if (segments.length > PATH_LIMITS.maxDepth)
    refuse(`the path is deeper than ${PATH_LIMITS.maxDepth} levels`, input);
  for (const segment of segments) {
    if (segment === '') refuse('the path has an empty segment ("//" or a trailing "/")', input);
    if (segment === '.' || segment === '..') refuse('"." and ".." segments are not accepted', input);
    if (/[. ]$/.test(segment)) refuse('a segment ends with a dot or a space', input);
    if (Buffer.byteLength(segment, 'utf8') > PATH_LIMITS.maxSegmentBytes) {
      refuse(`a segment is longer than ${PATH_LIMITS.maxSegmentBytes} bytes`, input);
    }
  }
  return segments;
}
