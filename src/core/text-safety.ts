// Strings that come from a ROM, a file, an emulator or a process can carry characters that a terminal
// or an assistant reads as something else: control characters (a newline that starts a fake line, an
// ANSI escape that clears a screen, BEL), and invisible or bidirectional formatting characters that
// make text read differently from its bytes. Text blocks show them escaped, visibly; structured content
// keeps the raw strings.

/** C0 controls, DEL, C1 controls, bidi controls, zero-width and invisible formatters, line separators. */
const UNSAFE =
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;
/** The same, newline excepted (for text whose own layout uses line breaks). */
const UNSAFE_BUT_NEWLINE =
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

const escapeOne = (ch: string): string => {
  const code = ch.charCodeAt(0);
  return code < 0x100
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
};

/** The string with every unsafe character written as \xNN or \uNNNN, and how many there were. */
export function escapeUnsafe(text: string, keepNewlines = false): { text: string; escaped: number } {
  let escaped = 0;
  const out = text.replace(keepNewlines ? UNSAFE_BUT_NEWLINE : UNSAFE, (ch) => {
    escaped++;
    return escapeOne(ch);
  });
  return { text: out, escaped };
}

/** One line of text from untrusted data: every unsafe character (newlines too) escaped. */
export function inline(text: string): string {
  return escapeUnsafe(text).text;
}
