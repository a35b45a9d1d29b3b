// Flat arguments checked per kind: one object whose `kind` decides which of its optional fields it
// takes (a fraction of the bytes a union of one object per kind costs in tools/list). The check says
// what is missing and what does not belong, in one message.

/** What is wrong with `value`'s fields for its kind, or null: `required`, then `optional`, nothing else. */
export function kindFieldsProblem(
  what: string,
  value: { kind: string } & Record<string, unknown>,
  required: readonly string[],
  optional: readonly string[] = [],
): string | null {
  const given = Object.keys(value).filter((k) => k !== 'kind' && value[k] !== undefined);
  const missing = required.filter((f) => !given.includes(f));
  const extra = given.filter((f) => !required.includes(f) && !optional.includes(f));
  if (missing.length === 0 && extra.length === 0) return null;
  const takes = [...required, ...optional];
  return `${what} ${value.kind} takes ${takes.length === 0 ? 'no other field' : takes.join(', ')}${missing.length > 0 ? `; missing ${missing.join(', ')}` : ''}${extra.length > 0 ? `; not for this kind: ${extra.join(', ')}` : ''}`;
}
