// Output tails measured the way the client receives them: JSON-encoded. A control byte costs six
// bytes once escaped (\u0001), so a tail within its raw byte bound can still make a result too large;
// this trims the tail (keeping its end) until its encoding fits a byte budget.
import type { BoundedOutput } from './bounded-process.js';

const encodedSize = (text: string) => Buffer.byteLength(JSON.stringify(text), 'utf8');

/** The output with its tail cut (from the front) so that its JSON encoding takes at most `budget` bytes. */
export function fitEncodedTail(output: BoundedOutput, budget: number): BoundedOutput {
  if (encodedSize(output.tail) <= budget) return output;
  let lo = 0;
  let hi = output.tail.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (encodedSize(output.tail.slice(output.tail.length - mid)) <= budget) lo = mid;
    else hi = mid - 1;
  }
  let tail = output.tail.slice(output.tail.length - lo);
  // Never start on the second half of a surrogate pair.
  if (tail.length > 0 && /^[\uDC00-\uDFFF]/.test(tail)) tail = tail.slice(1);
  return { tail, totalBytes: output.totalBytes, truncated: true };
}

/** Bytes left for two tails in a result whose other fields encode to `rest` bytes, under `limit`. */
export function tailBudget(limit: number, rest: unknown): number {
  // Room for the text block and the envelope around the structured result.
  const reserve = 1_024 + 2 * Buffer.byteLength(JSON.stringify(rest), 'utf8');
  return Math.max(0, Math.floor((limit - reserve) / 2));
}
