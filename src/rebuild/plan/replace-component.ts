// Planning a v1 replace-component: a whole component replaced in place by an artifact of exactly its
// size, guarded by the component's current SHA-256.
import type { Steps } from '../../core/cooperative.js';
import type { ManifestOperation } from '../manifest.js';
import { opError, type PlanState, plannedOn, range, wholeReplacement } from './state.js';

type ReplaceComponentOperation = Extract<ManifestOperation, { op: 'replace-component' }>;

export function* planReplaceComponent(state: PlanState, o: ReplaceComponentOperation): Steps<void> {
  const { c, a, before } = yield* wholeReplacement(state, o);
  const size = c.rom.end - c.rom.start;
  if (a.bytes.length !== size) {
    opError(
      o,
      'invalid-argument',
      `exact-size replacement: the artifact is ${a.bytes.length} bytes, ${c.label} is ${size}`,
    );
  }
  state.fixed.push({ offset: c.rom.start, bytes: a.bytes, owner: o.id });
  state.planned.push({
    ...plannedOn(o, c),
    output: range(c.rom.start, c.rom.end),
    length: size,
    replaced: range(c.rom.start, c.rom.end),
    beforeSha256: before,
    afterSha256: a.sha256,
  });
}
