// A function of a text kept per text, bounded: the answers a parser gives for the same few thousand
// texts again and again (an instruction's operands, an assembler mnemonic) computed once each. When
// `max` texts are kept, all are dropped and kept afresh (a cheap bound: the texts a program repeats
// come back at once). Pure.

/** `compute` kept per text; an answer is never undefined (null is an answer). */
export function memoByText<T>(compute: (text: string) => T, max: number): (text: string) => T {
  if (!Number.isInteger(max) || max < 1)
    throw new RangeError(`memoByText: max ${max} is not a positive integer`);
  const kept = new Map<string, T>();
  return (text) => {
    let v = kept.get(text);
    if (v === undefined) {
      v = compute(text);
      if (kept.size >= max) kept.clear();
      kept.set(text, v);
    }
    return v;
  };
}
