// What a patch decoder asks of whoever drives it. The decoders (decodeBps, decodeIps) are generators
// that make the target front to back and never hold it: they yield requests, and a driver answers them
// — from memory (applyBps, the rebuild's patch check) or from files, writing what is emitted as it comes
// (src/rebuild/apply-stream.ts). The formats stay pure: every read and write is the driver's.

/**
 * One request:
 * - `source`: source bytes [offset, offset + length); the answer holds at least `length` bytes from
 *   `offset` (it may hold more: the decoder serves later reads inside it without asking) and stays
 *   valid until the next `source` request.
 * - `target`: target bytes already emitted, [offset, offset + length); the answer holds exactly
 *   `length` bytes and stays valid until the next request of any kind.
 * - `emit`: the next target bytes, at `offset` (each emit continues where the last ended); `bytes`
 *   is the decoder's buffer, valid until it is resumed: copy what is kept.
 * - `pause`: a step boundary (after a bounded piece of work), where a driver may give its event loop a
 *   turn and check for cancellation.
 */
export type PatchRequest =
  | { kind: 'source'; offset: number; length: number }
  | { kind: 'target'; offset: number; length: number }
  | { kind: 'emit'; offset: number; bytes: Uint8Array }
  | { kind: 'pause' };

/** A decoder: yields requests, is resumed with the bytes a `source` or `target` request asked for. */
export type PatchDecoder<T> = Generator<PatchRequest, T, Uint8Array | undefined>;

export const PAUSE: PatchRequest = { kind: 'pause' };

/** Answers a decoder's requests synchronously, from memory. */
export interface PatchIo {
  /** Source bytes [offset, offset + length) (the decoder bounds reads to the source's size). */
  readSource(offset: number, length: number): Uint8Array;
  /** Target bytes emitted before, [offset, offset + length). */
  readTarget(offset: number, length: number): Uint8Array;
  /** The next target bytes, in order; `bytes` may be a reused buffer: copy what is kept. */
  emit(bytes: Uint8Array): void;
}

/** Runs a decoder to its end, answering its requests through `io` (pauses are passed over). */
export function runDecoder<T>(decoder: PatchDecoder<T>, io: PatchIo): T {
  let answer: Uint8Array | undefined;
  for (;;) {
    const r = decoder.next(answer);
    if (r.done) return r.value;
    const q = r.value;
    answer = undefined;
    if (q.kind === 'source') answer = io.readSource(q.offset, q.length);
    else if (q.kind === 'target') answer = io.readTarget(q.offset, q.length);
    else if (q.kind === 'emit') io.emit(q.bytes);
  }
}

/** The answer to a request, checked to hold what was asked (a driver's mistake is an error, not bytes). */
export function answered(answer: Uint8Array | undefined, length: number, exact: boolean): Uint8Array {
  if (!(answer instanceof Uint8Array) || answer.length < length || (exact && answer.length !== length))
    throw new RangeError(
      `a patch request for ${length} bytes was answered with ${answer?.length ?? 'nothing'}`,
    );
  return answer;
}
