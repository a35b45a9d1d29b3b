// Typed failures shared by every layer. Pure cores throw ReMcpError with a stable code; the MCP layer
// turns it into an `isError` tool result carrying the same code. Anything else thrown is a bug and is
// reported as `internal-error`.

export const ERROR_CODES = [
  // caller input
  'invalid-argument',
  'not-found',
  'workspace-escape',
  'limit-exceeded',
  'output-too-large',
  'unsupported',
  // time and lifecycle
  'timeout',
  'cancelled',
  'busy',
  // ROM model and formats
  'invalid-rom',
  'rom-changed',
  'blz-malformed',
  'ambiguous-code-source',
  'not-code',
  // processes and integrations
  'not-configured',
  'launch-failed',
  'already-running',
  'not-running',
  'emulator-exited',
  'target-running',
  'unreachable',
  'protocol-error',
  'paused',
  'no-memory-map',
  'no-descriptor',
  'read-only',
  'unconfirmed',
  'short-write',
  'git-failed',
  'config-invalid',
  'publish-collision',
  'verification-failed',
  'internal-error',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export class ReMcpError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'ReMcpError';
    this.code = code;
    this.details = details;
  }
}

export function isReMcpError(value: unknown): value is ReMcpError {
  return value instanceof ReMcpError;
}

/** Throws `cancelled` when the signal fired; long loops call this between bounded steps. */
export function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new ReMcpError('cancelled', 'the operation was cancelled by the client');
}
