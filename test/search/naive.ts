// Test-only reference search, written without the product's matcher: every start, every byte.
// Patterns are given as plain byte arrays with null for a wildcard, so the expected side does not
// depend on the product's parser either.

export type NaivePattern = Array<number | null>;

export function naiveSearch(data: Uint8Array, pattern: NaivePattern, alignment = 1, base = 0): number[] {
  const out: number[] = [];
  for (let s = 0; s + pattern.length <= data.length; s++) {
    if ((base + s) % alignment !== 0) continue;
    let ok = true;
    for (let k = 0; k < pattern.length; k++) {
      const want = pattern[k];
      if (want !== null && want !== undefined && data[s + k] !== want) {
        ok = false;
        break;
      }
    }
    if (ok) out.push(base + s);
  }
  return out;
}

/** "AA ?? 01" -> [0xaa, null, 1]. */
export function toNaive(signature: string): NaivePattern {
  return signature
    .trim()
    .split(/\s+/)
    .map((t) => (t === '??' ? null : Number.parseInt(t, 16)));
}

export function toSignature(pattern: NaivePattern): string {
  return pattern.map((b) => (b === null ? '??' : b.toString(16).padStart(2, '0'))).join(' ');
}
