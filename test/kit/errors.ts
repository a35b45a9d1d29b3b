// The stable code of the ReMcpError a call is refused with; anything else (success, another error)
// fails the test.
import assert from 'node:assert/strict';
import { isReMcpError } from '../../src/core/errors.js';

export function errorCode(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert.ok(isReMcpError(error), `not a ReMcpError: ${String(error)}`);
    return error.code;
  }
  assert.fail('expected a ReMcpError');
}

export async function rejectionCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.ok(isReMcpError(error), `not a ReMcpError: ${String(error)}`);
    return error.code;
  }
  assert.fail('expected a ReMcpError');
}

/** The outcome of a call as one comparable string: 'accepted', a ReMcpError code, or 'raw:<message>'. */
export async function outcomeCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return isReMcpError(error) ? error.code : `raw:${(error as Error).message}`;
  }
  return 'accepted';
}
