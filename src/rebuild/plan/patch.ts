// Planning a patch: a guarded byte edit of a component stored uncompressed, in place. The bytes there
// must be `original`; optional guards pin the component's SHA-256 and the runtime address the first
// edited byte loads at.
import type { Steps } from '../../core/cooperative.js';
import { formatAddress } from '../../core/vocabulary.js';
import { resolveRomOffset } from '../../formats/nds/index.js';
import type { ManifestOperation } from '../manifest.js';
import { componentHash, componentOf, opError, type PlanState, plannedOn, range, sha } from './state.js';

type PatchOperation = Extract<ManifestOperation, { op: 'patch' }>;

const hex = (s: string) => Uint8Array.from(s.match(/../g)!.map((x) => Number.parseInt(x, 16)));

export function* planPatch(state: PlanState, o: PatchOperation): Steps<void> {
  const { model, read } = state;
  const c = componentOf(model, o);
  if (c.compressed)
    opError(o, 'unsupported', `${c.label} is stored compressed; a byte edit of it is refused`);
  const original = hex(o.original);
  const replacement = hex(o.replacement);
  if (original.length !== replacement.length)
    opError(o, 'invalid-argument', 'original and replacement differ in length');
  const size = c.rom.end - c.rom.start;
  if (o.offset + original.length > size) {
    opError(
      o,
      'invalid-argument',
      `offset ${formatAddress(o.offset)} + ${original.length} lies outside ${c.label} (${size} bytes)`,
    );
  }
  if (c.fileId !== null && state.touchedFiles.has(c.fileId))
    opError(o, 'invalid-argument', `${c.label} is replaced by another operation`);
  const start = c.rom.start + o.offset;
  const now = read(start, original.length);
  if (sha(now) !== sha(original)) {
    opError(o, 'invalid-argument', 'the original-byte guard failed: the ROM holds other bytes there', {
      expected: o.original.toLowerCase(),
      actual: Buffer.from(now).toString('hex'),
    });
  }
  if (o.componentSha256 !== undefined && (yield* componentHash(state, c)) !== o.componentSha256) {
    opError(o, 'invalid-argument', `the component guard failed: ${c.label} has another SHA-256`);
  }
  if (o.runtimeAddress !== undefined) {
    const owners = resolveRomOffset(model, start);
    if (!owners.some((r) => r.runtimeAddress === o.runtimeAddress)) {
      const loads = [
        ...new Set(owners.flatMap((r) => (typeof r.runtimeAddress === 'number' ? [r.runtimeAddress] : []))),
      ];
      // Bytes the start-up copies elsewhere are guarded where they load, not where they run.
      opError(
        o,
        'invalid-argument',
        `the runtime guard failed: ROM offset ${formatAddress(start)} does not load at ${formatAddress(o.runtimeAddress)}${
          loads.length > 0
            ? ` (it loads at ${loads.map(formatAddress).join(', ')}; code the start-up copies is guarded where it loads, nds_resolve_rom_offset gives both)`
            : ''
        }`,
      );
    }
  }
  state.fixed.push({ offset: start, bytes: replacement, owner: o.id });
  state.planned.push({
    ...plannedOn(o, c),
    output: range(start, start + replacement.length),
    length: replacement.length,
    replaced: range(start, start + original.length),
    beforeSha256: sha(original),
    afterSha256: sha(replacement),
  });
}
