// Strings that come from a ROM, a file, an emulator or a process can carry characters that a terminal
// or an assistant reads as something else: control characters (a newline that starts a fake line, an
// ANSI escape that clears a screen, BEL), and invisible or bidirectional formatting characters that
// make text read differently from its bytes. Text blocks show them escaped, visibly, and keep what
// lays text out (tabs, line breaks, CRLF pairs) as such; structured content keeps the raw strings.

/** C0 controls, DEL, C1 controls, bidi controls, zero-width and invisible formatters, line separators. */
const UNSAFE =
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;
/** The same, TAB excepted (one line of text: a tab is white space, a line break would start a line). */
const UNSAFE_IN_A_LINE =
  /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;
/**
 * The same, TAB, line feed and the CR of a CRLF pair excepted (text laid out in lines). A CR alone is
 * escaped: on a terminal it returns to the start of the line, and what follows overwrites what the
 * line showed.
 */
const UNSAFE_IN_LINES =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|\r(?!\n)/g;

/**
 * How text is laid out: `strict` (a name, an identifier: every control escaped, tab and line breaks
 * too), `line` (one line of a table or a `key: value`: tabs kept), `lines` (a text block laid out in
 * lines: tabs, line feeds and CRLF pairs kept, a lone CR escaped).
 */
type TextLayout = 'strict' | 'line' | 'lines';

const PATTERNS: Readonly<Record<TextLayout, RegExp>> = {
  strict: UNSAFE,
  line: UNSAFE_IN_A_LINE,
  lines: UNSAFE_IN_LINES,
};

/**
 * Text with nothing to escape in each layout, tested first: printable ASCII (and the tab, line feed a
 * layout keeps). Nearly every string is such, and one plain scan of it costs a fraction of a replace.
 */
const PLAIN: Readonly<Record<TextLayout, RegExp>> = {
  strict: /^[\x20-\x7e]*$/,
  line: /^[\t\x20-\x7e]*$/,
  lines: /^[\t\n\x20-\x7e]*$/,
};

const escapeOne = (ch: string): string => {
  const code = ch.charCodeAt(0);
  return code < 0x100
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
};

/**
 * The string with every unsafe character for its layout written as \xNN or \uNNNN, and how many
 * there were. `true` is `lines` (text laid out in lines), `false` is `strict`.
 */
export function escapeUnsafe(
  text: string,
  layout: TextLayout | boolean = 'strict',
): { text: string; escaped: number } {
  const mode: TextLayout = layout === true ? 'lines' : layout === false ? 'strict' : layout;
  if (PLAIN[mode].test(text)) return { text, escaped: 0 };
  let escaped = 0;
  const out = text.replace(PATTERNS[mode], (ch) => {
    escaped++;
    return escapeOne(ch);
  });
  return { text: out, escaped };
}

/** One line of text from untrusted data: every unsafe character (newlines too) escaped. */
export function inline(text: string): string {
  return escapeUnsafe(text).text;
}
