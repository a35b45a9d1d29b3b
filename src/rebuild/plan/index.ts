// Manifest + source model -> the resolved plan: every byte the build will write, attributed to the
// operation or owned metadata rewrite that asks for it. Nothing here touches the filesystem; the
// service hands in a reader over the checked source ROM and the artifacts it has already loaded and
// hashed.
//
// Each operation kind has its planner (patch.ts, replace-component.ts, replace-file.ts,
// replace-overlay.ts, add-file.ts), adding to one plan state (state.ts) in manifest order; then the
// fixed edits are checked for conflicts and the appended bytes laid out (layout.ts), the header is
// rewritten (header.ts) and the build identity computed (identity.ts).
import type { StartupCopies } from '../../analysis/run-address.js';
import { driveSteps, type Steps } from '../../core/cooperative.js';
import { ReMcpError } from '../../core/errors.js';
import type { NdsRomModel } from '../../formats/nds/index.js';
import type { Manifest, ManifestOperation } from '../manifest.js';
import { planAddFile } from './add-file.js';
import { rewriteHeader } from './header.js';
import { buildIdOf, ENGINE } from './identity.js';
import { checkConflicts, layOut } from './layout.js';
import { planPatch } from './patch.js';
import { planReplaceComponent } from './replace-component.js';
import { planReplaceFile } from './replace-file.js';
import { planReplaceOverlay } from './replace-overlay.js';
import { createPlanState, opError, type PlanState, range } from './state.js';
import type { LoadedArtifact, Plan, ResolvedPlan, SourceRead } from './types.js';

export { canonicalJson, ENGINE, normalizeManifest } from './identity.js';
export { APPEND_ALIGN } from './layout.js';
export type * from './types.js';

/**
 * Plans a build without holding the event loop: hashing and BLZ encoding run in slices of at most
 * COOPERATIVE_SLICE_MS, with `signal` checked between them.
 */
export function planRebuild(
  model: NdsRomModel,
  read: SourceRead,
  sourceSize: number,
  sourceSha256: string,
  manifest: Manifest,
  artifacts: ReadonlyMap<string, LoadedArtifact>,
  signal?: AbortSignal,
  copies: ReadonlyMap<'arm9' | 'arm7', StartupCopies> = new Map(),
): Promise<Plan> {
  return driveSteps(planSteps(model, read, sourceSize, sourceSha256, manifest, artifacts, signal, copies), {
    signal,
  });
}

/** One operation, by its planner. */
function* planOperation(state: PlanState, o: ManifestOperation): Steps<void> {
  switch (o.op) {
    case 'patch':
      return yield* planPatch(state, o);
    case 'replace-component':
      return yield* planReplaceComponent(state, o);
    case 'replace-file':
      return yield* planReplaceFile(state, o);
    case 'replace-overlay':
      return yield* planReplaceOverlay(state, o);
    case 'add-file':
      return planAddFile(state, o);
  }
}

/** planRebuild's work as steps (its arguments; the signal is driveSteps'). */
function* planSteps(
  ...[model, read, sourceSize, sourceSha256, manifest, artifacts, , copies]: Parameters<typeof planRebuild>
): Steps<Plan> {
  if (manifest.source.sha256 !== sourceSha256 || manifest.source.size !== sourceSize) {
    throw new ReMcpError('invalid-argument', 'the manifest names another source ROM', {
      expected: manifest.source,
      actual: { sha256: sourceSha256, size: sourceSize },
    });
  }
  const ids = new Set<string>();
  for (const o of manifest.operations) {
    if (ids.has(o.id)) opError(o, 'invalid-argument', 'the operation id is used twice');
    ids.add(o.id);
  }
  const state = createPlanState(model, read, sourceSize, artifacts, copies);
  for (const o of manifest.operations) yield* planOperation(state, o);

  checkConflicts(state.fixed);
  const layout = layOut(state);
  const header = rewriteHeader(state, layout);
  const fixed = state.fixed;
  if (header.piece !== null) fixed.push(header.piece);
  fixed.sort((x, y) => x.offset - y.offset);
  const all = [...fixed, ...layout.pieces].sort((x, y) => x.offset - y.offset);

  const finalFat = state.fatChanged ? state.fat : state.fatRaw;
  const resolved: ResolvedPlan = {
    engine: ENGINE,
    formatVersion: manifest.formatVersion,
    buildId: buildIdOf(manifest, state.planned),
    source: { sha256: sourceSha256, size: sourceSize },
    output: { size: layout.outputSize, romName: 'rebuilt.nds' },
    operations: state.planned,
    headerRewrite: header.fields,
    tables: layout.tables,
    overlayRecords: state.overlayRecords,
    fat: finalFat.map((e) => range(e.start, e.end)),
    deviceCapacity: header.deviceCapacity,
  };
  return {
    resolved,
    pieces: all,
    ownedPrefix: fixed.map((p) => ({ start: p.offset, end: p.offset + p.bytes.length, owner: p.owner })),
  };
}
