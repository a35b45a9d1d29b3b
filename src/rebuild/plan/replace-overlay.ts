// Planning a v2 replace-overlay: an overlay's decoded (runtime) image, BLZ-recompressed when the
// overlay is stored compressed, appended after the source; the overlay's record in a rebuilt overlay
// table gets the new sizes and flags, and its old stored bytes are zeroed where nothing else lies.
import type { Steps } from '../../core/cooperative.js';
import { formatAddress } from '../../core/vocabulary.js';
import { blzEncodeSteps, blzParseFooter } from '../../formats/blz/index.js';
import { parseRawOverlayTable } from '../../formats/nds/raw/overlay-table.js';
import type { ManifestOperation } from '../manifest.js';
import { zeroOld } from './old-bytes.js';
import {
  appendPayload,
  artifactOf,
  componentOf,
  guardedHash,
  opError,
  type PlanState,
  range,
  sha,
} from './state.js';

type ReplaceOverlayOperation = Extract<ManifestOperation, { op: 'replace-overlay' }>;

/** The processor's overlay table as it will be, read from the source on first use. */
function overlayTable(state: PlanState, processor: 'arm9' | 'arm7') {
  let table = state.overlayTables[processor];
  if (table === undefined) {
    const region = state.model.header[processor === 'arm9' ? 'arm9OverlayTable' : 'arm7OverlayTable'];
    table = parseRawOverlayTable(state.read(region.start, region.end - region.start));
    state.overlayTables[processor] = table;
  }
  return table;
}

export function* planReplaceOverlay(state: PlanState, o: ReplaceOverlayOperation): Steps<void> {
  const { model } = state;
  const c = componentOf(model, { id: o.id, component: { kind: 'overlay', ...o.overlay } });
  const ov = model.overlays[o.overlay.processor].find((x) => x.id === o.overlay.id)!;
  const a = artifactOf(state, o);
  const before = yield* guardedHash(state, o, c);
  // The image may change size inside the overlay's runtime range: its BSS absorbs the difference,
  // so [ramAddress, ramAddress + ramSize + bssSize) stays where it was (no new overlap with other
  // overlays or the ARM9), and the static-initializer list must lie inside the new image.
  const runtimeSize = ov.ramSize + ov.bssSize;
  const resized = a.bytes.length !== ov.ramSize;
  if (resized && (a.bytes.length > runtimeSize || a.bytes.length === 0 || a.bytes.length % 4 !== 0)) {
    opError(
      o,
      'invalid-argument',
      `the decoded image is ${a.bytes.length} bytes; ${c.label} needs a non-empty multiple of 4 of at most ${runtimeSize} (its RAM size ${ov.ramSize} plus BSS ${ov.bssSize}: its runtime range may not change)`,
    );
  }
  const imageEnd = ov.ramAddress + a.bytes.length;
  const init = ov.staticInit;
  if (resized && init.end > init.start && (init.start < ov.ramAddress || init.end > imageEnd)) {
    opError(
      o,
      'invalid-argument',
      `the static-initializer list ${formatAddress(init.start)}..${formatAddress(init.end)} would lie outside the new image (${formatAddress(ov.ramAddress)}..${formatAddress(imageEnd)}): its runtime range may not change`,
    );
  }
  const ramSize = a.bytes.length;
  const bssSize = runtimeSize - ramSize;
  if (state.touchedFiles.has(ov.fileId)) opError(o, 'invalid-argument', `${c.label} is replaced twice`);
  state.touchedFiles.add(ov.fileId);
  let stored = a.bytes;
  let flags = ov.flags;
  let compressedSize = ov.compressedSize;
  if (ov.compressed) {
    let blob = state.encoded.get(a.sha256);
    if (blob === undefined) {
      blob = yield* blzEncodeSteps(a.bytes);
      state.encoded.set(a.sha256, blob);
    }
    if (blzParseFooter(blob).coded) {
      stored = blob;
      compressedSize = blob.length;
    } else {
      // A "not coded" result must be stored plain: the console would read its last word as a footer.
      flags &= ~1;
      compressedSize = 0;
    }
  }
  const processor = o.overlay.processor;
  const table = overlayTable(state, processor);
  table[ov.tableIndex] = { ...table[ov.tableIndex]!, flags, compressedSize, ramSize, bssSize };
  state.overlayRecords.push({
    processor,
    id: ov.id,
    tableIndex: ov.tableIndex,
    compressedSize,
    flags,
    ramSize,
    bssSize,
  });
  appendPayload(state, o.id, ov.fileId, stored);
  state.planned.push({
    id: o.id,
    op: o.op,
    component: c.label,
    fileId: ov.fileId,
    path: c.path,
    output: range(0, 0),
    length: stored.length,
    replaced: null,
    beforeSha256: before,
    afterSha256: sha(stored),
    decodedSha256: a.sha256,
    oldBytes: zeroOld(state, o.id, ov.fileId),
  });
}
