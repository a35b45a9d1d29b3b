// The doctor's vocabulary: one result per capability, ok / missing / broken, with the fix.
type CheckStatus = 'ok' | 'missing' | 'broken';

export interface CheckResult {
  /** Stable identifier for scripts (`--json`). */
  id: string;
  status: CheckStatus;
  /** One line: what was found (a version, a path, a count) or what went wrong. */
  detail: string;
  /** What to do about a status other than ok; null when there is nothing to do. */
  fix: string | null;
  /**
   * True when the server cannot do its work without this capability (the workspace, the decoders)
   * or when the operator configured it explicitly: then anything but ok fails the doctor. An
   * optional integration nobody configured may be missing without failing it.
   */
  required: boolean;
  /** Facts for machines (a digest, a port, a version). */
  facts?: Record<string, unknown>;
}

export const ok = (id: string, detail: string, required: boolean, facts?: Record<string, unknown>) =>
  ({ id, status: 'ok', detail, fix: null, required, ...(facts ? { facts } : {}) }) satisfies CheckResult;

export const notOk = (
  id: string,
  status: 'missing' | 'broken',
  detail: string,
  fix: string,
  required: boolean,
  facts?: Record<string, unknown>,
) => ({ id, status, detail, fix, required, ...(facts ? { facts } : {}) }) satisfies CheckResult;

/** The doctor fails when a broken capability exists, or a required one is missing. */
export function failed(results: readonly CheckResult[]): boolean {
  return results.some((r) => r.status === 'broken' || (r.required && r.status !== 'ok'));
}

export function message(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
}
