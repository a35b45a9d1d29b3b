// Planning a v2 replace-file: a plain NitroFS file replaced by an artifact of any size, appended after
// the source (the FAT points at it); its old bytes are zeroed where nothing else lies.
import type { Steps } from '../../core/cooperative.js';
import type { ManifestOperation } from '../manifest.js';
import { zeroOld } from './old-bytes.js';
import { appendPayload, opError, type PlanState, plannedOn, range, wholeReplacement } from './state.js';

type ReplaceFileOperation = Extract<ManifestOperation, { op: 'replace-file' }>;

export function* planReplaceFile(state: PlanState, o: ReplaceFileOperation): Steps<void> {
  const { c, a, before } = yield* wholeReplacement(state, o);
  if (c.kind !== 'file' || c.fileId === null) {
    opError(
      o,
      'unsupported',
      `${c.label} is not a plain NitroFS file (overlays and executables change size only through their own operations)`,
    );
  }
  appendPayload(state, o.id, c.fileId, a.bytes);
  state.planned.push({
    ...plannedOn(o, c),
    output: range(0, 0), // set once the append layout is known
    length: a.bytes.length,
    replaced: null,
    beforeSha256: before,
    afterSha256: a.sha256,
    oldBytes: zeroOld(state, o.id, c.fileId),
  });
}
