// The state every operation's planner adds to (fixed edits, appended payloads, the FAT, FNT records and
// overlay tables as they will be, the operations as planned), and the guards and look-ups the
// planners share: component resolution, artifact checks, component hashes (each component hashed once
// per plan), whole-component replacement.
import { createHash } from 'node:crypto';
import type { StartupCopies } from '../../analysis/run-address.js';
import type { Steps } from '../../core/cooperative.js';
import { ReMcpError } from '../../core/errors.js';
import { formatAddress } from '../../core/vocabulary.js';
import type { NdsRomModel } from '../../formats/nds/index.js';
import { parseRawFat, type RawFatEntry } from '../../formats/nds/raw/fat.js';
import type { FntDirectoryRecord } from '../../formats/nds/raw/fnt.js';
import type { RawOverlayEntry } from '../../formats/nds/raw/overlay-table.js';
import { type ModelComponent, resolveComponent } from '../../formats/nds/selectors.js';
import type { LoadedArtifact, Piece, PlannedOperation, ResolvedPlan, SourceRead } from './types.js';

export interface PlanState {
  readonly model: NdsRomModel;
  readonly read: SourceRead;
  readonly sourceSize: number;
  readonly artifacts: ReadonlyMap<string, LoadedArtifact>;
  /** Edits inside the source prefix (patches, exact-size replacements, zeroed old payloads). */
  readonly fixed: Piece[];
  /** The operations in manifest order; an appended payload's output range is set by the layout. */
  readonly planned: PlannedOperation[];
  /** Component SHA-256 by ROM range: each component is hashed once, however many operations guard it. */
  readonly hashes: Map<string, string>;
  /** BLZ encodings by image SHA-256: each distinct image is encoded once. */
  readonly encoded: Map<string, Uint8Array>;
  /** The FAT as stored. */
  readonly fatRaw: readonly RawFatEntry[];
  /** The FAT as it will be (appended payloads get their range from the layout). */
  readonly fat: RawFatEntry[];
  fatChanged: boolean;
  /** The FNT records, read when an operation changes the tree; null while none has. */
  fntDirs: FntDirectoryRecord[] | null;
  /** Payloads appended after the source, in operation order. */
  readonly appended: Array<{ bytes: Uint8Array; owner: string; fileId: number }>;
  /** File IDs a replacement already owns. */
  readonly touchedFiles: Set<number>;
  /** Overlay tables read when an overlay record changes, by processor. */
  readonly overlayTables: Partial<Record<'arm9' | 'arm7', RawOverlayEntry[]>>;
  readonly overlayRecords: ResolvedPlan['overlayRecords'];
  /**
   * The start-up copies of the processors whose main executable a patch guards at another address
   * than where its bytes load (a run address proven by a copy); empty when none was asked.
   */
  readonly copies: ReadonlyMap<'arm9' | 'arm7', StartupCopies>;
}

export function createPlanState(
  model: NdsRomModel,
  read: SourceRead,
  sourceSize: number,
  artifacts: ReadonlyMap<string, LoadedArtifact>,
  copies: ReadonlyMap<'arm9' | 'arm7', StartupCopies> = new Map(),
): PlanState {
  const fatRaw = parseRawFat(read(model.header.fat.start, model.header.fat.end - model.header.fat.start));
  return {
    model,
    read,
    sourceSize,
    artifacts,
    fixed: [],
    planned: [],
    hashes: new Map(),
    encoded: new Map(),
    fatRaw,
    fat: fatRaw.map((e) => ({ ...e })),
    fatChanged: false,
    fntDirs: null,
    appended: [],
    touchedFiles: new Set(),
    overlayTables: {},
    overlayRecords: [],
    copies,
  };
}

export const sha = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');
export const range = (start: number, end: number) => ({
  start: formatAddress(start),
  end: formatAddress(end),
});

/** Refuses operation `op` with a typed error naming it. */
export function opError(
  op: { id: string },
  code: 'invalid-argument' | 'unsupported' | 'not-found' | 'limit-exceeded',
  message: string,
  details = {},
): never {
  throw new ReMcpError(code, `operation "${op.id}": ${message}`, { operation: op.id, ...details });
}

/** The component an operation names, a failed look-up refused as that operation's error. */
export function componentOf(
  model: NdsRomModel,
  op: { id: string; component: Parameters<typeof resolveComponent>[1] },
): ModelComponent {
  try {
    return resolveComponent(model, op.component);
  } catch (error) {
    if (error instanceof ReMcpError)
      opError(op, error.code === 'not-found' ? 'not-found' : 'invalid-argument', error.message);
    throw error;
  }
}

/** The loaded artifact an operation names; it must have the SHA-256 the manifest says. */
export function artifactOf(
  state: PlanState,
  o: { id: string; artifact: string; artifactSha256: string },
): LoadedArtifact {
  const a = state.artifacts.get(o.artifact);
  if (!a) opError(o, 'not-found', 'its artifact was not loaded');
  if (a.sha256 !== o.artifactSha256) {
    opError(o, 'invalid-argument', 'the artifact SHA-256 differs from the manifest', {
      expected: o.artifactSha256,
      actual: a.sha256,
    });
  }
  return a;
}

/** SHA-256 of a source range, read in bounded chunks (a yield after each). */
function* hashRangeSteps(read: SourceRead, start: number, end: number): Steps<string> {
  const h = createHash('sha256');
  for (let at = start; at < end; at += 1 << 20) {
    h.update(read(at, Math.min(1 << 20, end - at)));
    yield;
  }
  return h.digest('hex');
}

/** The SHA-256 of a component as stored, hashed on first use. */
export function* componentHash(state: PlanState, c: ModelComponent): Steps<string> {
  const key = `${c.rom.start}:${c.rom.end}`;
  let h = state.hashes.get(key);
  if (h === undefined) {
    h = yield* hashRangeSteps(state.read, c.rom.start, c.rom.end);
    state.hashes.set(key, h);
  }
  return h;
}

/** The current SHA-256 of a component a whole replacement targets: it must be the manifest's guard. */
export function* guardedHash(
  state: PlanState,
  op: { id: string; componentSha256: string },
  c: ModelComponent,
): Steps<string> {
  const before = yield* componentHash(state, c);
  if (before !== op.componentSha256)
    opError(op, 'invalid-argument', `the component guard failed: ${c.label} has another SHA-256`, {
      expected: op.componentSha256,
      actual: before,
    });
  return before;
}

/**
 * The common part of replace-component and replace-file: the component, the artifact and the
 * component guard; a file becomes owned by the operation (a second replacement is refused).
 */
export function* wholeReplacement(
  state: PlanState,
  o: {
    id: string;
    component: Parameters<typeof resolveComponent>[1];
    artifact: string;
    artifactSha256: string;
    componentSha256: string;
  },
): Steps<{ c: ModelComponent; a: LoadedArtifact; before: string }> {
  const c = componentOf(state.model, o);
  const a = artifactOf(state, o);
  const before = yield* guardedHash(state, o, c);
  if (c.fileId !== null) {
    if (state.touchedFiles.has(c.fileId)) opError(o, 'invalid-argument', `${c.label} is replaced twice`);
    state.touchedFiles.add(c.fileId);
  }
  return { c, a, before };
}

/** What every planned operation on an existing component starts with: which operation, on what. */
export function plannedOn(
  o: { id: string; op: PlannedOperation['op'] },
  c: Pick<ModelComponent, 'label' | 'fileId' | 'path'>,
): Pick<PlannedOperation, 'id' | 'op' | 'component' | 'fileId' | 'path'> {
  return { id: o.id, op: o.op, component: c.label, fileId: c.fileId, path: c.path };
}

/** Queues `bytes` as file `fileId`'s new payload, appended after the source (the FAT changes). */
export function appendPayload(state: PlanState, owner: string, fileId: number, bytes: Uint8Array): void {
  state.appended.push({ bytes, owner, fileId });
  state.fatChanged = true;
}
