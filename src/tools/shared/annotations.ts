// Annotation sets several tool families share.

/** A pure query: reads only, same answer twice, nothing outside the server touched. */
export const READ_ONLY = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;
